"""Benchmark: where an engine sweep spends its time — waiting for the model, or running tests.

Runs the sweeps of lesson 04 (Best-of-N for N = 1 … 16, self-consistency, Reflexion for 1 … 3
attempts) on the hardest problems of the French code bank with the offline model (the same calls
the notebook makes), and sums, per sweep, the time spent in model requests
(``EngineResult.model_s``: the SDK, the HTTP transport and the simulator) and in the sandbox
(``EngineResult.sandbox_s``: static check, fork of the warm worker, tests). Both are measured in
the same run, so the ratio does not depend on the machine's speed. The sandbox must not dominate:
an engine sweep is about the model's compute, and with a real provider the model's share only
grows (a request takes hundreds of milliseconds, a sandbox run a few).

"exécutions" counts the programs actually run, "mémo" the verdicts reused (``engines.verify``
memoises the shared sandbox's verdicts per program and tests: runs are seeded, so they are
deterministic). The memo is emptied before each sweep, so each pays for its own runs.

Usage: ``python benchmarks/engines.py [--problems N]``. Prints, for a baseline where every
candidate is run (the sandbox passed explicitly) and for the engines' default (memoised
verdicts), a table and the ratio sandbox / model per sweep and overall; exits 1 if, by default,
the sandbox takes more time than the model.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_utils.engines import best_of_n, reflexion, self_consistency  # noqa: E402
from course_utils.llm import make_client  # noqa: E402
from course_utils.offline import OfflineModel  # noqa: E402
from course_utils.problems import code_problems  # noqa: E402
from course_utils.engines.verify import cache_info, clear_cache  # noqa: E402
from course_utils.sandbox import default_sandbox  # noqa: E402


WORKLOADS = {
    "Best-of-N, N = 1 … 16": lambda p, c, sb: [best_of_n(p, n, client=c, sandbox=sb)
                                               for n in (1, 2, 4, 8, 16)],
    "auto-cohérence, n = 9": lambda p, c, sb: [self_consistency(p, 9, client=c, sandbox=sb)],
    "Reflexion, 1 … 3 tentatives": lambda p, c, sb: [reflexion(p, k, client=c, sandbox=sb)
                                                      for k in (1, 2, 3)],
}


class Counted:
    """The shared sandbox, passed explicitly (so never memoised), counting its runs."""

    def __init__(self, sandbox):
        self.sandbox, self.runs = sandbox, 0

    def run(self, code, tests):
        self.runs += 1
        return self.sandbox.run(code, tests)


def measure(problems, sandbox) -> list[tuple]:
    """One sweep of every workload on a fresh offline model (same seed: same samples)."""
    rows = []
    for name, workload in WORKLOADS.items():
        client = make_client(offline=OfflineModel(seed=0))
        clear_cache()
        counted = Counted(sandbox) if sandbox is not None else None
        start = time.perf_counter()
        results = [r for problem in problems for r in workload(problem, client, counted)]
        wall = time.perf_counter() - start
        info = cache_info() if counted is None else {"runs": counted.runs, "hits": 0}
        rows.append((name, len(results), sum(r.solved for r in results),
                     sum(r.calls for r in results), info["runs"], info["hits"], wall,
                     sum(r.model_s for r in results), sum(r.sandbox_s for r in results)))
    return rows


def report(title: str, rows: list[tuple]) -> float:
    print(f"\n{title}")
    print(f"{'balayage':<30} {'résultats':>9} {'appels':>7} {'exécutions':>11} {'mémo':>6} "
          f"{'total s':>8} {'modèle s':>9} {'sandbox s':>10} {'sandbox/modèle':>15}")
    total_model = total_sandbox = 0.0
    for name, count, solved, calls, runs, hits, wall, model_s, sandbox_s in rows:
        ratio = sandbox_s / model_s if model_s else float("inf")
        total_model, total_sandbox = total_model + model_s, total_sandbox + sandbox_s
        print(f"{name:<30} {count:>9} {calls:>7} {runs:>11} {hits:>6} {wall:>8.2f} "
              f"{model_s:>9.2f} {sandbox_s:>10.2f} {ratio:>15.2f}")
    share = total_sandbox / (total_model + total_sandbox) if total_model + total_sandbox else 0.0
    ratio = total_sandbox / total_model if total_model else float("inf")
    print(f"ensemble : modèle {total_model:.2f} s, bac à sable {total_sandbox:.2f} s "
          f"(bac à sable / modèle = {ratio:.2f}, part du bac à sable {share:.0%})")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=24, help="problèmes de la banque (défaut 24)")
    args = parser.parse_args(argv)

    problems = sorted(code_problems(), key=lambda p: (-p.difficulty, p.id))[: args.problems]
    shared = default_sandbox()
    shared.run("x = 1\n", ["x == 1"])  # start the warm worker outside the measure
    print(f"{len(problems)} problèmes les plus difficiles de la banque française, modèle hors ligne "
          "offline-fast, graine 0")
    # Baseline, same run: the sandbox passed explicitly, so every verdict is a real run.
    baseline = report("sans mémo (chaque candidat exécuté, même s'il a déjà été vu)",
                      measure(problems, shared))
    ratio = report("avec le mémo des verdicts (le comportement par défaut des moteurs)",
                   measure(problems, None))
    print(f"\nle mémo divise le temps du bac à sable par rapport au modèle par "
          f"{baseline / ratio:.1f}" if ratio else "")
    if ratio > 1:
        print("❌ le bac à sable domine le coût du balayage")
        return 1
    print("✅ le bac à sable ne domine pas : le coût est celui des appels au modèle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
