"""Exercises generated from solutions: markers, stubs, deterministic files, ``exercises --check``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from course_utils.grading.exercises import (
    MarkerError,
    check_sync,
    generate,
    main,
    make_exercise,
    render_exercise,
    strip_source,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "solutions" / "00_fixture.ipynb"


def _solution_dir(tmp_path: Path) -> Path:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    shutil.copy(FIXTURE, solutions / FIXTURE.name)
    return solutions


def _notebook(*sources: str, tags: list[str] | None = None):
    cells = [nbformat.v4.new_code_cell(source) for source in sources]
    for index, cell in enumerate(cells):
        cell.id = f"c{index}"
        if tags:
            cell.metadata["tags"] = tags
    return nbformat.v4.new_notebook(cells=cells)


# --------------------------------------------------------------------------- stubs


def test_function_returning_a_value_becomes_return_none_at_its_indentation():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    y = x + 1\n    return y\n    ### END SOLUTION\n"
    assert strip_source(source) == "def f(x):\n    # TODO étudiant\n    return None\n"


def test_function_without_return_gets_pass_and_nested_returns_do_not_count():
    source = (
        "class A:\n    def f(self, xs):\n        ### BEGIN SOLUTION\n"
        "        key = lambda v: -v\n        def g():\n            return 1\n"
        "        xs.sort(key=key)\n        ### END SOLUTION\n"
    )
    stub = strip_source(source)
    assert "        # TODO étudiant\n        key = None\n        g = None" in stub
    assert "return" not in stub


def test_top_level_region_binds_its_names_to_none_so_later_code_still_runs():
    source = (
        "xs = [1, 2]\n### BEGIN SOLUTION\ntotal, n = sum(xs), len(xs)\nmoy: float = total / n\n"
        "### END SOLUTION\nprint(moy)"
    )
    stub = strip_source(source)
    assert stub == "xs = [1, 2]\n# TODO étudiant\ntotal = None\nn = None\nmoy = None\nprint(moy)"
    namespace: dict = {}
    exec(stub, namespace)  # a stub never raises (C.1)
    assert namespace["moy"] is None


def test_region_in_a_top_level_loop_is_not_a_function_body():
    source = (
        "for i in range(3):\n    ### BEGIN SOLUTION\n    print(i)\n    return_value = i\n"
        "    ### END SOLUTION\n"
    )
    stub = strip_source(source)
    assert "return None" not in stub and "    return_value = None" in stub


def test_explicit_stub_lines_win():
    source = (
        "def f():\n    ### BEGIN SOLUTION\n    ### STUB: resultat = None\n"
        "    ### STUB: return resultat\n    return 42\n    ### END SOLUTION"
    )
    assert strip_source(source) == (
        "def f():\n    # TODO étudiant\n    resultat = None\n    return resultat"
    )


def test_markdown_region_becomes_votre_reponse_ici():
    source = "**Question** ?\n\n### BEGIN SOLUTION\nParce que.\n### END SOLUTION"
    assert strip_source(source, cell_type="markdown") == "**Question** ?\n\n*Votre réponse ici.*"


def test_hidden_tests_are_removed_from_check_cells_only():
    source = "check('a', 1 == 1)\n### BEGIN HIDDEN TESTS\ncheck('b', 2 == 2)\n### END HIDDEN TESTS"
    assert strip_source(source, is_check=True) == "check('a', 1 == 1)"
    with pytest.raises(MarkerError, match="hors d'une cellule de vérification"):
        strip_source(source)
    only_hidden = "### BEGIN HIDDEN TESTS\ncheck('b', 2 == 2)\n### END HIDDEN TESTS"
    assert strip_source(only_hidden, is_check=True).startswith("# Vérifications supplémentaires")


def test_generated_fixture_stubs_return_none_and_never_raise():
    exercise = make_exercise(nbformat.read(FIXTURE, as_version=4))
    cells = {cell.id: cell for cell in exercise.cells}
    namespace: dict = {}
    exec(cells["ex1-solution"].source, namespace)
    exec(cells["ex3-solution"].source, namespace)
    assert namespace["double"](3) is None
    assert namespace["compte_voyelles"]("agent") is None
    assert "### " not in "".join(cell.source for cell in exercise.cells)  # no marker left


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n### END SOLUTION",
         "imbriqué"),
        ("### BEGIN SOLUTION\nx = 1\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS", "imbriqué"),
        ("def f():\n    ### BEGIN SOLUTION\n    return 1", "n'est pas fermée"),
        ("x = 1\n### END SOLUTION", "sans « ### BEGIN SOLUTION »"),
        ("### STUB: x = None", "hors d'une région"),
    ],
)
def test_bad_markers_name_notebook_and_cell(tmp_path, source, problem):
    nb = _notebook("print('ok')", source, tags=["check:x"])
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(nb, solutions / "07_cassé.ipynb")
    with pytest.raises(MarkerError) as caught:
        generate(solutions, tmp_path / "exercises")
    message = str(caught.value)
    assert "07_cassé.ipynb" in message and "cellule 1 (id c1)" in message and problem in message
    assert not (tmp_path / "exercises" / "07_cassé.ipynb").exists()


def test_cli_reports_marker_errors_in_french(tmp_path, capsys):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(_notebook("### BEGIN SOLUTION\nx = 1"), solutions / "a.ipynb")
    assert main(["--solutions", str(solutions), "--exercises", str(tmp_path / "ex")]) == 2
    assert "erreur de marqueurs" in capsys.readouterr().err


# --------------------------------------------------------------------------- notebooks and files


def test_outputs_and_counts_cleared_metadata_tags_and_ids_kept(tmp_path):
    solution = nbformat.read(FIXTURE, as_version=4)
    cell = next(c for c in solution.cells if c.id == "ex2-solution")
    cell.execution_count = 7
    cell.outputs = [nbformat.v4.new_output("stream", text="2.0\n")]
    cell.metadata["execution"] = {"iopub.status.busy": "2024-01-01T00:00:00"}
    cell.metadata["nbval-ignore-output"] = True
    exercise = make_exercise(solution)
    assert [c.id for c in exercise.cells] == [c.id for c in solution.cells]
    assert all(c.outputs == [] and c.execution_count is None
               for c in exercise.cells if c.cell_type == "code")
    after = next(c for c in exercise.cells if c.id == "ex2-solution")
    assert after.metadata == {"nbval-ignore-output": True}
    tags = [c.metadata.get("tags") for c in exercise.cells]
    assert tags == [c.metadata.get("tags") for c in solution.cells]


def test_generation_is_byte_for_byte_deterministic(tmp_path):
    solutions = _solution_dir(tmp_path)
    first = generate(solutions, tmp_path / "exercises")[0].read_bytes()
    second = render_exercise(solutions / FIXTURE.name).encode("utf-8")
    assert first == second and first.endswith(b"}\n")
    nbformat.validate(nbformat.reads(first.decode("utf-8"), as_version=4))
    assert json.loads(first)["nbformat_minor"] == 5


def test_check_fails_after_a_solution_edit_until_regenerated(tmp_path, capsys):
    solutions = _solution_dir(tmp_path)
    exercises = tmp_path / "exercises"
    args = ["--solutions", str(solutions), "--exercises", str(exercises)]
    assert main([*args, "--check"]) == 1
    assert "manquant" in capsys.readouterr().out
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    capsys.readouterr()

    nb = nbformat.read(solutions / FIXTURE.name, as_version=4)
    nb.cells[0].source += "\n\nUne phrase ajoutée."
    nbformat.write(nb, solutions / FIXTURE.name)
    (exercises / "99_orphelin.ipynb").write_text("{}", encoding="utf-8")
    assert main([*args, "--check"]) == 1
    out = capsys.readouterr().out
    assert "00_fixture.ipynb : différent" in out and "99_orphelin.ipynb : sans solution" in out

    assert main(args) == 0
    (exercises / "99_orphelin.ipynb").unlink()
    assert main([*args, "--check"]) == 0


def test_solution_without_cell_ids_is_refused(tmp_path):
    nb = _notebook("x = 1")
    text = nbformat.writes(nb).replace('"id": "c0",', "")
    text = text.replace('"nbformat_minor": 5', '"nbformat_minor": 4')
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "a.ipynb").write_text(text, encoding="utf-8")
    with pytest.raises(MarkerError, match="sans id de cellule"):
        check_sync(solutions, tmp_path / "exercises")


def test_committed_exercises_match_their_solutions():
    """The repository's exercises/ is what the generator writes from solutions/ (no drift)."""
    assert [str(p) for p in check_sync(ROOT / "solutions", ROOT / "exercises")] == []


# --------------------------------------------------------------------------- hidden tests


def _hidden_lines(source: str) -> list[str]:
    lines, inside = [], False
    for line in source.split("\n"):
        if line.strip() == "### BEGIN HIDDEN TESTS":
            inside = True
        elif line.strip() == "### END HIDDEN TESTS":
            inside = False
        elif inside and line.strip():
            lines.append(line)
    return lines


def test_helpers_used_only_by_hidden_tests_are_dropped_from_the_stub():
    full = ("def _visible():\n    assert f(1) == 1\n\n\ndef _cache():\n    assert f(7) == 49\n\n\n"
            "check('visible', _visible)\n### BEGIN HIDDEN TESTS\ncheck('cache', _cache)\n"
            "### END HIDDEN TESTS")
    nb = _notebook(full, tags=["check:x"])
    stub = make_exercise(nb).cells[0].source
    assert "_cache" not in stub and "49" not in stub and "_visible" in stub


@pytest.mark.parametrize("path", sorted((ROOT / "solutions").glob("*.ipynb")), ids=lambda p: p.name)
def test_nothing_of_the_hidden_tests_reaches_students(path):
    """No hidden line, and no helper that only hidden tests call, in the generated exercise."""
    import ast

    solution = nbformat.read(path, as_version=4)
    exercise = nbformat.read(ROOT / "exercises" / path.name, as_version=4)
    cells = {cell.id: cell for cell in exercise.cells}
    for cell in solution.cells:
        hidden = _hidden_lines(cell.source)
        if not hidden:
            continue
        student = cells[cell.id].source
        visible = set(strip_source(cell.source, is_check=True).split("\n"))  # written outside too
        shown = [line for line in hidden if line in student.split("\n") and line not in visible]
        assert not shown, (cell.id, shown)
        tree = ast.parse(student)
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        defined = [s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
        assert all(name in used for name in defined), (cell.id, defined)


LESSONS_WITH_MESSAGES = ("01_function_calling", "02_react_loop", "03_errors_and_limits")


@pytest.mark.parametrize("name", LESSONS_WITH_MESSAGES)
def test_hidden_asserts_say_what_they_check(name):
    """A failed hidden test names what it checked in the report (its assert carries a message)."""
    import ast

    solution = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    for cell in solution.cells:
        hidden = set(_hidden_lines(cell.source))
        if not hidden:
            continue
        tree = ast.parse(cell.source)
        lines = cell.source.split("\n")
        hidden_names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                        and lines[n.lineno - 1] in hidden}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and (
                    lines[node.lineno - 1] in hidden or node.name in hidden_names):
                bare = [a.lineno for a in ast.walk(node) if isinstance(a, ast.Assert) and not a.msg]
                assert not bare, (cell.id, node.name, bare)
