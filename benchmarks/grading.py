"""Benchmark: grading time per submission, ``--jobs 1`` against ``--jobs 2``, in the same run.

The submissions are the course's own notebooks: every ``solutions/*.ipynb`` (full marks) and
every ``exercises/*.ipynb`` (zero), copied ``--copies`` times under ``rendus/<étudiant>/``. Each
run gets a fresh grading context, so the solutions' reference runs (one clean kernel per solution,
once per run) are included and reported apart. Prints the wall time per submission of each run,
the ratio, and checks that both runs wrote the same CSV.

Usage: ``python benchmarks/grading.py [--copies N]``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from course_utils.grading.grader import Context, collect, csv_text, grade_many

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-grade-"))
    for copy in range(args.copies):
        for kind in ("solutions", "exercises"):
            target = folder / f"{kind}-{copy}"
            target.mkdir()
            for path in sorted((ROOT / kind).glob("*.ipynb")):
                shutil.copy(path, target / path.name)
    submissions = collect([folder])
    results = {}
    for jobs in (1, 2):
        context = Context(ROOT / "solutions")
        start = time.perf_counter()
        for path in sorted((ROOT / "solutions").glob("*.ipynb")):
            context.solution(path)
        references = time.perf_counter() - start
        start = time.perf_counter()
        grades = grade_many(submissions, jobs=jobs, progress=False, context=context)
        elapsed = time.perf_counter() - start
        results[jobs] = (references, elapsed, csv_text(grades))
        print(f"--jobs {jobs}: {len(submissions)} rendus en {elapsed:.1f} s "
              f"({elapsed / len(submissions):.2f} s par rendu), plus {references:.1f} s pour les "
              f"{len(list((ROOT / 'solutions').glob('*.ipynb')))} exécutions de référence")
    print(f"rapport jobs 1 / jobs 2 : {results[1][1] / results[2][1]:.2f} ; "
          f"CSV identiques : {results[1][2] == results[2][2]}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
