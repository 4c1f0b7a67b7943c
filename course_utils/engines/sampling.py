"""Model calls of the engines: ``n`` samples of one conversation, with real usage and timing.

``sample(messages, n)`` asks for ``n`` completions in **one request** (``n=``) — the offline
model, OpenAI and vLLM honour it, and the prompt is billed once; above ``per_request`` (8, the
offline model's limit) the samples come in chunks of 8, one request after the other. Backends
that ignore ``n`` (Ollama, many OpenRouter models) return fewer choices: the missing samples are
then requested one at a time through a small bounded thread pool (``max_workers``, 4 by
default), so a laptop does not fire 32 requests at once. Reasoning models (``o3``,
``gpt-5``...) refuse a temperature other than 1: it is dropped for them by
:func:`course_utils.llm.normalize_params`.

Tokens come from each response's ``usage`` (one per request, whatever ``n``). A 200 without
``choices`` counts as empty samples; provider errors (refused key, persistent 429) are raised as
``LLMError`` with a French message, as everywhere in the package.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import openai

from .. import llm
from ..usage import Usage

MAX_N = 8  # choices per request: the offline model's limit (as several providers'), chunked above


@dataclass(frozen=True)
class Samples:
    """``texts`` (one per sample, ``""`` when empty), summed ``usage``, requests and seconds."""

    texts: tuple[str, ...]
    usage: Usage
    requests: int
    seconds: float


def resolve(client: Any = None, model: str | None = None) -> tuple[Any, str]:
    """The client and model an engine uses: given ones, else those of ``setup()``."""
    client = client or llm.default_client()
    if model is None:
        model = ("offline-fast" if llm.backend_of(client) == "offline"
                 else llm.default_settings().model)
    return client, model


def _create(client: Any, model: str, messages: list[dict], n: int, temperature: float | None,
            max_tokens: int | None, seed: int | None) -> tuple[list[str], Usage]:
    backend = llm.backend_of(client)
    request: dict[str, Any] = {"model": model, "messages": messages}
    request.update(llm.normalize_params(backend, model, temperature=temperature,
                                        max_tokens=max_tokens))
    if n > 1:
        request["n"] = n
    if seed is not None:
        request["seed"] = seed
    try:
        completion = client.chat.completions.create(**request)
    except openai.OpenAIError as exc:
        raise llm.explain_error(exc, backend=backend, model=model) from exc
    usage = Usage.from_api(getattr(completion, "usage", None))
    texts = [(choice.message.content or "") if choice.message is not None else ""
             for choice in (completion.choices or [])]
    return texts, usage


def sample(messages: list[dict], n: int = 1, *, client: Any = None, model: str | None = None,
           temperature: float | None = None, max_tokens: int | None = None,
           seed: int | None = None, max_workers: int = 4, per_request: int = MAX_N) -> Samples:
    """``n`` completions of ``messages`` (see the module docstring)."""
    client, model = resolve(client, model)
    start = time.perf_counter()
    first = min(n, per_request)
    texts, usage = _create(client, model, messages, first, temperature, max_tokens, seed)
    requests = 1
    if len(texts) >= first:
        # ``n`` honoured: the rest in chunks of ``per_request``, one after the other, so that the
        # order of the samples (hence the tie-breaks of the engines) is reproducible.
        while len(texts) < n:
            more, more_usage = _create(client, model, messages, min(n - len(texts), per_request),
                                       temperature, max_tokens, seed)
            requests += 1
            usage = usage + more_usage
            if not more:
                break
            texts.extend(more)
    missing = n - len(texts)
    if missing > 0 and n > 1:
        # The backend ignored ``n`` (or answered without choices): one request per sample.
        with ThreadPoolExecutor(max_workers=max(1, min(max_workers, missing))) as pool:
            futures = [pool.submit(_create, client, model, messages, 1, temperature, max_tokens,
                                   seed) for _ in range(missing)]
            for future in futures:
                more, more_usage = future.result()
                texts.extend(more[:1] or [""])
                usage = usage + more_usage
                requests += 1
    texts = (texts + [""] * n)[:n]
    return Samples(tuple(texts), usage, requests, time.perf_counter() - start)
