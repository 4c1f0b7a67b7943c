"""Offline embeddings: deterministic feature hashing, no model weights.

A text becomes a ``DIMENSIONS``-dimensional vector: its normalised words (``course_utils.text``:
lowercased, accents folded, stop words dropped, stemmed) and the
character trigrams of those words are hashed (BLAKE2b, stable across processes) to a signed bucket;
the vector is L2-normalised. Texts that share words or word pieces therefore have a higher cosine
similarity than texts that share none — enough to demonstrate retrieval, with no notion of meaning
(synonyms do not match). ``dimensions`` in the request picks a smaller size.
"""

from __future__ import annotations

import base64
import hashlib
import math
import struct
from typing import Any

from ..text import content_words, stem
from .errors import ApiError
from .tokens import estimate_tokens

DIMENSIONS = 256
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.35
MAX_INPUTS = 2048


def normalise_words(text: str) -> list[str]:
    """Stemmed content words of ``text`` (``course_utils.text``)."""
    return [stem(word) for word in content_words(text)]


def _bucket(feature: str, dims: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    number = int.from_bytes(digest, "big")
    return number % dims, (1.0 if number >> 63 else -1.0)


def embed(text: str, dims: int = DIMENSIONS) -> list[float]:
    """The unit-norm vector of ``text`` (all zeros only for a text without any letter/digit)."""
    vector = [0.0] * dims
    for word in normalise_words(text):
        index, sign = _bucket("w:" + word, dims)
        vector[index] += sign * WORD_WEIGHT
        padded = f"<{word}>"
        for start in range(len(padded) - 2):
            index, sign = _bucket("t:" + padded[start : start + 3], dims)
            vector[index] += sign * TRIGRAM_WEIGHT
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0:
        return vector
    return [value / norm for value in vector]


def is_embedding_model(model: str, available: tuple[str, ...]) -> bool:
    """``offline-embed`` or any other offline name containing ``embed``."""
    return model in available or (model.startswith("offline-") and "embed" in model)


def _inputs(body: dict) -> list[str]:
    raw = body.get("input")
    if raw is None:
        raise ApiError(400, "Missing required parameter: 'input'.", param="input",
                       code="missing_required_parameter")
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not items:
        raise ApiError(400, "'$.input' is invalid. Please check the API reference: "
                       "https://platform.openai.com/docs/api-reference.", param="input")
    if len(items) > MAX_INPUTS:
        raise ApiError(400, f"'$.input' is too long: at most {MAX_INPUTS} inputs per request.",
                       param="input")
    for item in items:
        if not isinstance(item, str):
            raise ApiError(
                400,
                "Le modèle d'embeddings hors ligne n'accepte que du texte (str ou liste de str), "
                "pas de jetons. / Offline embeddings accept text input only.",
                param="input",
            )
        if not item:
            raise ApiError(400, "'$.input' is invalid: empty strings are not allowed.",
                           param="input")
    return items


def _encode(vector: list[float], encoding: str) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector


def embeddings_response(body: dict, available: tuple[str, ...]) -> dict[str, Any]:
    """Answer a ``POST /embeddings`` body (``ApiError`` 400 when it is invalid)."""
    model = body.get("model")
    if not isinstance(model, str) or not is_embedding_model(model, available):
        raise ApiError(
            400,
            f"The model `{model}` does not exist or you do not have access to it. Offline "
            f"embedding models: {', '.join(available)}.",
            param="model",
            code="model_not_found",
        )
    encoding = body.get("encoding_format") or "float"
    if encoding not in ("float", "base64"):
        raise ApiError(400, f"Invalid value: '{encoding}'. Supported values are: 'float' and "
                       "'base64'.", param="encoding_format", code="invalid_value")
    dims = body.get("dimensions") or DIMENSIONS
    if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= DIMENSIONS:
        raise ApiError(400, f"Invalid 'dimensions': expected an integer between 1 and "
                       f"{DIMENSIONS}, got {dims!r}.", param="dimensions")
    texts = _inputs(body)
    data = [
        {"object": "embedding", "index": index, "embedding": _encode(embed(text, dims), encoding)}
        for index, text in enumerate(texts)
    ]
    tokens = sum(estimate_tokens(text) for text in texts)
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
