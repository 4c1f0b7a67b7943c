"""Scoring one candidate: code runs in the sandbox against the problem's tests; a word problem's
number is compared with the known answer. Never raises: a missing code block, a refusal by the
sandbox or an unreadable answer gives a failed ``Verdict`` whose ``error`` says why (in French).

Verdicts of the shared sandbox are memoised per (code, tests): a run starts with fixed seeds, so
the same program on the same tests always gives the same result, and a sweep meets the same
reference solution or typical mistake again and again. Timeouts are not memoised (a loaded
machine may time out once); a ``sandbox`` you pass is always called (tests count its
runs). ``cache_info()`` says how many runs were saved; ``clear_cache()`` empties it.

``problem`` is duck-typed: anything with ``function`` and ``tests`` is a code problem
(``course_utils.problems.CodeProblem``); anything with ``question`` and ``answer`` is a word
problem (``WordProblem``). ``sandbox`` is ``None`` (the shared sandbox of ``run_tests``), a
``Sandbox`` or any object with ``run(code, tests)``, or a function ``(code, tests) -> result``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .extract import extract_answer, extract_code


@dataclass(frozen=True)
class Verdict:
    """The score of one candidate (``answer``: the code or number read from the text)."""

    ok: bool
    passed: int
    total: int
    answer: Any = None
    failures: tuple = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def note(self) -> str:
        """One French line saying why the candidate failed ("" when it passed)."""
        if self.ok:
            return ""
        if self.error:
            return self.error
        if self.failures:
            first = self.failures[0]
            return f"{first.test} → {first.reason}"
        return f"{self.passed}/{self.total} tests"


def is_code_problem(problem: Any) -> bool:
    return hasattr(problem, "function") and hasattr(problem, "tests")


def is_word_problem(problem: Any) -> bool:
    return hasattr(problem, "question") and hasattr(problem, "answer")


def test_count(tests: Any) -> int:
    return 1 if isinstance(tests, str) else max(1, len(tests))


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 4096
_LOCK = threading.Lock()
_STATS = {"hits": 0, "runs": 0}


def cache_info() -> dict:
    """``{"hits": …, "runs": …, "size": …}`` for the memoised verdicts of the shared sandbox."""
    with _LOCK:
        return {**_STATS, "size": len(_CACHE)}


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
        _STATS.update(hits=0, runs=0)


def run_sandbox(sandbox: Any, code: str, tests: Any):
    """Run ``code`` against ``tests``: the shared sandbox (memoised), or the one given."""
    if sandbox is not None:
        return sandbox.run(code, tests) if hasattr(sandbox, "run") else sandbox(code, tests)
    from ..sandbox import run_tests

    key = (code, tests if isinstance(tests, str) else tuple(tests))
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            _STATS["hits"] += 1
            return _CACHE[key]
    result = run_tests(code, tests)
    with _LOCK:
        _STATS["runs"] += 1
        if not result.timed_out:
            _CACHE[key] = result
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return result


def evaluate_code(problem: Any, text: str | None, sandbox: Any = None) -> Verdict:
    total = test_count(problem.tests)
    code = extract_code(text, problem.function)
    if code is None:
        reason = "réponse vide" if not (text or "").strip() else "pas de bloc de code dans la réponse"
        return Verdict(False, 0, total, None, error=reason)
    start = time.perf_counter()
    try:
        result = run_sandbox(sandbox, code, problem.tests)
    except Exception as exc:  # a sandbox refusal must fail this attempt, not the engine
        return Verdict(False, 0, total, code, error=f"bac à sable : {exc}",
                       seconds=time.perf_counter() - start)
    return Verdict(bool(result.ok), int(result.passed), int(result.total), code,
                   tuple(result.failures), result.error, time.perf_counter() - start)


def same_number(a: Any, b: Any) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    except (TypeError, ValueError):
        return False


def evaluate_word(problem: Any, text: str | None) -> Verdict:
    value = extract_answer(text)
    if value is None:
        return Verdict(False, 0, 1, None, error="pas de ligne « Réponse : N » lisible")
    ok = same_number(value, problem.answer)
    # The expected answer stays out of the note: Reflexion shows notes to the model.
    return Verdict(ok, int(ok), 1, value, error=None if ok else f"la réponse {value} est fausse")


def evaluate(problem: Any, text: str | None, *, sandbox: Any = None) -> Verdict:
    """Score the model's ``text`` for ``problem`` (see the module docstring)."""
    if is_code_problem(problem):
        return evaluate_code(problem, text, sandbox)
    if is_word_problem(problem):
        return evaluate_word(problem, text)
    raise TypeError(f"problème non reconnu : {type(problem).__name__} (ni code, ni énoncé)")
