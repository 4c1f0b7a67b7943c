"""Caller side of spawn mode: one fresh interpreter per run (Windows, or forced).

Also the command line and environment of every process the caller starts (the warm worker too).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

from course_utils.sandbox._child import spawn_main
from course_utils.sandbox._plan import Plan
from course_utils.sandbox._supervisor import describe_exit, supervise


def package_parent() -> str:
    """The folder that holds the ``course_utils`` package (wherever this module sits in it)."""
    import course_utils

    return os.path.dirname(os.path.dirname(os.path.abspath(course_utils.__file__)))


def binding_paths() -> list[str]:
    """Folders of the optional packages the child side imports (pyseccomp), found without
    importing them; appended after the standard library."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("pyseccomp")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.origin:
        return []
    return [os.path.dirname(os.path.abspath(spec.origin))]


def python_command(function, *args) -> list[str]:
    """Command line of a fresh interpreter running ``function(*args)`` (a module-level function).

    No site-packages (``-S``), no current directory on ``sys.path`` (a student's ``random.py``
    must not shadow the standard library); course_utils (and pyseccomp) are found after the
    standard library.
    The module and name come from the function object itself: renaming a module cannot leave a
    stale string behind.
    """
    module, name = function.__module__, function.__qualname__
    if "." in name or "<" in name:
        raise ValueError(f"not a module-level function: {module}.{name}")
    paths = [package_parent(), *binding_paths()]
    boot = ("import sys; sys.path[:] = [p for p in sys.path if p]; "
            f"sys.path.extend({paths!r}); "
            f"from {module} import {name}; {name}({', '.join(map(repr, args))})")
    return [sys.executable, "-s", "-S", "-c", boot]


def child_environment() -> dict:
    """The caller's environment without Python overrides; fixed hash seed (reproducible)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONHASHSEED"] = "0"
    return env


class SpawnHandle:
    """A spawned child: job on its stdin, result channel on its stdout (read by a thread)."""

    def __init__(self, plan: Plan):
        from course_utils.sandbox._child_os import compile_filter

        bpf, missing = compile_filter()
        job = dict(plan.job, bpf=bpf.hex() if bpf else "", bpf_missing=missing or "absent")
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
        command = python_command(spawn_main)
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=child_environment(), creationflags=flags)
        self.chunks: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        data = json.dumps(job).encode("utf-8")
        # Written by a thread: a child that does not read (stopped) cannot block the caller,
        # whose wait is bounded by the supervisor's deadline.
        threading.Thread(target=self._feed, args=(data,), daemon=True).start()

    def _feed(self, data: bytes) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.close()
        except (OSError, ValueError):  # the child died before reading its job: EOF for collect()
            pass

    def _pump(self) -> None:
        while True:
            try:
                chunk = self.proc.stdout.read1(65536)
            except (OSError, ValueError):
                chunk = b""
            self.chunks.put(chunk)
            if not chunk:
                return

    def recv(self, timeout: float):
        try:
            return self.chunks.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass

    def wait(self, need_status: bool = True) -> str:
        code = self.proc.wait()
        self.proc.stdout.close()
        return describe_exit(code)


def run_spawned(request: dict) -> dict:
    return supervise(request, SpawnHandle, mode="spawn")
