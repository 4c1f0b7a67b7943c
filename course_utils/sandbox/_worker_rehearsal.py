"""The warm worker's rehearsal: run a few made-up jobs once, before the first fork.

Every child is a copy-on-write copy of the worker: each memory page the child writes costs it
a page fault and a copy (about two microseconds each, some three hundred per run). Part of
what a first run writes is warm-up the interpreter does once per process: the type attribute
cache filled on first lookups, the specialised bytecode of the runner's functions, the
addresses of C functions resolved on first call, the typing module's cache of ``List[int]``.
The worker pays for these once, here (a few milliseconds at start-up), so that no child pays
for them again: measured on Linux, a trivial run then copies some thirty pages fewer (about
one in ten).

The rehearsal runs the child's real code path (``read_job``, ``_run``, the result encoding)
on jobs written below, in throwaway namespaces, with a result channel that writes nowhere and
an audit guard that is never switched on. It changes no state a run can observe: the real
namespaces are built afterwards, every child seeds ``random`` itself, and the rehearsal imports
nothing beyond the core modules (``tests/test_sandbox_api.py`` checks that no name leaks).
"""

from __future__ import annotations

import marshal
import os

from course_utils.sandbox._child import World, _run, _sender, compile_job
from course_utils.sandbox._jobpipe import pack_job, read_job

CODE = '''
import math
from typing import Dict, List, Optional, Tuple


def solve(numbers: List[int], word: str = "abc") -> Tuple[int, str]:
    """Made-up task touching what benchmark solutions use most."""
    total, seen = 0, set()
    for i, n in enumerate(numbers):
        if n % 2 == 0 and n not in seen:
            seen.add(n)
            total += n * i
    counts: Dict[str, int] = {}
    for ch in word.lower():
        counts[ch] = counts.get(ch, 0) + 1
    letters = sorted(counts, key=lambda c: (-counts[c], c))
    squares = [x * x for x in range(len(numbers)) if x]
    return total + sum(squares) + int(math.sqrt(16)), "".join(letters[:2]).upper()


def divide(x: float) -> Optional[float]:
    return 1 / x


class Box:
    def __init__(self, value):
        self.value = value

    def items(self):
        return [self.value, str(self.value), float(self.value), (self.value,), {self.value}]


def boxed(value):
    try:
        divide(0)
    except ZeroDivisionError:
        pass
    return Box(value).items()
'''

PROGRAM = '''
def check(candidate):
    assert candidate([1, 2, 3, 4]) == (32, "AB"), "message"
    assert candidate([]) == (4, "AB")
    assert abs(boxed(2)[2] - 2.0) < 1e-6
    assert boxed(3)[:2] == [3, "3"] and True
    assert not candidate([2])[0] == 0
    for x in range(3):
        assert candidate([x])[1] in ("AB", "BA")


check(solve)
'''

FAILING_PROGRAM = "assert solve([1, 2]) == (0, 'x'), 'attendu'\n"

PROBES = [["solve([1, 2])"], ["boxed(1)"], ["divide(0)"], ["solve([])"], ["len(boxed(2))"],
          ["divide(4.0)"]]

ROUNDS = 3  # measured: more rounds barely lower what a child writes


def _jobs() -> list[bytes]:
    """The made-up jobs, as the caller would write them on a spare's job pipe."""
    settings = {"code": CODE, "timeout": 5.0, "memory_mb": 512, "output_limit": 20_000,
                "modules": ["math", "typing"]}
    messages = []
    for tests in ({"program": PROGRAM}, {"program": FAILING_PROGRAM}, {"probes": PROBES}):
        job = {**settings, **tests}
        compiled, error = compile_job(job)
        if error:  # a bug in the texts above: rehearse the rest
            continue
        code, tests_code = compiled
        blob = marshal.dumps((job.get("program"), job.get("probes"), tests_code))
        messages.append(pack_job(job, marshal.dumps(code), blob))
        if "program" in tests:  # and as new code, which the child compiles itself
            messages.append(pack_job(job, None, blob))
    return messages


def _received(message: bytes):
    """``(job, (code, tests))`` read back through a pipe, as a spare reads its job."""
    if len(message) > 60_000:  # the pipe must hold it all (read_job ends a process on EOF)
        raise ValueError("rehearsal job too large")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, message)
    finally:
        os.close(write_end)
    try:
        return read_job(read_end)
    finally:
        os.close(read_end)


class _Silent:
    """Audit guard of a rehearsal: never switched on (the real hook stays permissive)."""

    def enable(self) -> None:
        pass

    def violations(self) -> list:
        return []


def rehearse(views: dict, rounds: int = ROUNDS) -> None:
    """Run the made-up jobs ``rounds`` times in throwaway worlds; never raises."""
    try:
        messages = _jobs()
        guard = _Silent()
        for _ in range(rounds):
            for message in messages:
                job, compiled = _received(message)
                send = _sender(-1, write=lambda fd, data: len(data))
                _run(job, compiled, send, guard, World(dict(views)))
    except Exception:  # noqa: BLE001 - a rehearsal that fails only leaves the worker colder
        pass
    finally:
        from course_utils.sandbox._child_audit import _trusted_codes

        _trusted_codes.clear()  # the rehearsal's code objects are gone: their ids are not trusted
