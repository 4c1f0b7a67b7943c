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
1. **Static check** (:func:`static_check`, ``_static``): refuses dunder attributes
   (``__class__``, ``__subclasses__``, ``__globals__``, ...), frame and introspection attributes
   (``gi_frame``, ``f_back``, ``tb_frame``, ``co_code``, ...), names such as ``__builtins__`` or
   ``__import__``, dangerous builtins (``open``, ``exec``, ``compile``, ``globals``, ``vars``),
   format templates walking attributes, imports outside the allow-list. It stops the classic
   escapes *written in the source*; it cannot see names built at run time, hence layer 2.
2. **Restricted namespace** (``_child_builtins``): fresh builtins without those functions;
   ``getattr``, ``eval``, ``operator.attrgetter`` and dynamic ``str.format`` apply the same
   rules at run time; modules are read-only views of their public names (no ``random._os``,
   ``collections._sys``, module ``__builtins__`` or loader). Not a proof: CPython has many
   objects, and a new path around these rules is possible, hence layers 3 to 5.
3. **Separate process with an audit hook** (PEP 578, ``_child_audit``): in strict mode every
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

import importlib

__all__ = ["Sandbox", "SandboxResult", "TestFailure", "run_tests", "static_check"]

# Lazy: a spawned child or the warm worker imports ``course_utils.sandbox._child`` through this
# package; it must not pull in the caller's side (dataclasses, threading, the supervisor).
_LAZY = {"Sandbox": "_api", "SandboxResult": "_api", "TestFailure": "_api", "run_tests": "_api",
         "static_check": "_api", "default_sandbox": "_api"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'course_utils.sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
