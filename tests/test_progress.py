"""Progress bars: live in Jupyter, and a saved notebook keeps a final line, not a bar frozen at 0%."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from course_utils.engines import sweep
from course_utils.progress import _summary, plural, track


def test_plural_agrees_every_word():
    assert plural(1, "point mesuré") == "1 point mesuré"
    assert plural(27, "point mesuré") == "27 points mesurés"


def test_summary_says_when_a_bar_was_interrupted():
    count = lambda n: plural(n, "point mesuré")  # noqa: E731
    assert _summary("Best-of-N", 162, 162, count) == "Best-of-N : 162 points mesurés"
    assert _summary("Best-of-N", 5, 162, count) == "Best-of-N : 5 points mesurés sur 162 (interrompu)"


def test_outside_jupyter_track_yields_every_item_and_sweep_fills_the_store(capsys):
    assert list(track(iter("abc"), "lettres")) == ["a", "b", "c"]
    assert sweep(lambda x: x * x, range(4), desc="carrés") == {0: 0, 1: 1, 2: 4, 3: 9}
    assert "carrés" in capsys.readouterr().err  # the text bar, on stderr


@pytest.mark.notebooks
def test_executed_notebook_keeps_the_final_line_not_a_frozen_bar(tmp_path):
    """What nbclient/Papermill saves (the widget's text fallback) is replaced by the summary."""
    import nbclient

    nb = new_notebook(cells=[
        new_code_cell("from course_utils.engines import sweep\n"
                      "from course_utils.progress import track\n"
                      "print('avant')\n"
                      "sweep(lambda x: x, range(3), desc='essai');"),
        new_code_cell("for _ in track(range(2), 'tâches'):\n    pass"),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                "language": "python"}})
    nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(tmp_path)}}
                            ).execute()
    first, second = (cell.outputs for cell in nb.cells)
    assert "0%|" not in json.dumps(nbformat.from_dict(nb))
    assert [o.get("text") for o in first if o.output_type == "stream"] == ["avant\n"]
    assert [o.data["text/plain"] for o in first if o.output_type == "display_data"] == [
        "essai : 3 points mesurés"]
    assert [o.data["text/plain"] for o in second if o.output_type == "display_data"] == [
        "tâches : 2 éléments traités"]
