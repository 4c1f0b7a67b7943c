"""Embedders: text → unit-norm float32 vectors, one interface for every backend.

An embedder has a ``name`` (stored with a memory, so a store is never read with another
embedder), a ``dim`` and ``embed(texts) -> np.ndarray`` of shape ``(len(texts), dim)``, float32,
each row of norm 1 (a text without any word gives a row of zeros, which matches nothing).

* ``HashingEmbedder`` — the offline default: deterministic feature hashing of words and character
  trigrams (the same vectors as the offline simulator's ``/v1/embeddings``), no weights, no
  network. Lexical only: texts that share words or word pieces are close; synonyms are not.
* ``OpenAIEmbedder`` — any OpenAI-compatible ``/v1/embeddings`` (OpenAI, OpenRouter, Ollama, vLLM,
  the offline simulator) through the course's client, batched; a backend without embeddings gives
  a French message that says what to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

# The hashing scheme lives with the offline simulator's /v1/embeddings; reusing it keeps
# HashingEmbedder and the simulator's embeddings bit for bit identical.
from ..offline.embeddings import DIMENSIONS as _HASH_DIMENSIONS
from ..offline.embeddings import embed as _hash_embed


class EmbeddingError(RuntimeError):
    """The embeddings backend failed; the message (French) says what to change."""


@runtime_checkable
class Embedder(Protocol):
    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _as_texts(texts: Sequence[str] | str) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"embed() attend des textes (str), reçu {type(item).__name__}")
    return items


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm (rows of zeros stay zeros), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


class HashingEmbedder:
    """Feature hashing of normalised words (weight 1) and their character trigrams (0.35).

    ``dim`` — number of buckets (1 to 256; 256 by default). Deterministic across processes and
    machines (BLAKE2b), so a store written today is read identically tomorrow.
    """

    def __init__(self, dim: int = _HASH_DIMENSIONS):
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= _HASH_DIMENSIONS:
            raise ValueError(f"dim doit être un entier entre 1 et {_HASH_DIMENSIONS}, reçu {dim!r}")
        self._dim = dim
        self.name = f"hashing-{dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str] | str) -> np.ndarray:
        items = _as_texts(texts)
        if not items:
            return np.zeros((0, self._dim), dtype=np.float32)
        return np.asarray([_hash_embed(text, self._dim) for text in items], dtype=np.float32)

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self._dim})"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint.

    ``client`` — an ``openai.OpenAI`` client (default: the course's, from ``setup()``);
    ``model`` — default ``COURSE_EMBEDDING_MODEL`` from the settings (``offline-embed`` offline);
    ``batch_size`` — texts per request; ``dimensions`` — asked of models that can shorten vectors.
    ``dim`` is learnt from the first answer (one small request if it is asked before any).
    """

    def __init__(
        self,
        client: Any = None,
        model: str | None = None,
        *,
        batch_size: int = 128,
        dimensions: int | None = None,
    ):
        if batch_size < 1:
            raise ValueError("batch_size doit être ≥ 1")
        if client is None:
            from ..llm import default_client

            client = default_client()
        if model is None:
            from ..llm import default_settings

            model = default_settings().embedding_model
        self.client = client
        self.model = model
        self.batch_size = batch_size
        self.dimensions = dimensions
        self.requests = 0
        self.prompt_tokens = 0
        self._dim: int | None = dimensions
        self.name = f"openai:{model}" + (f":{dimensions}" if dimensions else "")

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension"])
        assert self._dim is not None
        return self._dim

    def _request(self, batch: list[str]) -> list[list[float]]:
        from ..llm import backend_of

        options: dict[str, Any] = {"encoding_format": "float"}
        if self.dimensions:
            options["dimensions"] = self.dimensions
        try:
            response = self.client.embeddings.create(model=self.model, input=batch, **options)
        except Exception as exc:  # noqa: BLE001 — every SDK failure becomes a French message
            raise _explain(exc, backend_of(self.client), self.model) from exc
        self.requests += 1
        usage = getattr(response, "usage", None)
        self.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        data = sorted(response.data or [], key=lambda item: item.index)
        if len(data) != len(batch):
            raise EmbeddingError(
                f"le serveur d'embeddings a renvoyé {len(data)} vecteurs pour {len(batch)} textes "
                f"(modèle « {self.model} »)."
            )
        return [list(item.embedding) for item in data]

    def embed(self, texts: Sequence[str] | str) -> np.ndarray:
        items = _as_texts(texts)
        if not items:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            # Servers refuse empty strings; a text without content embeds as a single space.
            batch = [text if text.strip() else " " for text in items[start : start + self.batch_size]]
            rows.extend(self._request(batch))
        matrix = normalise_rows(np.asarray(rows, dtype=np.float32))
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        elif matrix.shape[1] != self._dim:
            raise EmbeddingError(
                f"le modèle « {self.model} » a renvoyé des vecteurs de dimension {matrix.shape[1]}, "
                f"{self._dim} attendue."
            )
        return matrix

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, batch_size={self.batch_size})"


def _explain(exc: BaseException, backend: str, model: str) -> EmbeddingError:
    import openai

    fix = (
        "choisissez un modèle d'embeddings avec COURSE_EMBEDDING_MODEL dans .env, ou utilisez "
        "HashingEmbedder() (hors ligne, sans réseau)."
    )
    status = getattr(exc, "status_code", None)
    detail = getattr(exc, "message", None) or str(exc)
    if status in (404, 405, 501) or getattr(exc, "code", None) == "model_not_found":
        return EmbeddingError(
            f"le backend {backend} ne fournit pas d'embeddings avec le modèle « {model} » "
            f"({status}) : {fix} Détail : {detail}"
        )
    if isinstance(exc, openai.BadRequestError):
        return EmbeddingError(
            f"requête d'embeddings refusée par {backend} (400) avec le modèle « {model} » : si ce "
            f"n'est pas un modèle d'embeddings, {fix} Détail : {detail}"
        )
    from ..llm import explain_error

    return EmbeddingError(f"embeddings indisponibles : {explain_error(exc, backend=backend, model=model)}")
