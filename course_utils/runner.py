"""The course runner: execute every notebook headless and summarise the run.

``python -m course_utils run [--only PATTERN] [--jobs N]`` executes the notebooks of
``notebooks/``, ``solutions/`` and ``exercises/`` with Papermill (``BATCH_MODE=True``, a kernel
running *this* Python, cwd = the notebook's folder), writes the executed copies under ``build/``,
and prints and saves a summary (notebook, status, seconds, model calls, tokens). It exits
non-zero naming each failing notebook and cell.

Model calls and tokens are the real ``usage`` of every request the notebook's clients made: the
kernel writes them to ``COURSE_USAGE_FILE`` (see ``llm.session_ledger``). Streamed answers are not
counted there.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from course_utils.kernel import KERNEL_NAME, install_kernel

FOLDERS = ("notebooks", "solutions", "exercises")


@dataclass(frozen=True)
class NotebookRun:
    """Outcome of one notebook."""

    notebook: str
    status: str  # "ok" or "échec"
    seconds: float
    calls: int
    tokens: int
    error: str | None = None


def repo_root(start: Path | None = None) -> Path:
    """The folder holding ``notebooks/``: from ``start``/cwd upwards, else the package's repo."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "notebooks").is_dir() and (folder / "course_utils").is_dir():
            return folder
    return Path(__file__).resolve().parent.parent


def discover(root: Path, only: str | None = None) -> list[Path]:
    """Notebooks to run, in course order (folder, then name); ``only`` filters by glob/substring."""
    found: list[Path] = []
    for folder in FOLDERS:
        for path in sorted((root / folder).glob("*.ipynb")):
            rel = path.relative_to(root).as_posix()
            if only and not (fnmatch.fnmatch(rel, only) or only in rel):
                continue
            found.append(path)
    return found


def _read_usage(path: Path) -> tuple[int, int]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0, 0
    calls = sum(int(u.get("calls", 0)) for u in data.values())
    tokens = sum(int(u.get("total_tokens", 0)) for u in data.values())
    return calls, tokens


def execute_one(path: str, root: str, build: str, timeout: float) -> NotebookRun:
    """Execute one notebook with Papermill; never raises."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    nb_path, root_path, build_path = Path(path), Path(root), Path(build)
    rel = nb_path.relative_to(root_path)
    output = build_path / rel
    output.parent.mkdir(parents=True, exist_ok=True)
    usage_file = build_path / "usage" / (rel.as_posix().replace("/", "__") + ".json")
    usage_file.parent.mkdir(parents=True, exist_ok=True)
    usage_file.unlink(missing_ok=True)
    install_kernel(build_path)
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend keeps figures in the copies
    os.environ.update({"BATCH_MODE": "1", "COURSE_USAGE_FILE": str(usage_file),
                       "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    start = time.perf_counter()
    error = None
    try:
        papermill.execute_notebook(
            str(nb_path), str(output), parameters={"BATCH_MODE": True},
            kernel_name=KERNEL_NAME, cwd=str(nb_path.parent), progress_bar=False,
            request_save_on_cell_execute=False, execution_timeout=timeout,
        )
    except PapermillExecutionError as exc:
        error = f"{_locate_cell(nb_path, exc.source, exc.cell_index)} : {exc.ename}: {exc.evalue}"
    except Exception as exc:  # noqa: BLE001 - report any failure, keep running the others
        error = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    calls, tokens = _read_usage(usage_file)
    return NotebookRun(rel.as_posix(), "ok" if error is None else "échec", round(seconds, 1),
                       calls, tokens, error)


def _locate_cell(path: Path, source: str, executed_index: int) -> str:
    """Name a failing cell as the author sees it: position in the original file + first line.

    Papermill's index counts the cell it injects for the parameters, so it is not used as is.
    """
    import nbformat

    first_line = next((line for line in (source or "").splitlines() if line.strip()), "")
    try:
        cells = nbformat.read(path, as_version=4).cells
        position = next(i for i, cell in enumerate(cells, 1) if cell.source == source)
    except (OSError, ValueError, StopIteration):
        position = executed_index
    return f"cellule {position} « {first_line[:60]} »"


def format_table(runs: list[NotebookRun]) -> str:
    header = ("notebook", "statut", "secondes", "appels modèle", "tokens")
    rows = [header] + [(r.notebook, r.status, f"{r.seconds:.1f}", str(r.calls), str(r.tokens))
                       for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def save_summary(runs: list[NotebookRun], build: Path) -> None:
    build.mkdir(parents=True, exist_ok=True)
    (build / "summary.txt").write_text(format_table(runs) + "\n", encoding="utf-8")
    with open(build / "summary.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(asdict(runs[0])) if runs else ["notebook"])
        writer.writeheader()
        for run in runs:
            writer.writerow(asdict(run))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_utils run",
        description="Exécute tous les notebooks du cours sans interface (Papermill, BATCH_MODE).",
    )
    parser.add_argument("--only", help="motif (glob ou sous-chaîne) des notebooks à exécuter")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks exécutés en parallèle")
    parser.add_argument("--build", default="build", help="dossier des copies exécutées")
    parser.add_argument("--timeout", type=float, default=600, help="délai max par cellule (s)")
    args = parser.parse_args(argv)

    from tqdm.auto import tqdm

    root = repo_root()
    build = (root / args.build).resolve()
    notebooks = discover(root, args.only)
    if not notebooks:
        print(f"Aucun notebook ne correspond à {args.only!r}.", file=sys.stderr)
        return 1
    jobs = [(str(p), str(root), str(build), args.timeout) for p in notebooks]
    runs: list[NotebookRun] = []
    with tqdm(total=len(jobs), desc="notebooks", unit="nb") as bar:
        if args.jobs <= 1:
            for job in jobs:
                runs.append(execute_one(*job))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=args.jobs,
                                     mp_context=multiprocessing.get_context("spawn")) as pool:
                for run in pool.map(execute_one, *zip(*jobs)):
                    runs.append(run)
                    bar.update()
    print(format_table(runs))
    save_summary(runs, build)
    print(f"Résumé écrit dans {build / 'summary.txt'} ; copies exécutées sous {build}.")
    failed = [r for r in runs if r.error]
    for run in failed:
        print(f"ÉCHEC {run.notebook} — {run.error}", file=sys.stderr)
    return 1 if failed else 0


def refresh_outputs(path: Path, build: Path, timeout: float = 600) -> None:
    """Re-execute ``path`` in place as a student opening it offline would (committed outputs).

    Same conditions as the strict nbval test: offline backend, no personal ``.env``, seed 0,
    ``BATCH_MODE`` off, cwd = the notebook's folder. The notebook's kernelspec is kept.
    """
    import nbclient
    import nbformat

    install_kernel(build)
    for var in ("BATCH_MODE", "COURSE_USAGE_FILE", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
                "OPENAI_BASE_URL", "MPLBACKEND"):
        os.environ.pop(var, None)
    os.environ.update({"COURSE_BACKEND": "offline", "COURSE_ENV_FILE": "none",
                       "COURSE_SEED": "0"})
    nb = nbformat.read(path, as_version=4)
    kernelspec = nb.metadata.get("kernelspec")
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=timeout,
                                     record_timing=False,  # no timestamps: small, honest diffs
                                     store_widget_state=False,  # widget ids change every run
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = _coalesce_streams(cell.outputs)
            for output in cell.outputs:  # a saved widget would point to a model not saved
                output.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
    nb.metadata.pop("widgets", None)
    if kernelspec is not None:
        nb.metadata["kernelspec"] = kernelspec
    nbformat.write(nb, path)


def _coalesce_streams(outputs: list) -> list:
    """Merge consecutive stdout/stderr chunks: how a kernel splits them varies from run to run."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (previous is not None and output.get("output_type") == "stream"
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")):
            previous["text"] = previous["text"] + output["text"]
        else:
            merged.append(output)
    return merged


def refresh_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_utils refresh",
        description="Ré-exécute en place notebooks/ et solutions/ avec le modèle hors ligne, "
        "pour committer leurs sorties (convention C.2).",
    )
    parser.add_argument("--only", help="motif (glob ou sous-chaîne) des notebooks")
    args = parser.parse_args(argv)
    root = repo_root()
    targets = [p for p in discover(root, args.only) if p.parent.name != "exercises"]
    for path in targets:
        print(f"ré-exécution : {path.relative_to(root).as_posix()}")
        refresh_outputs(path, root / "build")
    return 0


if __name__ == "__main__":
    sys.exit(main())
