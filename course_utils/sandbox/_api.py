"""Caller side: the public API (:class:`Sandbox`, :func:`run_tests`, the result types).

See the package docstring (``course_utils.sandbox``) for what each layer stops.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from dataclasses import asdict, dataclass, field

from course_utils.sandbox._static import static_check as _static_check

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
        self._worker = None  # _client.ForkClient, started on first run
        self._finalizer = None

    def run(self, code: str, tests, *, timeout: float | None = None,
            memory_mb: int | None = None) -> SandboxResult:
        """Run ``code`` then ``tests`` (list of expressions, or an assertion program)."""
        request = {"code": code, "tests": list(tests) if isinstance(tests, tuple) else tests,
                   "timeout": self.timeout if timeout is None else timeout,
                   "memory_mb": self.memory_mb if memory_mb is None else memory_mb}
        start = time.perf_counter()
        if self.mode == "spawn":
            from course_utils.sandbox._spawn import run_spawned

            raw = run_spawned(request)
        else:
            raw = self._ask_worker(request)
        return SandboxResult.from_raw(raw, time.perf_counter() - start)

    def _ask_worker(self, request: dict) -> dict:
        from course_utils.sandbox._client import WorkerFailure
        from course_utils.sandbox._supervisor import supervise

        with self._lock:  # every wait below has a deadline: the lock is never held forever
            if self._worker is None or not self._worker.alive():
                self._start()
            try:
                return supervise(request, self._worker, mode="fork")
            except WorkerFailure as exc:  # wedged or gone: killed, replaced at the next run
                self._worker.kill_worker()
                self._discard()
                return _failed(request, f"{exc} : il a été arrêté et sera remplacé")
            except BaseException:
                self._discard()  # interrupted or broken mid-run: start afresh next time
                raise

    def _start(self) -> None:
        from course_utils.sandbox._client import ForkClient

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

    @property
    def os_boundary(self) -> str:
        """French summary of the operating system's layer in the children on this machine
        (Linux: unprivileged user when root, no_new_privs, seccomp filter; else none)."""
        if self.mode == "spawn" or self._worker is None:
            from course_utils.sandbox._child_os import prepare

            return prepare().describe()
        return self._worker.os_boundary

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "actif" if self._worker is not None else "arrêté"
        return f"Sandbox(mode={self.mode!r}, timeout={self.timeout}, memory_mb={self.memory_mb}, {state})"


def _failed(request: dict, error: str) -> dict:
    tests = request.get("tests")
    total = len(tests) if type(tests) is list else 1
    return {"passed": 0, "total": total, "failures": [], "error": error, "timed_out": False,
            "output": ""}


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
    """Run ``code`` against ``tests`` in the shared sandbox; see the package docstring."""
    return default_sandbox().run(code, tests, timeout=timeout, memory_mb=memory_mb)
