"""Benchmark: ``solve24`` on all 1,362 solvable puzzles against the original course's search.

Both run on the same puzzles, in the same run of this script:

* **baseline**, written like the original course's ``atteignable``: a recursive search over
  pairs of numbers with floats (``abs(x - 24) < 1e-6``), restarted from scratch for every
  puzzle, answering only *whether* 24 is reachable (no expression);
* **solve24** (``course_utils.problems``): exact fractions, the values reachable from every
  sub-multiset computed once and cached, then a few set look-ups per puzzle; it returns an
  expression, which ``check24`` accepts.

The solver's caches are cleared before it runs, so its time includes building them (a cold
start); the later rounds are warm. Usage: ``python benchmarks/game24.py [--repeat R]``. Prints
the time of each over the 1,362 puzzles and the ratio baseline / solve24.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_utils.problems import check24, game24_puzzles  # noqa: E402
from course_utils.problems import game24 as _game24  # noqa: E402


def atteignable(nombres, cible=24):
    """Original course style: can ``cible`` be reached from ``nombres``? (floats, boolean)."""
    if len(nombres) == 1:
        return abs(nombres[0] - cible) < 1e-6
    for i in range(len(nombres)):
        for j in range(len(nombres)):
            if i == j:
                continue
            a, b = nombres[i], nombres[j]
            reste = [nombres[k] for k in range(len(nombres)) if k != i and k != j]
            candidats = [a + b, a - b, a * b]
            if b != 0:
                candidats.append(a / b)
            for c in candidats:
                if atteignable(reste + [c], cible):
                    return True
    return False


def run_baseline(puzzles) -> tuple[float, int]:
    start = time.perf_counter()
    found = sum(1 for p in puzzles if atteignable([float(n) for n in p]))
    return time.perf_counter() - start, found


def run_solver(puzzles, *, cold: bool) -> tuple[float, int]:
    if cold:
        _game24._reachable.cache_clear()
    start = time.perf_counter()
    answers = [_game24.solve24(p) for p in puzzles]
    elapsed = time.perf_counter() - start
    assert all(check24(p, a) for p, a in zip(puzzles, answers))
    return elapsed, sum(1 for a in answers if a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    puzzles = game24_puzzles()
    base_times, cold_times, warm_times = [], [], []
    for _ in range(args.repeat):  # alternate, so a change of machine load affects both
        elapsed, found = run_baseline(puzzles)
        assert found == len(puzzles)
        base_times.append(elapsed)
        elapsed, found = run_solver(puzzles, cold=True)
        assert found == len(puzzles)
        cold_times.append(elapsed)
        warm_times.append(run_solver(puzzles, cold=False)[0])
    base, cold, warm = (statistics.median(t) for t in (base_times, cold_times, warm_times))
    print(f"{len(puzzles)} puzzles, median of {args.repeat} rounds")
    print(f"baseline atteignable (floats, boolean): {base:.3f} s")
    print(f"solve24 (exact, expression), cold cache: {cold:.3f} s  → ratio {base / cold:.1f}x")
    print(f"solve24, warm cache:                     {warm:.4f} s  → ratio {base / warm:.0f}x")


if __name__ == "__main__":
    main()
