"""Best-of-N: sample N candidates, score each with the tests, keep the best one.

The verifier is what makes it work: for code, the sandbox runs the problem's tests on every
candidate and the one passing most tests is kept (ties: the earliest sample, so the result is
deterministic). With a perfect verifier, Best-of-N solves a problem as soon as *one* of the N
samples is right: its success rate is pass@N. At temperature 0 the N samples are identical and
nothing is gained. For a word problem the "verifier" is the known answer: an oracle, which is an
upper bound (self-consistency is what you can do without one).

Identical candidates are run in the sandbox once (the trace says which sample they repeat).
"""

from __future__ import annotations

import time
from typing import Any

from .prompts import code_prompt, user, word_prompt
from .result import EngineResult, TraceEntry
from .sampling import sample
from .verify import Verdict, evaluate, is_code_problem


def task_prompt(problem: Any, lessons: tuple[str, ...] = ()) -> str:
    """The first user message for a code or word problem."""
    return code_prompt(problem, lessons) if is_code_problem(problem) else word_prompt(problem)


def score_all(problem: Any, texts: tuple[str, ...], sandbox: Any = None) -> list[tuple[Verdict, int | None]]:
    """A verdict per text; ``int`` = index of an earlier identical candidate (not re-run)."""
    seen: dict[Any, int] = {}
    out: list[tuple[Verdict, int | None]] = []
    for index, text in enumerate(texts):
        key = text.strip()
        if key in seen:
            out.append((out[seen[key]][0], seen[key]))
            continue
        seen[key] = index
        out.append((evaluate(problem, text, sandbox=sandbox), None))
    return out


def best_of_n(problem: Any, n: int = 8, *, client: Any = None, model: str | None = None,
              temperature: float = 0.8, max_tokens: int | None = None, sandbox: Any = None,
              engine: str | None = None) -> EngineResult:
    """Sample ``n`` answers, score each with the tests, return the best (see module docstring)."""
    if n < 1:
        raise ValueError("n doit valoir au moins 1")
    start = time.perf_counter()
    samples = sample([user(task_prompt(problem))], n, client=client, model=model,
                     temperature=temperature, max_tokens=max_tokens)
    scored = score_all(problem, samples.texts, sandbox)
    trace = []
    for index, (text, (verdict, repeat)) in enumerate(zip(samples.texts, scored)):
        note = verdict.note if repeat is None else f"identique à l'échantillon {repeat}"
        shown = verdict.answer if isinstance(verdict.answer, str) else text
        trace.append(TraceEntry("sample", index, str(shown or ""), verdict.ok, verdict.passed, note))
    best = max(range(n), key=lambda i: (scored[i][0].ok, scored[i][0].passed, -i))
    verdict = scored[best][0]
    sandbox_s = sum(v.seconds for v, repeat in scored if repeat is None)
    return EngineResult(
        engine=engine or f"best_of_n(n={n})",
        solved=verdict.ok,
        answer=verdict.answer,
        passed=verdict.passed,
        total=verdict.total,
        calls=samples.requests,
        usage=samples.usage,
        trace=tuple(trace),
        duration_s=time.perf_counter() - start,
        problem=str(getattr(problem, "id", "")),
        model_s=samples.seconds,
        sandbox_s=sandbox_s,
    )


def one_shot(problem: Any, *, client: Any = None, model: str | None = None,
             temperature: float = 0.0, max_tokens: int | None = None,
             sandbox: Any = None) -> EngineResult:
    """One answer at temperature 0, scored by the tests: the baseline of every comparison."""
    return best_of_n(problem, 1, client=client, model=model, temperature=temperature,
                     max_tokens=max_tokens, sandbox=sandbox, engine="one_shot")
