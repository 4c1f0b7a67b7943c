"""Token usage: what the provider bills, summed per model.

``Usage`` is read from the provider's own ``usage`` object (never estimated from a word count);
``UsageLedger`` sums it per model. Every client built by :func:`course_utils.llm.make_client`
records its answers in the *session ledger* (one per process) through an HTTP response hook;
when ``COURSE_USAGE_FILE`` is set (the course runner sets it) the ledger is also written there,
so the runner can report model calls and tokens per notebook.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token usage as reported by the provider (``calls`` counts the requests summed)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(*(a + b for a, b in zip(self._values(), other._values())))

    def _values(self) -> tuple[int, ...]:
        return (
            self.prompt_tokens,
            self.completion_tokens,
            self.reasoning_tokens,
            self.total_tokens,
            self.calls,
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        """Read an SDK ``CompletionUsage`` (or a dict); no usage gives zero tokens, one call."""
        if usage is None:
            return cls(calls=1)
        if not isinstance(usage, dict):
            usage = usage.model_dump() if hasattr(usage, "model_dump") else vars(usage)
        details = usage.get("completion_tokens_details") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        return cls(
            prompt_tokens=prompt,
            completion_tokens=completion,
            reasoning_tokens=int(details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or prompt + completion),
            calls=1,
        )


class UsageLedger:
    """Sums real ``usage`` per model: prompt, completion and reasoning tokens, and calls."""

    def __init__(self) -> None:
        self._by_model: dict[str, Usage] = {}
        self._lock = threading.Lock()

    def record(self, model: str, usage: Usage | Any) -> None:
        if not isinstance(usage, Usage):
            usage = Usage.from_api(usage)
        with self._lock:
            self._by_model[model] = self._by_model.get(model, Usage()) + usage

    def record_result(self, result: Any) -> None:
        """Record a ``ChatResult`` (its model and usage)."""
        self.record(result.model, result.usage)

    @property
    def by_model(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._by_model)

    @property
    def total(self) -> Usage:
        return sum(self.by_model.values(), Usage())

    @property
    def calls(self) -> int:
        return self.total.calls

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {model: usage.to_dict() for model, usage in sorted(self.by_model.items())}

    def summary(self) -> str:
        rows = [("modèle", "appels", "entrée", "sortie", "raisonnement", "total")]
        for model, u in sorted(self.by_model.items()):
            rows.append(
                (model, u.calls, u.prompt_tokens, u.completion_tokens, u.reasoning_tokens,
                 u.total_tokens)
            )
        t = self.total
        rows.append(("TOTAL", t.calls, t.prompt_tokens, t.completion_tokens, t.reasoning_tokens,
                     t.total_tokens))
        widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths)))
            for row in rows
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        t = self.total
        return f"UsageLedger(calls={t.calls}, total_tokens={t.total_tokens})"


_SESSION_LEDGER = UsageLedger()


def session_ledger() -> UsageLedger:
    """Usage of every request made by clients built here, in this process.

    When ``COURSE_USAGE_FILE`` is set (the course runner sets it), the ledger is also written to
    that JSON file after each request, so the runner can report model calls and tokens per notebook.
    """
    return _SESSION_LEDGER


def _record_session_usage(response: Any) -> None:
    """HTTP response hook: add the ``usage`` of a JSON chat/embeddings answer to the session."""
    if response.status_code != 200:
        return
    if "json" not in response.headers.get("content-type", ""):
        return  # streamed answers: usage arrives in the last chunk, read by the caller
    try:
        response.read()
        body = json.loads(response.content)
    except (ValueError, TypeError):
        return
    if not isinstance(body, dict) or body.get("object") not in {"chat.completion", "list"}:
        return
    if body.get("object") == "list" and "usage" not in body:
        return
    _SESSION_LEDGER.record(str(body.get("model", "?")), Usage.from_api(body.get("usage")))
    path = os.environ.get("COURSE_USAGE_FILE")
    if path:
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(_SESSION_LEDGER.to_dict(), handle)
        except OSError:
            pass
