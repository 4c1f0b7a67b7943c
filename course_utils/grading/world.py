"""Grader side: the pristine world each submission (and each solution's reference run) gets.

A world is a fresh temporary folder::

    WORLD/work/            cwd of the kernel: a copy of the submission, nothing else
    WORLD/lib/course_utils the private copy of the package the kernel imports (PYTHONPATH)
    WORLD/home, WORLD/tmp  HOME, TMPDIR, IPython/matplotlib folders
    WORLD/jupyter/         the kernelspec: ``python -m course_utils.grading.confine`` (see there)
    WORLD/run/             connection file copy, confinement report

The private copy is written from a :class:`CourseSnapshot` taken in memory when grading starts,
so what a submission does to the course folder on disk never reaches another submission's kernel
(nor the solution's reference run). After each run the course folder and the environment's
start-up hooks (``*.pth``, ``sitecustomize``) are compared with the snapshot: any difference is
reported (the row becomes ``suspect``) and undone.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import sys
import sysconfig
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.grading.confine import nobody_can_run

KERNEL_NAME = "course-graded"
SKIPPED_DIRS = frozenset({".git", ".venv", "venv", "build", "__pycache__", ".pytest_cache",
                          ".ipynb_checkpoints", ".ruff_cache", "node_modules"})
_LOCK = threading.Lock()


PROTECTED_DIRS = ("course_utils", "solutions", "exercises")
CODE_SUFFIXES = (".py", ".pth", ".ipynb", ".pyc")


def _walk(folder: Path, root: Path, files: dict[str, bytes]) -> None:
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for name in names:
            path = Path(current) / name
            if path.is_file() and not path.is_symlink():
                try:
                    files[path.relative_to(root).as_posix()] = path.read_bytes()
                except OSError:
                    continue


def _course_files(root: Path, extra=()) -> dict[str, bytes]:
    """The files the grading depends on: the package, solutions, exercises, top-level files."""
    files: dict[str, bytes] = {}
    for entry in sorted(root.iterdir()) if root.is_dir() else []:
        if entry.is_file() and not entry.is_symlink():
            try:
                files[entry.name] = entry.read_bytes()
            except OSError:
                continue
    folders = [root / name for name in PROTECTED_DIRS]
    for folder in extra:
        folder = Path(folder).resolve()
        if folder.is_relative_to(root) and not any(folder.is_relative_to(f) for f in folders):
            folders.append(folder)
    for folder in folders:
        if folder.is_dir():
            _walk(folder, root, files)
    return files


def _startup_hooks() -> dict[str, bytes]:
    """Files Python runs at start-up in this environment (``*.pth``, ``site/usercustomize``)."""
    folders = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    folders.update(getattr(site, "getsitepackages", lambda: [])())
    hooks = {}
    for folder in sorted(folders):
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".pth") or name.split(".")[0] in ("sitecustomize", "usercustomize"):
                path = os.path.join(folder, name)
                if os.path.isfile(path):
                    with open(path, "rb") as handle:
                        hooks[path] = handle.read()
    return hooks


@dataclass
class CourseSnapshot:
    """The files grading depends on, and the environment's start-up hooks, in memory.

    Verified after each submission: a protected file changed or deleted is put back; an added
    file that could run (``.py``, ``.pth``, ``.ipynb``) under a protected folder is removed. Other
    new files (a lesson's data written at run time) are left alone and not reported.
    """

    root: Path
    files: dict[str, bytes]
    hooks: dict[str, bytes] = field(default_factory=dict)
    extra: tuple = ()

    baseline: dict = field(default_factory=dict)  # what changes are measured against

    @classmethod
    def take(cls, root: Path, extra=()) -> CourseSnapshot:
        root = Path(root).resolve()
        extra = tuple(Path(folder).resolve() for folder in extra)
        files = _course_files(root, extra)
        return cls(root, files, _startup_hooks(), extra, dict(files))

    def accept(self, changed: list[str]) -> None:
        """Take changes made by someone else as the new baseline (private copies keep using
        the files as they were when grading started, so every submission sees the same course)."""
        now = _course_files(self.root, self.extra)
        hooks = _startup_hooks()
        for name in changed:
            if os.path.isabs(name):
                self.hooks.pop(name, None)
                if name in hooks:
                    self.hooks[name] = hooks[name]
            elif name in now:
                self.baseline[name] = now[name]
            else:
                self.baseline.pop(name, None)

    @property
    def package(self) -> dict[str, bytes]:
        return {path: data for path, data in self.files.items()
                if path.startswith("course_utils/")}

    def changes(self) -> list[str]:
        """Paths (relative to the course, or absolute for hooks) that differ from the snapshot."""
        now = _course_files(self.root, self.extra)
        changed = sorted(p for p in self.baseline if now.get(p) != self.baseline[p])
        changed += sorted(p for p in now if p not in self.baseline and "/" in p
                          and p.endswith(CODE_SUFFIXES))
        hooks = _startup_hooks()
        changed += sorted(p for p in set(hooks) | set(self.hooks)
                          if hooks.get(p) != self.hooks.get(p))
        return changed

    def restore(self, changed: list[str]) -> None:
        """Put every changed path back as it was (added files are removed)."""
        for name in changed:
            absolute = Path(name) if os.path.isabs(name) else self.root / name
            original = self.hooks.get(name) if os.path.isabs(name) else self.baseline.get(name)
            try:
                if original is None:
                    absolute.unlink(missing_ok=True)
                else:
                    absolute.parent.mkdir(parents=True, exist_ok=True)
                    if absolute.is_symlink():
                        absolute.unlink()
                    absolute.write_bytes(original)
            except OSError:
                continue


class World:
    """One submission's temporary folder (context manager: removed on exit)."""

    def __init__(self, snapshot: CourseSnapshot, notebook_name: str, data: bytes, *,
                 confine: bool = True, web: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="course-grade-")).resolve()
        self.work = self.root / "work"
        for sub in ("work", "lib", "home", "tmp", "run", "jupyter/kernels/" + KERNEL_NAME):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.work / notebook_name).write_bytes(data)
        for relative, content in snapshot.package.items():
            target = self.root / "lib" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        launcher = ["-m", "course_utils.grading.confine", *(["--web"] if web else []),
                    *([] if confine else ["--no-confine"])]
        spec = {"argv": [sys.executable, *launcher, "{connection_file}", str(self.root)],
                "display_name": "Python (rendu noté)", "language": "python",
                "interrupt_mode": "signal"}
        (self.root / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").write_text(
            json.dumps(spec), encoding="utf-8")
        if confine and hasattr(os, "geteuid") and os.geteuid() == 0 and nobody_can_run():
            for folder, dirs, files in os.walk(self.root):
                for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
                    os.chown(name, 65534, 65534)

    def kernel_env(self, backend: str) -> dict[str, str]:
        """Environment of the graded kernel: no API key offline, everything inside the world."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("JUPYTER", "IPYTHON", "PYTHON", "COURSE_", "MPL"))}
        if backend == "offline":
            env = {key: value for key, value in env.items()
                   if not key.endswith(("_API_KEY", "_TOKEN", "_SECRET"))}
        home = str(self.root / "home")
        env.update(BATCH_MODE="1", COURSE_BACKEND=backend, MPLBACKEND="Agg",
                   PYDEVD_DISABLE_FILE_VALIDATION="1", PYTHONPATH=str(self.root / "lib"),
                   PYTHONDONTWRITEBYTECODE="1", HOME=home, USERPROFILE=home,
                   TMPDIR=str(self.root / "tmp"), TEMP=str(self.root / "tmp"),
                   IPYTHONDIR=str(self.root / "home" / ".ipython"),
                   MPLCONFIGDIR=str(self.root / "home" / ".matplotlib"),
                   JUPYTER_RUNTIME_DIR=str(self.root / "run"), PYTHONNOUSERSITE="1")
        return env

    def kernel_manager(self, backend: str):
        """A ``KernelManager`` that starts the confined kernel of this world."""
        from jupyter_client import AsyncKernelManager as KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        specs = KernelSpecManager(kernel_dirs=[str(self.root / "jupyter" / "kernels")],
                                  ensure_native_kernel=False)
        with _LOCK:  # jupyter_client's start-up reads shared process state
            manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
        return manager

    def confinement(self) -> dict:
        """What the launcher achieved (empty when the kernel never started)."""
        try:
            return json.loads((self.root / "run" / "confinement.json").read_text("utf-8"))
        except (OSError, ValueError):
            return {}

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
