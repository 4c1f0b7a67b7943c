"""A hand-tuned router: a difficulty estimate picks the engine, written as readable rules.

The rules (those of the original course, made explicit):

1. a Game-of-24 puzzle (four numbers) → Tree of Thoughts (beam 5): a one-shot answer rarely
   works there, and a search with propose/value calls is what the paper found to help;
2. a word problem → self-consistency (a small vote): there is no test to select with;
3. a code problem → by estimated difficulty (``estimate_difficulty``, 0 easy … 1 hard):
   below ``easy`` (0.35) one shot at temperature 0; below ``hard`` (0.65) Best-of-N
   (``n``); above, Reflexion (``iterations``), since hard problems tend to hide a misconception
   that more samples of the same prompt repeat;
4. with ``escalate=True`` (default), a code strategy whose answer fails the tests hands over to
   the next one (one shot → Best-of-N → Reflexion): the sandbox tells us when it failed.

The router is only as good as its difficulty estimate: lesson 04 compares it with each single
engine and with an *oracle* that knows in hindsight the cheapest engine that solves each problem.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

from .best_of_n import best_of_n, one_shot
from .game24 import tree_of_thoughts
from .reflexion import reflexion
from .result import EngineResult
from .self_consistency import self_consistency
from .verify import is_code_problem, is_word_problem

HARD_WORDS = re.compile(r"inclus|exclu|born|ordre|négati|vide|doublon|arrondi|récursi|unicode|"
                        r"stable|chevauch|intervalle|bissext|modulo|précision", re.IGNORECASE)


def estimate_difficulty(problem: Any) -> float:
    """0 (easy) … 1 (hard): the bank's ``difficulty`` when it has one, else a guess from the
    spec (length, and words that announce an edge case: bornes, ordre, vide, doublons...)."""
    known = getattr(problem, "difficulty", None)
    if isinstance(known, (int, float)):
        return float(known)
    spec = str(getattr(problem, "spec", ""))
    return min(1.0, len(spec) / 600 + 0.15 * len(set(HARD_WORDS.findall(spec))))


def is_puzzle24(problem: Any) -> bool:
    return (isinstance(problem, (tuple, list)) and len(problem) == 4
            and all(isinstance(x, int) for x in problem))


def _chain(results: list[EngineResult], start: float) -> EngineResult:
    last = results[-1]
    usage = results[0].usage
    for r in results[1:]:
        usage = usage + r.usage
    return replace(
        last,
        engine="route→" + "→".join(r.engine for r in results),
        calls=sum(r.calls for r in results),
        usage=usage,
        trace=tuple(entry for r in results for entry in r.trace),
        duration_s=time.perf_counter() - start,
        model_s=sum(r.model_s for r in results),
        sandbox_s=sum(r.sandbox_s for r in results),
    )


def route(problem: Any, *, client: Any = None, model: str | None = None, n: int = 4,
          iterations: int = 3, easy: float = 0.35, hard: float = 0.65, escalate: bool = True,
          sandbox: Any = None) -> EngineResult:
    """Pick an engine for ``problem`` by the rules of the module docstring, and run it."""
    start = time.perf_counter()
    common = {"client": client, "model": model}
    if is_puzzle24(problem):
        return _chain([tree_of_thoughts(problem, 5, **common)], start)
    if is_word_problem(problem) and not is_code_problem(problem):
        return _chain([self_consistency(problem, 5, **common)], start)
    ladder = [
        lambda: one_shot(problem, sandbox=sandbox, **common),
        lambda: best_of_n(problem, n, sandbox=sandbox, **common),
        lambda: reflexion(problem, iterations, sandbox=sandbox, **common),
    ]
    difficulty = estimate_difficulty(problem)
    first = 0 if difficulty < easy else 1 if difficulty < hard else 2
    results = []
    for strategy in ladder[first:] if escalate else ladder[first:first + 1]:
        results.append(strategy())
        if results[-1].solved:
            break
    return _chain(results, start)
