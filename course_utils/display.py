"""Showing results in a notebook: agent traces, tables, JSON and token usage (HTML in Jupyter,
text elsewhere).

Each ``show_*`` function returns a small frozen object. Jupyter displays its ``_repr_html_`` when
it is the last expression of a cell or passed to ``display()``; ``print()`` and plain Python show
its text form. Long text wraps between words, never inside one (in HTML the browser wraps it; in
text the lines are cut at spaces), so a long error message stays readable.

* ``show_trace(run)``: the trace of an ``AgentRun`` (step, thought, action, observation, tokens;
  long observations folded in a ``<details>``; the final answer shown once).
* ``show_table(rows)``: a list of dicts (one per row) or one dict (field → value) as a table.
* ``show_json(data)``: a dict, a list or a JSON string, pretty-printed.
* ``show_usage(ledger)``: a ``UsageLedger`` as a table, saying where its token counts come from.

Token counts are labelled by their source, decided from the model name: ``offline-*`` models are
the course's simulator, whose counts are *estimates*; any other model's counts are those its
provider returned in ``usage``. The output is deterministic (no call ids, no timestamps, no object
addresses), so notebooks committed with outputs compare byte for byte, and every piece of text
coming from a model or a tool is HTML-escaped.
"""

from __future__ import annotations

import html
import json
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_CELL = 'style="text-align:left; vertical-align:top"'
_NUM = 'style="text-align:right; vertical-align:top"'
_PRE = 'style="white-space:pre-wrap; overflow-wrap:break-word; margin:0"'
_WIDTH = 100  # text mode: lines are wrapped (between words) at this width

ESTIMATED = "estimés par le simulateur"
COUNTED = "comptés par le fournisseur"


def is_simulated(model: str | None) -> bool:
    """True for the course's offline simulator (model names ``offline-*``)."""
    return str(model or "").startswith("offline")


def token_source(models: str | Iterable[str] | None) -> str:
    """« estimés par le simulateur » when every model is offline, else « comptés par le fournisseur »."""
    if models is None or isinstance(models, str):
        models = [models or ""]
    models = list(models)
    return ESTIMATED if models and all(is_simulated(m) for m in models) else COUNTED


def _number(n: int) -> str:
    """21699 → « 21 699 » (French thousands separator, a narrow no-break space)."""
    return f"{n:,}".replace(",", "\u202f")


def _clip(text: str, limit: int) -> tuple[str, int]:
    """(text cut to ``limit`` characters, number of characters left out)."""
    if limit <= 0 or len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


_GLUE = "\u00a0"  # textwrap only breaks at ASCII whitespace
_FRENCH_SPACES = (("« ", "«" + _GLUE), (" »", _GLUE + "»"), (" :", _GLUE + ":"),
                  (" ;", _GLUE + ";"), (" ?", _GLUE + "?"), (" !", _GLUE + "!"))


def _wrap_words(text: str, width: int, **options: Any) -> list[str]:
    """``textwrap.wrap`` that never cuts a word, nor separates « » : ; ? ! from their word."""
    glued = text.replace(_GLUE, "\x00")
    for plain, tied in _FRENCH_SPACES:
        glued = glued.replace(plain, tied)
    lines = textwrap.wrap(glued, width, break_long_words=False, break_on_hyphens=False,
                          **options)
    return [line.replace(_GLUE, " ").replace("\x00", _GLUE) for line in lines]


def _wrap(text: str, width: int = _WIDTH, indent: str = "") -> str:
    """Wrap each line of ``text`` between words; continuation lines get ``indent`` more."""
    out = []
    for line in text.splitlines() or [""]:
        lead = line[: len(line) - len(line.lstrip())]
        out.extend(_wrap_words(line, width, subsequent_indent=lead + indent) or [line])
    return "\n".join(out)


def _as_data(value: Any) -> Any:
    """A JSON string decoded to data; anything else unchanged."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in "{[":
            try:
                return json.loads(stripped)
            except ValueError:
                return value
    return value


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _cell_text(value: Any) -> str:
    """One table cell as text: strings as they are, data as compact JSON."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Shown:
    """Text for ``print``/``repr``/IPython's pretty printer; subclasses add ``_repr_html_``."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


# --- show_json ---------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class JSONView(_Shown):
    """Pretty-printed JSON (HTML ``<pre>`` that wraps between words; text wrapped at spaces)."""

    data: Any
    title: str | None = None

    def __str__(self) -> str:
        body = _wrap(_pretty(self.data), indent="  ")
        return f"{self.title}\n{body}" if self.title else body

    def _repr_html_(self) -> str:
        title = f"<p><b>{html.escape(self.title)}</b></p>" if self.title else ""
        return f"{title}<pre {_PRE}>{html.escape(_pretty(self.data))}</pre>"


def show_json(data: Any, *, title: str | None = None) -> JSONView:
    """``data`` (a dict, a list, or a JSON string, decoded first) pretty-printed."""
    return JSONView(_as_data(data), title)


# --- show_table --------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Table(_Shown):
    """Rows of a table (HTML ``<table>``, or aligned text columns wrapped between words)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    title: str | None = None
    note: str | None = None
    max_width: int = 60  # text mode: widest a column may be before its cells wrap

    def _text_lines(self) -> list[str]:
        cells = [[_cell_text(v) for v in row] for row in self.rows]
        widths = []
        for i, name in enumerate(self.columns):
            longest = max([len(name)] + [len(r[i]) for r in cells])
            widths.append(min(longest, max(self.max_width, len(name))))
        numeric = [all(_is_number(row[i]) for row in self.rows) and self.rows
                   for i in range(len(self.columns))]

        def line(values: list[str]) -> list[str]:
            wrapped = [_wrap_words(v, w) or [""] for v, w in zip(values, widths)]
            height = max(len(w) for w in wrapped)
            out = []
            for k in range(height):
                parts = []
                for i, w in enumerate(wrapped):
                    piece = w[k] if k < len(w) else ""
                    parts.append(piece.rjust(widths[i]) if numeric[i] else piece.ljust(widths[i]))
                out.append("  ".join(parts).rstrip())
            return out

        lines = line(list(self.columns))
        lines.append("  ".join("─" * w for w in widths))
        for row in cells:
            lines.extend(line(row))
        return lines

    def __str__(self) -> str:
        lines = ([self.title] if self.title else []) + self._text_lines()
        if self.note:
            lines.append(_wrap(self.note))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th {_CELL}>{esc(name)}</th>" for name in self.columns)
        body = []
        for row in self.rows:
            cells = []
            for value in row:
                if _is_number(value):
                    cells.append(f"<td {_NUM}>{esc(str(value))}</td>")
                elif isinstance(value, (dict, list, tuple)):
                    cells.append(f"<td {_CELL}><pre {_PRE}>{esc(_cell_text(value))}</pre></td>")
                else:
                    cells.append(f"<td {_CELL}>{esc(_cell_text(value))}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        parts = []
        if self.title:
            parts.append(f"<p><b>{esc(self.title)}</b></p>")
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
        if self.note:
            parts.append(f"<p><i>{esc(self.note)}</i></p>")
        return "\n".join(parts)


def show_table(rows: Iterable[Mapping[str, Any]] | Mapping[str, Any], *,
               columns: Iterable[str] | None = None, title: str | None = None,
               note: str | None = None) -> Table:
    """A table: one row per dict of ``rows`` (columns in first-seen order unless ``columns`` is
    given), or, for a single dict, one row per key (« champ », « valeur »)."""
    if isinstance(rows, Mapping):
        return Table(("champ", "valeur"), tuple((str(k), v) for k, v in rows.items()), title,
                     note)
    rows = [dict(r) for r in rows]
    if columns is None:
        columns = list(dict.fromkeys(k for r in rows for k in r))
    columns = tuple(columns)
    return Table(columns, tuple(tuple(r.get(c) for c in columns) for r in rows), title, note)


# --- show_usage --------------------------------------------------------------------------------


def show_usage(ledger: Any) -> Table:
    """A ``UsageLedger`` as a table (one row per model, then the total), with a note saying
    whether its tokens were estimated by the simulator or counted by the provider."""
    names = ("modèle", "appels", "entrée", "sortie", "raisonnement", "total")
    by_model = sorted(ledger.by_model.items())
    rows = [(m, u.calls, u.prompt_tokens, u.completion_tokens, u.reasoning_tokens, u.total_tokens)
            for m, u in by_model]
    t = ledger.total
    rows.append(("TOTAL", t.calls, t.prompt_tokens, t.completion_tokens, t.reasoning_tokens,
                 t.total_tokens))
    source = token_source([m for m, _ in by_model])
    if source == ESTIMATED:
        note = ("Jetons estimés par le simulateur hors ligne, à partir du texte ; avec une clé, "
                "ce sont ceux que le fournisseur compte (et facture).")
    else:
        note = "Jetons comptés par le fournisseur (l'objet usage de chaque réponse)."
    return Table(names, tuple(rows), None, note)


# --- show_trace --------------------------------------------------------------------------------


def _action(call: Any) -> str:
    """``name(key="value", n=4)``: readable and wrappable; the raw text if it is not a JSON object."""
    arguments = getattr(call, "arguments", None)
    if not isinstance(arguments, dict):
        return f"{call.name}({call.raw_arguments})"
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{call.name}({shown})"


FINAL = "→ réponse finale (ci-dessous)"


def _rows(run: Any) -> list[dict]:
    """One row per tool call (or one per step without calls), as plain strings.

    ``finish`` and a plain-text answer carry the final answer, shown once under the table: their
    row says so instead of repeating it as an action argument and an observation.
    """
    rows = []
    for step in run.steps:
        tokens = step.usage.total_tokens
        thought = step.thought or ""
        if step.tool_calls:
            for k, call in enumerate(step.tool_calls):
                observation = step.observations[k] if k < len(step.observations) else ""
                action = _action(call)
                if call.name == "finish":
                    action, observation = "finish", FINAL
                rows.append({"step": step.index, "thought": thought, "action": action,
                             "observation": observation, "tokens": tokens, "first": k == 0,
                             "span": len(step.tool_calls)})
        else:
            action = "réponse en texte" if step.answer is not None else "(aucune action)"
            rows.append({"step": step.index, "thought": thought, "action": action,
                         "observation": FINAL if step.answer is not None else "",
                         "tokens": tokens, "first": True, "span": 1})
    return rows


@dataclass(frozen=True, repr=False)
class Trace(_Shown):
    """A readable trace of an ``AgentRun`` (HTML for Jupyter, text for ``print``)."""

    run: Any
    max_chars: int = 300

    @property
    def estimated(self) -> bool:
        return is_simulated(getattr(self.run, "model", ""))

    def _summary(self) -> str:
        run = self.run
        source = ESTIMATED if self.estimated else COUNTED
        return (f"statut : {run.status} — {len(run.steps)} étape(s), "
                f"{_number(run.usage.total_tokens)} jetons {source}, "
                f"{run.usage.calls} appel(s) au modèle")

    def __str__(self) -> str:
        unit = "jetons estimés" if self.estimated else "jetons"
        lines = [f"Trace de l'agent — {self._summary()}"]
        for row in _rows(self.run):
            if row["first"]:
                lines.append(f"[{row['step']}] ({_number(row['tokens'])} {unit})")
                if row["thought"]:
                    lines.append(_wrap(f"    Pensée : {row['thought']}", indent="      "))
            lines.append(_wrap(f"    Action : {row['action']}", indent="      "))
            if row["observation"]:
                text, left = _clip(" ".join(row["observation"].split()), self.max_chars)
                more = f"… [+{left} caractères]" if left else ""
                lines.append(_wrap(f"    Observation : {text}{more}", indent="      "))
        if self.run.error:
            lines.append(_wrap(f"Erreur : {self.run.error}"))
        lines.append(f"Réponse : {self.run.answer}")
        return "\n".join(lines)

    def _observation_html(self, observation: str) -> str:
        if observation == FINAL:
            return f"<i>{html.escape(FINAL)}</i>"
        data = _as_data(observation)
        full = _pretty(data) if isinstance(data, (dict, list)) else observation
        text, left = _clip(observation, self.max_chars)
        if not left:
            return f"<pre {_PRE}>{html.escape(full)}</pre>"
        return (f"<details><summary>{html.escape(' '.join(text.split()))}… "
                f"({len(observation)} caractères)</summary>"
                f"<pre {_PRE}>{html.escape(full)}</pre>"
                "</details>")

    def _repr_html_(self) -> str:
        esc = html.escape
        names = ("Étape", "Pensée", "Action", "Observation",
                 "Jetons estimés" if self.estimated else "Jetons")
        head = "".join(f"<th {_CELL}>{name}</th>" for name in names)
        # Fixed layout: the observation gets the room left by the narrow columns.
        cols = ("<colgroup><col style=\"width:4em\"><col style=\"width:22%\">"
                "<col style=\"width:24%\"><col><col style=\"width:6em\"></colgroup>")
        body = []
        for row in _rows(self.run):
            cells = []
            span = f' rowspan="{row["span"]}"' if row["span"] > 1 else ""
            if row["first"]:
                cells.append(f"<td {_CELL}{span}>{row['step']}</td>")
                cells.append(f"<td {_CELL}{span}>{esc(row['thought'])}</td>")
            cells.append(f"<td {_CELL}><code style=\"white-space:pre-wrap; "
                         f"overflow-wrap:break-word\">{esc(row['action'])}</code></td>")
            cells.append(f"<td {_CELL}>{self._observation_html(row['observation'])}</td>")
            if row["first"]:
                cells.append(f"<td {_NUM}{span}>{_number(row['tokens'])}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        answer = esc(str(self.run.answer)).replace("\n", "<br>")
        parts = [
            '<div class="course-trace">',
            f"<p><b>Trace de l'agent</b> — {esc(self._summary())}</p>",
            f'<table style="table-layout:fixed; width:100%">{cols}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>",
        ]
        if self.run.error:
            parts.append(f"<p><b>Erreur :</b> {esc(self.run.error)}</p>")
        parts.append(f"<p><b>Réponse :</b> {answer}</p>")
        parts.append("</div>")
        return "\n".join(parts)


def show_trace(run: Any, *, max_chars: int = 300) -> Trace:
    """A readable trace of ``run``: an HTML table in Jupyter, plain text with ``print``.

    Observations longer than ``max_chars`` characters are folded (``<details>`` in HTML, cut with
    the number of characters left out in text). The final answer is shown once, under the table.
    """
    return Trace(run, max_chars)


__all__ = ["JSONView", "Table", "Trace", "is_simulated", "show_json", "show_table", "show_trace",
           "show_usage", "token_source"]
