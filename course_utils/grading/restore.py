"""Rebuilding a submission for grading: the student's cells with the instructor's checks restored.

Check cells (tag ``check:<exercise>``) are read from the solution, with their ``check(...)`` calls
found statically (labels and points). In the submission, each check cell is replaced by the
solution's version, wrapped so that it runs a private copy of the check code with a nonce known
only to that cell; deleted check cells are re-inserted (see :mod:`course_utils.grading.grader`).
"""

from __future__ import annotations

import ast
import secrets
from dataclasses import dataclass

from course_utils.grading import student_check as grading
from course_utils.grading.exercises import check_tags

_WRAPPER = '''\
# Cellule de vérification « {exercise} » rétablie par le correcteur depuis la solution.
def _course_grader_{nonce}():
    import builtins, sys, types
    module = types.ModuleType("_course_check_{nonce}")
    module.__builtins__ = builtins
    sys.modules[module.__name__] = module
    code = builtins.compile({library!r}, "<course_utils.grading, copie>", "exec")
    builtins.exec(code, module.__dict__)
    module.run_check_cell({source!r}, nonce={nonce!r}, cell_id={cell_id!r},
                          exercise={exercise!r}, namespace=builtins.globals())
_course_grader_{nonce}()
del _course_grader_{nonce}
'''


class SolutionError(ValueError):
    """The solution notebook cannot be used for grading (French message)."""


@dataclass(frozen=True)
class StaticCheck:
    """A ``check(...)`` call found in a solution check cell (lines are 1-based, inclusive)."""

    label: str
    start: int
    end: int
    points: float


@dataclass(frozen=True)
class CheckCell:
    """A solution cell tagged ``check:<exercise>``."""

    index: int
    cell_id: str
    exercise: str
    source: str
    checks: tuple[StaticCheck, ...]


# --------------------------------------------------------------------------- the solution side


def load_check_cells(solution, name: str) -> list[CheckCell]:
    """Check cells of a solution notebook, with their ``check`` calls found statically."""
    cells = []
    for index, cell in enumerate(solution.cells):
        tags = check_tags(cell)
        if not tags:
            continue
        where = f"{name} : cellule {index} (id {cell.get('id')})"
        if cell.cell_type != "code" or len(tags) != 1:
            raise SolutionError(f"{where} : une cellule de vérification est du code, avec un tag")
        try:
            tree = ast.parse(cell.source)
        except SyntaxError as exc:
            raise SolutionError(f"{where} : syntaxe invalide ({exc.msg})") from None
        checks = [_static_check(node, where) for node in ast.walk(tree) if _is_check_call(node)]
        checks.sort(key=lambda item: item.start)
        cells.append(CheckCell(index, cell.id, tags[0], cell.source, tuple(checks)))
    return cells


def _is_check_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "check") or (
        isinstance(func, ast.Attribute) and func.attr == "check"
    )


def _static_check(node: ast.Call, where: str) -> StaticCheck:
    points = 1
    for keyword in node.keywords:
        if keyword.arg == "points":
            try:
                points = ast.literal_eval(keyword.value)
            except ValueError:
                points = None
            if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
                raise SolutionError(f"{where} ligne {node.lineno} : points= doit être un nombre écrit")
    first = node.args[0] if node.args else None
    label = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else (
        f"vérification ligne {node.lineno}"
    )
    return StaticCheck(label, node.lineno, node.end_lineno or node.lineno, points)


# --------------------------------------------------------------------------- the notebook to run


def build_notebook(student, solution, check_cells: list[CheckCell], library: str):
    """Student cells with every check cell restored; returns ``(notebook, {index: (cell, nonce)})``."""
    import nbformat

    by_id = {cell.cell_id: cell for cell in check_cells}
    by_tag: dict[str, list[CheckCell]] = {}
    for cell in check_cells:
        by_tag.setdefault(cell.exercise, []).append(cell)
    seen_tags: dict[str, int] = {}
    placed: set[int] = set()
    out: list[tuple[dict, CheckCell | None]] = []
    for cell in student.cells:
        tags = check_tags(cell)
        match = by_id.get(cell.get("id"))
        if match is None and len(tags) == 1:
            rank = seen_tags.get(tags[0], 0)
            seen_tags[tags[0]] = rank + 1
            candidates = by_tag.get(tags[0], [])
            match = candidates[rank] if rank < len(candidates) else None
        if match is not None and match.index not in placed:
            placed.add(match.index)
            out.append((None, match))
        elif not tags and match is None:
            out.append((cell, None))
    for check in check_cells:
        if check.index not in placed:
            out.insert(_anchor(out, solution, check, by_id), (None, check))
    cells, restored = [], {}
    for cell, check in out:
        if check is None:
            cells.append(_student_copy(cell))
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                cells.append(nbformat.v4.new_code_cell(
                    "BATCH_MODE = True", metadata={"tags": ["injected-parameters"]}))
        else:
            nonce = secrets.token_hex(16)
            restored[len(cells)] = (check, nonce)
            source = _WRAPPER.format(exercise=check.exercise, nonce=nonce, library=library,
                                     source=check.source, cell_id=check.cell_id)
            cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": [
                grading.CHECK_TAG_PREFIX + check.exercise]}))
    used = {check.cell_id for check, _ in restored.values()}
    for index, cell in enumerate(cells):
        if index in restored:
            cell["id"] = restored[index][0].cell_id
        elif not cell.get("id") or cell["id"] in used:
            cell["id"] = f"grader-{index}"
        used.add(cell["id"])
    nb = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                             "metadata": dict(student.get("metadata", {}))})
    return nb, restored


def _anchor(out, solution, check: CheckCell, by_id: dict) -> int:
    """Insertion index for a deleted check cell (see the module docstring)."""
    for index in range(check.index - 1, -1, -1):
        wanted = solution.cells[index].get("id")
        for position, (cell, restored) in enumerate(out):
            if restored is not None and restored.cell_id == wanted:
                return position + 1
            if cell is not None and cell.get("id") == wanted and wanted not in by_id:
                return position + 1
    return len(out)


def _student_copy(cell):
    import copy

    cell = copy.deepcopy(cell)
    if cell.get("cell_type") == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    return cell
