"""Rebuilding a submission for grading: the student's cells with the instructor's checks restored.

Check cells (tag ``check:<exercise>``) are read from the solution, with their ``check(...)`` calls
found statically (labels and points). In the submission, each check cell is replaced by the
solution's *instrumented* version (:mod:`course_utils.grading.instrument`), wrapped so that it
runs a private copy of the probe (:mod:`course_utils.grading.probe`) and tags its one output with a
nonce; deleted check cells are re-inserted (see :mod:`course_utils.grading.grader`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from course_utils.grading import student_check as grading
from course_utils.grading.exercises import check_tags
from course_utils.grading.instrument import CheckCellError, CheckSpec, Instrumented, instrument

_WRAPPER = '''\
# Cellule de vérification « {exercise} » rétablie par le correcteur depuis la solution.
def _course_grader_run():
    import builtins, sys, types
    module = types.ModuleType("_course_probe")
    module.__builtins__ = builtins
    sys.modules[module.__name__] = module  # dataclasses look their module up while loading
    try:
        builtins.exec(builtins.compile({library!r}, "<course_utils.grading, copie>", "exec"),
                      module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    module.run_cell({source!r}, nonce={nonce!r}, cell_id={cell_id!r}, namespace=builtins.globals())
_course_grader_run()
del _course_grader_run
'''


class SolutionError(ValueError):
    """The solution notebook cannot be used for grading (French message)."""


StaticCheck = CheckSpec  # the name the grader's callers knew


@dataclass(frozen=True)
class CheckCell:
    """A solution cell tagged ``check:<exercise>``, with its instrumented version."""

    index: int
    cell_id: str
    exercise: str
    source: str
    instrumented: Instrumented

    @property
    def checks(self) -> tuple[CheckSpec, ...]:
        return self.instrumented.checks


# --------------------------------------------------------------------------- the solution side


def load_check_cells(solution, name: str) -> list[CheckCell]:
    """Check cells of a solution notebook, instrumented (see :mod:`course_utils.grading.instrument`)."""
    cells = []
    for index, cell in enumerate(solution.cells):
        tags = check_tags(cell)
        if not tags:
            continue
        where = f"{name} : cellule {index} (id {cell.get('id')})"
        if cell.cell_type != "code" or len(tags) != 1:
            raise SolutionError(f"{where} : une cellule de vérification est du code, avec un tag")
        try:
            instrumented = instrument(cell.source, where, str(cell.get("id") or index))
        except CheckCellError as exc:
            raise SolutionError(str(exc)) from None
        cells.append(CheckCell(index, cell.id, tags[0], cell.source, instrumented))
    return cells


def probe_library() -> str:
    """Source run by each restored cell: the self-check's rules, then the probe."""
    from pathlib import Path

    from course_utils.grading import probe, student_check

    first, second = (Path(module.__file__).read_text(encoding="utf-8")
                     for module in (student_check, probe))
    return first + "\n\n" + second.replace("from __future__ import annotations\n", "", 1)


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
                                     source=check.instrumented.source, cell_id=check.cell_id)
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
