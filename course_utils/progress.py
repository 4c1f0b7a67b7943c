"""Progress bars that leave one readable line behind.

In Jupyter, ``tqdm.auto`` draws a widget. A notebook executed headless (nbclient, Papermill,
``python -m course_utils refresh``) saves only the widget's text fallback, taken when the bar
first appeared: « 0%|          | 0/27 », which reads like a hang in the committed notebook.

``progress_bar`` shows the same live widget, and when the work ends it replaces that output, in
place (a display update), with one line saying what was done: « Best-of-N : 162 points mesurés ».
That line is what a saved notebook keeps. Outside Jupyter (terminal, tests) it is tqdm's plain
text bar on stderr, unchanged. ``track`` wraps an iterable the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any


def plural(n: int, word: str) -> str:
    """« 1 point mesuré », « 27 points mesurés »: every word of ``word`` takes an s when n > 1."""
    return f"{n} " + (" ".join(w + "s" for w in word.split()) if n > 1 else word)


def _summary(desc: str, done: int, total: int, summary: Callable[[int], str]) -> str:
    line = summary(done) if done >= total else f"{summary(done)} sur {total} (interrompu)"
    return f"{desc} : {line}" if desc else line


@contextmanager
def progress_bar(total: int, desc: str = "", *,
                 summary: Callable[[int], str] = lambda n: plural(n, "élément traité")) -> Iterator[Any]:
    """A tqdm bar of ``total`` steps (call ``.update()``); in Jupyter, replaced at the end by the
    line ``f"{desc} : {summary(done)}"`` (module docstring)."""
    from tqdm.auto import tqdm
    from tqdm.notebook import tqdm as notebook_tqdm

    if not issubclass(tqdm, notebook_tqdm):  # terminal, tests: the text bar on stderr
        with tqdm(total=total, desc=desc) as bar:
            yield bar
        return

    from IPython.display import display

    bar = tqdm(total=total, desc=desc, display=False)
    handle = display(bar.container, display_id=True)
    try:
        yield bar
    finally:
        bar.close()
        handle.update({"text/plain": _summary(desc, bar.n, total, summary)}, raw=True)


def track(items: Iterable, desc: str = "", *, total: int | None = None,
          summary: Callable[[int], str] = lambda n: plural(n, "élément traité")) -> Iterator:
    """``items`` one by one, with ``progress_bar`` (``total`` defaults to ``len(items)``)."""
    items = list(items) if total is None and not hasattr(items, "__len__") else items
    with progress_bar(len(items) if total is None else total, desc, summary=summary) as bar:
        for item in items:
            yield item
            bar.update(1)
