"""The course runner: executes notebooks headless, reports calls and tokens, names failures."""

from __future__ import annotations

import csv

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_utils import runner


def write_notebook(path, *sources):
    cells = [new_code_cell("BATCH_MODE = False", metadata={"tags": ["parameters"]})]
    cells += [new_code_cell(src) for src in sources]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3",
                                                            "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, path)


@pytest.fixture
def course(tmp_path, monkeypatch):
    (tmp_path / "course_utils").mkdir()
    (tmp_path / "notebooks").mkdir()
    write_notebook(
        tmp_path / "notebooks" / "01_ok.ipynb",
        "from course_utils import setup\ncfg = setup(BATCH_MODE)",
        "from course_utils.llm import chat\n"
        "print(chat([{'role': 'user', 'content': 'Réponds uniquement par : OK'}]).text)",
        "print('batch' if cfg.batch_mode else 'interactif')",
    )
    write_notebook(tmp_path / "notebooks" / "02_bad.ipynb", "x = 1", "1 / 0")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.notebooks
def test_run_reports_each_notebook_and_names_the_failing_cell(course, capsys):
    code = runner.main(["--build", "build"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "notebooks/02_bad.ipynb" in err and "cellule 3 « 1 / 0 »" in err and "ZeroDivisionError" in err
    rows = {r["notebook"]: r for r in csv.DictReader(open(course / "build" / "summary.csv"))}
    assert rows["notebooks/01_ok.ipynb"]["status"] == "ok"
    assert rows["notebooks/02_bad.ipynb"]["status"] == "échec"
    # one real chat request, its usage read from the kernel's ledger
    assert rows["notebooks/01_ok.ipynb"]["calls"] == "1"
    assert int(rows["notebooks/01_ok.ipynb"]["tokens"]) > 0
    executed = nbformat.read(course / "build" / "notebooks" / "01_ok.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert "OK" in printed and "batch" in printed  # BATCH_MODE=True reached the notebook


@pytest.mark.notebooks
def test_only_selects_notebooks(course):
    assert runner.main(["--only", "01_", "--build", "build"]) == 0
    assert [p.name for p in runner.discover(course, "01_")] == ["01_ok.ipynb"]


def test_no_match_is_an_error_in_french(course, capsys):
    assert runner.main(["--only", "zzz"]) == 1
    assert "Aucun notebook" in capsys.readouterr().err


@pytest.mark.notebooks
def test_refresh_writes_the_same_bytes_twice(course):
    """Committed outputs do not churn: no timestamps, no widget ids, streams merged."""
    path = course / "notebooks" / "03_refresh.ipynb"
    write_notebook(
        path,
        "import sys\nfor i in range(3):\n    print(i, flush=True)\n    sys.stdout.flush()",
        "from tqdm.auto import tqdm\nfor _ in tqdm(range(3)):\n    pass",
    )
    runner.refresh_outputs(path, course / "build")
    first = path.read_bytes()
    runner.refresh_outputs(path, course / "build")
    assert path.read_bytes() == first
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata
    assert all("execution" not in cell.metadata for cell in nb.cells)
    streams = [o for o in nb.cells[1].outputs if o.output_type == "stream"]
    assert len(streams) == 1 and streams[0].text == "0\n1\n2\n"
