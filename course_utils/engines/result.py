"""What every engine returns: ``EngineResult``, with one ``TraceEntry`` per attempt, state or vote.

Small frozen dataclasses (data in, data out): they compare in tests, print in a few lines and
serialise to JSON (``to_dict`` / ``to_json``). Tokens come from the provider's ``usage`` objects,
summed over every request the engine made (``usage.calls`` counts them, SDK retries excluded).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..usage import Usage


@dataclass(frozen=True)
class TraceEntry:
    """One step of an engine: a sample, an attempt, a reflection, a vote or a search state.

    ``kind``  — ``"sample"``, ``"attempt"``, ``"reflection"``, ``"vote"``, ``"state"``,
                ``"lessons"``...;
    ``index`` — attempt / sample number (or search level), from 0;
    ``text``  — what the model produced (code, answer, reflection) or the state shown;
    ``ok``    — whether it passed (``None`` when not applicable);
    ``score`` — tests passed, votes received or state value (``None`` when not applicable);
    ``note``  — why it failed, or any detail a reader needs, in French.
    """

    kind: str
    index: int
    text: str = ""
    ok: bool | None = None
    score: float | None = None
    note: str = ""

    def __str__(self) -> str:
        mark = {True: "✅", False: "❌", None: "·"}[self.ok]
        score = "" if self.score is None else f" [{self.score:g}]"
        note = f" — {self.note}" if self.note else ""
        first = (self.text.strip().splitlines() or [""])[0]
        if len(first) > 70:
            first = first[:67] + "..."
        return f"{mark} {self.kind} {self.index}{score}: {first}{note}"


@dataclass(frozen=True)
class EngineResult:
    """The outcome of one engine on one problem.

    ``answer`` is the selected code, expression or number (``None`` when nothing usable came
    back). ``passed``/``total`` count the tests of the selected answer (for Tree of Thoughts: the
    final candidates that reach 24 / the final candidates). ``calls`` is the number of model
    requests, ``usage`` their summed ``usage``; ``model_s`` and ``sandbox_s`` split
    ``duration_s`` between waiting for the model and running tests.
    """

    engine: str
    solved: bool
    answer: Any
    passed: int
    total: int
    calls: int
    usage: Usage
    trace: tuple[TraceEntry, ...] = ()
    duration_s: float = 0.0
    problem: str = ""
    model_s: float = field(default=0.0, repr=False)
    sandbox_s: float = field(default=0.0, repr=False)

    @property
    def tokens(self) -> int:
        """Total tokens billed for this result (prompt + completion)."""
        return self.usage.total_tokens

    def to_dict(self) -> dict:
        data = asdict(self)
        data["usage"] = self.usage.to_dict()
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)

    def __str__(self) -> str:
        mark = "✅ résolu" if self.solved else "❌ non résolu"
        head = (f"{self.engine} — {self.problem or '?'} : {mark}, {self.passed}/{self.total} "
                f"tests, {self.calls} appel(s) au modèle, {self.usage.total_tokens} jetons")
        return "\n".join([head] + [f"  {entry}" for entry in self.trace])
