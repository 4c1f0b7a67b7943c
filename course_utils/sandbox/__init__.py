"""Sandbox: run model-generated code against tests, in a separate process, with several layers.

Usage::

    from course_utils.sandbox import run_tests
    result = run_tests(code, ["fizzbuzz(5) == [1, 2, 'Fizz', 4, 'Buzz']"], timeout=2)
    result.ok, result.passed, result.total, result.failures, result.error

``tests`` is a list of expressions (each scored), or one assertion program as a string
(HumanEval's ``check(candidate)`` style, scored as one test; it names the functions it calls,
e.g. ``problem["test"] + "\\ncheck(fizzbuzz)"``). :class:`Sandbox` keeps a warm worker for many
runs; ``run_tests`` uses a shared one, started on first use and stopped at exit.

Where the code runs (the module names show the boundary)
--------------------------------------------------------
* **caller** (your process: a notebook kernel): ``_api`` (:class:`Sandbox`, :func:`run_tests`,
  results), ``_plan`` (check, split and compile the code and tests, cached), ``_supervisor``
  (deadline, records, verdict), ``_client`` (the warm worker's handle), ``_spawn`` (one
  interpreter per run, and every command line);
* **worker** (trusted, runs no untrusted code, forks the children): ``_worker``,
  ``_worker_rehearsal``;
* **child** (runs the untrusted code, then ends): ``_child`` (runner and result channel),
  ``_child_builtins`` (restricted builtins, module views, checked wrappers), ``_child_audit``
  (PEP 578 hook), ``_child_os`` (privileges, seccomp, immutable classes);
* both sides, pure functions and data: ``_static``, ``_rewrite``, ``_plain``, ``_jobpipe``,
  ``_policy``. This package's ``__init__`` is lazy: the child imports only its side.

What each layer stops, and what it does not
-------------------------------------------
1. **Static check** (:func:`static_check`, ``_static``): refuses dunder attributes
   (``__class__``, ``__subclasses__``, ``__globals__``, ...), frame and introspection attributes
   (``gi_frame``, ``f_back``, ``tb_frame``, ``co_code``, ...), names such as ``__builtins__`` or
   ``__import__``, dangerous builtins (``open``, ``exec``, ``compile``, ``globals``, ``vars``),
   format templates walking attributes, imports outside the allow-list. It stops the classic
   escapes *written in the source*; it cannot see names built at run time, hence layer 2. Its
   cost is linear in the source, which is capped (100,000 characters; tests too), and so is
   the parse: one f-string is capped at 10,000 characters (CPython 3.11 parses it in time
   quadratic in its length), checked by a linear scan before parsing. The caller does not
   compile new code: CPython 3.11's compiler has passes quadratic in shapes no cap foresees
   (keyword names checked pairwise, constants sharing one hash, enclosing names copied into
   every nested scope), and a compile cannot be interrupted. The first child to run a
   program compiles it, within the run's limits; the caller compiles it for the next runs
   only once a child did so in under 0.1 s (``_plan.CodePlan``); either way the child gets
   the same code (the child's own compile is marshalled and read back, under the same size
   cap, and compiled with ``optimize=0`` whatever the caller's flags). Besides: at most 2,000
   functions, classes and comprehensions, constants the compiler would fold
   (``'😀' * 4096``, sums of them) capped at 8 MB before compiling, the compiled job capped at
   8 MB, and the code's syntax warnings are not printed in the caller.
2. **Restricted namespace** (``_child_builtins``): fresh builtins without those functions;
   ``getattr``, ``eval``, ``operator.attrgetter``/``methodcaller``, ``functools.update_wrapper``/
   ``wraps`` and dynamic ``str.format`` apply the same rules at run time; ``namedtuple``,
   ``typing.NamedTuple`` and ``dataclasses`` accept only exact identifiers as field names (they
   paste them into source they compile; inherited fields and a Field renamed are checked too,
   a metaclass answering attribute reads itself is refused, the generated text reads no
   attribute beyond a field of ``self``/``other``, and the generated methods run with the
   code's builtins, never the real ones); ``UserString.format`` checks its template like a
   string's; the standard library's own ``eval`` and ``exec`` (a global of each of its modules)
   give a namespace without builtins the code's, never the interpreter's (CPython puts them in
   before any audit event: typing's ``ForwardRef._evaluate`` handed them over); modules are
   read-only views of their public names (no
   ``random._os``, ``collections._sys``, module ``__builtins__`` or loader), and the classes of
   the allowed modules, like the views' own classes, are immutable (``random.Random.randrange =
   ...`` raises ``TypeError``). Not a proof: CPython has many objects, hence the layers below.
3. **Audit hook** (PEP 578, ``_child_audit``), added once right before the code runs, with no
   switch to turn it off: every audited event is refused except a short list, so opening a file
   (even by descriptor), starting a process, a socket, ``ctypes``, creating or compiling code,
   importing an unloaded module, ``gc`` walks... fail with a French reason, and the run fails.
   Its exceptions are decided by *target* (the runner's own code objects, classes of the
   untrusted code) or inside *windows* opened by the runner's wrappers around exact arguments,
   never by the Python frame that raised the event (a C callable called from a stdlib frame
   inherits nothing). It does not see what CPython does not audit (``os.write``, ``f_back``...).
4. **Operating system** (``_child_os``), **Linux**: before the code runs, the child drops to user
   ``nobody`` when run as root, sets ``no_new_privs``, and loads a **seccomp** filter (compiled
   with libseccomp through ``pyseccomp``, once per caller process) that allows memory, signals,
   clocks, ``exit``, ``write`` on the result channel only, ``read`` on the job pipe only
   (closed before the code runs) and lowering its own limits: opening files, reading any other
   descriptor, ``execve``, ``fork``/``clone``, sockets, ``ptrace``, ``process_vm_readv``,
   ``kill``, raising limits or changing identity all fail with ``EPERM`` (a forked spare locks
   itself down before its job arrives, see ``_child_os``). Even code that escaped every
   Python layer can neither read, write, connect, spawn, signal, nor read another process's
   memory. Plus resource limits (POSIX): CPU seconds, address space (``memory_mb`` above the
   worker's own size, Linux), file size 0, no new process (effective once the child is not
   root), 16 open files, no core file; and a real wall-clock timeout that kills the process
   (SIGKILL). :attr:`Sandbox.os_boundary` says which of these hold on this machine.
5. **Unforgeable results**: the child writes one descriptor (the channel to the supervisor, fd 3),
   only from the runner's closures; every record carries a per-run nonce the code never sees
   and a sequence number, and anything else on the channel voids the run. The code's
   ``print`` goes to a capped buffer, returned as ``output`` and never parsed. The run counts
   only if the child reports ``done``: ``SystemExit``, a crash or a kill pass nothing.
   Comparisons happen on *plain data* (numbers, strings, lists, tuples, dicts, sets, None,
   booleans), checked by exact type (a metaclass that claims to equal ``int`` fools nothing)
   and copied without calling the objects' methods. For expression tests the child only
   evaluates the calls (``fizzbuzz(5)``) and sends their plain values; an expected value
   written as a literal (``== 'FizzBuzz'``) never reaches the child, and the caller compares
   (one that is computed, ``== float(Decimal(1) / Decimal(3))``, is evaluated in the child,
   beside the code, like an assertion program) (rebuilding sets and dicts only when their
   hashes do not collide en masse). Assertion programs run in the child, rewritten so that
   ``==``, ``assert``, ``if``, ``not``... work on plain copies; an ``assert`` that fails, or
   that an exception interrupts inside a function of the tests called by the code, fails the
   program even if the code catches the exception, and so does a refusal of the sandbox that
   the tests catch (``try: f(-1) except Exception: pass`` does not pass on the refusal of
   what ``f`` returned). The runner catches every exception with a bare ``except``, whatever a
   metaclass's ``mro()`` leaves out of its class. The tests see the code's functions (called
   on *copies* of their arguments, returning plain copies) and its plain data; a class or
   another object of the code is refused where the tests use it (its methods could lie through
   arithmetic, ``round``, ``len``...), also when the code passes it to a function of the tests.
   A copy keeps the sharing of the value it copies (``[[0] * w] * h`` is still one row
   repeated), and an expression test whose ``and``/``or`` or chained comparison would skip
   a call in Python is evaluated whole, in the child, as Python would.
   The other way, the code reaches nothing of the tests but what they hand over, as copies
   (``_crossing``): plain data, classes and objects of the standard library (a copy that would
   still hold a changeable object of the tests is refused; what an object the collector does
   not track holds, a datetime's tzinfo, is read through its reduction), a module as the code's own view,
   the tests' callables and iterators through callbacks of the runner (what they return, yield
   or raise is handed over by the same rule; they run in the tests' decimal context). An
   object of a class the tests define, or the class itself, is refused with a reason: the code
   would get the class, and could patch it (CPython audits no write to a class) or mutate what
   it holds. What the allowed modules' classes hold (``TextWrapper``'s translation table, an
   enum's maps), their enum members and the objects they export (``typing.Union``...) are
   read-only (``_shared_state``), ``copy`` writes a reduction's state only into an object
   it has just made and refuses a reduction carrying a module's namespace, a ``typing`` alias
   keeps the fields it was made with, no class of the run derives typing's machinery
   (``ForwardRef``, ``_GenericAlias``) and ``get_type_hints`` lends no namespace but the
   code's, ``sys.modules`` holds stand-ins of the allowed modules
   with an empty ``__dict__`` while the code runs (``enum.global_enum`` writes the globals of
   a module named by the code; ``Enum._convert_``, which reads any namespace, is refused; the
   runner's wrappers keep their originals in closures, not in attributes), the code's
   ``DefaultContext`` is a copy, ``statistics`` draws from the generator of whoever's turn it
   is, ``x.__init__`` (read by the attribute syntax or ``getattr`` only, like ``x.format``:
   by name elsewhere, in a class pattern or a reduction, it is refused) refuses to
   initialise again an object made before the run (a
   ``property`` of ``Fraction``, an enum's map: shared with the tests), every attribute the
   code writes or deletes is checked at run time (``_rewrite``: no object the loaded modules
   hold changes, ``_shared_state.held``; abc's abstract marks and enum's members refuse them
   too),
   and the caches are emptied between the two sides. Whether a value is a class is read from
   CPython's type flag, not from a metaclass's MRO (``_child_os.is_class``). The stdlib ABCs are shared: their
   subclass checks leave the classes of the run out (a subclass of the code's would otherwise
   make ``numbers.Integral`` answer anything, for the tests and for the standard library) and
   their registries cannot be cleared, and their caches keep no class of the run (a
   metaclass's ``__eq__`` would be asked by the tests' own checks).
   The code's finalisers run only while the code is current (its objects die before each of
   its calls returns, and the cyclic collector is off while the tests run and during every
   change of turn; the code's callables handed to the tests stay alive to the end of the run,
   so they never die on the tests' turn). A change of turn is whole or the rest of the run is
   void: if switching
   back to the tests fails halfway (the code exhausted the memory), the run is aborted.
6. **No wedge**: every read from the worker and every write to it has a deadline; a worker that
   misses one (stopped, wedged) is killed, the call returns a French error, and the next run
   starts another; a stopped child is killed by the run's timeout.

Per operating system
--------------------
* **Linux** (the course's reference): all six layers. After a complete Python-level escape the
  code still cannot touch the system (layer 4); it could only lie *about its own run*: claim
  that an assertion program passed (it shares the process with that program), or crash. It
  cannot forge the result of an expression test whose expected values are literals: they are
  in no process it can read. Without libseccomp (``libseccomp2``) the filter is absent, which
  ``os_boundary`` says; the privilege drop and ``no_new_privs`` remain.
* **macOS**: layers 1-3, 5, 6 and the resource limits (no ``RLIMIT_AS`` in practice); the
  privilege drop when run as root; **no seccomp**: a Python-level escape reaches your files and
  the network with your rights.
* **Windows**: layers 1-3, 5 and the timeout, in spawn mode (a fresh interpreter per run); **no
  resource limits, no OS boundary**: the same remark as macOS, with memory and processes
  unlimited too.

Not protected anywhere: a bug of CPython or of the kernel (memory corruption, an unfiltered
system call that matters). Not used: network or PID namespaces (the filter already refuses
sockets, signals and ``ptrace``; creating a namespace per run would cost more than the run). For
truly hostile code, use a disposable container or virtual
machine (``docker run --network none --read-only ...``).

Modes: ``"fork"`` (default on POSIX): a warm worker, a clean single-threaded process started
once with ``subprocess`` (so calling from a Jupyter kernel, which has threads, is safe), forks
children ahead of time; the caller checks and compiles each new program and test set once
(they are cached) and hands the run to one of them: about a millisecond per run of trivial
code on Linux. ``"spawn"`` (default on Windows) starts a fresh interpreter per run: portable,
a few tens of milliseconds per run. Each run starts with ``random.seed(0)`` and
``PYTHONHASHSEED=0``: the same code gives the same result. The code and the tests share no
module state: the tests' ``random`` has a generator of its own (seeded with a secret per run:
the code cannot compute the tests' random inputs), each side has
its own ``decimal`` context, a code function gets copies of its arguments (plain data exactly,
objects of the standard library deeply; never an object of a class of the tests) and a
``StopIteration`` it raises is an error, not the end of the test's loop.
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
