"""Child side: the PEP 578 audit hook, installed before any untrusted code runs.

This module only defines functions; importing it does nothing. The worker (or the spawned child)
calls :func:`install_audit_hook` before any untrusted code runs; the hook stays permissive until
the child switches it to strict mode, right before it executes the untrusted code.

In strict mode the hook refuses every audit event except a short list, so anything that reaches
the operating system through an audited path (files, processes, sockets, ``ctypes``, new code
objects, imports that would read a file, ``gc`` walks, ...) raises :class:`SandboxViolation` with
a French reason, and the run fails. A few events are needed by the standard library itself
(``namedtuple`` and ``dataclasses`` compile code, ``typing`` and ``enum`` read the caller's
frame); those are allowed only when the Python frame that raised them belongs to a trusted file.
"""

from __future__ import annotations

import sys

from course_utils.sandbox._policy import USER_MODULE


class SandboxViolation(PermissionError):
    """Raised by the audit hook when the untrusted code attempts a forbidden operation."""


def _reason(event: str, args: tuple) -> str:
    """The French reason given for a refused audit event."""
    first = args[0] if args else None
    if event == "import":
        return f"module non autorisé dans le bac à sable : {first}"
    if event == "open":
        return f"accès aux fichiers interdit dans le bac à sable : {str(first)[:80]}"
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
        return f"accès interdit dans le bac à sable à l'attribut {args[1] if len(args) > 1 else ''}"
    if event.startswith(("sys.", "gc.")):
        return f"introspection de l'interpréteur interdite dans le bac à sable : {event}"
    return f"opération interdite dans le bac à sable : {event}"


class AuditGuard:
    """Handle on the installed hook: switch it to strict mode, read what it refused.

    The object lives only in the runner's locals; the untrusted code has no reference to it.
    """

    def __init__(self, strict, violations):
        self._strict = strict
        self._violations = violations

    def enable(self) -> None:
        self._strict[0] = True

    def violations(self) -> list[str]:
        return list(self._violations)


def install_audit_hook(runner_files) -> AuditGuard:
    """Install the (one) audit hook of this process; strict mode starts off.

    ``runner_files`` are the files of the sandbox's own runner: frames of those files may
    execute the compiled untrusted code and walk tracebacks to report line numbers.
    """
    import importlib.util
    import os.path

    def source(module: str) -> str:  # found without importing the module
        spec = importlib.util.find_spec(module)
        return spec.origin if spec is not None and spec.origin else "?"

    stdlib_dir = os.path.dirname(os.__file__)
    runner = frozenset(runner_files)
    # Files whose frames may compile/execute code: the runner, namedtuple, dataclasses, and
    # ast.parse (the runner's checked eval parses its string before checking it).
    may_exec = runner | {source("collections"), source("dataclasses"), source("ast")}
    # Files whose frames may read audited attributes (dataclasses, through inspect.signature,
    # reads __code__).
    may_read = may_exec | {source("inspect")}
    # Files whose frames may set attributes on types and functions (class factories).
    may_write = may_exec | {source(name) for name in ("enum", "typing", "functools", "abc")}

    strict = [False]
    busy = [False]
    violations: list[str] = []
    getframe = sys._getframe
    allowed_always = frozenset({"time.sleep", "builtins.id", "array.__new__"})

    def caller_file() -> str:
        # frame 0: caller_file, 1: judge, 2: hook, 3: the code that raised the event.
        frame = getframe(3)
        return frame.f_code.co_filename if frame is not None else ""

    def user_type(obj) -> bool:
        if not isinstance(obj, type):
            return False
        module = type.__dict__["__dict__"].__get__(obj).get("__module__")
        return type(module) is str and module == USER_MODULE

    def judge(event: str, args: tuple) -> str | None:
        if event in allowed_always:
            return None
        if event in ("exec", "compile"):
            return None if caller_file() in may_exec else _reason(event, args)
        if event in ("sys._getframe", "sys._getframemodulename"):
            where = caller_file()
            return None if (where in runner or where.startswith(stdlib_dir)) else _reason(event, args)
        if event == "object.__getattr__":
            return None if caller_file() in may_read else _reason(event, args)
        if event in ("object.__setattr__", "object.__delattr__"):
            if args and user_type(args[0]) and args[1] != "__class__":
                return None
            return None if caller_file() in may_write else _reason(event, args)
        return _reason(event, args)

    def hook(event, args):
        if not strict[0] or busy[0]:
            return
        busy[0] = True
        try:
            reason = judge(event, args)
        finally:
            busy[0] = False
        if reason is not None:
            violations.append(reason)
            raise SandboxViolation(reason)

    sys.addaudithook(hook)
    return AuditGuard(strict, violations)
