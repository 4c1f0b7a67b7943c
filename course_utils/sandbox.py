"""Sandbox: run model-generated code against tests, in a separate process, with several layers.

Usage::

    from course_utils.sandbox import run_tests
    result = run_tests(code, ["fizzbuzz(5) == [1, 2, 'Fizz', 4, 'Buzz']"], timeout=2)
    result.ok, result.passed, result.total, result.failures, result.error

``tests`` is a list of expressions (each scored), or one assertion program as a string
(HumanEval's ``check(candidate)`` style, scored as one test; it names the functions it calls,
e.g. ``problem["test"] + "\\ncheck(fizzbuzz)"``). :class:`Sandbox` keeps a warm worker for many
runs; ``run_tests`` uses a shared one, started on first use and stopped at exit.

What each layer stops, and what it does not
-------------------------------------------
1. **Static check** (:func:`static_check`, ``sandbox_static``): refuses dunder attributes
   (``__class__``, ``__subclasses__``, ``__globals__``, ...), frame and introspection attributes
   (``gi_frame``, ``f_back``, ``tb_frame``, ``co_code``, ...), names such as ``__builtins__`` or
   ``__import__``, dangerous builtins (``open``, ``exec``, ``compile``, ``globals``, ``vars``),
   format templates walking attributes, imports outside the allow-list. It stops the classic
   escapes *written in the source*; it cannot see names built at run time, hence layer 2.
2. **Restricted namespace** (``sandbox_builtins``): fresh builtins without those functions;
   ``getattr``, ``eval``, ``operator.attrgetter`` and dynamic ``str.format`` apply the same
   rules at run time; modules are read-only views of their public names (no ``random._os``,
   ``collections._sys``, module ``__builtins__`` or loader). Not a proof: CPython has many
   objects, and a new path around these rules is possible, hence layers 3 to 5.
3. **Separate process with an audit hook** (PEP 578, ``sandbox_policy``): in strict mode every
   audited event is refused except a short list, so opening a file (even by descriptor),
   starting a process, a socket, ``ctypes``, creating code objects, importing an unloaded
   module, walking frames from the untrusted code... fail with a French reason, and the run
   fails. It does not see operations CPython does not audit (``os.write`` on an inherited
   descriptor, for instance: that is why the code never gets ``os``, and why the child keeps
   only its result channel open).
4. **Resource limits** (POSIX): CPU seconds, address space (``memory_mb`` above the worker's
   own size, Linux), file size 0, no new process, 16 open files, no core file; plus a real
   wall-clock timeout that kills the process (SIGKILL). **Windows has no resource limits**:
   only the timeout and the other layers apply there.
5. **Unforgeable results**: the child keeps one descriptor besides the null device on 0-2, the
   write end of a pipe to the supervisor (the caller), written only from the runner's closures;
   the code has no name for it (no ``os``, ``open`` refused even on a descriptor number). The
   code's ``print`` goes to a capped buffer, returned as ``output`` and never parsed. The run
   counts only if the child reports ``done``: ``SystemExit``, a crash or a kill pass nothing.
   Comparisons happen on *plain data* (numbers, strings, lists, tuples, dicts, sets, None,
   booleans) copied without calling the objects' methods. For expression tests the child only
   evaluates the calls (``fizzbuzz(5)``) and sends their plain values; the expected values
   never reach the child's memory, and the caller compares. Assertion programs run in the
   child, rewritten so that ``==``, ``assert``, ``if``, ``not``... work on plain copies, and the
   code's functions hand them plain copies. An object whose ``__eq__`` always answers ``True``,
   a ``str`` subclass or a patched builtin passes nothing. A class instance cannot be compared
   (the test fails with a clear reason); arithmetic done *by the tests* on such an instance is
   not protected.

Not protected: a determined attacker with a CPython bug (memory corruption, an unaudited
path to the OS) can escape an in-process sandbox; code that escaped every layer could also
write forged records on its channel (for an assertion program, a forged success; for
expression tests it would have to guess values it never saw). The course's answer for truly
hostile code is a disposable container or virtual machine (``docker run --network none
--read-only ...``).

Modes: ``"fork"`` (default on POSIX): a warm worker, a clean single-threaded process started
once with ``subprocess`` (so calling from a Jupyter kernel, which has threads, is safe), forks
children ahead of time; the caller checks and compiles each new program and test set once
(they are cached) and hands the run to one of them: about a millisecond per run of trivial
code on Linux. ``"spawn"`` (default on Windows) starts a fresh interpreter per run: portable,
a few tens of milliseconds per run. Each run starts with ``random.seed(0)`` and
``PYTHONHASHSEED=0``: the same code gives the same result.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from dataclasses import asdict, dataclass, field

from course_utils.sandbox_static import static_check as _static_check

__all__ = ["Sandbox", "SandboxResult", "TestFailure", "run_tests", "static_check"]


def static_check(code: str) -> list[str]:
    """French reasons why the sandbox refuses ``code`` before running it ([] if none)."""
    return _static_check(code)


@dataclass(frozen=True)
class TestFailure:
    """One failed test: the test (expression, or « programme de test ») and why, in French."""

    __test__ = False  # not a pytest test class

    test: str
    reason: str

    def __str__(self) -> str:
        return f"{self.test} → {self.reason}"


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of one run. ``ok`` is true when every test passed and there was no error."""

    passed: int
    total: int
    failures: tuple[TestFailure, ...] = ()
    error: str | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    output: str = field(default="", repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None and self.passed == self.total

    def to_dict(self) -> dict:
        data = asdict(self)
        data["failures"] = [asdict(f) for f in self.failures]
        data["ok"] = self.ok
        return data

    def __str__(self) -> str:
        mark = "✅" if self.ok else "❌"
        lines = [f"{mark} {self.passed}/{self.total} tests réussis "
                 f"({self.duration_s * 1000:.0f} ms)"]
        if self.error:
            lines.append(f"   erreur : {self.error}")
        lines += [f"   - {failure}" for failure in self.failures]
        return "\n".join(lines)

    @classmethod
    def from_raw(cls, raw: dict, duration_s: float) -> SandboxResult:
        failures = tuple(TestFailure(str(t), str(r)) for t, r in raw.get("failures", []))
        return cls(passed=int(raw["passed"]), total=int(raw["total"]), failures=failures,
                   error=raw.get("error"), timed_out=bool(raw.get("timed_out")),
                   duration_s=round(duration_s, 6), output=raw.get("output") or "")


class Sandbox:
    """Reusable sandbox; the warm worker starts on first run and stops at :meth:`close`.

    ``mode`` is ``"fork"`` (POSIX default: warm worker, one fork per run) or ``"spawn"``
    (Windows default: one fresh interpreter per run). ``timeout`` (seconds, wall clock) and
    ``memory_mb`` are the defaults of :meth:`run`. Use it as a context manager, or let the
    interpreter stop it at exit.
    """

    def __init__(self, *, mode: str | None = None, timeout: float = 5.0, memory_mb: int = 512):
        if mode is None:
            mode = "fork" if hasattr(os, "fork") and sys.platform != "win32" else "spawn"
        if mode not in ("fork", "spawn"):
            raise ValueError("mode doit valoir « fork » ou « spawn »")
        if mode == "fork" and not hasattr(os, "fork"):
            raise ValueError("le mode « fork » n'existe pas sur ce système : utilisez « spawn »")
        self.mode, self.timeout, self.memory_mb = mode, timeout, memory_mb
        self._lock = threading.Lock()
        self._worker = None  # sandbox_worker.ForkClient, started on first run
        self._finalizer = None

    def run(self, code: str, tests, *, timeout: float | None = None,
            memory_mb: int | None = None) -> SandboxResult:
        """Run ``code`` then ``tests`` (list of expressions, or an assertion program)."""
        request = {"code": code, "tests": list(tests) if isinstance(tests, tuple) else tests,
                   "timeout": self.timeout if timeout is None else timeout,
                   "memory_mb": self.memory_mb if memory_mb is None else memory_mb}
        start = time.perf_counter()
        if self.mode == "spawn":
            from course_utils.sandbox_supervisor import run_spawned

            raw = run_spawned(request)
        else:
            raw = self._ask_worker(request)
        return SandboxResult.from_raw(raw, time.perf_counter() - start)

    def _ask_worker(self, request: dict) -> dict:
        from course_utils.sandbox_supervisor import supervise

        with self._lock:
            if self._worker is None or not self._worker.alive():
                self._start()
            try:
                return supervise(request, self._worker, mode="fork")
            except BaseException:
                self._discard()  # interrupted or broken mid-run: start afresh next time
                raise

    def _start(self) -> None:
        from course_utils.sandbox_worker import ForkClient

        if self._worker is not None and self._worker.owner != os.getpid():
            self._worker = self._finalizer = None  # inherited through a fork: not ours
        self._discard()
        self._worker = ForkClient()
        self._finalizer = weakref.finalize(self, self._worker.close)

    def _discard(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # stops the worker (once)
        self._worker = self._finalizer = None

    def close(self) -> None:
        """Stop the warm worker (a later run starts a new one)."""
        with self._lock:
            self._discard()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "actif" if self._worker is not None else "arrêté"
        return f"Sandbox(mode={self.mode!r}, timeout={self.timeout}, memory_mb={self.memory_mb}, {state})"


_default: Sandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """The shared sandbox used by :func:`run_tests` (created on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox()
        return _default


def run_tests(code: str, tests, *, timeout: float = 5.0, memory_mb: int = 512) -> SandboxResult:
    """Run ``code`` against ``tests`` in the shared sandbox; see the module docstring."""
    return default_sandbox().run(code, tests, timeout=timeout, memory_mb=memory_mb)
