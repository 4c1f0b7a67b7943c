"""Every notebook is a test: it runs headless under Papermill, and its committed outputs reproduce.

* every notebook of ``notebooks/``, ``solutions/`` and ``exercises/`` executes end to end with
  Papermill in batch mode (exercise stubs included: convention C.1);
* the committed outputs of ``notebooks/`` and ``solutions/`` are those of the offline backend and
  reproduce exactly under strict nbval (convention C.2), with ``tests/sanitize.cfg``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_utils.runner import FOLDERS, execute_one

ROOT = Path(__file__).resolve().parent.parent
ALL = [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.ipynb"))]
WITH_OUTPUTS = [p for p in ALL if p.parent.name in ("notebooks", "solutions")]


def ids(paths):
    return [p.relative_to(ROOT).as_posix() for p in paths]


def offline_env() -> dict:
    drop = {"BATCH_MODE", "COURSE_USAGE_FILE", "MPLBACKEND"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update({"COURSE_BACKEND": "offline", "COURSE_ENV_FILE": "none", "COURSE_SEED": "0",
                "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    return env


def test_there_is_a_notebook_to_run():
    assert (ROOT / "notebooks" / "00_setup_check.ipynb") in ALL


@pytest.mark.notebooks
@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_notebook_runs_headless_with_papermill(path, tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)
    for key, value in offline_env().items():
        monkeypatch.setenv(key, value)
    run = execute_one(str(path), str(ROOT), str(tmp_path), 300)
    assert run.status == "ok", f"{run.notebook} : {run.error}"
    executed = nbformat.read(tmp_path / path.relative_to(ROOT), as_version=4)
    assert any(cell.get("outputs") for cell in executed.cells if cell.cell_type == "code")


@pytest.mark.notebooks
@pytest.mark.parametrize("path", WITH_OUTPUTS, ids=ids(WITH_OUTPUTS))
def test_committed_outputs_reproduce_under_strict_nbval(path):
    nb = nbformat.read(path, as_version=4)
    # The outputs are committed from one Python version (its error messages, and with them the
    # offline model's token counts, change between versions): exact reproduction holds there.
    recorded = nb.metadata.get("language_info", {}).get("version", "")
    if recorded and recorded.split(".")[:2] != [str(n) for n in sys.version_info[:2]]:
        pytest.skip(f"sorties enregistrées sous Python {recorded}, pas "
                    f"{sys.version_info.major}.{sys.version_info.minor}")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code), (
        f"{path.name} doit être committé avec ses sorties : python -m course_utils refresh")
    cmd = [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
           "--nbval-sanitize-with", str(ROOT / "tests" / "sanitize.cfg"),
           "-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--no-header",
           "-o", "addopts=", str(path)]
    proc = subprocess.run(cmd, cwd=path.parent, env=offline_env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
