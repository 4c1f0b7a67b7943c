"""Grader side: what a grading run reports — one row per submission and exercise, a CSV, tables.

The CSV is sorted and carries no timing, so ``--jobs 1`` and ``--jobs N`` write the same bytes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from course_utils.grading import student_check as grading

SUSPECT = "suspect"


@dataclass(frozen=True)
class ExerciseGrade:
    """One CSV row: a submission's score on one exercise of a notebook."""

    submission: str
    exercise: str
    points: float
    max_points: float
    status: str
    reason: str = ""
    item: str = ""
    notebook: str = ""
    integrity: str = ""
    integrity_reason: str = ""

    def csv_row(self) -> list[str]:
        return [self.submission, self.notebook, self.exercise, self.item, f"{self.points:g}",
                f"{self.max_points:g}", self.status, self.reason, self.integrity or "ok",
                self.integrity_reason]


@dataclass(frozen=True)
class CellError:
    """A cell of the executed notebook that ended with an error output."""

    index: int
    cell_id: str
    ename: str
    evalue: str


@dataclass(frozen=True)
class SubmissionGrade:
    """Everything the grader found about one submission."""

    submission: str
    exercises: tuple[ExerciseGrade, ...]
    cell_errors: tuple[CellError, ...] = ()
    suspicions: tuple[str, ...] = ()
    notebook: str = ""
    confinement: str = ""

    @property
    def points(self) -> float:
        return sum(grade.points for grade in self.exercises)

    @property
    def max_points(self) -> float:
        return sum(grade.max_points for grade in self.exercises)

    @property
    def suspect(self) -> bool:
        return bool(self.suspicions)

    @property
    def identified(self) -> bool:
        return bool(self.notebook)


CSV_HEADER = ["submission", "notebook", "exercise", "item", "points", "max_points", "status",
              "reason", "integrity", "integrity_reason"]


def csv_text(grades) -> str:
    """The CSV: header then one sorted row per submission and exercise."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    rows = sorted((row for grade in grades for row in grade.exercises),
                  key=lambda row: (row.submission, row.notebook, row.exercise))
    writer.writerows(row.csv_row() for row in rows)
    return buffer.getvalue()


def format_table(grades) -> str:
    """One submission × item table per notebook, with a total column and a ⚠ for suspects."""
    blocks = []
    notebooks = sorted({grade.notebook for grade in grades})
    for notebook in notebooks:
        group = [g for g in grades if g.notebook == notebook]
        order: dict[str, str] = {}
        for grade in group:
            for row in grade.exercises:
                if row.exercise:
                    order.setdefault(row.exercise, row.item or row.exercise)
        exercises = sorted(order)
        header = ["rendu", *(order[ex] for ex in exercises), "total"]
        lines = [header]
        for grade in group:
            cells = {row.exercise: f"{row.points:g}/{row.max_points:g}" for row in grade.exercises}
            total = f"{grade.points:g}/{grade.max_points:g}"
            if any(row.status == grading.INVALID for row in grade.exercises):
                total += " (invalide)"
            if grade.suspect:
                total += f" ⚠ {SUSPECT}"
            lines.append([grade.submission, *(cells.get(ex, "—") for ex in exercises), total])
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        title = notebook or "non identifiés"
        blocks.append(title + "\n" + "\n".join(
            "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines))
    return "\n\n".join(blocks)
