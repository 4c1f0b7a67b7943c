"""Child side: the operating system's own boundary, under the Python layers (Linux).

Once the child has read its job and imported what it needs, and before any untrusted code runs,
:func:`lock_down`:

1. **drops to an unprivileged user** when the process runs as root (``setgroups([])``, group
   and user ``nobody``, 65534): the files of the machine are then those of a stranger, and the
   caller's ``/proc/<pid>/mem`` is out of reach even for a process that could open files;
2. sets ``no_new_privs`` (no set-uid program could give privileges back);
3. installs a **seccomp filter** (a BPF program the kernel runs on every system call of the
   process and its future threads; it cannot be removed or loosened). The filter allows a short
   list of calls a running interpreter needs (memory, signals, clocks, ``exit``), ``write``
   on the result channel only (descriptor 3), ``read`` on the job pipe only (descriptor 4,
   closed once the job is read: no descriptor can be made again) and limits set on the
   process itself (the job's: no limit can be raised past the hard value it set); every
   other call fails with ``EPERM``: opening or creating files, reading any other descriptor,
   ``execve``, ``fork``/``clone``, sockets, ``ptrace``, ``process_vm_readv``/``writev``,
   ``kill``, changing identity or another process's limits. A system call of another
   architecture (32-bit entry points) kills the process.

   A forked spare locks itself down this way *before* its job arrives, when the job needs no
   module beyond those the worker imported (the run then waits for no filter to load);
   a job that imports another allowed module gets a child that imports it first, then locks
   itself down.

So even code that walked around every Python layer can neither read, write, connect, spawn, nor
read the caller's memory; it can only compute, and write records on its own channel (which the
supervisor checks, see ``_supervisor``).

The filter is compiled once per caller process through **pyseccomp**, a ctypes binding of the
system's ``libseccomp`` (``libseccomp2`` on Debian/Ubuntu, present on nearly every Linux); the
warm worker (or a spawned child) receives the compiled program, and each child only loads it
(one ``seccomp`` call; the worker has set ``no_new_privs`` on itself, and its children inherit
it). Without libseccomp or without seccomp in the kernel the child still drops its
privileges and sets ``no_new_privs``; :func:`describe` says which parts hold (``Sandbox``'s
``os_boundary``). Other operating systems have none of this: the Python layers and the resource
limits are the whole sandbox there (see the package docstring).

:func:`freeze_types` makes classes of the allowed modules immutable (``Py_TPFLAGS_IMMUTABLETYPE``,
as for built-in types): ``random.Random.randrange = ...`` raises ``TypeError`` in the child.
"""

from __future__ import annotations

import errno
import os
import sys

CHANNEL_FD = 3  # the result channel, moved there by the child (the filter names it)
JOB_FD = CHANNEL_FD + 1  # a spare's job pipe: read once, after the lock-down, then closed
NOBODY = 65534

# System calls a running interpreter needs once its job is loaded. Everything else: EPERM.
ALLOWED_SYSCALLS = (
    "brk", "mmap", "munmap", "mremap", "madvise", "mprotect",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "setitimer", "getitimer",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "clock_nanosleep", "nanosleep",
    "restart_syscall", "futex", "sched_yield", "getrandom", "getpid", "gettid", "close",
    "exit", "exit_group",
)

_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_SPEC_ALLOW = 1 << 2
_SECCOMP_SYSCALL = {"x86_64": 317, "aarch64": 277, "arm64": 277}
_IMMUTABLETYPE = 1 << 8
_HEAPTYPE = 1 << 9


def is_class(obj, _super=super) -> bool:
    """Whether ``obj`` is a class, as CPython's own C code decides (``PyType_Check``: a flag
    of its type's, whatever any MRO says). ``issubclass(type(obj), type)`` reads the
    metaclass's MRO, and so does every descriptor of ``type`` (``type.__flags__`` included):
    a meta-metaclass's ``mro()`` returning ``[M, object]`` hid a class of the code from the
    runner while the interpreter still treated it as one. ``super(obj)``, unbound, checks
    exactly that flag and calls nothing of ``obj``'s."""
    kind = type(obj)
    if kind is type:
        return True
    try:  # the flag itself, when the metaclass's MRO lets type's descriptor read it
        return bool(_TYPE_FLAGS(kind) & _TYPE_SUBCLASS)
    except TypeError:
        pass
    try:
        _super(obj)
    except TypeError:
        return False
    return True


_TYPE_SUBCLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS: set on type and on every metaclass
_TYPE_FLAGS = type.__dict__["__flags__"].__get__


class Boundary:
    """What the worker prepared for its children: the compiled filter (or why there is none)."""

    def __init__(self, program=None, libc=None, missing: str | None = None):
        self.program = program  # ctypes sock_fprog (kept alive with its buffer), or None
        self.libc = libc
        self.missing = missing  # French reason the filter is absent, or None
        # Everything a child calls is made here, once: a forked child then touches (and
        # copies) as few pages as possible.
        self.address = self.syscall = None
        self.no_new_privs = False  # set in a child once prctl succeeded (it cannot be undone)
        self.seccomp_number = _SECCOMP_SYSCALL.get(os.uname().machine)  # once, not per child
        if program is not None and libc is not None:
            import ctypes

            self.address = ctypes.addressof(program)
            self.syscall = libc["syscall"]  # its own function object: its own argtypes
            self.syscall.restype = ctypes.c_long
            self.syscall.argtypes = (ctypes.c_long,) * 4
            # One harmless call of each (an unknown system call, a query): ctypes resolves and
            # caches what a first call needs here, in the worker, not in every child.
            self.syscall(-1, 0, 0, 0)
        if libc is not None:
            libc.prctl(_PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)

    def describe(self) -> str:
        """French summary of the OS layer as it will hold in the children."""
        if not sys.platform.startswith("linux"):
            return "aucune barrière du système (seccomp : Linux seulement)"
        parts = []
        if os.geteuid() == 0:
            parts.append(f"utilisateur non privilégié ({NOBODY})")
        if self.libc is not None:
            parts.append("no_new_privs")
        if self.program is not None:
            parts.append("filtre seccomp")
        text = ", ".join(parts) if parts else "aucune"
        return text + (f" ; filtre seccomp absent : {self.missing}" if self.missing else "")


def _libc():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.restype = ctypes.c_int
    libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                           ctypes.c_ulong)
    return libc


# Modules that register fork hooks (os.register_at_fork) or start threads: while one is
# imported, the worker forks with os.fork, which runs the hooks.
_FORK_HOOKS = ("threading", "logging", "multiprocessing", "concurrent")


def fork_function(random_hooked: bool):
    """The worker's fork: the C library's ``fork`` itself on Linux, else :func:`os.fork`.

    In the child, ``os.fork`` runs CPython's after-fork work: it re-creates the interpreter's
    locks, the GIL and the import lock, forgets the other threads, clears pending signals and
    runs the ``os.register_at_fork`` hooks. That is for a process that had threads or hooks;
    the worker has neither (single-threaded, none of :data:`_FORK_HOOKS` imported, and
    ``random`` imported without its hook unless ``random_hooked``), and that work cost each
    child 186 µs of CPU and 66 page copies before its first instruction (245 against 59 µs,
    ``python -S``, this VM).
    Called through ``ctypes.PyDLL``, the call keeps the GIL: no other thread could run
    between the fork and the child's return. Returns a function ``() -> pid`` (0 in the child)
    that raises :class:`OSError` as ``os.fork`` does.
    """
    import _thread

    worker_only = sys.platform.startswith("linux") and sys.implementation.name == "cpython"
    if (not worker_only or random_hooked or _thread._count()
            or any(name in sys.modules for name in _FORK_HOOKS)):
        return os.fork
    try:
        import ctypes

        libc = ctypes.PyDLL(None, use_errno=True)
        c_fork = libc.fork
    except (OSError, AttributeError):
        return os.fork
    c_fork.restype, c_fork.argtypes = ctypes.c_int, ()
    get_errno = ctypes.get_errno

    def fork() -> int:
        pid = c_fork()
        if pid < 0:
            code = get_errno()
            raise OSError(code, os.strerror(code))
        return pid

    return fork


_COMPILED: list = []  # (BPF bytes or None, French reason or None), once per process


def compile_filter() -> tuple[bytes | None, str | None]:
    """``(BPF program, None)`` built with libseccomp through pyseccomp, or ``(None, reason)``.

    Called on the caller's side, once per process: importing pyseccomp imports ``subprocess``
    and ``threading``, whose fork hooks would make every fork of the worker twice as dear. The
    worker receives the compiled bytes on its command line; a child only loads them.
    """
    if _COMPILED:
        return _COMPILED[0]
    if not sys.platform.startswith("linux"):
        result = (None, "seccomp n'existe que sous Linux")
    else:
        try:
            result = (_compile(), None)
        except ImportError:
            result = (None, "paquet pyseccomp non installé")
        except (OSError, RuntimeError, ValueError, AttributeError) as exc:
            result = (None, f"libseccomp indisponible ({exc})")
    _COMPILED.append(result)
    return result


def _compile() -> bytes:
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(seccomp.ERRNO(errno.EPERM))
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    try:  # a binary tree of system call numbers rather than a list (libseccomp >= 2.5): the
        # kernel walks fewer instructions per call, and when it loads the filter in each child
        rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    except (OSError, ValueError, RuntimeError):  # an older libseccomp: the list, same rules
        pass
    for name in ALLOWED_SYSCALLS:
        try:
            rules.add_rule(seccomp.ALLOW, name)
        except (OSError, ValueError, RuntimeError):  # not a system call on this architecture
            pass
    rules.add_rule(seccomp.ALLOW, "write", seccomp.Arg(0, seccomp.EQ, CHANNEL_FD))
    # A spare locks itself down before its job arrives (the run then waits for no filter to
    # load): it reads the job on its pipe, closes it (no descriptor can be made again), and
    # sets the job's limits on itself, soft and hard alike (none can be raised after).
    rules.add_rule(seccomp.ALLOW, "read", seccomp.Arg(0, seccomp.EQ, JOB_FD))
    rules.add_rule(seccomp.ALLOW, "prlimit64", seccomp.Arg(0, seccomp.EQ, 0))
    try:  # an older C library's setrlimit (its own process, by construction)
        rules.add_rule(seccomp.ALLOW, "setrlimit")
    except (OSError, ValueError, RuntimeError):  # no such call on this architecture
        pass
    for name in ("select", "pselect6"):  # Python 3.10's time.sleep: no descriptor, a timeout
        try:
            rules.add_rule(seccomp.ALLOW, name, seccomp.Arg(0, seccomp.EQ, 0))
        except (OSError, ValueError, RuntimeError):
            pass
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb") as sink:
            rules.export_bpf(sink)
        chunks = []
        while chunk := os.read(read_end, 65536):
            chunks.append(chunk)
    finally:
        os.close(read_end)
    code = b"".join(chunks)
    if not code or len(code) % 8 or len(code) // 8 > 4096:
        raise RuntimeError("programme BPF illisible")
    return code


def _program(code: bytes):
    """A ``struct sock_fprog`` over ``code`` (kept alive with its buffer)."""
    import ctypes

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(code, len(code))
    program = SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    program._buffer = buffer
    return program


def prepare(bpf: bytes | None = None, missing: str | None = None) -> Boundary:
    """What :func:`lock_down` needs, from a program made by :func:`compile_filter`.

    Without arguments, compiles the program here (a test, or a process without a caller).
    Never raises: what cannot be had is named in ``missing``.
    """
    if bpf is None and missing is None:
        bpf, missing = compile_filter()
    if not sys.platform.startswith("linux"):
        return Boundary(missing=missing or "seccomp n'existe que sous Linux")
    try:
        libc = _libc()
    except (ImportError, OSError) as exc:
        return Boundary(missing=f"bibliothèque C introuvable ({exc})")
    if bpf is None:
        return Boundary(libc=libc, missing=missing or "désactivé")
    return Boundary(_program(bpf), libc)


def _drop_privileges() -> None:
    """Become ``nobody`` when root (no group, no capability left)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    os.setgroups([])
    if hasattr(os, "setresuid"):  # Linux, BSD: real, effective and saved ids at once
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
    else:  # macOS: setuid as root sets all three
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    if os.geteuid() == 0 or os.getuid() == 0:  # pragma: no cover - the kernel refused
        raise PermissionError("impossible de quitter l'utilisateur root")


def set_no_new_privs(boundary: Boundary) -> None:
    """Set ``no_new_privs`` (no set-uid program can give privileges back); raise on failure.

    A spare sets it before its job arrives (it changes nothing it still needs: reading the job
    and importing modules); :func:`lock_down` sets it when it is not set yet.
    """
    libc = boundary.libc
    if libc is not None:
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(_errno(), "prctl(PR_SET_NO_NEW_PRIVS) a échoué")
        boundary.no_new_privs = True  # this process's copy of the boundary: set for good


def lock_down(boundary: Boundary) -> None:
    """Drop privileges, set ``no_new_privs``, load the filter; raise if any step fails.

    A child whose lock-down fails must not run the code: its caller ends it without a result.
    """
    _drop_privileges()
    libc = boundary.libc
    if libc is None:
        return
    if not boundary.no_new_privs:  # a spare has set it already, while it waited
        set_no_new_privs(boundary)
    if boundary.program is not None:
        address = boundary.address
        # seccomp(2) with SPEC_ALLOW: on kernels that tie the speculative-store-bypass
        # mitigation to seccomp, it would slow the code down for no gain here (the child's
        # address space holds nothing it may not read). Else the older prctl(2) interface.
        number = boundary.seccomp_number
        if number is not None and boundary.syscall(number, _SECCOMP_SET_MODE_FILTER,
                                                   _SECCOMP_FILTER_FLAG_SPEC_ALLOW, address) == 0:
            return
        if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, address, 0, 0) != 0:
            code = _errno()
            if code in (errno.EINVAL, errno.ENOSYS):  # a kernel without seccomp filters
                boundary.program = None
                boundary.missing = f"le noyau refuse les filtres seccomp ({errno.errorcode[code]})"
                return
            raise OSError(code, "prctl(PR_SET_SECCOMP) a échoué")


def probe(boundary: Boundary) -> Boundary:
    """Check once, in a throwaway child, that this kernel accepts the filter (the worker calls
    it before serving): a kernel without seccomp filters (some containers, WSL 1) then runs the
    children without it, and :meth:`Boundary.describe` says so."""
    if boundary.program is None or not hasattr(os, "fork"):
        return boundary
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            lock_down(boundary)
            status = 0 if boundary.program is not None else 3
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 3:
        return Boundary(libc=boundary.libc, missing="le noyau refuse les filtres seccomp")
    if code != 0:
        return Boundary(libc=boundary.libc, missing=f"filtre seccomp inutilisable ({code})")
    return boundary


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


# --- immutable classes ------------------------------------------------------------------------

_FLAGS_OFFSET: list = []


def _flags_offset():
    """Offset of ``tp_flags`` in a type object (CPython), found by reading known types."""
    if not _FLAGS_OFFSET:
        import ctypes

        samples = (int, type, dict, BaseException, Boundary)
        offset = None
        if sys.implementation.name == "cpython":
            for candidate in range(8, 512, 8):
                if all(ctypes.c_ulong.from_address(id(t) + candidate).value == t.__flags__
                       for t in samples):
                    offset = candidate
                    break
        _FLAGS_OFFSET.append(offset)
    return _FLAGS_OFFSET[0]


_PROXY_SEALED: list = []


def seal_mapping_proxy() -> bool:
    """``mappingproxy`` compares and joins through its mapping itself: ``proxy == x`` and
    ``proxy | x`` hand ``x.__eq__`` or ``x.__ror__`` the real dictionary (CPython 3.11), so a
    read-only view (a sealed class attribute, a shared pattern's ``groupindex``) gave the code
    a dictionary the tests read. Its six comparisons and ``|`` are replaced here, in the
    process's own copy of the built-in type, by versions on copies (``dict(proxy)``); every
    route to the slots (operators, ``operator.eq``, C code comparing) takes them. Called
    where the modules are hardened, never in the caller. Returns False when the type cannot
    be changed (another interpreter): the views then stay as the interpreter made them."""
    if _PROXY_SEALED:
        return _PROXY_SEALED[0]
    import ctypes
    import operator
    import types

    proxy = types.MappingProxyType
    offset = _flags_offset()
    done = False
    if offset is not None and sys.implementation.name == "cpython":
        def copied(value):
            return dict(value) if type(value) is proxy else value

        def compare(op):
            def method(self, other):
                return op(dict(self), copied(other))
            method.__name__ = method.__qualname__ = f"__{op.__name__}__"
            return method

        methods = {f"__{op.__name__}__": compare(op) for op in (
            operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)}
        methods["__or__"] = lambda self, other: dict(self) | copied(other)
        methods["__ror__"] = lambda self, other: copied(other) | dict(self)
        import gc

        # The type's own dictionary, the one lookups read (for a static built-in type it is
        # kept apart from the type object from Python 3.12 on: type.__setattr__ does not
        # reach it), written directly; then the method cache forgets the type.
        found = [d for d in gc.get_referents(vars(proxy)) if type(d) is dict]
        if len(found) == 1 and _point_slots_at_methods(proxy, offset):
            found[0].update(methods)
            modified = ctypes.pythonapi.PyType_Modified
            modified.argtypes, modified.restype = (ctypes.py_object,), None
            modified(proxy)
            done = True
    _PROXY_SEALED.append(done)
    return done


def _point_slots_at_methods(cls, flags_offset: int) -> bool:
    """Make the C slots of the built-in type ``cls`` for comparisons and ``|`` the generic
    ones that call the methods in its dictionary (``slot_tp_richcompare``, ``slot_nb_or``).
    Setting the methods updates the slots up to Python 3.11, not for a static built-in type
    after (3.12+). The generic functions' addresses are read from a class of ours; the layout
    (``tp_richcompare`` 4 words after ``tp_flags``, ``tp_as_number`` 9 words before it,
    ``nb_or`` the 16th of the number methods) is checked on classes whose slots are known.
    False when it does not hold: nothing is written then."""
    import ctypes

    word = ctypes.sizeof(ctypes.c_void_p)
    rich, number, nb_or = flags_offset + 4 * word, flags_offset - 9 * word, 15 * word

    def read(address: int) -> int:
        return ctypes.c_void_p.from_address(address).value or 0

    def slots(kind) -> tuple:
        numbers = read(id(kind) + number)
        return read(id(kind) + rich), read(numbers + nb_or) if numbers else 0

    class First:
        def __eq__(self, other):
            return NotImplemented

        def __or__(self, other):
            return NotImplemented

    class Second(First):
        def __eq__(self, other):
            return NotImplemented

        def __or__(self, other):
            return NotImplemented

    generic = slots(First)
    if not all(generic) or slots(Second) != generic or slots(int)[1] in (0, generic[1]) \
            or slots(object)[0] in (0, generic[0]) or not read(id(cls) + number):
        return False
    ctypes.c_void_p.from_address(id(cls) + rich).value = generic[0]
    ctypes.c_void_p.from_address(read(id(cls) + number) + nb_or).value = generic[1]
    return True


_GENERIC_ACCESS: dict = {}  # id(class) -> (its attribute access is object's own, the class)


def learn_attribute_access(classes) -> None:
    """Read, for each class, whether it reads and writes attributes as ``object`` does
    (CPython's ``tp_getattro`` and ``tp_setattro`` are object's): no ``__getattr__`` or
    ``__setattr__`` of a class, no proxy (``super``, a bound method, ``types.GenericAlias``, a
    module). ``__getattribute__`` in a C type's dict says nothing: ``dict`` and ``list`` show
    one that is object's. Read before strict mode (ctypes is audited): the worker for every
    class alive, ``World.load`` for the modules a job imports."""
    import ctypes

    offset = _flags_offset()  # tp_getattro and tp_setattro come three and two words before
    if offset is None:
        return
    word = ctypes.sizeof(ctypes.c_void_p)

    def slots(t):
        return (ctypes.c_void_p.from_address(id(t) + offset - 3 * word).value,
                ctypes.c_void_p.from_address(id(t) + offset - 2 * word).value)

    generic = slots(object)
    for cls in classes:
        if id(cls) not in _GENERIC_ACCESS and is_class(cls):
            _GENERIC_ACCESS[id(cls)] = (slots(cls) == generic, cls)


def generic_attribute_access(cls) -> bool | None:
    """What :func:`learn_attribute_access` read for ``cls``: False for a class it did not see
    (made since: one of the run, or to be refused); None where it cannot be read (not
    CPython)."""
    if _flags_offset() is None:
        return None
    found = _GENERIC_ACCESS.get(id(cls))
    return found is not None and found[0]


def every_class() -> list:
    """Every class reachable from ``object`` by ``__subclasses__`` (built-in ones included)."""
    seen, stack, found = set(), [object], []
    while stack:
        cls = stack.pop()
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        found.append(cls)
        try:
            stack.extend(type.__subclasses__(cls))
        except TypeError:
            pass
    return found


def freeze_types(types) -> int:
    """Make these heap types immutable, like built-in types; return how many were changed."""
    import ctypes

    offset = _flags_offset()
    if offset is None:
        return 0
    changed = 0
    for cls in types:
        if not is_class(cls):
            continue
        flags = cls.__flags__
        if flags & _HEAPTYPE and not flags & _IMMUTABLETYPE:
            cell = ctypes.c_ulong.from_address(id(cls) + offset)
            cell.value |= _IMMUTABLETYPE  # the live word: its version-tag bits stay as they are
            changed += 1
    return changed


# Classes that keep their own state in class attributes, and are out of the untrusted code's
# reach: left mutable.
_SELF_MUTATING = frozenset({("weakref", "finalize")})


def all_heap_types(classes=None) -> list:
    """Every class alive in this process (the worker calls it once, before forking), or of
    ``classes``, but the few that store state on themselves (``weakref.finalize``)."""
    import gc

    if classes is None:
        classes = [obj for obj in gc.get_objects() if is_class(obj)]
    found = []
    for cls in classes:
        key = (type.__dict__["__module__"].__get__(cls), cls.__qualname__)
        if key not in _SELF_MUTATING:
            found.append(cls)
    return found
