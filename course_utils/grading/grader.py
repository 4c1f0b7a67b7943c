"""Instructor grader: ``python -m course_utils grade RENDUS... [options]``.

Expected layout: one folder per student, each holding their notebooks, e.g.
``rendus/alice/01_function_calling.ipynb``; ``grade rendus`` finds every ``.ipynb`` below (files
may also be given one by one). For each submission the grader:

1. **identifies the exercise** from the notebook's metadata (``metadata.course_utils.exercise``,
   written by the generator into every ``exercises/`` notebook), else from its file name (same
   name as a solution, else a unique solution whose number ``NN_`` appears in the name:
   ``alice_01.ipynb`` → ``01_…``). A submission that matches nothing gets an ``invalide`` row and
   the command exits with status 1;
2. **rebuilds the notebook** (:mod:`course_utils.grading.restore`): the student's cells, with
   every check cell (tag ``check:<exercise>``) replaced by the solution's, hidden tests included,
   *instrumented* (:mod:`course_utils.grading.instrument`) so that the kernel only extracts plain
   data — the student's answers on the cell's inputs — and decides nothing;
3. **runs it in its own pristine world** (:mod:`course_utils.grading.world`): a fresh temporary
   folder as cwd, a private copy of ``course_utils`` written from an in-memory snapshot taken at
   start, the kernel launched through :mod:`course_utils.grading.confine` (unprivileged user,
   Landlock: reads only the Python environment and the system, writes only its world, no network
   but its own ports, no signals outside), ``BATCH_MODE=1``, ``COURSE_BACKEND=offline`` (API
   keys removed), per-cell timeout with interruption;
4. **decides every check in the grader process** (:mod:`course_utils.grading.judge`) from the
   data published by the restored cells (one output each, tagged with that cell's nonce), against
   constants of the solution and values computed from the solution **in a separate clean kernel**
   (its own world, run once per solution and cached for the whole run). A passing check must have
   gone through every assertion the solution's run went through;
5. **verifies the course** after the run: the course folder and the environment's start-up hooks
   are compared with the snapshot; with an unconfined kernel any change is undone and the
   submission is ``suspect``; with confined kernels none of them can be the author, so the change
   (the instructor's, another program's) is kept and reported on stderr — every submission is
   graded with the course as it was at start anyway. A
   static scan of the student's cells (:mod:`course_utils.grading.scan`) and forged results
   (a result output outside a restored cell, two outputs in one) mark it ``suspect`` too, with
   French reasons — without changing the mark.

Output: one table per exercise notebook, items named as the notebook names them (« Exercice 1 »,
« Défi »), and a CSV (``--csv``, default ``grades.csv``), one row per submission and item, sorted,
without timings, so ``--jobs 1`` and ``--jobs N`` write the same bytes:
``submission,notebook,exercise,item,points,max_points,status,reason,integrity,integrity_reason``.
A bad submission never crashes the run.

What this guarantees: code in a submission cannot make the grader see a verdict — only data, and
data is compared with answers the kernel never contains (hidden tests' expected values, the
solution's results); a submission cannot read ``solutions/`` or the instructor's package, nor
change what another submission's kernel or the reference run imports. Residual limits: (a) the
*visible* checks can be satisfied by hard-coding their visible answers, as with any autograder —
hidden tests, on inputs the notebook does not show, carry the weight; (b) what a check cell
computes inside a leaf (a lambda's body, an ``if``/``try`` in a test function, a comprehension's
filter) runs in the student kernel and can be steered there; plain ``assert a == b`` and
``check(..., expected=...)`` cannot; (c) without Landlock (macOS, Windows, old Linux) the kernel
can read the course folder and write outside its world: changes are detected and undone after
each submission, but with ``--jobs`` > 1 a concurrent submission could see them while it runs,
and the change is reported on whichever submission finishes first — the report says when the
kernel was not confined. Do not edit the course while grading: the verification cannot tell
your edit from a submission's, and undoes it; (d) the static scan and the run-time signs
are heuristics; (e) the kernel has no memory or process limit, only the per-cell timeout; (f) a
forged payload can be made huge (a denial of service of the grader, not a mark).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from course_utils.grading import student_check as grading
from course_utils.grading.confine import landlock_abi
from course_utils.grading.context import COURSE_ROOT, Context, Solution, item_labels  # noqa: F401
from course_utils.grading.judge import Verdict, judge
from course_utils.grading.report import (  # noqa: F401 - the grader's public names
    CSV_HEADER,
    SUSPECT,
    CellError,
    ExerciseGrade,
    SubmissionGrade,
    csv_text,
    format_table,
)
from course_utils.grading.restore import (  # noqa: F401 - re-exported
    CheckCell,
    SolutionError,
    StaticCheck,
    build_notebook,
    load_check_cells,
)
from course_utils.grading.run import execute, mime_outputs, payload_of
from course_utils.grading.scan import scan_cells
from course_utils.grading.world import World

_PRIORITY = (grading.TIMEOUT, grading.ERROR, grading.FAIL, grading.TODO)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _rank(status: str) -> int:
    return _PRIORITY.index(status) if status in _PRIORITY else 0


def _cell_failure(index: int, cell, timed_out: set[int], stopped: str, timeout: float) -> str:
    if index in timed_out:
        return f"{grading.TIMEOUT} ({timeout:g} s par cellule)"
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"cellule de vérification en erreur ({output.get('ename')})"
    return stopped or "aucun résultat de vérification"


def _verdict(spec, check: CheckCell, payload, failure: str, solution: Solution) -> Verdict:
    broken = solution.broken.get((check.cell_id, spec.id))
    if broken is not None:
        return Verdict(grading.ERROR, f"vérification cassée dans la solution ({broken})")
    if payload == "double":
        return Verdict(grading.ERROR, "résultats en double pour cette cellule (falsification ?)")
    if payload is None:
        status = grading.TIMEOUT if failure.startswith(grading.TIMEOUT) else grading.ERROR
        return Verdict(status, failure)
    records = [r for r in payload["records"] if isinstance(r, dict) and r.get("check") == spec.id]
    references = (solution.reference or {}).get((check.cell_id, spec.id), [])
    if not records:
        for error in payload.get("errors", []):
            if isinstance(error, dict) and error.get("start", 0) <= spec.start <= error.get("end", 0):
                reason = error.get("reason") or ["erreur", ""]
                name, message = (list(reason) + ["", ""])[:2]
                if "NoneType" in str(message):
                    return Verdict(grading.TODO, grading.TODO)
                return Verdict(grading.ERROR, f"{name}: {message}" if message else str(name))
        if payload.get("interrupted"):
            return Verdict(grading.TIMEOUT, "non exécutée (cellule interrompue)")
        return Verdict(grading.ERROR, "vérification non exécutée")
    verdicts = [judge(spec, record, solution.assertions,
                      references[min(i, len(references) - 1)] if references else None)
                for i, record in enumerate(records)]
    if len(records) < len(references):
        verdicts.append(Verdict(grading.FAIL, "vérification incomplète"))
    bad = [v for v in verdicts if v.status != grading.OK]
    return min(bad, key=lambda v: _rank(v.status)) if bad else Verdict(grading.OK)


def _clean(text: str, world: World) -> str:
    return _ADDRESS.sub("", str(text)).replace(str(world.root / "work"), ".").replace(
        str(world.root), "<dossier du rendu>")


def _score(label: str, solution: Solution, nb, restored: dict, timed_out: set[int], stopped: str,
           timeout: float, world: World) -> tuple[list, tuple[CellError, ...], list[str]]:
    checks: dict[str, list] = {ex: [] for ex in solution.maxima}
    suspicions: list[str] = []
    for index, (check, nonce) in restored.items():
        cell = nb.cells[index]
        payload = payload_of(cell, nonce, check.cell_id)
        if payload == "double":
            suspicions.append("résultats de vérification en double (falsification)")
        elif isinstance(payload, dict) and isinstance(payload.get("signs"), list):
            suspicions.extend(f"à l'exécution : {sign}" for sign in payload["signs"][:10]
                              if isinstance(sign, str))
        failure = _cell_failure(index, cell, timed_out, stopped, timeout)
        for spec in check.checks:
            try:
                verdict = _verdict(spec, check, payload, failure, solution)
            except Exception as exc:  # a forged payload that is not what the probe writes
                verdict = Verdict(grading.ERROR, f"relevé illisible ({type(exc).__name__})")
                suspicions.append("relevé de vérification mal formé (falsification)")
            reason = verdict.message
            if verdict.status == grading.TIMEOUT:
                reason = f"{grading.TIMEOUT} ({timeout:g} s par cellule)"
            checks.setdefault(check.exercise, []).append((spec, verdict.status, reason))
    for index, cell in enumerate(nb.cells):
        if index not in restored and mime_outputs(cell):
            suspicions.append("une cellule de l'étudiant publie des résultats de vérification")
            break
    rows = []
    for exercise, results in checks.items():
        bad = [(s, status, why) for s, status, why in results if status != grading.OK]
        status = min((item[1] for item in bad), key=_rank) if bad else grading.OK
        reason = _clean(" ; ".join(dict.fromkeys(f"{s.label} : {why}" for s, _, why in bad)), world)
        rows.append(ExerciseGrade(
            label, exercise, sum(s.points for s, st, _ in results if st == grading.OK),
            sum(s.points for s, _, _ in results), status,
            reason if len(reason) <= 300 else reason[:299] + "…",
            solution.labels.get(exercise, exercise), solution.name))
    errors = tuple(
        CellError(index, str(cell.get("id")), str(out.get("ename")),
                  _clean(out.get("evalue"), world))
        for index, cell in enumerate(nb.cells) if index not in restored
        for out in cell.get("outputs", []) if out.get("output_type") == "error")
    return rows, errors, suspicions


# --------------------------------------------------------------------------- one submission


def _rows(label: str, status: str, reason: str,
          solution: Solution | None) -> tuple[ExerciseGrade, ...]:
    if solution is None:
        return (ExerciseGrade(label, "", 0, 0, status, reason),)
    return tuple(ExerciseGrade(label, ex, 0, points, status, reason,
                               solution.labels.get(ex, ex), solution.name)
                 for ex, points in solution.maxima.items())


def _finish(label: str, rows, solution: Solution | None, *, errors=(), suspicions=(),
            confinement: str = "") -> SubmissionGrade:
    suspicions = tuple(dict.fromkeys(suspicions))
    why = " ; ".join(suspicions)
    rows = tuple(sorted(
        (ExerciseGrade(r.submission, r.exercise, r.points, r.max_points, r.status, r.reason,
                       r.item, r.notebook, SUSPECT if suspicions else "ok", why) for r in rows),
        key=lambda r: r.exercise))
    return SubmissionGrade(label, rows, tuple(errors), suspicions,
                           solution.name if solution else "", confinement)


def grade_submission(path, *, label: str | None = None, solutions: Path | None = None,
                     timeout: float = 30, backend: str = "offline",
                     context: Context | None = None) -> SubmissionGrade:
    """Grade one submission notebook in its own world; never raises for a bad submission."""
    import nbformat

    path = Path(path)
    label = label or path.as_posix()
    context = context or Context(solutions, timeout=timeout, backend=backend)
    raw, problem = None, ""
    if path.is_symlink():  # a link could point at solutions/: a submission is a plain file
        problem = "lien symbolique refusé : rendez le notebook lui-même"
    elif not path.is_file():
        problem = "fichier introuvable"
    else:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            problem = "fichier illisible (pas du texte UTF-8)"
        except json.JSONDecodeError as exc:
            problem = (f"JSON invalide (ligne {exc.lineno}, colonne {exc.colno}) : ce n'est pas "
                       "un notebook")
    solution_path, unknown = context.identify(path, raw)
    if solution_path is None:
        return _finish(label, _rows(label, grading.INVALID, problem or unknown, None), None)
    try:
        solution = context.solution(solution_path, reference=not problem)
    except ValueError as exc:
        return _finish(label, (ExerciseGrade(label, "", 0, 0, grading.ERROR, str(exc)),), None)
    if problem:
        return _finish(label, _rows(label, grading.INVALID, problem, solution), solution)
    try:
        student = nbformat.reads(json.dumps(raw), as_version=4)
        nb, restored = build_notebook(student, solution.notebook, solution.cells, context.library)
    except Exception as exc:  # cells without source, odd types...
        reason = f"structure de notebook invalide ({type(exc).__name__})"
        return _finish(label, _rows(label, grading.INVALID, reason, solution), solution)
    suspicions = scan_cells(cell for index, cell in enumerate(nb.cells) if index not in restored)
    with World(context.snapshot, path.name, path.read_bytes(), confine=context.confine,
               web=context.backend != "offline") as world:
        exercises = {index: check.exercise for index, (check, _) in restored.items()}
        timed_out, stopped = execute(nb, world, context.timeout, context.backend, exercises)
        rows, errors, found = _score(label, solution, nb, restored, timed_out, stopped,
                                     context.timeout, world)
        confined = world.confinement()
    with _COURSE_LOCK:
        changed = context.snapshot.changes()
        shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
        if changed and context.confined:  # no graded kernel can write there: someone else did
            context.snapshot.accept(changed)
            print(f"attention : le cours a changé pendant la notation ({shown}) ; pas par un "
                  "rendu (noyaux confinés) : changement conservé, les rendus restent notés avec "
                  "le cours du début", file=sys.stderr)
        elif changed:
            context.snapshot.restore(changed)
            found.append(f"fichiers modifiés hors du dossier du rendu (rétablis) : {shown}")
    suspicions = [reason for reason in [*found, *suspicions]  # what the lesson's own code uses
                  if reason not in solution.expected_signs]  # is not a sign of tampering
    return _finish(label, rows, solution, errors=errors, suspicions=suspicions,
                   confinement=_confinement_text(confined, context.confined))


_COURSE_LOCK = threading.Lock()


def _confinement_text(status: dict, confined: bool) -> str:
    if confined:  # decided by the grader (the launcher refuses to start a kernel otherwise)
        return f"Landlock ABI {landlock_abi()}, utilisateur {status.get('user') or 'inconnu'}"
    if not status:
        return "aucun confinement (le noyau n'a pas démarré)"
    return f"aucun confinement du système ({status.get('limits')}), utilisateur {status.get('user')}"


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


def grade_many(submissions, *, jobs: int = 1, progress: bool = True, solutions=None,
               timeout: float = 30, backend: str = "offline", context: Context | None = None):
    """Grade ``[(label, path), ...]``, ``jobs`` at a time (threads, one kernel each); sorted."""
    from tqdm.auto import tqdm

    context = context or Context(solutions, timeout=timeout, backend=backend)
    grades = []
    with tqdm(total=len(submissions), desc="notation", unit="rendu", file=sys.stderr,
              disable=not progress) as bar:
        if jobs <= 1:
            for label, path in submissions:
                grades.append(grade_submission(path, label=label, context=context))
                bar.update()
        else:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(grade_submission, path, label=label, context=context)
                           for label, path in submissions]
                for future in as_completed(futures):
                    grades.append(future.result())
                    bar.update()
    return sorted(grades, key=lambda grade: grade.submission)


_HELP = """\
Disposition attendue : un dossier par étudiant, par exemple
  rendus/alice/01_function_calling.ipynb
  rendus/bob/01_function_calling.ipynb
puis `python -m course_utils grade rendus`. L'exercice est reconnu par les métadonnées du notebook
(écrites dans exercises/), sinon par son nom (nom d'une solution, ou son numéro : alice_01.ipynb).
Un rendu non reconnu donne une ligne « invalide » et le code de sortie 1 ; un lien symbolique est
refusé (rendez le notebook lui-même).

Garanties : chaque rendu s'exécute dans son propre dossier temporaire, avec une copie privée de
course_utils ; le noyau est confiné quand le système le permet (Linux + Landlock : lecture de
l'environnement Python seulement, écriture dans son dossier seulement, pas de réseau — sauf les
ports 443 et 80 avec un --backend en ligne) : solutions/
et le cours sont hors de portée. Les cellules de vérification n'extraient que des données (les
réponses de l'étudiant) ; le correcteur les compare, dans son propre processus, aux valeurs de la
solution calculées dans un noyau propre (une fois par solution). Le dossier du cours est vérifié
après chaque rendu (sans confinement, toute modification est annulée et le rendu est « suspect »).
Une analyse des cellules signale les primitives de falsification (crochets de traçage,
sys.modules, cadres, gc, builtins modifiés, threads, fichiers hors du dossier) : « suspect », sans
changer la note.

Limites : les vérifications visibles peuvent être satisfaites en écrivant en dur leurs réponses
visibles (les tests cachés portent l'essentiel des points) ; ce qu'une cellule de vérification
calcule dans le corps d'un lambda, un if ou un try s'exécute dans le noyau de l'étudiant ; sans
Landlock (macOS, Windows) ou avec --no-confine, le noyau n'est pas confiné : les modifications
sont détectées et annulées après coup (n'éditez pas le cours pendant la notation : vos
modifications seraient annulées elles aussi) ; l'analyse statique est une heuristique ; le noyau n'a pas
de limite de mémoire ni de processus (seulement le délai par cellule).
"""


def main(argv: list[str] | None = None) -> int:
    """Command line of the grader (French help)."""
    parser = argparse.ArgumentParser(
        prog="python -m course_utils grade",
        description="Note des rendus d'étudiants avec les vérifications de la solution.",
        epilog=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="+",
                        help="notebooks rendus ou dossiers de rendus (rendus/<étudiant>/…)")
    parser.add_argument("--csv", type=Path, default=Path("grades.csv"), help="fichier CSV écrit")
    parser.add_argument("--jobs", type=int, default=1, help="rendus notés en parallèle")
    parser.add_argument("--solutions", type=Path, default=None, help="dossier des solutions")
    parser.add_argument("--timeout", type=float, default=30.0, help="secondes par cellule")
    parser.add_argument("--backend", default="offline", help="COURSE_BACKEND du noyau")
    parser.add_argument("--no-confine", action="store_true",
                        help="ne confine pas le noyau (si le confinement l'empêche de démarrer ; "
                             "la vérification du cours après chaque rendu reste faite)")
    args = parser.parse_args(argv)
    submissions = collect(args.submissions)
    if not submissions:
        print("aucun notebook à noter", file=sys.stderr)
        return 2
    context = Context(args.solutions, timeout=args.timeout, backend=args.backend,
                      confine=not args.no_confine)
    grades = grade_many(submissions, jobs=args.jobs, context=context)
    print(format_table(grades))
    args.csv.write_text(csv_text(grades), encoding="utf-8")
    rows = sum(len(grade.exercises) for grade in grades)
    print(f"\nCSV écrit : {args.csv} ({rows} ligne(s), {len(grades)} rendu(s))")
    confinement = sorted({g.confinement for g in grades if g.confinement})
    if confinement:
        print("confinement du noyau : " + " ; ".join(confinement))
    suspects = [g.submission for g in grades if g.suspect]
    if suspects:
        print(f"{len(suspects)} rendu(s) {SUSPECT}(s) à relire : " + ", ".join(suspects))
    unknown = [g.submission for g in grades if not g.identified]
    if unknown:
        print(f"{len(unknown)} rendu(s) non identifié(s) : " + ", ".join(unknown), file=sys.stderr)
        return 1
    return 0


def fingerprint(path: Path) -> str:
    """SHA-256 of a file (used by tests and the benchmark to show the course is intact)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
