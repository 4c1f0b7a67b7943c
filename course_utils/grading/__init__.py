"""Exercises and grading: the student self-check, the exercise generator, the instructor grader.

Which side of the trust boundary each module runs on:

* :mod:`~course_utils.grading.student_check` — **student kernel**. ``check(...)`` prints ✅/❌;
  standard library only, imported by every exercise notebook (``from course_utils import check``).
* :mod:`~course_utils.grading.exercises` — maintainer tool: writes ``exercises/`` from
  ``solutions/`` (``python -m course_utils exercises [--check]``).
* :mod:`~course_utils.grading.probe` — **graded student kernel**: extracts plain data for the
  grader and decides nothing (standard library only; its source is embedded in restored cells).
* :mod:`~course_utils.grading.confine` — **graded student kernel**, before any student code:
  drops privileges, applies Landlock, then becomes ipykernel.
* :mod:`~course_utils.grading.instrument` — **grader**: splits a check cell into what the kernel
  evaluates (leaves) and what the grader decides.
* :mod:`~course_utils.grading.judge` — **grader**: verdicts from the extracted data.
* :mod:`~course_utils.grading.restore` — **grader**: rebuilds a submission with the instructor's
  check cells restored by tag, instrumented.
* :mod:`~course_utils.grading.world` — **grader**: each submission's temporary world, the course
  snapshot, verification and restoration of the course files.
* :mod:`~course_utils.grading.scan` — **grader**: static scan for tampering primitives.
* :mod:`~course_utils.grading.run` — **grader**: runs a rebuilt notebook in a world's kernel.
* :mod:`~course_utils.grading.context` — **grader**: what a run shares (snapshot, solutions,
  each solution's reference records from its clean kernel, exercise identification).
* :mod:`~course_utils.grading.report` — **grader**: rows, CSV and tables.
* :mod:`~course_utils.grading.grader` — **grader**: ``python -m course_utils grade`` (guarantees
  and residual limits are listed in its docstring).

Dependencies go one way (grader → context → run/restore/judge/world → instrument → probe;
exercises → student_check); importing this package loads only the standard-library self-check.
"""

from __future__ import annotations

from course_utils.grading.student_check import (
    CHECK_TAG_PREFIX,
    ERROR,
    FAIL,
    INVALID,
    OK,
    STATUSES,
    TIMEOUT,
    TODO,
    TODO_COMMENT,
    CheckResult,
    check,
    recording,
)

__all__ = ["check", "CheckResult", "recording", "CHECK_TAG_PREFIX", "TODO_COMMENT", "STATUSES",
           "OK", "FAIL", "TODO", "ERROR", "TIMEOUT", "INVALID", "main"]


def main(argv: list[str] | None = None) -> int:
    """``python -m course_utils grade ...`` (see :mod:`course_utils.grading.grader`)."""
    from course_utils.grading.grader import main as grade_main

    return grade_main(argv)
