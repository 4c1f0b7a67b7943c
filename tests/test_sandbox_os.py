"""The operating system's boundary under the Python layers (Linux): what a full escape meets.

These tests do not go through the Python layers: they lock a process down exactly as a sandbox
child is locked (``_child_os.lock_down``) and then call the operating system *directly* (``os``,
``socket``, ``ctypes``), as code that walked around every Python layer could. Every attempt must
fail; computing and writing on the result channel (descriptor 3) must still work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from course_utils.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[1]
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp : Linux seulement")

# Each attempt is a Python expression evaluated in the locked process; names: os, socket,
# ctypes, libc, SECRET (a readable file), OUT (a path to create), PPID (the caller).
ATTEMPTS = {
    "files": [
        "os.open(SECRET, os.O_RDONLY)",
        "open(SECRET).read()",
        "os.open(OUT, os.O_WRONLY | os.O_CREAT)",
        "open(OUT, 'w').write('x')",
        "os.listdir('/')",
        "os.stat(SECRET)",
        "os.read(0, 1)",  # a descriptor it holds (the null device): reading is refused too
        "os.write(1, b'x')",  # only the result channel may be written
        "os.dup(3)",
        "os.mkdir(OUT + '.d')",
        "os.unlink(SECRET)",
        "os.rename(SECRET, OUT)",
    ],
    "processes": [
        "os.fork()",
        "os.execv('/bin/true', ['true'])",
        "os.posix_spawn('/bin/true', ['true'], {})",
        "__import__('subprocess').run(['/bin/true'])",
        "-1 if os.system('touch ' + OUT) != 0 else 0",  # the C library reports 127: no shell
        "libc.syscall(56, 0x11, 0, 0, 0, 0)",  # raw clone (x86-64 number)
        "os.kill(PPID, 0)",
        "os.kill(PPID, 19)",  # SIGSTOP the caller
        "os.killpg(os.getpgid(0), 19)",
        "os.setsid()",
    ],
    "network": [
        "__import__('socket').socket()",
        "__import__('socket').socketpair()",
        "libc.socket(2, 1, 0)",  # AF_INET, SOCK_STREAM, through the C library
        "__import__('socket').socket(__import__('socket').AF_UNIX)",
    ],
    "memory_of_others": [
        "open(f'/proc/{PPID}/mem', 'rb').read(1)",
        "libc.syscall(101, 16, PPID, 0, 0)",  # ptrace(PTRACE_ATTACH, caller)
        "libc.syscall(310, PPID, 0, 0, 0, 0, 0)",  # process_vm_readv
        "libc.syscall(311, PPID, 0, 0, 0, 0, 0)",  # process_vm_writev
        "libc.ptrace(0, 0, 0, 0)",  # PTRACE_TRACEME
    ],
    "identity_and_limits": [
        "os.setuid(0)",
        "os.setresuid(0, 0, 0)",
        # its own limits only lowered (a spare sets its job's after its lock-down) ...
        "(__import__('resource').setrlimit(__import__('resource').RLIMIT_CORE, (0, 0)), "
        "__import__('resource').setrlimit(__import__('resource').RLIMIT_CORE, (1, 1)))",
        # ... and no other process's
        "__import__('resource').prlimit(PPID, __import__('resource').RLIMIT_CORE, (0, 0))",
        "libc.prctl(22, 0, 0, 0, 0)",  # PR_SET_SECCOMP: no loosening (a new filter can only add)
    ],
}

LOCKED_SCRIPT = textwrap.dedent("""
    import ctypes, json, os, sys
    sys.path.insert(0, ROOT)
    from course_utils.sandbox import _child_os
    boundary = _child_os.prepare()
    libc = ctypes.CDLL(None, use_errno=True)
    import socket, subprocess, resource  # loaded before, like the allowed modules
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(write_end, 3)
        _child_os.lock_down(boundary)
        outcomes = {}
        for name, expression in ATTEMPTS:
            try:
                value = eval(expression)
                failed = type(value) is int and value < 0  # raw syscalls return -1
                outcomes[name] = "refused" if failed else "allowed"
            except OSError:
                outcomes[name] = "refused"
            except ValueError as exc:  # resource.setrlimit reports EPERM so
                outcomes[name] = "refused" if "not allowed" in str(exc) else "error ValueError"
            except BaseException as exc:
                outcomes[name] = "error " + type(exc).__name__
        outcomes["compute"] = str(sum(i * i for i in range(1000)))
        data = json.dumps(outcomes).encode()
        while data:
            data = data[os.write(3, data):]
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.waitpid(pid, 0)
    print(json.dumps({"boundary": boundary.describe(), "filter": boundary.program is not None,
                      "outcomes": json.loads(b"".join(chunks) or b"{}")}))
""")


def _run_locked(tmp_path, attempts):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    secret.chmod(0o644)
    prelude = (f"ROOT = {str(ROOT)!r}\nSECRET = {str(secret)!r}\nOUT = {str(tmp_path / 'out')!r}\n"
               f"PPID = {os.getpid()}\nATTEMPTS = {attempts!r}\n")
    script = "import os\n" + prelude + LOCKED_SCRIPT
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@linux
@pytest.mark.parametrize("family", sorted(ATTEMPTS))
def test_a_locked_process_cannot_reach_the_system(tmp_path, family):
    attempts = [(f"{family}:{i}", expression) for i, expression in enumerate(ATTEMPTS[family])]
    report = _run_locked(tmp_path, attempts)
    assert report["filter"], report["boundary"]
    outcomes = report["outcomes"]
    assert outcomes.pop("compute") == str(sum(i * i for i in range(1000)))  # it still computes
    allowed = {name: ATTEMPTS[family][int(name.split(":")[1])] for name, outcome in
               outcomes.items() if outcome != "refused"}
    assert allowed == {}, outcomes
    assert not (tmp_path / "out").exists() and (tmp_path / "secret.txt").exists()


@linux
def test_without_libseccomp_the_child_still_drops_privileges_and_says_so(tmp_path):
    # Fallback: pyseccomp (or the system's libseccomp) missing. The boundary says what is
    # absent, the child still gets no_new_privs (and nobody when root).
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        sys.modules["pyseccomp"] = None  # the binding cannot be imported
        from course_utils.sandbox import _child_os
        boundary = _child_os.prepare()
        pid = os.fork()
        if pid == 0:
            _child_os.lock_down(boundary)
            status = open("/proc/self/status").read()  # no filter: files still open
            nnp = [l for l in status.splitlines() if l.startswith(("NoNewPrivs", "Uid"))]
            os.write(1, (" | ".join(nnp) + "\\n").encode())
            os._exit(0)
        os.waitpid(pid, 0)
        print(boundary.describe())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60).stdout.splitlines()
    assert "NoNewPrivs:\t1" in out[0]
    if os.geteuid() == 0:
        assert "Uid:\t65534" in out[0]
    assert "filtre seccomp absent : paquet pyseccomp non installé" in out[1]


def _children_status(worker_pid: int) -> list[dict]:
    found = []
    for task in Path(f"/proc/{worker_pid}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                lines = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            found.append(dict(line.split(":\t", 1) for line in lines if ":\t" in line))
    return found


@linux
def test_a_running_sandbox_child_is_filtered_unprivileged_and_without_new_privileges():
    with Sandbox() as box:
        assert box.run("x = 1", ["x == 1"]).ok
        worker = box._worker.proc.pid
        seen: list = []
        runner = threading.Thread(target=lambda: seen.append(
            box.run("import time\ntime.sleep(3)\ndef f():\n    return 1\n", ["f() == 1"],
                    timeout=10)))
        runner.start()
        locked, descriptors, spares = [], {}, []
        while runner.is_alive() and not descriptors:
            # The run's child sleeps (State S); one that is ending (it closes its descriptors
            # as it goes) or ended is not the one to look at. Spares are locked down too, while
            # they wait for a job on their pipe (descriptor 4).
            locked = [s for s in _children_status(worker) if s.get("Seccomp", "").strip() == "2"
                      and s.get("State", "").startswith("S")]
            for status in locked:  # what the running code holds: the null device, the channel
                try:
                    fds = Path(f"/proc/{status['Pid'].strip()}/fd")
                    held = {int(fd.name): os.readlink(fd) for fd in fds.iterdir()}
                except OSError:  # it ended meanwhile
                    continue
                if 4 in held:
                    spares.append(held)
                else:
                    descriptors = held
            time.sleep(0.05)
        runner.join()
        assert seen[0].ok, seen[0]
        assert locked, "no child seen under seccomp"
        assert sorted(descriptors) == [0, 1, 2, 3], descriptors
        assert spares and all(sorted(held) == [0, 1, 2, 3, 4] for held in spares), spares
        assert {descriptors[fd] for fd in (0, 1, 2)} == {os.devnull}
        assert descriptors[3].startswith("pipe:")
        status = locked[0]
        assert status["NoNewPrivs"].strip() == "1"
        if os.geteuid() == 0:
            assert status["Uid"].split()[:2] == ["65534", "65534"]
        assert "filtre seccomp" in box.os_boundary


@linux
def test_a_kernel_that_refuses_the_filter_degrades_with_a_reason():
    # A program the kernel rejects (EINVAL), as a kernel without seccomp filters would: the
    # worker's probe finds it once, and the children run without the filter, saying so.
    from course_utils.sandbox import _child_os

    refused = _child_os.probe(_child_os.prepare(b"\0" * 8, None))
    assert refused.program is None and "le noyau refuse les filtres seccomp" in refused.describe()
    working = _child_os.probe(_child_os.prepare())
    assert working.program is not None and "filtre seccomp" in working.describe()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the C library's fork: Linux")
def test_the_worker_forks_without_cpythons_after_fork_work_only_when_nothing_needs_it():
    # A single-threaded process without fork hooks gets the C library's fork (a working one:
    # the child runs Python and exits with its own status); a process that imported
    # threading, or random with its reseed hook, keeps os.fork.
    script = (
        "import os, sys\n"
        "from course_utils.sandbox import _child_os\n"
        "fork = _child_os.fork_function(random_hooked=False)\n"
        "assert fork is not os.fork\n"
        "assert _child_os.fork_function(random_hooked=True) is os.fork\n"
        "pid = fork()\n"
        "if pid == 0:\n"
        "    os._exit(sum(range(8)) - 21)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "assert os.waitstatus_to_exitcode(status) == 7, status\n"
        "import threading\n"
        "assert _child_os.fork_function(random_hooked=False) is os.fork\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip() == "ok", done.stderr
