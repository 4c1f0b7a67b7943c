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
from course_utils.sandbox._worker import _UNKNOWN, SPARES, _pack, _recv_exact

class ForkClient:
    """The caller's handle on the worker: spare children on demand (``launch(plan)``)."""

    def __init__(self, startup_timeout: float = 60.0):
        import subprocess

        from course_utils.sandbox._spawn import child_environment, python_command

        mine, theirs = socket.socketpair()
        command = python_command(_worker.main, theirs.fileno())
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     env=child_environment(), start_new_session=True)
        theirs.close()
        self.sock, self.owner = mine, os.getpid()
        self.spares: list[tuple[int, int, int]] = []
        self.statuses: dict[int, int] = {}
        self.finished: list[int] = []  # children that reported "done": killed with the next ask
        self.asked = 0
        self.last_exit = ""
        ready, _, _ = select.select([mine], [], [], startup_timeout)
        hello = _recv_exact(mine, 9)[0] if ready else None
        if not hello or hello[:1] != b"R":
            self.close()
            raise RuntimeError("le bac à sable n'a pas pu démarrer son processus de travail")
        for _ in range(SPARES):
            self._ask_spare()

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def _ask_spare(self) -> None:
        kills = [_pack(b"K", pid) for pid in self.finished]
        self.finished.clear()
        self.sock.sendall(b"".join([*kills, _pack(b"F", 0)]))  # one wake-up of the worker
        self.asked += 1

    def _read_reply(self) -> None:
        data, fds = _recv_exact(self.sock, 9)
        if data is None:
            raise RuntimeError("le processus de travail du bac à sable s'est arrêté")
        tag = data[:1]
        pid = int.from_bytes(data[1:5], "big", signed=True)
        value = int.from_bytes(data[5:9], "big", signed=True)
        if tag == b"F":
            self.asked -= 1
            for fd in fds:  # a process the caller starts later must not hold them open
                os.set_inheritable(fd, False)
            self.spares.append((pid, fds[0], fds[1]))
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
        if not self.spares and not self.asked:
            self._ask_spare()
        while not self.spares:
            self._read_reply()
        pid, job_write, channel_read = self.spares.pop(0)
        handle = ChildHandle(channel_read, pid, self)
        try:
            send_job(job_write, data)
        except OSError:  # the spare died (killed from outside): the run reports no result
            pass
        self._ask_spare()  # the next spare is forked while this child runs
        return handle

    def kill(self, pid: int, now: bool = True) -> None:
        """Have the worker kill child ``pid``: now, or with the next request for a spare
        (a child that reported ``done`` is already exiting by itself)."""
        if now:
            self.sock.sendall(_pack(b"K", pid))
        else:
            self.finished.append(pid)

    def status(self, pid: int) -> int | None:
        """Exit code of a killed or finished child (negative: signal), None if unknown."""
        self.sock.sendall(_pack(b"S", pid))
        while pid not in self.statuses:
            self._read_reply()
        code = self.statuses.pop(pid)
        return None if code == _UNKNOWN else code

    def close(self) -> None:
        if self.owner != os.getpid():  # a forked copy of the caller leaves the worker alone
            return
        for _pid, job_write, channel_read in self.spares:
            os.close(job_write)  # the spare reads end of file and exits
            os.close(channel_read)
        self.spares.clear()
        self.sock.close()  # the worker reads end of file and exits
        try:
            self.proc.wait(timeout=2)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: stop it for good
            self.proc.kill()
            self.proc.wait()


class ChildHandle:
    """A running child seen from the supervisor: its result channel and its pid."""

    started = True  # the clock starts when the job is sent: no "ready" record in fork mode

    def __init__(self, fd: int, pid: int, client: ForkClient):
        self.fd, self.pid, self.client = fd, pid, client

    def recv(self, timeout: float):
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        return os.read(self.fd, 65536) if ready else None

    def kill(self) -> None:
        """The kill is sent by :meth:`wait`, which the supervisor calls right after."""

    def wait(self, need_status: bool = True) -> str:
        """Kill the child and close its channel. After a complete run (no status needed) the
        kill travels with the next request to the worker, which reaps the child then."""
        from course_utils.sandbox._supervisor import describe_exit

        os.close(self.fd)
        self.client.kill(self.pid, now=need_status)
        status = describe_exit(self.client.status(self.pid)) if need_status else ""
        self.client.last_exit = status  # how the last child ended (tests read it)
        return status
