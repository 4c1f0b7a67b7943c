"""The job pipe of a forked child: how the caller hands a spare its run.

A job is one message of three size-prefixed frames of marshal data: the settings (timeout,
memory, output limit, modules), the compiled code, the tests (program or probes, and their
code objects). The caller marshals the code and the tests once (``_plan.fork_blobs``)
and reuses the bytes for every run of the same code or tests; only the settings are marshalled
per run. The caller writes the message and closes the pipe; the child reads exactly the three
frames, closes its end, and only then runs anything: the untrusted code never sees this
descriptor. A pipe closed early (the worker stopped) ends the child without a result.
"""

from __future__ import annotations

import marshal
import os
import struct

_SIZE = struct.Struct(">I")

# The compiled code and tests a child receives, or compiles itself. The compiler folds
# constant expressions ('😀' * 4096 is a 16 kB string) and writes each finally block out once
# per way out of it (nested, that doubles at each level): 124,000 characters of source made
# 185 MB to send, to read before the run's clock starts, and to keep in the caller's cache.
MAX_BLOB_BYTES = 8 * 1024 * 1024


def too_big(blob: bytes | None, what: str) -> str | None:
    """French reason why ``blob`` (``what`` « est » / « sont ») is refused, or None."""
    if blob is None or len(blob) <= MAX_BLOB_BYTES:
        return None
    return (f"{what} trop gros ({len(blob) / 1e6:.0f} Mo, au plus "
            f"{MAX_BLOB_BYTES / 1e6:.0f} Mo) : des constantes calculées d'avance (comme "
            "'x' * 4096) ou des blocs try/finally imbriqués le font grossir ; construisez les "
            "grandes valeurs à l'exécution")


def _frame(blob: bytes) -> bytes:
    return _SIZE.pack(len(blob)) + blob


_SOURCE = marshal.dumps(None)  # in place of the code: the child compiles the source


def pack_job(job: dict, code_blob: bytes | None, tests_blob: bytes) -> bytes:
    """The message for a spare: settings from ``job``, then the marshalled code (or, while
    the caller has not compiled it, its source in the settings) and tests."""
    source = job["code"] if code_blob is None else None
    settings = marshal.dumps((job["timeout"], job["memory_mb"], job["output_limit"],
                              tuple(job["modules"]), job.get("nonce", 0), source))
    return b"".join((_frame(settings), _frame(_SOURCE if code_blob is None else code_blob),
                     _frame(tests_blob)))


def send_job(fd: int, data: bytes, deadline: float = 10.0) -> bool:
    """Write a message made by :func:`pack_job` to a spare's job pipe, then close it.

    Never blocks past ``deadline`` seconds (a stopped spare does not read): returns False when
    the whole message could not be written in time, or the pipe is closed.
    """
    import select
    import time

    limit = time.monotonic() + deadline
    try:
        os.set_blocking(fd, False)
        view = memoryview(data)
        try:  # a job fits in the pipe's buffer (64 KiB on Linux): one write, no wait
            view = view[os.write(fd, view):]
        except BlockingIOError:
            pass
        while view:
            remaining = limit - time.monotonic()
            if remaining <= 0:
                return False
            poller = select.poll()  # not select: it refuses descriptors from 1024
            poller.register(fd, select.POLLOUT)
            ready = poller.poll(remaining * 1000)
            if ready:
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    continue
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _read_frames(fd: int, count: int) -> list[bytes]:
    data, frames, start = b"", [], 0
    while len(frames) < count:
        body = start + _SIZE.size
        if len(data) >= body:
            end = body + _SIZE.unpack_from(data, start)[0]
            if len(data) >= end:
                frames.append(bytes(data[body:end]))
                start = end
                continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:  # the caller or the worker closed the pipe without a (whole) job
            os._exit(0)
        if not data:  # most jobs: one read
            data = chunk
        else:  # a large job: appended in place, linear in its size
            if type(data) is bytes:
                data = bytearray(data)
            data += chunk
    return frames


def read_job(fd: int) -> tuple[dict, tuple]:
    """Child side: ``(job, (code, tests))`` from the pipe ``fd`` (the caller then closed it)."""
    settings, code, tests = (marshal.loads(frame) for frame in _read_frames(fd, 3))
    timeout, memory_mb, output_limit, modules, nonce, source = settings
    program, probes, tests = tests
    job = {"timeout": timeout, "memory_mb": memory_mb, "output_limit": output_limit,
           "modules": modules, "nonce": nonce}
    if code is None:  # compiled by the child (_child._run), from its source
        job["code"] = source
    if program is not None:
        job["program"] = program
    else:
        job["probes"] = probes
    return job, (code, tests)
