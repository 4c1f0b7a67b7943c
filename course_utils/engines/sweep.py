"""Sweeps: run an experiment on many points with a progress bar, and keep what finished.

``sweep(fn, points, results=store)`` calls ``fn(point)`` for each point not already in ``store``
(a dict filled **in place**, point → result), with a progress bar (``course_utils.progress``:
live in JupyterLab, then replaced by one line, « 27 points mesurés », which is what a saved
notebook keeps; a text bar elsewhere). Interrupting it (the ■ button, Ctrl-C) stops after the
current point: the finished points stay in ``store``, a French line says how many, and running the
same cell again resumes where it stopped. Points must be hashable (a problem id, a tuple
``(id, n, seed)``...).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any


def sweep(fn: Callable[[Any], Any], points: Iterable[Hashable], *, results: dict | None = None,
          desc: str = "balayage", progress: bool = True) -> dict:
    """``{point: fn(point)}`` for every point, resumable and interruptible (module docstring)."""
    store = {} if results is None else results
    todo = [point for point in points if point not in store]
    if not (progress and todo):
        return _run(fn, todo, store, None)
    from ..progress import plural, progress_bar

    with progress_bar(len(todo), desc, summary=lambda n: plural(n, "point mesuré")) as bar:
        return _run(fn, todo, store, bar)


def _run(fn: Callable[[Any], Any], todo: list, store: dict, bar: Any) -> dict:
    try:
        for point in todo:
            store[point] = fn(point)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        done = sum(point in store for point in todo)
        print(f"interrompu : {done}/{len(todo)} point(s) terminé(s) gardé(s) ; "
              "relancez la cellule pour reprendre.")
    return store
