"""Student exercises generated from the solution notebooks (nbgrader's markers, no grading stack).

One source of truth: ``solutions/NAME.ipynb``. ``python -m course_utils exercises`` writes
``exercises/NAME.ipynb`` from it; ``--check`` exits 1 when a committed exercise differs from what
would be generated (missing, drifted or extra files are listed in French).

Markers (a marker is a line whose stripped text is exactly the marker):

``### BEGIN SOLUTION`` / ``### END SOLUTION``
    In a code cell the region becomes a stub written at the indentation of the ``BEGIN`` line:
    ``# TODO étudiant`` followed by, in this order of preference,

    1. the lines given explicitly inside the region as ``### STUB: <code>`` (one per line, in
       order; e.g. ``### STUB: moyenne = None``);
    2. ``return None`` when the region sits inside a ``def`` and returns a value (a ``return``
       with a value that is not inside a nested function);
    3. ``NAME = None`` for every name the region binds at its own top level (assignments,
       annotated assignments, ``def``, ``class``), so later code sees ``None`` and not a
       ``NameError``;
    4. ``pass``.

    Convention C.1: a stub never raises and never returns a value that looks done, which is why
    every default is ``None``. In a markdown cell the region becomes « *Votre réponse ici.* ».

``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``
    Removed from the student version. Only allowed in check cells (tagged ``check:<exercise>``),
    since the grader restores check cells only; elsewhere the hidden code would never run.

Nested regions, an ``END`` without ``BEGIN``, an unclosed region, or a ``### STUB:`` outside a
solution region raise :class:`MarkerError`, whose message names the notebook, the cell index and
the cell id.

Generated notebooks: outputs and execution counts cleared; notebook and cell metadata kept
(tags included) except the run artefacts ``execution`` and ``papermill``; cell ids kept, so the
grader can match cells and diffs stay small. Output is deterministic: nbformat's JSON layout
(sorted keys, indent 1) and a final newline, so regenerating gives the same bytes. Solutions must
be nbformat >= 4.5 (cells carry ids); an older file is refused rather than given random ids.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from course_utils.grading.student_check import CHECK_TAG_PREFIX, TODO_COMMENT

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
STUB_PREFIX = "### STUB:"
MARKDOWN_ANSWER = "*Votre réponse ici.*"
HIDDEN_ONLY_NOTE = "# Vérifications supplémentaires faites par le correcteur."
RUN_METADATA = ("execution", "papermill")
METADATA_KEY = "course_utils"  # notebook metadata: {"exercise": "<solution name>"} for the grader

_PAIRS = {BEGIN_SOLUTION: END_SOLUTION, BEGIN_HIDDEN: END_HIDDEN}
_ENDS = {end: begin for begin, end in _PAIRS.items()}
_DEF = re.compile(r"(async\s+)?def\s")


class MarkerError(ValueError):
    """A solution notebook's markers are malformed; the message (French) names notebook and cell."""


@dataclass(frozen=True)
class SyncProblem:
    """One difference between ``exercises/`` and what the generator would write."""

    path: str
    kind: str  # "manquant", "différent" or "en trop"

    def __str__(self) -> str:
        labels = {
            "manquant": "manquant (à générer)",
            "différent": "différent de la version générée depuis solutions/",
            "en trop": "sans solution correspondante",
        }
        return f"{self.path} : {labels.get(self.kind, self.kind)}"


# --------------------------------------------------------------------------- one cell


def strip_source(source: str, *, cell_type: str = "code", is_check: bool = False) -> str:
    """Return the student version of one cell's source (raises ``MarkerError`` without location).

    ``is_check`` says whether the cell is a check cell, where hidden tests are allowed.
    """
    lines = source.split("\n")
    out: list[str] = []
    region: tuple[str, int, str] | None = None  # (begin marker, line number, indentation)
    body: list[str] = []
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker in _PAIRS:
            if region is not None:
                raise MarkerError(
                    f"« {marker} » ligne {number} est imbriqué dans la région "
                    f"« {region[0]} » ouverte ligne {region[1]}"
                )
            if marker == BEGIN_HIDDEN and not is_check:
                raise MarkerError(
                    f"« {marker} » ligne {number} hors d'une cellule de vérification "
                    f"(ajoutez le tag {CHECK_TAG_PREFIX}<exercice>)"
                )
            region = (marker, number, line[: len(line) - len(line.lstrip())])
            body = []
        elif marker in _ENDS:
            if region is None:
                raise MarkerError(f"« {marker} » ligne {number} sans « {_ENDS[marker]} » avant")
            if region[0] != _ENDS[marker]:
                raise MarkerError(
                    f"« {marker} » ligne {number} ferme une région « {_ENDS[marker]} » alors "
                    f"que la région ouverte ligne {region[1]} est « {region[0]} »"
                )
            if region[0] == BEGIN_SOLUTION:
                out.extend(_stub(body, region[2], out, cell_type))
            region = None
        elif region is not None:
            body.append(line)
        elif marker.startswith(STUB_PREFIX):
            raise MarkerError(f"« {STUB_PREFIX} » ligne {number} hors d'une région de solution")
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"la région « {region[0]} » ouverte ligne {region[1]} n'est pas fermée")
    text = "\n".join(out)
    if is_check and source.strip() and not text.strip():
        return HIDDEN_ONLY_NOTE
    return text


def _stub(body: list[str], indent: str, before: list[str], cell_type: str) -> list[str]:
    """Lines replacing one solution region (see the module docstring for the rules)."""
    if cell_type != "code":
        return [indent + MARKDOWN_ANSWER]
    explicit = [
        line.strip()[len(STUB_PREFIX) :].strip()
        for line in body
        if line.strip().startswith(STUB_PREFIX)
    ]
    code = [line for line in body if not line.strip().startswith(STUB_PREFIX)]
    if explicit:
        stub = explicit
    elif _inside_function(before, len(indent)) and _returns_value(code):
        stub = ["return None"]
    else:
        stub = [f"{name} = None" for name in _bound_names(code)] or ["pass"]
    return [indent + TODO_COMMENT] + [indent + line for line in stub]


def _inside_function(before: list[str], indent: int) -> bool:
    """Whether the innermost enclosing block of a line at ``indent`` is (inside) a ``def``."""
    current = indent
    for line in reversed(before):
        text = line.strip()
        if current == 0:
            break
        if not text or text.startswith("#"):
            continue
        width = len(line) - len(line.lstrip())
        if width < current:
            if _DEF.match(text):
                return True
            if text.startswith("class "):
                return False
            current = width
    return False


def _parse(code: list[str]) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent("\n".join(code)))
    except SyntaxError:
        return None


def _returns_value(code: list[str]) -> bool:
    tree = _parse(code)
    if tree is None:  # a fragment that does not parse alone: fall back to the text
        return any(re.match(r"\s*return\s+(?!None\s*$)\S", line) for line in code)

    def visit(node: ast.AST) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(node, ast.Return) and node.value is not None:
            return not (isinstance(node.value, ast.Constant) and node.value.value is None)
        return any(visit(child) for child in ast.iter_child_nodes(node))

    return any(visit(stmt) for stmt in tree.body)


def _bound_names(code: list[str]) -> list[str]:
    tree = _parse(code)
    names: list[str] = []

    def add(target: ast.AST) -> None:
        if isinstance(target, ast.Name) and target.id not in names:
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                add(element)
        elif isinstance(target, ast.Starred):
            add(target.value)

    for stmt in tree.body if tree else []:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                add(target)
        elif isinstance(stmt, ast.AnnAssign):
            add(stmt.target)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(ast.Name(id=stmt.name))
    return names


# --------------------------------------------------------------------------- one notebook


def drop_hidden_helpers(visible: str, full: str) -> str:
    """Remove from a check cell's student version the top-level definitions only hidden tests use.

    A helper written above ``### BEGIN HIDDEN TESTS`` but called only inside the hidden region
    would otherwise show the students what the hidden tests check.
    """
    try:
        tree = ast.parse(visible)
        whole = ast.parse(full)
    except SyntaxError:
        return visible
    used_visible: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            used_visible[node.id] = used_visible.get(node.id, 0) + 1
    used_anywhere = {node.id for node in ast.walk(whole)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    lines = visible.split("\n")
    drop: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = sum(1 for node in ast.walk(stmt)
                        if isinstance(node, ast.Name) and node.id == stmt.name)
            if stmt.name in used_anywhere and used_visible.get(stmt.name, 0) - inner == 0:
                first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
                drop.update(range(first - 1, stmt.end_lineno))
    if not drop:
        return visible
    kept = [line for number, line in enumerate(lines) if number not in drop]
    text = re.sub(r"\n{4,}", "\n\n\n", "\n".join(kept)).strip("\n")
    return text or HIDDEN_ONLY_NOTE


def check_tags(cell) -> list[str]:
    """Exercise ids of a cell's ``check:<exercise>`` tags."""
    tags = cell.get("metadata", {}).get("tags", [])
    return [tag[len(CHECK_TAG_PREFIX) :] for tag in tags if tag.startswith(CHECK_TAG_PREFIX)]


def read_solution(path: Path):
    """Read a solution notebook as is (nbformat 4.5+, cells with ids), or raise ``MarkerError``."""
    import nbformat

    try:
        nb = nbformat.reads(Path(path).read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
    except Exception as exc:  # invalid JSON or not a notebook
        raise MarkerError(f"{path} : notebook illisible ({type(exc).__name__}: {exc})") from exc
    if nb.get("nbformat") != 4 or nb.get("nbformat_minor", 0) < 5:
        raise MarkerError(
            f"{path} : format nbformat {nb.get('nbformat')}.{nb.get('nbformat_minor')} sans id de "
            "cellule ; enregistrez-le avec JupyterLab récent (nbformat 4.5 ou plus)"
        )
    return nb


def make_exercise(nb, *, name: str = "notebook", exercise_id: str | None = None):
    """Return the student version of a solution notebook (a new ``NotebookNode``).

    ``name`` only serves error messages: ``MarkerError`` says « NAME : cellule I (id X) : ... ».
    ``exercise_id`` (the solution's file stem) is written to ``metadata.course_utils.exercise``,
    which is how the grader recognises a submission whatever its file name.
    """
    import copy

    exercise = copy.deepcopy(nb)
    for key in RUN_METADATA:
        exercise.metadata.pop(key, None)
    if exercise_id:
        exercise.metadata[METADATA_KEY] = {"exercise": exercise_id}
    for index, cell in enumerate(exercise.cells):
        tags = check_tags(cell)
        try:
            if len(tags) > 1:
                raise MarkerError(f"plusieurs tags de vérification : {', '.join(tags)}")
            visible = strip_source(cell.source, cell_type=cell.cell_type, is_check=bool(tags))
            if tags and visible != cell.source:
                visible = drop_hidden_helpers(visible, cell.source)
            cell.source = visible
        except MarkerError as exc:
            raise MarkerError(
                f"{name} : cellule {index} (id {cell.get('id', '?')}) : {exc}"
            ) from None
        for key in RUN_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return exercise


def render_exercise(solution_path: Path) -> str:
    """The exact text the generator writes for one solution notebook."""
    import nbformat

    solution_path = Path(solution_path)
    nb = make_exercise(read_solution(solution_path), name=str(solution_path),
                       exercise_id=solution_path.stem)
    text = nbformat.writes(nb, version=nbformat.NO_CONVERT)
    return text if text.endswith("\n") else text + "\n"


# --------------------------------------------------------------------------- folders


def _pairs(solutions: Path, exercises: Path) -> dict[Path, Path]:
    return {path: exercises / path.name for path in sorted(Path(solutions).glob("*.ipynb"))}


def generate(solutions: Path, exercises: Path) -> list[Path]:
    """Write ``exercises/NAME.ipynb`` for every ``solutions/NAME.ipynb``; return the written paths.

    Files are rewritten only when their bytes change. Extra exercises are never deleted.
    """
    rendered = {
        target: render_exercise(source) for source, target in _pairs(solutions, exercises).items()
    }
    Path(exercises).mkdir(parents=True, exist_ok=True)
    written = []
    for target, text in rendered.items():
        data = text.encode("utf-8")
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        written.append(target)
    return written


def check_sync(solutions: Path, exercises: Path) -> list[SyncProblem]:
    """Differences between ``exercises/`` and what :func:`generate` would write (empty: in sync)."""
    pairs = _pairs(solutions, exercises)
    problems = []
    for source, target in pairs.items():
        expected = render_exercise(source).encode("utf-8")  # raises MarkerError first
        if not target.exists():
            problems.append(SyncProblem(str(target), "manquant"))
        elif target.read_bytes() != expected:
            problems.append(SyncProblem(str(target), "différent"))
    for path in sorted(Path(exercises).glob("*.ipynb")):
        if path not in pairs.values():
            problems.append(SyncProblem(str(path), "en trop"))
    return problems


def default_dir(name: str) -> Path:
    """``./NAME`` when it exists, else ``NAME`` beside the ``course_utils`` package."""
    here = Path.cwd() / name
    return here if here.is_dir() else course_root() / name


def course_root() -> Path:
    """The folder holding the ``course_utils`` package (``solutions/`` and ``exercises/`` beside it)."""
    import course_utils

    return Path(course_utils.__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    """``python -m course_utils exercises [--check] [--solutions DIR] [--exercises DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m course_utils exercises",
        description="Génère exercises/ à partir de solutions/ (ou vérifie qu'ils sont à jour).",
    )
    parser.add_argument("--check", action="store_true", help="vérifie sans écrire (code 1 si écart)")
    parser.add_argument("--solutions", type=Path, default=None, help="dossier des solutions")
    parser.add_argument("--exercises", type=Path, default=None, help="dossier des exercices")
    args = parser.parse_args(argv)
    solutions = args.solutions or default_dir("solutions")
    exercises = args.exercises or default_dir("exercises")
    if not solutions.is_dir():
        print(f"dossier de solutions introuvable : {solutions}", file=sys.stderr)
        return 2
    try:
        if args.check:
            problems = check_sync(solutions, exercises)
            if problems:
                print("exercices désynchronisés — relancez `python -m course_utils exercises` :")
                for problem in problems:
                    print(f"  {problem}")
                return 1
            print(f"{exercises} est à jour ({len(_pairs(solutions, exercises))} notebook(s)).")
            return 0
        written = generate(solutions, exercises)
    except MarkerError as exc:
        print(f"erreur de marqueurs : {exc}", file=sys.stderr)
        return 2
    print(f"{len(written)} exercice(s) écrit(s) dans {exercises}.")
    extra = [p for p in check_sync(solutions, exercises) if p.kind == "en trop"]
    for problem in extra:
        print(f"  attention : {problem} (non supprimé)")
    return 0
