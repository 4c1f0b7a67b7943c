"""Child side of one sandbox run: load the untrusted code, run the tests, report plain data.

The child is a fresh process: forked from the warm worker ahead of time (it then waits for
its job on a pipe, see _worker and _jobpipe), or spawned. Before any untrusted
code runs it:

1. keeps one file descriptor, the *result channel* (a pipe to the supervisor), plus the pipe
   its job arrives on until it has read it; points 0, 1 and 2 at the null device and closes
   every other descriptor;
2. sets resource limits where the OS has them (CPU seconds, address space, file size 0,
   no new process, few open files, no core file);
3. gets the code and tests compiled (by the caller, which checked and rewrote them, once per
   code and per test set; or by itself when spawned: static check, rewrites) and has two
   namespaces with their own restricted builtins, built by the worker before it forked: the
   code's, and the tests' (which sees the code's functions only through wrappers returning
   plain copies of their results);
4. drops its privileges and loads the seccomp filter (``_child_os.lock_down``);
5. switches the audit hook to strict mode.

What does not depend on the job is not done while the run waits. The worker does it once,
before it forks, for every spare (:meth:`World.prepare_spares`): the sender (the nonce is set
when the job arrives), the alarm handler (its timer starts with the job), ``no_new_privs``.
A spare does the rest while it waits for its job: point 1, ``random.seed(0)`` (seeded again if
the job imports a module), the first touches of the record encoder (:func:`_warm_up`; in a
forked child, most of a step's cost is the copy-on-write faults of its first touches) and the
limits that do not depend on the job (:data:`FIXED_LIMITS`: no file written, no process, few
descriptors, no core file; the worker writes no ``.pyc``, so a module the job imports later
needs no file written). What depends on the job (CPU time, address space, privileges, filter,
hook) still comes after it and before any untrusted code, in the order above.

The channel is written only by :func:`_sender`'s closure; the untrusted code has no name for it
(no ``os``/``sys``/``io`` module, ``open`` refused even on a descriptor number, no frame or
closure introspection), and what it prints goes to a capped buffer that is never parsed.
Each record is a length-prefixed JSON object; the run counts only if the last one is
``{"k": "done"}``. The process ends with ``os._exit``: no ``atexit``, no finaliser runs.
"""

from __future__ import annotations

import _signal
import json
import marshal
import os
import random
import signal
import struct
import sys
import time
import types

try:  # imported here so that a forked child does not import it (a file read) at each run
    import resource
except ImportError:  # Windows: no resource limits (see the sandbox docstring)
    resource = None

from course_utils.sandbox import _child_builtins, _child_os, _rewrite
from course_utils.sandbox._child_audit import close_window, open_window, trust_code
from course_utils.sandbox._child_builtins import (
    OutputBuffer,
    build_views,
    harden_modules,
    make_builtins,
    tests_view,
)
from course_utils.sandbox._crossing import (
    Membrane,
    _caught_refusal,
    forget_caches,
    gc_disable,
    sided_random,
)
from course_utils.sandbox._jobpipe import read_job, too_big
from course_utils.sandbox._plain import (
    RunEncoding,
    PlainValueError,
    describe,
    encode,
    to_plain,
    truth,
    type_name,
)
from course_utils.sandbox._plain import compare as plain_compare
from course_utils.sandbox._child_audit import SandboxViolation
from course_utils.sandbox._policy import CORE_MODULES, TESTS_MODULE, USER_MODULE, preload
from course_utils.sandbox._shared_state import register_held_objects, stand_in_modules
from course_utils.sandbox._rewrite import (
    COMPARE_HELPER,
    FAIL_HELPER,
    TRUTH_HELPER,
    CodeRefused,
)

MAX_RECORD = 4 * 1024 * 1024
_SIZE_PREFIX = struct.Struct(">I")  # compiled once: struct's cache is emptied between calls


def _refuse_to_encode(value):
    raise TypeError(f"{type_name(value)} n'est pas une donnée simple")


def _record_encoder():
    """``record -> str``: compact ASCII JSON, no NaN or infinity (the supervisor refuses them).

    Built once, in the worker. The C encoder of ``json`` called directly: ``json.dumps`` would
    build an encoder per record and go through four Python functions, whose first touches in
    a forked child copy some 25 pages more. Records are trees the runner builds (no cycle to
    look for).
    """
    from json import encoder

    if encoder.c_make_encoder is None:  # an interpreter without the C accelerator
        return json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
    make = encoder.c_make_encoder(None, _refuse_to_encode, encoder.encode_basestring_ascii, None,
                                  ":", ",", False, False, False)
    join = "".join
    return lambda record: join(make(record, 0))


_encode_record = _record_encoder()
RUNNER_FILES = frozenset({__file__, _child_builtins.__file__, _rewrite.__file__})


class TestAssertionFailed(AssertionError):
    """A failed ``assert`` of an assertion program (line number and detail in French)."""


def _sender(fd: int, nonce: int = 0, write=os.write):
    """The only writer of the result channel (a closure: the untrusted code cannot name it).

    Records of a short run are sent together at the end (one wake-up of the supervisor); once
    the run has lasted 20 ms, each record is sent at once, so that a timeout can tell which
    test was running. Every record carries the run's ``nonce`` (chosen by the caller, never
    given to the untrusted code) and its sequence number: the supervisor accepts nothing else.
    (``write`` is replaced only by the worker's rehearsal.)
    """
    pack, clock = _SIZE_PREFIX.pack, time.monotonic
    dumps = _encode_record
    run_nonce = [nonce]
    pending: list[bytes] = []
    start: list[float] = []
    busy = [False]
    sequence = [0]

    def flush() -> None:
        if busy[0] or not pending:
            return  # a timer flush never interleaves with a flush in progress
        busy[0] = True
        try:
            data = b"".join(pending)
            pending.clear()
            while data:
                data = data[write(fd, data):]
        finally:
            busy[0] = False

    def send(record: dict) -> None:
        record["n"], record["s"] = run_nonce[0], sequence[0]
        sequence[0] += 1
        data = dumps(record).encode("ascii")
        if len(data) > MAX_RECORD:
            data = dumps({"k": record.get("k"), "i": record.get("i"), "big": True,
                          "n": run_nonce[0], "s": record["s"]}).encode()
        pending.append(pack(len(data)) + data)
        if not start:
            start.append(clock())
        if record["k"] in ("test", "loaded") and clock() - start[0] < 0.02:
            return
        flush()

    def set_nonce(value: int) -> None:  # a spare makes its sender before its job arrives
        run_nonce[0] = value

    send.flush = flush  # for the timer of :func:`_flush_periodically`
    send.set_nonce = set_nonce
    return send


def _flush_periodically(flush, period: float = 0.02, start: bool = True) -> None:
    """Flush buffered records every ``period`` s, so a run stuck in a loop has reported its stage.

    Without it, a test that never returns would leave ``loaded`` in the buffer and a timeout
    could not say which test was running. POSIX only (``setitimer``); the handler is a closure the
    untrusted code cannot name, and it never raises into the code it interrupts. With
    ``start=False`` only the handler is installed (a spare, before its job): :func:`_start_timer`
    starts the clock once the job has arrived.
    """
    if not hasattr(signal, "setitimer"):
        return

    def on_alarm(signum, frame):
        try:
            flush()
        except:  # noqa: E722 - the supervisor judges what it received
            pass

    # The C function itself: ``signal.signal`` wraps it to return the old handler as an enum
    # member, a detour through the enum machinery that cost a spare ~40 page copies (~0.1 ms).
    _signal.signal(_signal.SIGALRM, on_alarm)
    if start:
        _start_timer(period)


def _start_timer(period: float = 0.02) -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, period, period)


def _isolate(channel_fd: int, job_fd: int | None = None, null_fd: int | None = None,
             max_fd: int | None = None) -> int | None:
    """Null device on 0, 1, 2; the channel on descriptor 3 (the seccomp filter lets the child
    write there only), the job pipe (if any) on 4; close every other descriptor.

    ``null_fd`` (the null device) and ``max_fd`` are the worker's, opened and measured once
    (:meth:`World.prepare_spares`): a spare then touches fewer pages (its copy-on-write
    faults). Returns the job pipe's new descriptor.
    """
    # Written out, without loops or helpers: in a forked child every object touched for the
    # first time copies a page (measured: 9 page copies this way, 55 with loops and fcntl).
    dup2, channel = os.dup2, _child_os.CHANNEL_FD
    null = os.open(os.devnull, os.O_RDWR) if null_fd is None else null_fd
    high = channel_fd if job_fd is None or channel_fd > job_fd else job_fd
    if null > high:
        high = null
    high += 1  # copies above every descriptor kept clobber none of them
    dup2(channel_fd, high)
    if job_fd is not None:
        dup2(job_fd, high + 1)
    dup2(null, 0)
    dup2(null, 1)
    dup2(null, 2)
    dup2(high, channel, False)
    if job_fd is not None:
        dup2(high + 1, channel + 1, False)
    os.closerange(channel + (1 if job_fd is None else 2), _max_fd() if max_fd is None else max_fd)
    return _child_os.CHANNEL_FD + 1 if job_fd is not None else None


def _max_fd() -> int:
    try:
        return max(min(os.sysconf("SC_OPEN_MAX"), 1 << 16), 256)
    except (AttributeError, ValueError, OSError):
        return 1 << 16


def address_space() -> int | None:
    """Current address space of this process in bytes (Linux), else None."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


# Limits that do not depend on the job: a spare sets them while it waits for its job.
FIXED_LIMITS = (("RLIMIT_FSIZE", 0, 0), ("RLIMIT_CORE", 0, 0), ("RLIMIT_NOFILE", 16, 16),
                ("RLIMIT_NPROC", 0, 0))


def _limit_resources(timeout: float | None, memory_mb: int = 0, base: int | None = None,
                     fixed: bool = True) -> None:
    """Set the run's limits: the fixed ones (``fixed``), then the job's CPU time (from
    ``timeout``, unless None) and address space (``memory_mb`` above ``base``, if known)."""
    if resource is None:
        return
    limits = list(FIXED_LIMITS) if fixed else []
    if timeout is not None:
        cpu = int(timeout) + 2
        limits.append(("RLIMIT_CPU", cpu, cpu + 1))
        if base is not None:  # memory_mb on top of what the interpreter already maps
            room = base + int(memory_mb) * 1024 * 1024
            limits.append(("RLIMIT_AS", room, room))
    for name, soft, hard in limits:
        if hasattr(resource, name):
            try:
                resource.setrlimit(getattr(resource, name), (soft, hard))
            except (OSError, ValueError):
                pass


def _where(exc: BaseException) -> str:
    """« (ligne N de votre code) » for the innermost frame of the code or the tests."""
    found, tb = None, BaseException.__traceback__.__get__(exc)
    open_window()  # reading the runner's own traceback objects: exact types, no untrusted code
    try:
        while type(tb) is types.TracebackType:
            filename = tb.tb_frame.f_code.co_filename
            if type(filename) is str and filename in ("<solution>", "<tests>", "<eval>"):
                found = (filename, tb.tb_lineno)
            tb = tb.tb_next
    finally:
        close_window()
    if found is None:
        return ""
    place = {"<solution>": "de votre code", "<tests>": "du test", "<eval>": "de eval"}
    return f" (ligne {found[1]} {place[found[0]]})"


def describe_exception(exc: BaseException) -> str:
    """French one-line description of an exception raised by untrusted code."""
    kind = type(exc)  # the real class: an object cannot pose as another through __class__
    if any(kind is ours for ours in (SandboxViolation, CodeRefused, PlainValueError,
                                     TestAssertionFailed)):
        args = BaseException.args.__get__(exc)
        return args[0] if args and type(args[0]) is str else type_name(exc)
    name = type_name(exc)
    if issubclass(kind, RecursionError):
        return "récursion trop profonde (RecursionError)" + _where(exc)
    if issubclass(kind, MemoryError):
        return "mémoire épuisée (MemoryError)" + _where(exc)
    try:
        message = str(exc)
        message = message if type(message) is str else str.__str__(message)
    except:  # noqa: E722 - a hostile __str__ must not break the report, whatever it raises
        message = "<message illisible>"
    message = message if len(message) <= 300 else message[:299] + "…"
    return f"{name} : {message}{_where(exc)}" if message else f"{name}{_where(exc)}"


def _test_helpers(program_lines: list[str], membrane: Membrane) -> dict:
    """Builtins added to the tests' namespace (see _rewrite.TestRewriter). Each failed
    ``assert`` is also written down in ``membrane.failed``: the program fails even if the
    exception is caught (by the code, when the tests hand it a function that asserts)."""
    last: list = []  # the last comparison that came out false, as plain data
    failed = membrane.failed

    def refused(exc: PlainValueError):
        # A comparison or a truth test the sandbox refuses (a Fraction, a deque, an object of
        # the code): written down, so that the tests' own `except Exception` does not hide it.
        failed.append(_caught_refusal(exc))
        return exc

    def compare(left, ops, rights):
        try:
            for op, right in zip(ops, rights):
                if not plain_compare(op, left, right):
                    last[:] = [op, left, right]
                    return False
                left = right
        except PlainValueError as exc:
            raise refused(exc) from None
        return True

    def checked_truth(value):
        try:
            return truth(value)
        except PlainValueError as exc:
            raise refused(exc) from None

    def fail(line, message=None):
        source = program_lines[line - 1].strip() if 0 < line <= len(program_lines) else ""
        text = f"assertion fausse ligne {line} du test : {source}"
        if last and last[0] not in ("is", "is not"):
            op, left, right = last
            wanted = describe(to_plain(right)) if op == "==" else f"{op} {describe(to_plain(right))}"
            text += f" — obtenu {describe(to_plain(left))}, attendu {wanted}"
        last.clear()
        if type(message) is str and message:
            text += f" ({message[:200]})"
        failed.append(f"{text} (l'exception de l'assertion a été interceptée)")
        raise TestAssertionFailed(text)

    def all_(iterable):
        return all(checked_truth(item) for item in iterable)

    def any_(iterable):
        return any(checked_truth(item) for item in iterable)

    return {COMPARE_HELPER: compare, TRUTH_HELPER: checked_truth, FAIL_HELPER: fail,
            "all": all_, "any": any_}


def _expose(user_ns: dict, test_ns: dict, test_builtins: dict, membrane: Membrane) -> None:
    """Copy the code's top-level names into the tests' namespace, as
    :meth:`Membrane.for_tests` makes them (functions wrapped, plain data copied, module views
    replaced by the tests' own, anything else hidden behind a French refusal)."""
    for_tests = membrane.for_tests
    for name, value in list(dict.items(user_ns)):
        # A name of the builtins stays the tests' own: the code cannot change what the tests
        # judge with (abs = lambda x: 0). A test of a function the code names like a builtin
        # (def max...) checks the builtin: the README says to rename it.
        if type(name) is not str or name.startswith("__") or name in test_builtins:
            continue
        test_ns[name] = for_tests(value, name)


def _compiled_here(source: str, filename: str, mode: str, tests: bool):
    """``(code object, None)`` or ``(None, French error)``: compiled in this child, and made
    what a child receives from the caller (marshalled and read back: marshal orders a set's
    constants, and the same program must behave the same on every run), under the same cap
    on its size (_jobpipe.MAX_BLOB_BYTES)."""
    try:
        code = _rewrite.compile_untrusted(source, filename, mode, tests=tests)
        blob = marshal.dumps(code)
    except (SyntaxError, CodeRefused) as exc:
        return None, str(exc)
    except (RecursionError, MemoryError, ValueError):
        return None, "code illisible : trop complexe"
    code = None
    problem = too_big(blob, "les tests compilés sont" if tests else "le code compilé est")
    return (None, problem) if problem else (marshal.loads(blob), None)


def compile_job(job: dict):
    """``(code, tests), None`` or ``None, French error``: a spawned child compiles its job.

    The sources are parsed and checked again here (in fork mode the caller compiles them,
    see ``_plan.fork_blobs``, and the child receives the code objects).
    """
    program = job.get("program")
    code, error = _compiled_here(job["code"], "<solution>", "exec", False)
    if error:
        return None, error
    if program is not None:
        compiled, error = _compiled_here(program, "<tests>", "exec", True)
        tests = [compiled]
    else:
        tests = []
        for probes in job["probes"]:
            group = []
            for source in probes:
                compiled, error = _compiled_here(source, "<tests>", "eval", True)
                if error:
                    break
                group.append(compiled)
            tests.append(group)
            if error:
                break
    return (None, error) if error else ((code, tests), None)


class World:
    """The two namespaces of a run, with their builtins and the shared output buffer.

    Built once by the worker before it forks (each child gets its own copy-on-write copy, so
    every run starts from the same pristine state, and nothing is rebuilt per run), or by a
    spawned child for itself.
    """

    def __init__(self, views: dict, boundary=None):
        self.views = views
        self.boundary = boundary  # _child_os.Boundary, prepared by the worker
        self.output = OutputBuffer(20_000)
        self.spare_send = None  # the result sender every spare inherits (prepare_spares)
        self.seeded = False  # random is in its seed(0) state in every spare (prepare_spares)
        self.null_fd = self.max_fd = None  # the worker's null device and descriptor bound
        self.program_lines: list[str] = []
        self.user = {"__name__": USER_MODULE, "__doc__": None}
        self.user["__builtins__"] = make_builtins(views, self.output, self.user)
        _child_builtins.set_generated_builtins(self.user["__builtins__"])
        self.tests = {"__name__": TESTS_MODULE, "__doc__": None}
        # The tests' modules are the code's, except where the code could change what the tests
        # read (tests_view): random's functions are bound to a generator of the tests' own,
        # which the code can neither steer nor predict (each run seeds it with its secret
        # nonce, see _run; the code's own generator starts at 0), and public values that change
        # in place (keyword's lists, decimal's contexts, hashlib's sets) are copies.
        self.test_random = random.Random(0)
        self.test_views = {name: tests_view(name, view, self.test_random)
                           for name, view in views.items()}
        self._hold_views()
        # What crosses between the two sides (see _crossing): the code's functions, what the
        # tests hand over, the decimal contexts, the tests' failed assertions.
        self.membrane = Membrane(views, self.test_views, self.program_lines)
        self.stand_ins: dict = {}  # what sys.modules holds while a run's code runs
        stand_in_modules(self.stand_ins, {name: sys.modules[name] for name in views
                                          if name in sys.modules})
        self.test_builtins = make_builtins(self.test_views, self.output, self.tests,
                                           extra=_test_helpers(self.program_lines, self.membrane))
        self.tests["__builtins__"] = self.test_builtins
        self._side_generators()

    def _hold_views(self) -> None:
        """What the views hand out (the runner's wrappers among them: struct's, functools'
        wraps, dataclasses' replace) is shared by the two sides: held, like the modules'
        objects (_shared_state.register_held_objects)."""
        register_held_objects({f"{side} view {name}": type(view)
                               for side, views in (("code", self.views), ("tests", self.test_views))
                               for name, view in views.items()})

    def _side_generators(self) -> None:
        """The standard library's own draws from ``random`` (``statistics.NormalDist.samples``)
        come from the generator of whoever's turn it is (see ``_crossing.sided_random``)."""
        statistics = sys.modules.get("statistics")
        if statistics is not None and "random" in self.test_views \
                and type(vars(statistics).get("random")) is types.ModuleType:
            statistics.random = sided_random(self.membrane, sys.modules["random"],
                                             self.test_views["random"])

    def prepare_spares(self, seed: bool = False) -> None:
        """In the worker, once: what every spare would otherwise do for itself after the fork.

        Its sender (a closure writing to descriptor 3, which each spare sets up; each spare has
        its own copy of its state), the SIGALRM handler that flushes it (handlers are inherited;
        the worker never starts the timer, so it never fires here), ``no_new_privs``
        (inherited too, and the worker never executes a program), and with ``seed`` the
        ``random.seed(0)`` every run starts from (the worker draws no number after it; only
        when ``random`` has no at-fork reseed, see ``_worker``).
        """
        self.spare_send = _sender(_child_os.CHANNEL_FD)
        _flush_periodically(self.spare_send.flush, start=False)
        if seed:
            random.seed(0)
            self.seeded = True
        forget_caches()  # what the worker compiled: every run starts with empty caches
        if self.null_fd is None:
            self.null_fd = os.open(os.devnull, os.O_RDWR)  # each spare closes its copy
        self.max_fd = _max_fd()
        if self.boundary is not None:
            try:
                _child_os.set_no_new_privs(self.boundary)
            except OSError:  # each child sets it itself, and reports a failure
                pass

    def load(self, modules) -> bool:
        """Import the allowed modules a job needs beyond the core (before strict mode)."""
        missing = [name for name in modules if name not in self.views]
        if missing:
            loaded = preload(missing)
            harden_modules(loaded)
            stand_in_modules(self.stand_ins, loaded)
            views = build_views(loaded)
            self.views.update(views)
            self.test_views.update((name, tests_view(name, view, self.test_random))
                                   for name, view in views.items() if name not in self.test_views)
            self.membrane.add_views(views, {name: self.test_views[name] for name in views})
            self._hold_views()
            # Every class alive, as the worker does: not only those the new modules bind to a
            # name (_decimal makes SignalDict, the class of every context's flags and traps,
            # and binds it to none: the code could rebind its methods for the tests' context)
            classes = _child_os.every_class()
            _child_os.freeze_types(_child_os.all_heap_types(classes))
            _child_os.learn_attribute_access(classes)
            self._side_generators()
        return bool(missing)


def _run(job: dict, compiled, send, guard, world: World) -> None:
    world.output.limit = int(job.get("output_limit", 20_000))
    # The tests draw from a generator seeded with the run's nonce, a secret the code never
    # sees: a known seed would let it compute the tests' random inputs (and their answers).
    world.test_random.seed(job.get("nonce", 0))
    program = job.get("program")
    world.program_lines[:] = program.splitlines() if program is not None else []
    output, user_ns, test_ns, test_builtins = world.output, world.user, world.tests, \
        world.test_builtins
    if compiled is None:
        compiled, error = compile_job(job)
        if error:
            send({"k": "load_error", "msg": error})
            return
    code, tests = compiled
    if code is None:  # fork mode, code the caller has not compiled yet (_plan.CodePlan)
        code, error = _compiled_here(job["code"], "<solution>", "exec", False)
        if error:
            send({"k": "load_error", "msg": error})
            return
        send({"k": "compiled"})  # at once: the caller times the compile by its arrival
        send.flush()
    trust_code(code)  # the runner executes these code objects, and no other
    for group in tests:
        for item in (group if type(group) is list else [group]):
            trust_code(item)
    guard.enable()
    try:
        exec(code, user_ns)
    except (SystemExit, KeyboardInterrupt) as exc:
        send({"k": "abort", "msg": f"le code a tenté d'arrêter le processus ({type_name(exc)})"})
        return
    except:  # noqa: E722 - reported, never re-raised; whatever its class's __mro__ claims
        send({"k": "load_error", "msg": describe_exception(sys.exc_info()[1])})
        return
    send({"k": "loaded"})
    # From here the cyclic collector runs only during the code's calls: a finaliser of the
    # code never runs while the tests are current (see Membrane.code_function).
    gc_disable()
    membrane = world.membrane
    # The code's values become the tests' first (their conversion may call the code's
    # __hash__: it must still be the code's turn), then the two sides are separated.
    _expose(user_ns, test_ns, test_builtins, membrane)
    forget_caches()
    membrane.separate_contexts()
    identities = RunEncoding()  # the run's NaN objects (one is one for the caller), its budget
    for index, compiled in enumerate(tests):
        try:
            if program is not None:
                record = _run_program(compiled, test_ns, membrane.failed)
            else:
                probes = []
                for j, probe in enumerate(compiled):
                    if probes and probes[-1][0] == "e":  # Python stops at the first error:
                        probes.append(_SKIPPED)  # the test's later calls do not run
                        continue
                    probes.append(_run_probe(probe, job["probes"][index][j], test_ns,
                                             membrane.failed, identities))
                    if membrane.lost:
                        break
                record = {"p": probes}
        except (SystemExit, KeyboardInterrupt) as exc:
            send({"k": "abort", "msg": f"le code a tenté d'arrêter le processus ({type_name(exc)})"})
            return
        if membrane.lost:  # a change of turn failed: nothing after it can be trusted
            send({"k": "abort", "msg": membrane.lost})
            return
        send({"k": "test", "i": index, **record})
    violations = guard.violations()
    send({"k": "done", "output": output.text(), "violation": violations[0] if violations else None})


_SKIPPED = ["e", "non évalué : une erreur le précède dans ce test"]


def _run_probe(code, source: str, namespace: dict, failed: list[str],
               identities: RunEncoding | None = None) -> list:
    before = len(failed)
    try:
        value = ["v", encode(to_plain(eval(code, namespace), source), identities)]
    except (SystemExit, KeyboardInterrupt):
        raise
    except:  # noqa: E722 - whatever its class's __mro__ claims
        return ["e", describe_exception(sys.exc_info()[1])]
    if len(failed) > before:  # a refusal or an interrupted function, caught on the way
        return ["e", failed[before]]
    return value


def _run_program(code, namespace: dict, failed: list[str]) -> dict:
    try:
        exec(code, namespace)
    except (SystemExit, KeyboardInterrupt):
        raise
    except:  # noqa: E722 - whatever its class's __mro__ claims
        return {"ok": False, "msg": describe_exception(sys.exc_info()[1])}
    if failed:  # an assertion failed or a refusal was raised, and its exception was caught
        return {"ok": False, "msg": failed[0]}
    return {"ok": True}


def _warm_up() -> None:
    """A spare, before its job: touch what every run touches first (the record encoder, the
    clock), so that the page copies these first touches cost are paid while the spare is idle,
    not while the run is waiting. Pure calls on made-up data: no state a run can observe."""
    record = {"k": "loaded", "n": 0, "s": 0}
    data = _encode_record(record).encode("ascii")
    _SIZE_PREFIX.pack(len(data))
    encode(to_plain([1, "a", 2.0, None, True, (3,)], "warm-up"))
    time.monotonic()


def _lock_down_early(world: World) -> str:
    """A spare's lock-down before its job arrives: "" once it holds, else why it failed
    (reported once the job, and with it the run's nonce, has arrived)."""
    try:
        _child_os.lock_down(world.boundary or _child_os.prepare())
    except Exception as exc:  # noqa: BLE001 - reported, and nothing runs
        return str(exc) or type(exc).__name__
    return ""


def _serve(channel_fd: int, job_fd: int | None, job, guard, world: World,
           base: int | None, early: bool = False) -> None:
    exit_now = os._exit
    locked = None  # with ``early``: "" once locked down before the job, else why it failed
    try:
        job_fd = _isolate(channel_fd, job_fd, world.null_fd, world.max_fd)
        compiled = None
        if job_fd is not None:  # a spare child: wait for the job the caller compiled
            # What does not depend on the job is done before it arrives (the spare is idle,
            # the run is not waiting) or, better, once in the worker before it forks (see
            # World.prepare_spares): the sender (its nonce comes with the job), the alarm
            # handler (its timer starts with the job), no_new_privs; then the seed and first
            # touches, which must be the child's own.
            send = world.spare_send
            if send is None:
                send = _sender(_child_os.CHANNEL_FD)
                _flush_periodically(send.flush, start=False)
            if not world.seeded:  # else inherited from the worker, seeded for its children
                random.seed(0)
            _warm_up()
            _limit_resources(None)  # the fixed limits: no file written, no process, no core
            if world.boundary is not None and not world.boundary.no_new_privs:
                try:
                    _child_os.set_no_new_privs(world.boundary)
                except OSError:  # lock_down tries again, and reports it
                    pass
            if early:  # the filter lets it read this pipe, and nothing else
                locked = _lock_down_early(world)
            job, compiled = read_job(job_fd)
            os.close(job_fd)
            send.set_nonce(job.get("nonce", 0))
            _start_timer()
        else:
            send = _sender(_child_os.CHANNEL_FD, job.get("nonce", 0))
            _flush_periodically(send.flush)
            random.seed(0)
        base = address_space() if base is None else base
        if locked is not None:  # locked down already: it can import nothing (the caller
            # sends such a spare only jobs whose modules the worker imported)
            if any(name not in world.views for name in job.get("modules", ())):
                locked = locked or "module non chargé d'avance"
        elif job_fd is not None and world.load(job.get("modules", ())):
            base = address_space()
            random.seed(0)  # importing a module must not change the run's first numbers
        _limit_resources(float(job["timeout"]), int(job["memory_mb"]), base,
                         fixed=job_fd is None)
        if locked is None:
            locked = _lock_down_early(world)
        if locked:
            send({"k": "load_error", "msg": f"le bac à sable n'a pas pu isoler le processus ({locked})"})
            send.flush()
            return
        if job_fd is None:  # spawned: the supervisor's clock starts now (after start-up)
            send({"k": "ready"})
        # Nothing is imported from here on: the standard library's lookups of a module by a
        # name the code chooses (enum.global_enum writes sys.modules[cls.__module__].__dict__,
        # Enum._convert_ reads any module's globals, dataclasses and typing pick globals that
        # way) find stand-ins with an empty __dict__ (_shared_state.ModuleStandIn). The import
        # machinery keeps its own table; the runner keeps its reference (_crossing._MODULES).
        sys.modules = world.stand_ins
        _run(job, compiled, send, guard, world)
    except:  # noqa: E722 - the supervisor sees a run without "done"
        pass
    finally:
        exit_now(0)


def serve_spare(channel_fd: int, job_fd: int, guard, world: World, base: int | None,
                early: bool = True) -> None:
    """Forked ahead of time: isolate, wait for a job on ``job_fd``, run it, end the process.

    ``base`` is the worker's address space (see :func:`address_space`), measured once. With
    ``early``, the spare locks itself down before the job arrives (the job then needs no
    module the worker has not imported); else after it has imported the job's modules.
    """
    _serve(channel_fd, job_fd, None, guard, world, base, early)


def run_child(job: dict, channel_fd: int, guard, world: World) -> None:
    """Run one job (compiled here) and end the process; never returns."""
    _serve(channel_fd, None, job, guard, world, None)


def spawn_main() -> None:
    """Entry point of a spawned child: job on stdin, channel on the original stdout."""
    from course_utils.sandbox._child_audit import install_audit_hook

    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    channel = os.dup(1)
    # The core hardened first, as in the worker: a module the job imports may compile a regular
    # expression at import (_strptime does), which must meet re hardened already.
    modules = preload(CORE_MODULES)
    harden_modules(modules)
    modules.update(preload(set(job.get("modules", ()))))
    harden_modules(modules)
    bpf = job.get("bpf") or ""
    boundary = _child_os.prepare(bytes.fromhex(bpf) if bpf else None,
                                 job.get("bpf_missing") or "absent")
    world = World(build_views(modules), boundary)
    _child_os.freeze_types(_child_os.all_heap_types())
    _child_os.learn_attribute_access(_child_os.every_class())
    guard = install_audit_hook(RUNNER_FILES)
    run_child(job, channel, guard, world)
