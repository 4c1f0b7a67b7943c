"""Launcher of the **graded student kernel**: confine the process, then become ``ipykernel``.

``python -m course_utils.grading.confine [--no-confine] [--web] CONNECTION_FILE WORLD`` is the
kernelspec command the grader uses (:mod:`course_utils.grading.world`; ``--no-confine`` for the
grader's escape hatch and the tests of the fallback path). It runs from the world's private copy
of the package, before any student code, and:

1. copies the connection file into ``WORLD/run/`` (the kernel never reads the grader's runtime
   folder, where other kernels' keys live);
2. as root, drops to the unprivileged user ``nobody`` when it can run this Python, else stays
   root with **no capability but changing user and signalling** (bounding set emptied of the
   others, ``SECBIT_NOROOT`` locked: no ptrace, no mount, no reading files it does not own by
   permission bits; ``setuid``/``setgid`` stay so that the course's sandbox can drop its children
   to ``nobody``, which clears them, and ``kill`` — only where Landlock ABI 6 keeps signals inside
   the domain — so that it can stop them);
3. sets ``no_new_privs`` and, on Linux with Landlock (5.13+), restricts the process and all its
   children: **read** only the Python installation and the environment (``sys.prefix``,
   ``sys.base_prefix``, ``/usr``, ``/lib``, ``/etc``, ``/proc``, ``/dev/null``/``urandom``),
   **write** only ``WORLD``; from Landlock ABI 4, no TCP connection and no bind except the
   kernel's own five ports; from ABI 6, no signal to and no abstract socket with a process outside
   the domain (``--web``, when grading with a provider's backend: connections to ports 443 and 80
   are allowed too). The course folder (``solutions/``, the instructor's ``course_utils/``) and the other
   submissions' worlds are neither readable nor writable.
4. writes what it achieved to ``WORLD/run/confinement.json`` (information for the report only:
   the kernel could rewrite it) and ``exec``s ipykernel. When Landlock is available but cannot be
   applied, the launcher fails and no kernel starts: the grader, which decides from
   :func:`landlock_abi` whether kernels are confined, is never wrong about it.

Where the OS offers nothing (macOS, Windows, old Linux, Landlock disabled), step 3 is skipped and
recorded; the grader then still verifies and restores the course files after each submission and
says in its report that the kernel was not confined. Standard library only.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sys
from pathlib import Path

NOBODY = 65534

# Landlock constants (include/uapi/linux/landlock.h)
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ABI1_ALL = (1 << 13) - 1
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2
_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_PR_SET_NO_NEW_PRIVS = 38


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """Landlock ABI version of the running kernel (0: unavailable)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = _libc()
        libc.syscall.restype = ctypes.c_long
        version = libc.syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(_VERSION))
    except Exception:
        return 0
    return max(int(version), 0)


def read_paths() -> list[str]:
    """Folders the kernel may read: the interpreter, the environment, the system."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable)),
             "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc",
             "/dev/null", "/dev/urandom", "/dev/random", "/dev/zero"}
    return sorted(p for p in paths if p and os.path.exists(p))


WEB_PORTS = (443, 80)  # what a provider's API needs when grading with --backend other than offline


def _restrict(abi: int, world: str, ports: list[int], web: bool = False) -> None:
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    fs = _FS_ABI1_ALL | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) | (
        _FS_IOCTL_DEV if abi >= 5 else 0)
    attr = _RulesetAttr(fs, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                        (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr),
                           ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")

    def allow(path: str, access: int) -> None:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not os.path.isdir(path):  # files accept only file rights
                access &= _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | (
                    _FS_IOCTL_DEV if abi >= 5 else 0)
            rule = _PathBeneath(access & fs, fd)
            if libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset),
                            ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                            ctypes.c_uint32(0)) < 0:
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        finally:
            os.close(fd)

    for path in read_paths():
        allow(path, _READ | (_FS_WRITE_FILE if path.startswith("/dev/") else 0))
    allow(world, fs)
    if abi >= 4:
        rules = [(_NET_BIND_TCP, port) for port in [0, *ports]]  # 0: ipykernel's output pipe
        rules += [(_NET_CONNECT_TCP, port) for port in (WEB_PORTS if web else ())]
        for access, port in rules:
            rule = _NetPort(access, port)
            if libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset),
                            ctypes.c_int(_RULE_NET_PORT), ctypes.byref(rule),
                            ctypes.c_uint32(0)) < 0:
                raise OSError(ctypes.get_errno(), "landlock_add_rule port")
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(no_new_privs)")
    if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(ruleset)


_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_CAP_AMBIENT, _AMBIENT_RAISE = 24, 28, 47, 2
# NOROOT + its lock, NO_SETUID_FIXUP locked off, KEEP_CAPS locked off: root gets no capability
# back at execve, and changing to another user clears every capability
_SECUREBITS = 0x01 | 0x02 | 0x08 | 0x20
_CAP_KILL, _CAP_SETGID, _CAP_SETUID = 5, 6, 7


def kept_capabilities(abi: int) -> tuple[int, ...]:
    """What root keeps so that the course's sandbox works in the kernel: changing user (its
    children drop to ``nobody``) and, where Landlock confines signals to the domain (ABI 6+),
    signalling those children (they no longer share its user)."""
    return (_CAP_SETGID, _CAP_SETUID) + ((_CAP_KILL,) if abi >= 6 else ())


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def nobody_can_run() -> bool:
    """Whether the unprivileged user can reach this interpreter and its library (o+rx)."""
    import stat

    targets = {os.path.realpath(sys.executable), os.path.realpath(sys.base_prefix),
               os.path.realpath(sys.prefix)}
    for target in targets:
        path = target
        while True:
            try:
                mode = os.stat(path).st_mode
            except OSError:
                return False
            needed = stat.S_IXOTH if stat.S_ISDIR(mode) else stat.S_IROTH
            if not mode & needed:
                return False
            parent = os.path.dirname(path)
            if parent == path:
                break
            path = parent
    return True


def _drop_capabilities(libc, abi: int) -> None:
    """Root without capabilities for good, except those :func:`kept_capabilities` lists, which
    the sandbox's children lose when they drop to ``nobody``."""
    kept = kept_capabilities(abi)
    for cap in range(64):
        if cap in kept:
            continue
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the last capability this kernel knows
    if libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(securebits)")
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    mask = sum(1 << cap for cap in kept)
    data[0].effective = data[0].permitted = data[0].inheritable = mask
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    for cap in kept:  # kept across execve (the sandbox's worker is a new interpreter)
        if libc.prctl(_PR_CAP_AMBIENT, _AMBIENT_RAISE, cap, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(ambient)")


def _drop_privileges() -> str:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "utilisateur courant"
    if nobody_can_run():
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        return "nobody"
    _drop_capabilities(_libc(), landlock_abi())
    return ("root sans capacité sauf changer d'utilisateur et signaler ses enfants (Python "
            "installé hors de portée de nobody)")


def confine(world: str, ports: list[int], web: bool = False) -> dict:
    """Confine this process (see the module docstring); return what was achieved."""
    status = {"user": "", "landlock": 0, "limits": ""}
    try:
        status["user"] = _drop_privileges()
    except OSError as exc:
        status["user"] = f"inchangé ({exc})"
    abi = landlock_abi()
    if abi:  # available but failing: no kernel at all, rather than one the grader trusts wrongly
        _restrict(abi, world, ports, web)
        status["landlock"] = abi
    else:
        status["limits"] = "Landlock indisponible sur ce système"
    return status


def main(argv: list[str] | None = None) -> None:
    arguments = list(sys.argv[1:] if argv is None else argv)
    enabled, web = "--no-confine" not in arguments, "--web" in arguments
    connection, world, *options = [a for a in arguments if a not in ("--no-confine", "--web")]
    run = Path(world) / "run"
    run.mkdir(exist_ok=True)
    copy = run / "connection.json"
    shutil.copyfile(connection, copy)
    info = json.loads(copy.read_text(encoding="utf-8"))
    ports = [int(info[key]) for key in ("shell_port", "iopub_port", "stdin_port",
                                        "control_port", "hb_port") if key in info]
    if enabled and hasattr(os, "geteuid") and os.geteuid() == 0 and nobody_can_run():
        os.chown(copy, NOBODY, NOBODY)
        os.chown(run, NOBODY, NOBODY)
    os.chmod(copy, 0o600)
    status = confine(str(Path(world).resolve()), ports, web) if enabled else {
        "user": "inchangé", "landlock": 0, "limits": "confinement désactivé (--no-confine)"}
    (run / "confinement.json").write_text(json.dumps(status), encoding="utf-8")
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", "-f", str(copy),
                              "--IPKernelApp.log_level=ERROR", *options])


if __name__ == "__main__":
    main()
