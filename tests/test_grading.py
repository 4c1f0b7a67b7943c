"""Self-checks (``grading.check``) and the instructor grader (``python -m course_utils grade``)."""

from __future__ import annotations

import csv
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_utils.grading import student_check as grading
from course_utils.grading.exercises import generate, make_exercise
from course_utils.grading.grader import (
    CSV_HEADER,
    Context,
    SolutionError,
    build_notebook,
    csv_text,
    grade_many,
    grade_submission,
    load_check_cells,
    main,
)
from course_utils.grading.probe import MIME_TYPE
from course_utils.grading.student_check import CheckResult, check, recording

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "solutions"
FIXTURE = FIXTURES / "00_fixture.ipynb"
TIMEOUT = 3.0  # seconds per cell in grading runs; the infinite loop costs this, twice


def _check(*args, **kwargs) -> CheckResult:
    with recording() as results:
        check(*args, **kwargs)
    assert len(results) == 1
    return results[0]


# --------------------------------------------------------------------------- check()


def test_passed_check_prints_one_green_line(capsys):
    result = _check("double(3) vaut 6", lambda: 6, expected=6)
    assert result.passed and result.status == "ok"
    assert capsys.readouterr().out == "✅ double(3) vaut 6\n"


def test_failed_check_prints_the_french_hint_and_the_value(capsys):
    result = _check("double(3) vaut 6", lambda: 5, expected=6, hint="multipliez x par 2")
    assert result.status == "échec" and not result.passed
    assert capsys.readouterr().out == "❌ double(3) vaut 6 : multipliez x par 2 (obtenu 5)\n"
    assert _check("somme", 7, expected=6).message == "attendu 6 (obtenu 7)"


def test_untouched_values_say_a_completer_and_never_pass(capsys):
    assert _check("valeur", None, expected=6).status == "à compléter"
    assert _check("liste", lambda: [None, None], expected=[0, 2]).status == "à compléter"
    assert _check("lambda sans expected", lambda: None).status == "à compléter"
    assert _check("opération sur None", lambda: None + 1).status == "à compléter"
    assert "❌ valeur : à compléter" in capsys.readouterr().out


def test_assertion_message_is_the_hint_and_assert_style_tests_pass():
    def wrong():
        assert 1 + 1 == 3, "« 1 + 1 » ne vaut pas 3"

    def right():
        assert 1 + 1 == 2

    assert _check("arith", wrong).message == "« 1 + 1 » ne vaut pas 3"
    assert _check("arith", right).passed
    assert _check("booléen", 2 > 1).passed and _check("booléen", 2 < 1).status == "échec"


def test_a_failing_test_that_uses_a_stub_says_a_completer(tmp_path, monkeypatch):
    (tmp_path / "stub_module.py").write_text(
        "def compte(texte):\n    # TODO étudiant\n    return None\n\n\n"
        "def verifie():\n    assert compte('agent') == 2, 'deux voyelles'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("stub_module")
    assert _check("compte", module.verifie).status == "à compléter"
    assert _check("compte", lambda: module.compte("a") == 1).status == "échec"  # other module


def test_check_never_raises_on_bad_values_or_bad_checks(capsys):
    class Weird:
        def __repr__(self):
            raise RuntimeError("repr cassé")

        def __eq__(self, other):
            raise RuntimeError("eq cassé")

    assert _check("bizarre", Weird(), expected=1).status == "échec"
    assert _check("exception", lambda: {}["clé"]).message == "KeyError: 'clé'"
    assert _check("expected None", 1, expected=None).status == "erreur"
    assert "ni True ni False" in _check("valeur nue", lambda: 6).message
    assert _check("tolérance", 0.1 + 0.2, expected=0.3).passed
    assert capsys.readouterr().out.count("\n") == 5


def test_ctrl_c_is_recorded_as_timeout_and_propagates():
    def loops():
        raise KeyboardInterrupt

    with recording() as results, pytest.raises(KeyboardInterrupt):
        check("boucle", loops)
    assert results[0].status == "délai dépassé"


def test_results_are_small_frozen_json_ready_dataclasses():
    result = _check("x", True, points=2)
    assert json.loads(json.dumps(result.to_dict())) == {
        "name": "x", "status": "ok", "message": "", "points": 2, "line": None}
    with pytest.raises(AttributeError):
        result.status = "échec"  # type: ignore[misc]


def test_importing_grading_is_light_and_self_contained():
    """Students import it in every notebook; the grader runs a private copy of its source."""
    source = Path(grading.__file__).read_text(encoding="utf-8")
    assert "from course_utils" not in source.split("def main")[0]
    code = ("import sys, course_utils.grading; "
            "print(sorted({'nbclient', 'nbformat', 'IPython', 'tqdm'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- rebuilding a submission


def _solution():
    return nbformat.read(FIXTURE, as_version=4)


def _cell(nb, cell_id):
    return next(cell for cell in nb.cells if cell.id == cell_id)


def test_static_points_are_summed_per_exercise():
    cells = load_check_cells(_solution(), "fixture")
    points = {}
    for cell in cells:
        points[cell.exercise] = points.get(cell.exercise, 0) + sum(c.points for c in cell.checks)
    assert points == {"fx-ex1": 3, "fx-ex2": 1, "fx-ex3": 3}
    bad = _solution()
    _cell(bad, "ex2-check").source = "check('x', 1, expected=1, points=n)"
    with pytest.raises(SolutionError, match="points= doit être un nombre"):
        load_check_cells(bad, "fixture")


def test_check_cells_are_restored_by_id_or_tag_and_reinserted_when_deleted():
    solution = _solution()
    cells = load_check_cells(solution, "fixture")
    student = make_exercise(solution)
    _cell(student, "ex1-check").source = 'print("✅ double(3) vaut 6")'
    student.cells = [c for c in student.cells if c.id != "ex2-check"]
    _cell(student, "ex3-check").id = "renamed-by-jupyter"  # matched by its tag
    forged = nbformat.v4.new_code_cell("check('faux', True)", metadata={"tags": ["check:fx-ex9"]})
    student.cells.insert(3, forged)
    nb, restored = build_notebook(student, solution, cells, "LIB")
    order = [cell.id for cell in nb.cells]
    assert order.index("ex2-check") == order.index("ex2-solution") + 1  # re-inserted after it
    assert "renamed-by-jupyter" not in order and forged.id not in order
    restored_ids = sorted(check.cell_id for check, _ in restored.values())
    assert restored_ids == ["ex1-check", "ex2-check", "ex3-check", "ex3-check-cache"]
    for index, (check_cell, nonce) in restored.items():
        assert nonce in nb.cells[index].source
        assert repr(check_cell.instrumented.source) in nb.cells[index].source
    assert "✅" not in "".join(cell.source for cell in nb.cells if cell.id == "ex1-check")
    assert _cell(nb, "parametres").source == "BATCH_MODE = False"
    assert nb.cells[order.index("parametres") + 1].source == "BATCH_MODE = True"


def test_invalid_json_gets_zero_with_a_reason(tmp_path):
    bad = tmp_path / FIXTURE.name
    bad.write_text('{"cells": [', encoding="utf-8")
    grade = grade_submission(bad, solutions=FIXTURES)
    assert [(r.exercise, r.points, r.max_points, r.status) for r in grade.exercises] == [
        ("fx-ex1", 0, 3, "invalide"), ("fx-ex2", 0, 1, "invalide"), ("fx-ex3", 0, 3, "invalide")]
    assert grade.exercises[0].reason.startswith("JSON invalide (ligne 1")
    missing = grade_submission(tmp_path / "inconnu.ipynb", solutions=FIXTURES)
    assert missing.exercises[0].status == "invalide" and not missing.identified


def test_exercise_is_identified_by_metadata_then_name_then_number(tmp_path):
    """The generator writes metadata.course_utils.exercise; a renamed copy is still recognised."""
    context = Context(FIXTURES, timeout=TIMEOUT)
    exercise = make_exercise(_solution(), exercise_id="00_fixture")
    assert exercise.metadata["course_utils"] == {"exercise": "00_fixture"}
    raw = json.loads(nbformat.writes(exercise))
    assert context.identify(Path("devoir_final.ipynb"), raw)[0] == FIXTURE
    bare = {"cells": [], "metadata": {}}
    assert context.identify(Path("00_fixture.ipynb"), bare)[0] == FIXTURE
    assert context.identify(Path("alice_00.ipynb"), bare)[0] == FIXTURE
    assert context.identify(Path("alice_100.ipynb"), bare)[0] is None
    unknown, reason = context.identify(Path("alice_01.ipynb"), bare)
    assert unknown is None and "exercice non identifié" in reason and "00_fixture" in reason


def test_cli_exits_non_zero_when_a_submission_matches_nothing(tmp_path, capsys):
    folder = tmp_path / "rendus" / "alice"
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), folder / "alice_01.ipynb")
    target = tmp_path / "notes.csv"
    assert main([str(tmp_path / "rendus"), "--solutions", str(FIXTURES), "--csv", str(target),
                 "--timeout", str(TIMEOUT)]) == 1
    captured = capsys.readouterr()
    assert "non identifié" in captured.err and "alice_01.ipynb" in captured.err
    row = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"))))[1]
    assert row[6] == "invalide" and "exercice non identifié" in row[7]


def test_help_documents_the_layout_the_guarantees_and_the_limits(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "rendus/alice/01_function_calling.ipynb" in text
    assert "Garanties" in text and "Limites" in text and "Landlock" in text


# --------------------------------------------------------------------------- executed submissions


def _edit(nb, cell_id, source):
    _cell(nb, cell_id).source = source


def _hostile_a():
    """Raises at its first cell, edits a check to print ✅, deletes one, renames a function."""
    nb = make_exercise(_solution())
    nb.cells.insert(0, nbformat.v4.new_code_cell('raise RuntimeError("boum dès le début")'))
    _edit(nb, "ex1-solution", "def double(x):\n    return x + 2")
    _edit(nb, "ex1-check", 'print("✅ double(3) vaut 6")\nprint("✅ double(-4) vaut -8")')
    _edit(nb, "ex2-solution", "nombres = [3, 1, 2]\nmoyenne = sum(nombres) / len(nombres)")
    nb.cells = [cell for cell in nb.cells if cell.id != "ex2-check"]
    _edit(nb, "ex3-solution", "def compter_voyelles(texte):\n"
          "    return sum(lettre in 'aeiouy' for lettre in texte.lower())")
    return nb


def _hostile_b():
    """Monkeypatches check, shadows exec, prints fake ✅, forges a display, loops forever."""
    nb = make_exercise(_solution())
    _edit(nb, "ex1-solution", "def double(x):\n    return x")
    forge = (
        "import course_utils, course_utils.grading as g\n"
        "from IPython.display import display\n"
        "g.check = course_utils.check = check = lambda *a, **k: print('✅ tout est juste')\n"
        "print('✅ double(3) vaut 6')\n"
        f"display({{{MIME_TYPE!r}: {{'nonce': 'x', 'cell': 'ex1-check', "
        "'results': [{'name': 'double(3) vaut 6', 'status': 'ok', 'line': 1, 'points': 3}]}}, "
        "raw=True)"
    )
    shadow = (  # a plain name that shadows exec() in the notebook, to swap the checker
        "import builtins\n"
        "def exec(code, namespace=None):\n"
        "    builtins.exec(code, namespace)\n"
        "    def fake(source, *, nonce, cell_id, exercise, namespace):\n"
        "        from IPython.display import publish_display_data\n"
        "        result = {'name': 'x', 'status': 'ok', 'message': '', 'points': 3, 'line': 1}\n"
        f"        publish_display_data({{{MIME_TYPE!r}: {{'nonce': nonce, "
        "'cell': cell_id, 'exercise': exercise, 'results': [result], 'errors': [], "
        "'interrupted': False}})\n"
        "    namespace['run_check_cell'] = fake"
    )
    nb.cells.insert(5, nbformat.v4.new_code_cell(forge))
    nb.cells.insert(6, nbformat.v4.new_code_cell(shadow))
    _edit(nb, "ex2-solution", "nombres = [3, 1, 2]\nmoyenne = 2.0")
    _edit(nb, "ex3-solution", "def compte_voyelles(texte):\n    while True:\n        pass")
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One parallel grading run of five submissions (solution, stub, two hostile, invalid)."""
    folder = tmp_path_factory.mktemp("rendus")
    for name in ("alice", "bob", "carol", "dave", "eve"):
        (folder / name).mkdir()
    (folder / "alice" / FIXTURE.name).write_bytes(FIXTURE.read_bytes())
    generate(FIXTURES, folder / "bob")
    nbformat.write(_hostile_a(), folder / "carol" / FIXTURE.name)
    nbformat.write(_hostile_b(), folder / "dave" / FIXTURE.name)
    (folder / "eve" / FIXTURE.name).write_text("pas du JSON", encoding="utf-8")
    subs = [(f"{name}/{FIXTURE.name}", folder / name / FIXTURE.name)
            for name in ("alice", "bob", "carol", "dave", "eve")]
    grades = grade_many(subs, jobs=2, progress=False, solutions=FIXTURES, timeout=TIMEOUT)
    assert csv_text(grades).count("\n") == 1 + 5 * 3  # header, then 3 exercises per submission
    return {grade.submission.split("/")[0]: grade for grade in grades} | {"_folder": folder}


def _rows(grade):
    return {row.exercise: (row.points, row.max_points, row.status) for row in grade.exercises}


@pytest.mark.notebooks
def test_fixture_solution_scores_full_marks(graded):
    assert _rows(graded["alice"]) == {
        "fx-ex1": (3, 3, "ok"), "fx-ex2": (1, 1, "ok"), "fx-ex3": (3, 3, "ok")}
    assert graded["alice"].cell_errors == ()


@pytest.mark.notebooks
def test_generated_exercise_scores_zero_and_runs_end_to_end(graded):
    assert _rows(graded["bob"]) == {
        "fx-ex1": (0, 3, "à compléter"), "fx-ex2": (0, 1, "à compléter"),
        "fx-ex3": (0, 3, "à compléter")}
    assert graded["bob"].cell_errors == ()  # C.1: no cell raised


@pytest.mark.notebooks
def test_edited_deleted_and_renamed_checks_are_graded_with_the_solution(graded):
    rows = {row.exercise: row for row in graded["carol"].exercises}
    assert (rows["fx-ex1"].points, rows["fx-ex1"].status) == (0, "échec")  # printed ✅ ignored
    assert rows["fx-ex1"].reason == (
        "double(3) vaut 6 : multipliez x par 2 (obtenu 5) ; double(-4) vaut -8 : attendu -8 "
        "(obtenu -2)")
    assert (rows["fx-ex2"].points, rows["fx-ex2"].status) == (1, "ok")  # deleted check restored
    assert (rows["fx-ex3"].points, rows["fx-ex3"].status) == (0, "erreur")
    assert "NameError" in rows["fx-ex3"].reason and "compte_voyelles" in rows["fx-ex3"].reason
    assert graded["carol"].cell_errors[0].evalue == "boum dès le début"


@pytest.mark.notebooks
def test_monkeypatch_fake_output_and_infinite_loop_cost_only_their_exercise(graded):
    rows = {row.exercise: row for row in graded["dave"].exercises}
    assert (rows["fx-ex1"].points, rows["fx-ex1"].status) == (0, "échec")
    assert (rows["fx-ex2"].points, rows["fx-ex2"].status) == (1, "ok")
    assert (rows["fx-ex3"].points, rows["fx-ex3"].status) == (0, "délai dépassé")
    assert f"délai dépassé ({TIMEOUT:g} s par cellule)" in rows["fx-ex3"].reason


@pytest.mark.notebooks
def test_invalid_file_in_a_folder_gets_zero_with_a_reason(graded):
    assert {row.status for row in graded["eve"].exercises} == {"invalide"}
    assert graded["eve"].points == 0 and graded["eve"].max_points == 7


@pytest.mark.notebooks
def test_cli_with_one_job_writes_the_same_csv_as_two_jobs(graded, tmp_path, capsys):
    folder = graded["_folder"]
    target = tmp_path / "notes.csv"
    args = [str(folder / name) for name in ("alice", "carol", "eve")]
    assert main([*args, "--jobs", "1", "--csv", str(target), "--solutions", str(FIXTURES),
                 "--timeout", str(TIMEOUT)]) == 0
    table = capsys.readouterr().out
    assert "Exercice 1" in table and "fx-ex1" not in table and "7/7" in table and "1/7" in table
    parallel = tmp_path / "notes-parallel.csv"
    assert main([*args, "--jobs", "2", "--csv", str(parallel), "--solutions", str(FIXTURES),
                 "--timeout", str(TIMEOUT)]) == 0
    assert target.read_bytes() == parallel.read_bytes()
    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert rows[0] == CSV_HEADER
    assert len(rows) == 1 + 3 * 3 and rows[1:] == sorted(rows[1:])


# --------------------------------------------------------------------------- real lessons


LESSONS = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.mark.notebooks
@pytest.mark.parametrize("name", ["fixture", *(path.name for path in LESSONS)])
def test_every_solution_scores_full_and_every_exercise_zero(name, graded):
    if name == "fixture":
        solution, exercise = graded["alice"], graded["bob"]
    else:
        context = Context(ROOT / "solutions")  # one reference run for both
        solution = grade_submission(ROOT / "solutions" / name, context=context)
        exercise = grade_submission(ROOT / "exercises" / name, context=context)
        assert not solution.suspect and not exercise.suspect, (  # the course's code is clean
            solution.suspicions, exercise.suspicions)
    assert solution.exercises and solution.points == solution.max_points > 0
    assert all(row.status == "ok" for row in solution.exercises)
    assert exercise.points == 0 and exercise.max_points == solution.max_points
    assert not {row.status for row in exercise.exercises} & {"invalide", "délai dépassé"}
    assert exercise.cell_errors == ()  # C.1: the stubs run end to end


def test_grading_is_a_package_without_import_cycle():
    """Public names stay valid; modules import one way (grader → restore → exercises → check)."""
    import ast as ast_
    import course_utils

    from course_utils.grading import check as package_check

    assert course_utils.check is package_check is check
    assert grading.check is check
    folder = Path(grading.__file__).parent
    imports = {}
    for path in folder.glob("*.py"):
        tree = ast_.parse(path.read_text(encoding="utf-8"))
        imports[path.stem] = {
            node.module.rsplit(".", 1)[-1] for node in ast_.walk(tree)
            if isinstance(node, ast_.ImportFrom) and (node.module or "").startswith(
                "course_utils.grading.")}

    def reaches(start, target, seen=()):
        return any(dep == target or (dep not in seen and reaches(dep, target, (*seen, dep)))
                   for dep in imports.get(start, ()))

    assert not [name for name in imports if reaches(name, name)]
