"""A generic breadth-first search with a beam — the skeleton of Tree of Thoughts.

``bfs(initial, propose, value, beam, depth)``: starting from ``initial``, each level expands every
kept state with ``propose(state) -> list of states``, scores each new state with
``value(state) -> float``, and keeps the ``beam`` best (ties: the first proposed, so the search is
deterministic). The Game of 24 (``game24.tree_of_thoughts``) is one instance, where ``propose``
and ``value`` are model calls; any puzzle whose partial states can be proposed and judged fits.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SearchResult:
    """``frontier``: the final (state, value) pairs, best first; ``levels``: every level's
    kept pairs (level 0 is the initial state); ``proposed``/``valued``: call counts."""

    frontier: tuple[tuple[Any, float], ...]
    levels: tuple[tuple[tuple[Any, float], ...], ...]
    proposed: int
    valued: int

    @property
    def best(self) -> Any:
        return self.frontier[0][0] if self.frontier else None


def bfs(initial: Any, propose: Callable[[Any], list], value: Callable[[Any], float],
        beam: int, depth: int, *, dedupe: Callable[[Any], Hashable] | None = None) -> SearchResult:
    """Beam search, level by level (see the module docstring).

    ``dedupe(state)`` gives a key: states with the same key are valued once and kept once.
    A level with no proposal ends the search early (its frontier is the previous one).
    """
    if beam < 1 or depth < 0:
        raise ValueError("beam doit valoir au moins 1 et depth au moins 0")
    frontier: list[tuple[Any, float]] = [(initial, 0.0)]
    levels = [tuple(frontier)]
    proposed = valued = 0
    for _ in range(depth):
        children: list[Any] = []
        seen: set = set()
        for state, _score in frontier:
            proposed += 1
            for child in propose(state) or []:
                if dedupe is not None:
                    key = dedupe(child)
                    if key in seen:
                        continue
                    seen.add(key)
                children.append(child)
        if not children:
            break
        scored = []
        for child in children:
            valued += 1
            scored.append((child, float(value(child))))
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
        frontier = [scored[i] for i in order[:beam]]
        levels.append(tuple(frontier))
    return SearchResult(tuple(frontier), tuple(levels), proposed, valued)
