"""Caller side of the warm worker (POSIX): start it, get spare children, kill and reap them.

The caller (a notebook kernel, which has threads) never forks: :class:`ForkClient` starts the
worker (:mod:`._worker`) once with ``subprocess`` and talks to it on a Unix socket.
:class:`ChildHandle` is a running child as the supervisor sees it: its result channel and pid.
"""

from __future__ import annotations

import os
import select
import socket

from course_utils.sandbox import _worker
from course_utils.sandbox._policy import CORE_MODULES
from course_utils.sandbox._worker import _UNKNOWN, BATCH, SPARES, _pack

# Descriptors received from the worker arrive close-on-exec where the system can (Linux): a
# process the caller starts later never holds them, and no extra system call is needed.
_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
REPLY_DEADLINE = 10.0  # seconds: the worker answers in a millisecond; a stopped one never does


def _recv_exact(sock: socket.socket, size: int):
    data, fds = b"", []
    while len(data) < size:
        try:
            chunk, more, _flags, _addr = socket.recv_fds(sock, size - len(data), 2, _CLOEXEC)
        except OSError:  # e.g. connection reset: the other side is gone
            chunk, more = b"", []
        if not chunk:
            return None, fds
        data += chunk
        fds += more
    return data, fds


class WorkerFailure(RuntimeError):
    """The worker missed a deadline or went away (French message); it must be replaced."""


class ForkClient:
    """The caller's handle on the worker: spare children on demand (``launch(plan)``).

    Every read from the worker and every write to it has a deadline (:data:`REPLY_DEADLINE`):
    a worker that misses one (stopped, wedged, dead) raises :class:`WorkerFailure`, and the
    sandbox kills it and starts another for the next run.
    """

    def __init__(self, startup_timeout: float = 60.0):
        import subprocess

        from course_utils.sandbox._spawn import child_environment, python_command

        from course_utils.sandbox._child_os import compile_filter

        bpf, missing = compile_filter()  # here, once: the worker never imports pyseccomp
        mine, theirs = socket.socketpair()
        command = python_command(_worker.main, theirs.fileno(), bpf.hex() if bpf else "",
                                 missing or "")
        # LD_BIND_NOW: the dynamic linker resolves every function of the interpreter at the
        # worker's start. Resolved lazily, each first call writes its address into a table
        # every child shares with the worker: a page copy, and a lookup, in every child
        # (measured: 8 % fewer page copies per run, about 2 % of a run's time).
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     env={**child_environment(), "LD_BIND_NOW": "1"},
                                     start_new_session=True)
        theirs.close()
        self.sock, self.owner = mine, os.getpid()
        self.spares: list[tuple[int, int, int]] = []  # locked down already: core modules only
        self.opened: list[tuple[int, int, int]] = []  # children for jobs importing a module
        self.statuses: dict[int, int] = {}
        self.asked = 0
        self.last_exit = ""
        mine.settimeout(startup_timeout)
        hello = _recv_exact(mine, 9)[0]
        size = int.from_bytes(hello[5:9], "big") if hello else 0
        about = _recv_exact(mine, size)[0] if hello and 0 < size < 4096 else None
        if not hello or hello[:1] != b"R" or about is None:
            self.close()
            raise RuntimeError("le bac à sable n'a pas pu démarrer son processus de travail")
        self.os_boundary = about.decode("utf-8", "replace")  # what the children get
        mine.settimeout(REPLY_DEADLINE)  # no read or write on the socket waits longer
        self._ask_spare(SPARES)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def _ask_spare(self, count: int = 1) -> None:
        self._send(_pack(b"F", count))
        self.asked += count

    def _send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:  # includes the socket's timeout
            raise WorkerFailure("le processus de travail du bac à sable ne répond plus "
                                f"({type(exc).__name__})") from None

    def _read_reply(self) -> None:
        data, fds = _recv_exact(self.sock, 9)
        if data is None:
            raise WorkerFailure("le processus de travail du bac à sable ne répond plus "
                                f"(aucune réponse en {REPLY_DEADLINE:g} s, ou arrêté)")
        tag = data[:1]
        pid = int.from_bytes(data[1:5], "big", signed=True)
        value = int.from_bytes(data[5:9], "big", signed=True)
        if tag == b"F" or tag == b"O":
            if not _CLOEXEC:  # a process the caller starts later must not hold them open
                for fd in fds:
                    os.set_inheritable(fd, False)
            if tag == b"F":
                self.asked -= 1
                self.spares.append((pid, fds[0], fds[1]))
            else:
                self.opened.append((pid, fds[0], fds[1]))
        else:
            self.statuses[pid] = value

    def __call__(self, plan):
        """Hand the run to a spare; return its handle, or a French error (nothing ran)."""
        from course_utils.sandbox._jobpipe import pack_job, send_job
        from course_utils.sandbox._plan import fork_blobs

        blobs, error = fork_blobs(plan)
        if error:
            return error  # nothing to run: the supervisor reports it
        data = pack_job(plan.job, *blobs)
        if CORE_MODULES.issuperset(plan.job["modules"]):
            if not self.spares and not self.asked:
                self._ask_spare()
            while not self.spares:
                self._read_reply()
            pid, job_write, channel_read = self.spares.pop(0)
        else:  # a module to import: a child that locks itself down after importing it
            self._send(_pack(b"O", 1))
            while not self.opened:
                self._read_reply()
            pid, job_write, channel_read = self.opened.pop(0)
        handle = ChildHandle(channel_read, pid, self)
        if not send_job(job_write, data, REPLY_DEADLINE):
            self.kill(pid)  # a stopped or dead spare: the run reports no result
        if len(self.spares) + self.asked < SPARES:  # the next spares, forked while it runs
            self._ask_spare(BATCH)
        return handle

    def kill(self, pid: int) -> None:
        """Have the worker kill child ``pid`` (it reaps it with its next request)."""
        self._send(_pack(b"K", pid))

    def status(self, pid: int) -> int | None:
        """Exit code of a killed or finished child (negative: signal), None if unknown."""
        self._send(_pack(b"S", pid))
        while pid not in self.statuses:
            self._read_reply()
        code = self.statuses.pop(pid)
        return None if code == _UNKNOWN else code

    def close(self) -> None:
        if self.owner != os.getpid():  # a forked copy of the caller leaves the worker alone
            return
        for _pid, job_write, channel_read in (*self.spares, *self.opened):
            os.close(job_write)  # the spare reads end of file and exits
            os.close(channel_read)
        self.spares.clear()
        self.opened.clear()
        self.sock.close()  # the worker reads end of file and exits (it kills its children)
        try:
            self.proc.wait(timeout=2)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: stop it for good
            self.proc.kill()  # SIGKILL also ends a stopped process
            self.proc.wait()

    def kill_worker(self) -> None:
        """End a worker that missed a deadline (its children end with it: they read EOF)."""
        if self.owner == os.getpid():
            try:
                self.proc.kill()
            except OSError:
                pass
        self.close()


class ChildHandle:
    """A running child seen from the supervisor: its result channel and its pid."""

    started = True  # the clock starts when the job is sent: no "ready" record in fork mode

    def __init__(self, fd: int, pid: int, client: ForkClient):
        self.fd, self.pid, self.client = fd, pid, client

    def recv(self, timeout: float):
        # poll, not select: select refuses descriptors from 1024 (a notebook may hold more)
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        ready = poller.poll(max(timeout, 0) * 1000)
        return os.read(self.fd, 65536) if ready else None

    def kill(self) -> None:
        """The kill is sent by :meth:`wait`, which the supervisor calls right after."""

    def wait(self, need_status: bool = True) -> str:
        """Kill the child and close its channel, at once: a child that reported ``done`` and
        went on (only an escape of the Python layers could) must not outlive its run while
        the sandbox is idle. After a complete run no status is needed: the worker reaps the
        child with its next request."""
        from course_utils.sandbox._supervisor import describe_exit

        os.close(self.fd)
        self.client.kill(self.pid)
        status = describe_exit(self.client.status(self.pid)) if need_status else ""
        self.client.last_exit = status  # how the last child ended (tests read it)
        return status
