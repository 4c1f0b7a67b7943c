"""Child side: the PEP 578 audit hook, installed before any untrusted code runs.

This module only defines functions; importing it does nothing. The child adds the hook with
:meth:`AuditGuard.enable` right before it executes the untrusted code (the worker and a spare
child waiting for its job have no hook at all); once added, a hook cannot be removed.

In strict mode the hook refuses every audit event except a short list, so anything that reaches
the operating system through an audited path (files, processes, sockets, ``ctypes``, new code
objects, imports that would read a file, ``gc`` walks, ...) raises :class:`SandboxViolation` with
a French reason, and the run fails. A few events are needed by the standard library itself
(``namedtuple`` and ``dataclasses`` compile code they generate); those are allowed by target
(the code object, the class written) or inside *windows* opened by the runner's own wrappers,
never because of the Python frame that raised them (see the comment on windows below).
``sys._getframe`` is always allowed: ``typing``, ``enum`` and ``namedtuple`` read their caller's
module name with it, the untrusted code has no name for it, and no allowed module hands a frame
back (frames reached by attributes, ``gi_frame``, ``tb_frame``..., are refused elsewhere).
"""

from __future__ import annotations

import sys

from course_utils.sandbox._child_os import is_class
from course_utils.sandbox._policy import TESTS_MODULE, USER_MODULE


class SandboxViolation(PermissionError):
    """Raised by the audit hook when the untrusted code attempts a forbidden operation."""


def _shown(value) -> str:
    """``value`` for a message, without calling anything it defines."""
    if type(value) is str:
        return value[:80]
    if type(value) is bytes or type(value) is int:
        return repr(value)[:80]
    name = type.__dict__["__name__"].__get__(type(value))
    return f"<{name if type(name) is str else '?'}>"


def _reason(event: str, args: tuple) -> str:
    """The French reason given for a refused audit event (never calls the arguments' methods)."""
    first = _shown(args[0]) if args else ""
    if event == "import":
        return f"module non autorisé dans le bac à sable : {first}"
    if event == "open":
        return f"accès aux fichiers interdit dans le bac à sable : {first}"
    if event.startswith(("os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork",
                         "os.forkpty", "subprocess.", "os.kill", "os.killpg", "pty.")):
        return f"création ou contrôle de processus interdit dans le bac à sable : {event}"
    if event.startswith("socket."):
        return f"accès réseau interdit dans le bac à sable : {event}"
    if event.startswith("os.") or event.startswith("shutil."):
        return f"accès au système interdit dans le bac à sable : {event}"
    if event in {"exec", "compile", "code.__new__", "function.__new__", "marshal.loads"}:
        return f"création ou exécution de code interdite dans le bac à sable : {event}"
    if event in {"object.__getattr__", "object.__setattr__", "object.__delattr__"}:
        name = _shown(args[1]) if len(args) > 1 else ""
        return f"accès interdit dans le bac à sable à l'attribut {name}"
    if event.startswith(("sys.", "gc.")):
        return f"introspection de l'interpréteur interdite dans le bac à sable : {event}"
    return f"opération interdite dans le bac à sable : {event}"


# --- trusted windows ---------------------------------------------------------------------------
# Decisions never depend on which Python frame raised an event (a C callable invoked from a
# trusted stdlib frame would inherit its trust: ``map(setattr, ...)`` iterated by
# ``namedtuple``, ``functools.partial`` or ``singledispatch`` calling a builtin...). They depend
# on the target (which code object is executed, which class is written) and on *windows*:
# spans during which the runner's own wrappers (checked ``eval``, ``namedtuple``, the code
# generator of ``dataclasses``) compile code they built from exact, validated strings, or
# during which ``_crossing`` follows the references of what the tests hand to the code. No
# untrusted code runs inside a window: the wrappers convert their arguments before opening it,
# and the cyclic garbage collector is off while a window is open (a finaliser, ``__del__``, of
# the untrusted code must not run inside one).

_window = [0]
_strict = [False]  # the hook is on: the untrusted code may be running


def strict_mode() -> bool:
    """True once the strict hook is on in this process (see :meth:`AuditGuard.enable`)."""
    return _strict[0]


_collector_was_on = [False]
_trusted_codes: set = set()  # ids of code objects the runner may execute (kept alive below)
_kept: list = []
_generated: set = set()  # ids of functions generated inside a window (dataclass methods)


def open_window() -> None:
    import gc

    if _window[0] == 0:
        _collector_was_on[0] = gc.isenabled()
        gc.disable()
    _window[0] += 1


def close_window() -> None:
    import gc

    _window[0] -= 1
    if _window[0] == 0 and _collector_was_on[0]:
        gc.enable()


def trust_code(code) -> None:
    """Allow ``exec``/``eval`` of this code object (compiled by the runner from checked source).

    The caller keeps ``code`` alive while it is trusted (its id cannot be reused), and
    :func:`distrust_code` it when done (the child's own code and tests stay trusted)."""
    _trusted_codes.add(id(code))


def distrust_code(code) -> None:
    _trusted_codes.discard(id(code))


def trust_generated(function) -> None:
    """A function generated inside a window: reading its ``__code__`` is allowed."""
    _kept.append(function)
    _generated.add(id(function))


class AuditGuard:
    """Handle on the strict hook: install it (one way: it can never be removed), read refusals.

    Before :meth:`enable` there is no hook at all (the worker and the rehearsal run unwatched,
    as trusted code). ``enable`` adds the strict hook; it has no switch, so nothing the
    untrusted code might reach can turn it off.
    """

    def __init__(self, runner_files):
        self._runner_files = frozenset(runner_files)
        self._violations: list[str] = []
        self._on = False
        # Built here (in the worker, before it forks): each child only adds it, at the same
        # point as before (right before the untrusted code runs), and copies fewer pages.
        self._hook = _make_hook(self._violations)

    def enable(self) -> None:
        if not self._on:
            self._on = True
            _strict[0] = True
            sys.addaudithook(self._hook)

    def violations(self) -> list[str]:
        return list(self._violations)


def _make_hook(violations: list):
    code_type = type(_make_hook.__code__)
    function_type = type(_make_hook)
    type_dict = type.__dict__["__dict__"].__get__
    func_module = function_type.__dict__["__module__"].__get__  # a plain member: not audited
    allowed_always = frozenset({"time.sleep", "builtins.id", "array.__new__", "sys._getframe",
                                "sys._getframemodulename"})
    generated_reads = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
    window, trusted, generated = _window, _trusted_codes, _generated
    busy = [False]

    def class_of_the_run(obj) -> bool:  # the code's or the tests' (they never reach the code)
        module = type_dict(obj).get("__module__")
        return type(module) is str and (module == USER_MODULE or module == TESTS_MODULE)

    def judge(event: str, args: tuple) -> str | None:
        if event in allowed_always:
            return None
        if event == "exec":
            code = args[0] if args else None
            if type(code) is code_type and (id(code) in trusted or window[0] > 0):
                return None
            return _reason(event, args)
        if event == "compile" or event == "gc.get_referents":  # _crossing's walk
            return None if window[0] > 0 else _reason(event, args)
        if event == "object.__getattr__":
            obj, name = (args + (None, None))[:2]
            if window[0] > 0:
                return None
            if type(obj) is function_type and type(name) is str and name in generated_reads:
                # dataclasses read the signature of the methods they generated, or of the
                # class's own __init__ (inspect.signature): functions of the untrusted code.
                module = func_module(obj)
                if id(obj) in generated or (type(module) is str and module == USER_MODULE):
                    return None
            return _reason(event, args)
        if event in ("object.__setattr__", "object.__delattr__"):
            obj, name = (args + (None, None))[:2]
            if window[0] > 0:
                return None
            if (is_class(obj) and type(name) is str
                    and name != "__class__" and class_of_the_run(obj)):
                return None  # enum, typing, abc, dataclasses set these on the run's classes
            return _reason(event, args)
        return _reason(event, args)

    def hook(event, args):
        if busy[0]:  # re-entered: by judge's own id() calls, or untrusted code inside the hook
            if event == "builtins.id":
                return
            raise SandboxViolation("opération interdite dans le bac à sable : audit réentrant")
        busy[0] = True
        try:
            reason = judge(event, args)
        finally:
            busy[0] = False
        if reason is not None:
            violations.append(reason)
            raise SandboxViolation(reason)

    return hook


def install_audit_hook(runner_files) -> AuditGuard:
    """The guard of this process; its strict hook is added by :meth:`AuditGuard.enable`.

    ``runner_files`` are the files of the sandbox's own runner (kept for reports).
    """
    return AuditGuard(runner_files)
