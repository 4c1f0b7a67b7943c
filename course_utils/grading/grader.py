"""Instructor grader: ``python -m course_utils grade SUBMISSION_OR_FOLDER... [options]``.

For each submission (``.ipynb`` files given directly or found recursively in folders), the grader:

1. pairs it with ``solutions/<same file name>`` (``--solutions DIR`` to change the folder);
2. rebuilds the notebook to run (:mod:`course_utils.grading.restore`): the student's cells, where
   every check cell (tag ``check:<exercise>``, visible *and* hidden parts) is replaced by the
   solution's version. A student check cell is matched by cell id, else by tag (k-th cell tagged
   ``check:X`` ↔ k-th such cell of the solution); a deleted one is re-inserted right after the
   student cell whose id is the nearest preceding non-check cell of the solution (the cell holding
   that exercise's solution region), else at the end. Student cells carrying an unknown check tag
   are dropped;
3. executes it with ``nbclient``: a kernel running this very interpreter, ``allow_errors``, a
   per-cell timeout with interruption (an infinite loop costs only the exercise it is in; a cell
   that ignores the interruption aborts the run), cwd = a fresh temporary folder holding a copy of
   the submission, environment ``BATCH_MODE=1`` and ``COURSE_BACKEND=offline`` (``--backend`` to
   change; API keys are removed from the kernel's environment when offline), ``PYTHONPATH``
   pointing at this course; a ``BATCH_MODE = True`` cell is injected after the ``parameters`` cell;
4. scores each check from the structured results published by the restored cells only (see
   :func:`course_utils.grading.student_check.run_check_cell`), authenticated by a random nonce per restored cell
   that appears nowhere but in that cell's source. Points are all-or-nothing per ``check`` call;
   maximum points come from the solution's source (literal ``points=`` of each ``check`` call).

Output: a table on stdout (submission × exercise, total) and a CSV (``--csv``, default
``grades.csv``), one row per submission and exercise, sorted, without timings, so ``--jobs 1`` and
``--jobs N`` write the same bytes: ``submission,exercise,points,max_points,status,reason``.
A bad submission never crashes the run: invalid JSON, missing file or missing solution give rows
with status ``invalide`` and a French reason.

Residual limits, honestly: the student's code runs in the same kernel as the checks. The nonce
stops forged results printed or displayed by student cells, and the fresh copy of the check code
defeats monkeypatching ``check``; but a determined student can still patch what the check code
itself relies on (builtins, ``IPython.display``, ``inspect``) or read a restored cell's source from
IPython's history once it has run. The course's answer: the grader is a convenience for honest
work, not a proctor — look at outliers, and keep high-stakes tests out of process.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from course_utils.grading import student_check as grading
from course_utils.grading.exercises import course_root, default_dir, read_solution
from course_utils.grading.restore import (  # noqa: F401 - re-exported
    CheckCell,
    SolutionError,
    StaticCheck,
    build_notebook,
    load_check_cells,
)
from course_utils.kernel import KERNEL_NAME, install_kernel

COURSE_ROOT = course_root()
_PRIORITY = (grading.TIMEOUT, grading.ERROR, grading.FAIL, grading.TODO)


@dataclass(frozen=True)
class ExerciseGrade:
    """One CSV row: a submission's score on one exercise."""

    submission: str
    exercise: str
    points: float
    max_points: float
    status: str
    reason: str = ""

    def csv_row(self) -> list[str]:
        return [self.submission, self.exercise, f"{self.points:g}", f"{self.max_points:g}",
                self.status, self.reason]


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

    @property
    def points(self) -> float:
        return sum(grade.points for grade in self.exercises)

    @property
    def max_points(self) -> float:
        return sum(grade.max_points for grade in self.exercises)


# --------------------------------------------------------------------------- execution


def kernel_env(backend: str = "offline") -> dict[str, str]:
    """Environment of the grading kernel (see the module docstring)."""
    env = dict(os.environ)
    if backend == "offline":
        env = {key: value for key, value in env.items() if not key.endswith("_API_KEY")}
    env.update(BATCH_MODE="1", COURSE_BACKEND=backend, MPLBACKEND="Agg",
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(COURSE_ROOT), env.get("PYTHONPATH")) if p)
    return env


def _execute(nb, workdir: Path, timeout: float, backend: str,
             exercises: dict[int, str]) -> tuple[set[int], str]:
    """Run ``nb`` in place; return (indices of timed-out or skipped cells, reason if cut short).

    ``exercises`` maps restored check cells to their exercise: once a check cell of an exercise
    times out, the exercise's later check cells are skipped (they would most likely loop too).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    class Client(NotebookClient):
        async def _async_handle_timeout(self, timeout, cell=None):
            if id(cell) in timed_out:  # the interruption did not work: give up on this run
                raise CellTimeoutError.error_from_timeout_and_cell(
                    "cellule non interruptible", timeout, cell)
            timed_out.add(id(cell))
            return await super()._async_handle_timeout(timeout, cell)

        async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
            exercise = exercises.get(cell_index)
            if exercise is not None and exercise in given_up:
                timed_out.add(id(cell))
                return cell
            cell = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
            if exercise is not None and id(cell) in timed_out:
                given_up.add(exercise)
            return cell

    timed_out: set[int] = set()
    given_up: set[str] = set()
    install_kernel(Path(tempfile.gettempdir()) / "course_utils_grader")
    client = Client(nb, timeout_func=lambda cell: timeout, kernel_name=KERNEL_NAME,
                    allow_errors=True, interrupt_on_timeout=True, startup_timeout=60,
                    shutdown_kernel="immediate",
                    resources={"metadata": {"path": str(workdir)}})
    stopped = ""
    try:
        client.execute(env=kernel_env(backend))
    except DeadKernelError:
        stopped = "le noyau Python s'est arrêté pendant l'exécution"
    except CellTimeoutError:
        stopped = f"{grading.TIMEOUT} : une cellule ne répond plus à l'interruption"
    except Exception as exc:  # kernel that cannot start, etc.
        stopped = f"exécution impossible ({type(exc).__name__}: {exc})"
    indices = {index for index, cell in enumerate(nb.cells) if id(cell) in timed_out}
    return indices, stopped


def _payload(cell, nonce: str, cell_id: str):
    """The one authentic result payload of a restored cell, ``"double"`` if forged, else None."""
    found = [
        output.get("data", {}).get(grading.MIME_TYPE)
        for output in cell.get("outputs", [])
        if output.get("output_type") in ("display_data", "execute_result")
    ]
    valid = [p for p in found if isinstance(p, dict) and p.get("nonce") == nonce
             and p.get("cell") == cell_id]
    if len(valid) > 1:
        return "double"
    return valid[0] if valid else None


def _score_check(static: StaticCheck, payload, cell_failure: str) -> tuple[str, str]:
    """(status, reason) of one static check from its cell's payload."""
    if payload == "double":
        return grading.ERROR, "résultats en double pour cette cellule (falsification ?)"
    if payload is None:
        return (grading.TIMEOUT if cell_failure.startswith(grading.TIMEOUT) else grading.ERROR,
                cell_failure)
    runs = [r for r in payload.get("results", []) if isinstance(r, dict)
            and isinstance(r.get("line"), int) and static.start <= r["line"] <= static.end]
    if runs:
        bad = [r for r in runs if r.get("status") != grading.OK]
        if not bad:
            return grading.OK, ""
        status = min((r.get("status") for r in bad), key=_rank)
        return status, str(bad[0].get("message", ""))
    for error in payload.get("errors", []):
        if error.get("start", 0) <= static.start <= error.get("end", 0):
            return error.get("status", grading.ERROR), str(error.get("reason", ""))
    if payload.get("interrupted"):
        return grading.TIMEOUT, "non exécutée (cellule interrompue)"
    return grading.ERROR, "vérification non exécutée"


def _rank(status: str) -> int:
    return _PRIORITY.index(status) if status in _PRIORITY else 0


def _cell_failure(index: int, cell, timed_out: set[int], stopped: str, timeout: float) -> str:
    if index in timed_out:
        return f"{grading.TIMEOUT} ({timeout:g} s par cellule)"
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"cellule de vérification en erreur ({output.get('ename')})"
    return stopped or "aucun résultat de vérification"


def _score(label: str, nb, restored: dict, timed_out: set[int], stopped: str, timeout: float,
           workdir: Path) -> SubmissionGrade:
    checks: dict[str, list[tuple[StaticCheck, str, str]]] = {}
    for index, (check, nonce) in restored.items():
        cell = nb.cells[index]
        payload = _payload(cell, nonce, check.cell_id)
        failure = _cell_failure(index, cell, timed_out, stopped, timeout)
        for static in check.checks:
            status, reason = _score_check(static, payload, failure)
            if status == grading.TIMEOUT:
                reason = f"{grading.TIMEOUT} ({timeout:g} s par cellule)"
            checks.setdefault(check.exercise, []).append((static, status, reason))
        checks.setdefault(check.exercise, [])
    rows = []
    for exercise, results in checks.items():
        bad = [(s, status, reason) for s, status, reason in results if status != grading.OK]
        status = min((item[1] for item in bad), key=_rank) if bad else grading.OK
        reason = " ; ".join(dict.fromkeys(f"{s.label} : {why}" for s, _, why in bad))
        reason = reason.replace(str(workdir), ".")
        rows.append(ExerciseGrade(
            label, exercise,
            sum(s.points for s, st, _ in results if st == grading.OK),
            sum(s.points for s, _, _ in results), status,
            reason if len(reason) <= 300 else reason[:299] + "…"))
    errors = tuple(
        CellError(index, str(cell.get("id")), str(out.get("ename")),
                  grading._ADDRESS.sub("", str(out.get("evalue"))).replace(str(workdir), "."))
        for index, cell in enumerate(nb.cells) for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    )
    return SubmissionGrade(label, tuple(sorted(rows, key=lambda r: r.exercise)), errors)


# --------------------------------------------------------------------------- one submission


def _invalid(label: str, reason: str, exercises=()) -> SubmissionGrade:
    rows = [ExerciseGrade(label, ex, 0, points, grading.INVALID, reason) for ex, points in exercises]
    return SubmissionGrade(label, tuple(rows) or (ExerciseGrade(label, "", 0, 0, grading.INVALID,
                                                                reason),))


def grade_submission(path, *, label: str | None = None, solutions: Path | None = None,
                     timeout: float = 30, backend: str = "offline") -> SubmissionGrade:
    """Grade one submission notebook; never raises for a bad submission."""
    import nbformat

    path = Path(path)
    label = label or path.as_posix()
    solutions = Path(solutions) if solutions else default_dir("solutions")
    solution_path = solutions / path.name
    if not solution_path.is_file():
        return _invalid(label, f"aucune solution nommée {path.name} dans {solutions.as_posix()}")
    try:
        solution = read_solution(solution_path)
        check_cells = load_check_cells(solution, solution_path.as_posix())
    except ValueError as exc:  # MarkerError or SolutionError: the instructor's side
        return SubmissionGrade(label, (ExerciseGrade(label, "", 0, 0, grading.ERROR, str(exc)),))
    maxima: dict[str, float] = {}
    for cell in check_cells:
        maxima[cell.exercise] = maxima.get(cell.exercise, 0) + sum(c.points for c in cell.checks)
    if not path.is_file():
        return _invalid(label, "fichier introuvable", maxima.items())
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        return _invalid(label, "fichier illisible (pas du texte UTF-8)", maxima.items())
    except json.JSONDecodeError as exc:
        return _invalid(label, f"JSON invalide (ligne {exc.lineno}, colonne {exc.colno}) : "
                               "ce n'est pas un notebook", maxima.items())
    try:
        student = nbformat.reads(json.dumps(raw), as_version=4)
        student.cells  # noqa: B018 - a notebook must have cells
    except Exception as exc:
        return _invalid(label, f"structure de notebook invalide ({type(exc).__name__})",
                        maxima.items())
    library = Path(grading.__file__).read_text(encoding="utf-8")
    try:
        nb, restored = build_notebook(student, solution, check_cells, library)
    except Exception as exc:  # cells without source, odd types...
        return _invalid(label, f"structure de notebook invalide ({type(exc).__name__})",
                        maxima.items())
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        workdir = Path(tmp)
        shutil.copyfile(path, workdir / path.name)
        exercises = {index: check.exercise for index, (check, _) in restored.items()}
        timed_out, stopped = _execute(nb, workdir, timeout, backend, exercises)
        return _score(label, nb, restored, timed_out, stopped, timeout, workdir)


# --------------------------------------------------------------------------- many submissions


def collect(arguments) -> list[tuple[str, Path]]:
    """(label, path) of every submission: files as given, folders searched recursively."""
    found: dict[str, Path] = {}
    for argument in arguments:
        root = Path(argument)
        if root.is_dir():
            for path in sorted(root.rglob("*.ipynb")):
                if ".ipynb_checkpoints" not in path.parts:
                    found.setdefault((root / path.relative_to(root)).as_posix(), path)
        else:
            found.setdefault(root.as_posix(), root)
    return sorted(found.items())


def grade_many(submissions, *, jobs: int = 1, progress: bool = True, **options):
    """Grade ``[(label, path), ...]``, ``jobs`` at a time (threads, one kernel each); sorted."""
    from tqdm.auto import tqdm

    grades = []
    with tqdm(total=len(submissions), desc="notation", unit="rendu", file=sys.stderr,
              disable=not progress) as bar:
        if jobs <= 1:
            for label, path in submissions:
                grades.append(grade_submission(path, label=label, **options))
                bar.update()
        else:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(grade_submission, path, label=label, **options)
                           for label, path in submissions]
                for future in as_completed(futures):
                    grades.append(future.result())
                    bar.update()
    return sorted(grades, key=lambda grade: grade.submission)


def csv_text(grades) -> str:
    """The CSV: header then one sorted row per submission and exercise."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["submission", "exercise", "points", "max_points", "status", "reason"])
    rows = sorted((row for grade in grades for row in grade.exercises),
                  key=lambda row: (row.submission, row.exercise))
    writer.writerows(row.csv_row() for row in rows)
    return buffer.getvalue()


def format_table(grades) -> str:
    """Submission × exercise table with a total column."""
    exercises = sorted({row.exercise for grade in grades for row in grade.exercises if row.exercise})
    header = ["rendu", *exercises, "total"]
    lines = [header]
    for grade in grades:
        cells = {row.exercise: f"{row.points:g}/{row.max_points:g}" for row in grade.exercises}
        total = f"{grade.points:g}/{grade.max_points:g}"
        if any(row.status == grading.INVALID for row in grade.exercises):
            total += " (invalide)"
        lines.append([grade.submission, *(cells.get(ex, "—") for ex in exercises), total])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
                     for line in lines)


def main(argv: list[str] | None = None) -> int:
    """Command line of the grader (French help)."""
    parser = argparse.ArgumentParser(
        prog="python -m course_utils grade",
        description="Note des rendus d'étudiants avec les vérifications de la solution.")
    parser.add_argument("submissions", nargs="+", help="notebooks rendus ou dossiers de rendus")
    parser.add_argument("--csv", type=Path, default=Path("grades.csv"), help="fichier CSV écrit")
    parser.add_argument("--jobs", type=int, default=1, help="rendus notés en parallèle")
    parser.add_argument("--solutions", type=Path, default=None, help="dossier des solutions")
    parser.add_argument("--timeout", type=float, default=30.0, help="secondes par cellule")
    parser.add_argument("--backend", default="offline", help="COURSE_BACKEND du noyau")
    args = parser.parse_args(argv)
    submissions = collect(args.submissions)
    if not submissions:
        print("aucun notebook à noter", file=sys.stderr)
        return 2
    grades = grade_many(submissions, jobs=args.jobs, solutions=args.solutions,
                        timeout=args.timeout, backend=args.backend)
    print(format_table(grades))
    args.csv.write_text(csv_text(grades), encoding="utf-8")
    rows = sum(len(grade.exercises) for grade in grades)
    print(f"\nCSV écrit : {args.csv} ({rows} ligne(s), {len(grades)} rendu(s))")
    return 0
