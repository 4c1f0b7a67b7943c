"""Token usage and its cost: what the provider bills, summed per model.

``Usage`` is read from the provider's own ``usage`` object (never estimated from a word count);
``UsageLedger`` sums it per model. A dated model name in an answer (``gpt-5-mini-2025-08-07``) is
grouped under the name without its date (``gpt-5-mini``), the one the course configures.

Cost: :data:`PRICES` is a small, dated table of public prices in US dollars per million tokens
(input, cached input, output; reasoning tokens are output tokens). It is overridable — the
``COURSE_PRICES`` variable (JSON ``{"model": [input, cached, output]}``) or ``set_price()`` — and
only an estimate: check the provider's price page. Local servers cost nothing per token. The
offline simulator's (estimated) tokens are priced at a named reference model
(:data:`OFFLINE_REFERENCE`) and labelled as such. Every client built by :func:`course_utils.llm.make_client`
records its answers in the *session ledger* (one per process) through an HTTP response hook;
when ``COURSE_USAGE_FILE`` is set (the course runner sets it) the ledger is also written there,
so the runner can report model calls and tokens per notebook.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import asdict, dataclass
from typing import Any

# Public list prices, USD per million tokens: (input, cached input, output).
PRICES_AS_OF = "août 2025"
PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4o": (2.50, 1.25, 10.00),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "o3": (2.00, 0.50, 8.00),
    "o4-mini": (1.10, 0.275, 4.40),
    "text-embedding-3-small": (0.02, 0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.13, 0.0),
}
# The simulator's tokens are priced as if a comparable real model had produced them.
OFFLINE_REFERENCE = {"offline-fast": "gpt-4.1-mini", "offline-big": "gpt-4.1",
                     "offline-embed": "text-embedding-3-small"}
FREE_PROVIDERS = ("ollama", "vllm", "lmstudio", "llamacpp", "compatible")

_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{4})$")


def canonical_model(name: str) -> str:
    """``gpt-5-mini-2025-08-07`` → ``gpt-5-mini`` (also ``gpt-4-0613`` → ``gpt-4``)."""
    return _DATE_SUFFIX.sub("", name or "")


def set_price(model: str, input_per_m: float, cached_per_m: float | None, output_per_m: float):
    """Override (or add) the price of ``model``, USD per million tokens."""
    PRICES[canonical_model(model)] = (float(input_per_m), float(
        input_per_m if cached_per_m is None else cached_per_m), float(output_per_m))


def _env_prices() -> dict[str, tuple[float, float, float]]:
    raw = os.environ.get("COURSE_PRICES")
    if not raw:
        return {}
    try:
        table = json.loads(raw)
        return {canonical_model(k): (float(v[0]), float(v[1]), float(v[2]))
                for k, v in table.items()}
    except (ValueError, TypeError, IndexError, AttributeError):
        return {}


def price_of(model: str) -> tuple[float, float, float] | None:
    """The price row used for ``model`` (a provider prefix such as ``openai/`` is ignored)."""
    name = canonical_model(model)
    name = OFFLINE_REFERENCE.get(name, name)
    bare = name.split("/", 1)[1] if "/" in name else name
    table = {**PRICES, **_env_prices()}
    return table.get(name) or table.get(bare)


@dataclass(frozen=True)
class Usage:
    """Token usage as reported by the provider (``calls`` counts the requests summed)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0
    cached_tokens: int = 0

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
            self.cached_tokens,
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
        prompt_details = usage.get("prompt_tokens_details") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        return cls(
            prompt_tokens=prompt,
            completion_tokens=completion,
            reasoning_tokens=int(details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or prompt + completion),
            calls=1,
            cached_tokens=int(prompt_details.get("cached_tokens") or 0),
        )

    def cost(self, model: str) -> float | None:
        """Estimated cost in USD at ``model``'s price (``None`` when the price is unknown)."""
        row = price_of(model)
        if row is None:
            return None
        input_price, cached_price, output_price = row
        cached = min(self.cached_tokens, self.prompt_tokens)
        return ((self.prompt_tokens - cached) * input_price + cached * cached_price
                + self.completion_tokens * output_price) / 1e6


def format_dollars(amount: float) -> str:
    """French money format: ``0,0042 $`` (four decimals below a cent, else two)."""
    text = f"{amount:.4f}" if amount < 0.01 else f"{amount:.2f}"
    return text.replace(".", ",") + " $"


def cost_text(usage: Usage, model: str, provider: str | None = None) -> str:
    """The cost of ``usage`` at ``model``'s price, as French text (``0,0042 $``, ``0 $``...)."""
    if provider in FREE_PROVIDERS:
        return "0 $"
    value = usage.cost(model)
    return "prix inconnu" if value is None else format_dollars(value)


@dataclass(frozen=True)
class Cost:
    """An estimated cost: total in USD, per model, and how it was estimated (French)."""

    total: float
    by_model: dict
    unknown: tuple[str, ...]
    label: str

    def __str__(self) -> str:
        return f"{format_dollars(self.total)} — {self.label}"


def cost_label(models, provider: str | None = None, *, short: bool = False) -> str:
    """How a cost was estimated, in French: the reference price offline (``short`` leaves out
    that the tokens themselves are the simulator's estimates), the public price, or a free
    local server."""
    models = {canonical_model(m) for m in models}
    if provider in FREE_PROVIDERS:
        return "serveur local : aucun coût par jeton"
    offline = sorted({OFFLINE_REFERENCE[m] for m in models if m in OFFLINE_REFERENCE})
    if offline and len(offline) == len(models):
        label = f"estimé au tarif de référence de {' / '.join(offline)} ({PRICES_AS_OF})"
        return label if short else label + ", pour des jetons estimés par le simulateur"
    return f"estimé au tarif public ({PRICES_AS_OF}, modifiable avec COURSE_PRICES)"


class UsageLedger:
    """Sums real ``usage`` per model: prompt, completion and reasoning tokens, and calls."""

    def __init__(self) -> None:
        self._by_model: dict[str, Usage] = {}
        self._lock = threading.Lock()

    def record(self, model: str, usage: Usage | Any) -> None:
        """Add ``usage`` under ``model`` (a dated name is grouped under its undated one)."""
        if not isinstance(usage, Usage):
            usage = Usage.from_api(usage)
        model = canonical_model(model)
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

    def cost(self, provider: str | None = None) -> Cost:
        """Estimated cost of the recorded usage (see :data:`PRICES`); local servers cost 0."""
        by_model, unknown, total = {}, [], 0.0
        for model, usage in sorted(self.by_model.items()):
            value = 0.0 if provider in FREE_PROVIDERS else usage.cost(model)
            if value is None:
                unknown.append(model)
                continue
            by_model[model] = value
            total += value
        return Cost(total, by_model, tuple(unknown), cost_label(self.by_model, provider))

    def cost_summary(self, provider: str | None = None) -> str:
        """One French line: the estimated cost, how it was estimated, unknown prices."""
        if provider is None:
            provider = _active_provider()
        cost = self.cost(provider)
        line = f"Coût : {cost}"
        if cost.unknown:
            line += (f" ; prix inconnu pour {', '.join(cost.unknown)} "
                     "(ajoutez-le avec COURSE_PRICES ou usage.set_price)")
        return line

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


def _active_provider() -> str | None:
    """The provider of the session's settings, if ``setup()`` ran (no import of llm here)."""
    import sys

    llm = sys.modules.get("course_utils.llm")
    settings = getattr(llm, "_DEFAULT", {}).get("settings") if llm else None
    return getattr(settings, "provider", None)


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
