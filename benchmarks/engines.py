"""Benchmark: where an engine sweep spends its time — waiting for the model, or running tests.

Runs the engines of lesson 04 on a slice of the French code bank with the offline model (the
same calls a notebook makes), and sums, per engine, the time spent in model requests
(``EngineResult.model_s``: the SDK, the HTTP transport and the simulator) and in the sandbox
(``EngineResult.sandbox_s``: static check, fork of the warm worker, tests). Both are measured in
the same run, so the ratio does not depend on the machine's speed. The sandbox must not dominate:
an engine sweep is about the model's compute, and with a real provider the model's share only
grows (a request takes hundreds of milliseconds, a sandbox run about one).

Usage: ``python benchmarks/engines.py [--problems N] [--n N]``. Prints a table and the ratio
sandbox / model per engine and overall; exits 1 if the sandbox takes more time than the model.
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
from course_utils.sandbox import default_sandbox  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=24, help="problèmes de la banque (défaut 24)")
    parser.add_argument("--n", type=int, default=8, help="échantillons de Best-of-N (défaut 8)")
    args = parser.parse_args(argv)

    problems = sorted(code_problems(), key=lambda p: (p.difficulty, p.id))[: args.problems]
    client = make_client(offline=OfflineModel(seed=0))
    engines = {
        f"best_of_n(n={args.n})": lambda p: best_of_n(p, args.n, client=client),
        "self_consistency(n=5)": lambda p: self_consistency(p, 5, client=client),
        "reflexion(iterations=3)": lambda p: reflexion(p, 3, client=client),
    }
    default_sandbox().run("x = 1\n", ["x == 1"])  # start the warm worker outside the measure

    rows, total_model, total_sandbox = [], 0.0, 0.0
    for name, engine in engines.items():
        start = time.perf_counter()
        results = [engine(problem) for problem in problems]
        wall = time.perf_counter() - start
        model_s = sum(r.model_s for r in results)
        sandbox_s = sum(r.sandbox_s for r in results)
        calls = sum(r.calls for r in results)
        solved = sum(r.solved for r in results)
        total_model, total_sandbox = total_model + model_s, total_sandbox + sandbox_s
        rows.append((name, len(problems), solved, calls, wall, model_s, sandbox_s))

    print(f"{len(problems)} problèmes de la banque française, modèle hors ligne offline-fast\n")
    print(f"{'moteur':<24} {'résolus':>8} {'appels':>7} {'total s':>8} {'modèle s':>9} "
          f"{'sandbox s':>10} {'sandbox/modèle':>15}")
    for name, count, solved, calls, wall, model_s, sandbox_s in rows:
        ratio = sandbox_s / model_s if model_s else float("inf")
        print(f"{name:<24} {solved:>4}/{count:<3} {calls:>7} {wall:>8.2f} {model_s:>9.2f} "
              f"{sandbox_s:>10.2f} {ratio:>15.2f}")
    overall = total_sandbox / total_model if total_model else float("inf")
    share = total_sandbox / (total_model + total_sandbox) if total_model + total_sandbox else 0
    print(f"\nensemble : modèle {total_model:.2f} s, bac à sable {total_sandbox:.2f} s "
          f"(ratio bac à sable / modèle = {overall:.2f}, part du bac à sable {share:.0%})")
    if total_sandbox > total_model:
        print("❌ le bac à sable domine le coût du balayage")
        return 1
    print("✅ le bac à sable ne domine pas : le coût est celui des appels au modèle")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
