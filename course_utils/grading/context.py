"""Grader side: what one grading run shares — the course snapshot, the solutions read once, and
each solution's reference records, computed in a clean kernel of its own world once per run.

A submission is identified by its notebook's metadata, else its file name (see
:meth:`Context.identify`).
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.grading import student_check as grading
from course_utils.grading.confine import landlock_abi
from course_utils.grading.exercises import (
    METADATA_KEY,
    check_tags,
    course_root,
    default_dir,
    read_solution,
)
from course_utils.grading.judge import judge
from course_utils.grading.restore import CheckCell, build_notebook, load_check_cells, probe_library
from course_utils.grading.run import execute, payload_of
from course_utils.grading.scan import scan_cells
from course_utils.grading.world import CourseSnapshot, World

COURSE_ROOT = course_root()


@dataclass
class Solution:
    """A solution notebook read once per run, with its check cells and item names."""

    path: Path
    data: bytes
    notebook: object
    cells: list[CheckCell]
    labels: dict[str, str]
    maxima: dict[str, float]
    assertions: dict = field(default_factory=dict)  # every check cell's assertions, by id
    reference: dict | None = None  # (cell id, check id) -> [records], from the clean kernel
    broken: dict = field(default_factory=dict)  # (cell id, check id) -> reason
    expected_signs: set = field(default_factory=set)  # what the solution itself shows (scan, run)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return self.path.stem


def item_labels(solution, cells: list[CheckCell]) -> dict[str, str]:
    """Each exercise's name as the notebook gives it: the heading above its first check cell."""
    labels: dict[str, str] = {}
    heading = ""
    for index, cell in enumerate(solution.cells):
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                if re.match(r"#{2,4}\s", line):
                    heading = re.sub(r"^#+\s*", "", line).strip()
        for tag in check_tags(cell):
            if tag not in labels:
                short = re.split(r"\s+[—–:-]\s+", heading, maxsplit=1)[0].strip() if heading else ""
                labels[tag] = short or tag
    if len(set(labels.values())) < len(labels):  # two exercises under one heading: keep the ids
        labels = {tag: f"{label} ({tag})" for tag, label in labels.items()}
    return labels


class Context:
    """What one grading run shares: the course snapshot, the solutions and their references."""

    def __init__(self, solutions: Path | None = None, *, timeout: float = 30,
                 backend: str = "offline", snapshot: CourseSnapshot | None = None,
                 confine: bool = True) -> None:
        self.confine = confine
        self.confined = confine and landlock_abi() > 0  # the launcher enforces it or fails
        self.solutions_dir = Path(solutions) if solutions else default_dir("solutions")
        self.timeout, self.backend = timeout, backend
        self.snapshot = snapshot or CourseSnapshot.take(COURSE_ROOT, [self.solutions_dir])
        self._solutions: dict[Path, Solution | Exception] = {}
        self._lock = threading.Lock()
        self.library = probe_library()

    def solution(self, path: Path, *, reference: bool = True) -> Solution:
        path = path.resolve()
        with self._lock:
            if path not in self._solutions:
                try:
                    self._solutions[path] = self._load(path)
                except ValueError as exc:  # MarkerError / SolutionError: the instructor's side
                    self._solutions[path] = exc
            found = self._solutions[path]
        if isinstance(found, Exception):
            raise found
        with found.lock:  # once per solution and per run, whatever the number of jobs
            if reference and found.reference is None:
                found.reference = self._reference(found)
        return found

    def _load(self, path: Path) -> Solution:
        data = path.read_bytes()
        notebook = read_solution(path)
        cells = load_check_cells(notebook, path.as_posix())
        maxima: dict[str, float] = {}
        for cell in cells:
            maxima[cell.exercise] = maxima.get(cell.exercise, 0) + sum(c.points for c in cell.checks)
        assertions = {key: value for cell in cells for key, value in cell.instrumented.assertions.items()}
        tagged = {cell.index for cell in cells}
        lesson_code = scan_cells(c for i, c in enumerate(notebook.cells) if i not in tagged)
        return Solution(path, data, notebook, cells, item_labels(notebook, cells), maxima,
                        assertions, expected_signs=set(lesson_code))

    def _reference(self, solution: Solution) -> dict:
        """Run the solution in a clean world; keep its records; note checks it fails itself."""
        nb, restored = build_notebook(solution.notebook, solution.notebook, solution.cells,
                                      self.library)
        with World(self.snapshot, solution.path.name, solution.data,
                   confine=self.confine, web=self.backend != "offline") as world:
            exercises = {index: check.exercise for index, (check, _) in restored.items()}
            execute(nb, world, self.timeout, self.backend, exercises)
        reference: dict = {}
        for index, (check, nonce) in restored.items():
            payload = payload_of(nb.cells[index], nonce, check.cell_id)
            records = payload.get("records", []) if isinstance(payload, dict) else []
            if isinstance(payload, dict):
                solution.expected_signs.update(f"à l'exécution : {sign}"
                                               for sign in payload.get("signs", []))
            for spec in check.checks:
                found = [r for r in records if isinstance(r, dict) and r.get("check") == spec.id]
                reference[(check.cell_id, spec.id)] = found
                verdicts = [judge(spec, r, solution.assertions, r) for r in found]
                bad = [v for v in verdicts if v.status != grading.OK]
                if not found or bad:
                    reason = bad[0].message if bad else "non exécutée"
                    solution.broken[(check.cell_id, spec.id)] = reason
                    print(f"attention : {solution.path.name}, « {spec.label} » échoue sur la "
                          f"solution elle-même ({reason})", file=sys.stderr)
        return reference

    def identify(self, path: Path, raw) -> tuple[Path | None, str]:
        """The solution a submission answers (see the module docstring), or a French reason."""
        folder = self.solutions_dir
        meta = raw.get("metadata", {}).get(METADATA_KEY, {}) if isinstance(raw, dict) else {}
        name = meta.get("exercise") if isinstance(meta, dict) else None
        if isinstance(name, str) and re.fullmatch(r"[\w.-]+", name):
            candidate = folder / f"{name}.ipynb"
            if candidate.is_file():
                return candidate, ""
        if (folder / path.name).is_file():
            return folder / path.name, ""
        numbered = {}
        for candidate in sorted(folder.glob("*.ipynb")):
            match = re.match(r"(\d+)_", candidate.name)
            if match and re.search(rf"(?<!\d){match.group(1)}(?!\d)", path.stem):
                numbered[candidate.name] = candidate
        if len(numbered) == 1:
            return next(iter(numbered.values())), ""
        known = ", ".join(p.name for p in sorted(folder.glob("*.ipynb"))) or "aucune"
        return None, (f"exercice non identifié : ni métadonnées {METADATA_KEY}.exercise, ni nom "
                      f"de solution dans {folder.as_posix()} (solutions : {known})")
