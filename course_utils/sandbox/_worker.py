"""The warm worker (POSIX): a clean, single-threaded process that forks one child per run.

The caller (a notebook kernel, which has threads) never forks: it starts this worker once with
``subprocess`` (fork+exec, safe from a threaded process). The worker imports the allowed
modules, rehearses a few made-up runs (``_worker_rehearsal``: the interpreter's one-time
warm-up then costs no child anything), builds the restricted namespaces, installs the audit
hook (permissive until a child switches it on), then does nothing but serve three commands on
a Unix socket shared with the caller:

* ``F n``: fork ``n`` *spare* children back to back (1 to :data:`MAX_BATCH`) and pass the
  caller the two pipe ends of each (``SCM_RIGHTS``): the job pipe and the result channel. A
  spare isolates itself and locks itself down at once (``_child_os``), then waits for its
  job, which may use only the modules the worker imported;
* ``O``: fork one child the same way for a job that imports another allowed module: it
  imports it once the job has arrived, then locks itself down;
* ``K pid``: kill that child if it is still one of its own, not reaped yet (only the worker,
  its parent, kills and reaps: a pid it has reaped may be another process's now);
* ``S pid``: reap it and report its exit status.

Being idle between forks, the worker keeps a clean memory image: a fork costs it little, and
every child starts from the same pristine state. After each fork, every page the worker writes
is copied (it shares them all with the child just forked): forking :data:`BATCH` spares back to
back, with almost nothing run between the forks, copies a third fewer pages per spare. The
caller keeps at least :data:`SPARES` spares ahead: a run hands its job to the oldest and, when
fewer are left, asks for the next batch, forked while the child runs. A child that reported
``done`` is ending by itself: its kill travels with that next request (one message, one
wake-up of the worker). The caller plans and compiles the run, enforces the timeout and
judges the records (``_supervisor``).
"""

from __future__ import annotations

import os
import signal
import sys

import _socket

# The worker process imports only what it needs (every imported module makes each fork
# dearer: the ``socket`` module's enumerations alone were ~0.5 MB more for every child to
# map); the caller-side classes import the rest when used.

_UNKNOWN = -(1 << 30)
SPARES = 2  # children forked ahead of the runs (at least)
BATCH = 2  # spares asked for at once, forked back to back
MAX_BATCH = 4


def _pack(tag: bytes, *numbers: int) -> bytes:
    return tag + b"".join(n.to_bytes(4, "big", signed=True) for n in numbers)


# --- worker side: commands are 5 bytes (tag + pid), replies 9 bytes (tag + pid + value) ------

def _serve(sock: _socket.socket, guard, world) -> None:
    import gc

    gc.collect()  # the rehearsal's garbage is not frozen with the rest
    gc.freeze()  # children then never touch these objects' pages for garbage collection
    reaped: dict[int, int] = {}
    living: set[int] = set()

    def reap(pid: int = -1, block: bool = False) -> None:
        while True:
            try:
                done, status = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if not done:
                return
            living.discard(done)
            reaped[done] = os.waitstatus_to_exitcode(status)
            if len(reaped) > 1024:
                reaped.pop(next(iter(reaped)))
            if pid != -1:
                return

    try:
        _loop(sock, guard, world, reaped, living, reap)
    finally:  # the caller is gone: no child may outlive the worker
        for pid in living:
            os.kill(pid, signal.SIGKILL)
        reap(block=True)


def _loop(sock, guard, world, reaped: dict, living: set, reap) -> None:
    from course_utils.sandbox._child import address_space, serve_spare
    from course_utils.sandbox._child_os import fork_function

    base = address_space()  # the size children inherit: their memory limit is counted above it
    # Few distinct objects touched per fork: after each fork the worker's own writes copy pages.
    recv, sendmsg, pipe, close = sock.recv, sock.sendmsg, os.pipe, os.close
    fork = fork_function(random_hooked=not world.seeded)
    rights = (_socket.SOL_SOCKET, _socket.SCM_RIGHTS)
    pending = b""
    while True:
        data = recv(4096)  # the caller may send several commands at once (kills, then F)
        if not data:
            return
        pending += data
        while len(pending) >= 5:
            tag, pid = pending[:1], int.from_bytes(pending[1:5], "big", signed=True)
            pending = pending[5:]
            if tag == b"F" or tag == b"O":
                # ``pid`` spares forked back to back: between two forks the worker runs almost
                # nothing, so it copies few pages it shares with the spare just forked. "F":
                # spares that lock themselves down at once; "O": one child for a job that
                # imports a module first (it locks itself down after).
                early = tag == b"F"
                forked = []
                for _ in range(pid if early and 1 <= pid <= MAX_BATCH else 1):
                    job_read, job_write = pipe()
                    channel_read, channel_write = pipe()
                    child = fork()
                    if child == 0:
                        try:  # the spare closes every other descriptor itself (_isolate)
                            serve_spare(channel_write, job_read, guard, world, base, early)
                        finally:
                            os._exit(70)
                    forked.append((child, job_read, job_write, channel_read, channel_write))
                for child, job_read, job_write, channel_read, channel_write in forked:
                    living.add(child)
                    close(job_read)
                    close(channel_write)
                    fds = job_write.to_bytes(4, sys.byteorder) + channel_read.to_bytes(4, sys.byteorder)
                    sendmsg([_pack(tag, child, 0)], [(*rights, fds)])
                    close(job_write)
                    close(channel_read)
                reap()
            elif tag == b"K":
                if pid in living:  # a child not reaped yet keeps its pid: no other process has
                    # it (a pid merely absent from ``reaped``, which forgets, may be anyone's)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            elif tag == b"S":
                if pid in living:
                    reap(pid, block=True)
                sock.sendall(_pack(b"S", pid, reaped.get(pid, _UNKNOWN)))


def _import_random_without_fork_reseed() -> bool:
    """Import ``random`` without its at-fork reseed; False if it was imported already.

    ``random`` reseeds itself from ``os.urandom`` in every forked child. Every run starts from
    ``random.seed(0)`` (reproducible runs), which the worker sets once before it forks
    (``World.prepare_spares``): the reseed would be undone at once, after costing each child
    some 45 page copies (~0.1 ms). Nothing else registers a fork hook while it is imported.
    """
    if "random" in sys.modules:
        return False
    register = os.register_at_fork
    os.register_at_fork = lambda **hooks: None
    try:
        import random  # noqa: F401
    finally:
        os.register_at_fork = register
    return True


def main(fd: int, bpf_hex: str = "", missing: str = "") -> None:
    """Worker entry point; ``fd`` is the socket shared with the caller, ``bpf_hex`` the seccomp
    program the caller compiled (or ``missing``: why there is none)."""
    import time

    seed_once = _import_random_without_fork_reseed()  # before anything imports it
    from course_utils.sandbox import _child_os
    from course_utils.sandbox._child import RUNNER_FILES, World
    from course_utils.sandbox._child_audit import install_audit_hook
    from course_utils.sandbox._child_builtins import build_views, harden_modules
    from course_utils.sandbox._policy import preload
    from course_utils.sandbox._worker_rehearsal import rehearse

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller's Ctrl-C is not ours
    # A child imports from the installation and never writes into it (no .pyc): its limits
    # forbid writing files before its job, which may import an allowed module, arrives.
    sys.dont_write_bytecode = True
    sock = _socket.socket(fileno=fd)
    modules = preload()
    harden_modules(modules)
    views = build_views(modules)
    rehearse(views)  # the interpreter's warm-up, paid once here rather than by every child
    time.localtime()  # the C library reads the time zone now: a locked child cannot open files
    boundary = _child_os.prepare(bytes.fromhex(bpf_hex) if bpf_hex else None, missing or "absent")
    world = World(views, _child_os.probe(boundary))
    world.prepare_spares(seed=seed_once)
    # Every class alive now (allowed modules, views, the runner's own) becomes immutable: the
    # untrusted code cannot patch random.Random.randrange or a module view's class.
    _child_os.freeze_types(_child_os.all_heap_types())
    _child_os.learn_attribute_access(_child_os.every_class())  # for copy (_child_builtins)
    guard = install_audit_hook(RUNNER_FILES)
    try:
        boundary = world.boundary.describe().encode("utf-8")  # told to the caller
        sock.sendall(_pack(b"R", os.getpid(), len(boundary)) + boundary)
        _serve(sock, guard, world)
    except OSError:  # the caller went away while we answered
        pass
    os._exit(0)
