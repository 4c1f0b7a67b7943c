"""Showing results in a notebook: the trace of an agent run (HTML in Jupyter, text elsewhere).

``show_trace(run)`` returns a small object. Jupyter displays its ``_repr_html_`` (a table: step,
thought, action with its arguments, observation, tokens; long observations folded in a
``<details>``) when it is the last expression of a cell or passed to ``display()``; ``print()`` and
plain Python show its text form. The output is deterministic (no call ids, no timestamps, no
object addresses), so notebooks committed with outputs compare byte for byte, and every piece of
text coming from a model or a tool is HTML-escaped.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

_CELL = 'style="text-align:left; vertical-align:top"'


def _clip(text: str, limit: int) -> tuple[str, int]:
    """(text cut to ``limit`` characters, number of characters left out)."""
    if limit <= 0 or len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def _action(call: Any) -> str:
    return f"{call.name}({call.raw_arguments})"


def _rows(run: Any) -> list[dict]:
    """One row per tool call (or one per step without calls), as plain strings."""
    rows = []
    for step in run.steps:
        tokens = step.usage.total_tokens
        thought = step.thought or ""
        if step.tool_calls:
            for k, call in enumerate(step.tool_calls):
                observation = step.observations[k] if k < len(step.observations) else ""
                rows.append({"step": step.index, "thought": thought, "action": _action(call),
                             "observation": observation, "tokens": tokens, "first": k == 0,
                             "span": len(step.tool_calls)})
        else:
            action = "réponse finale" if step.answer is not None else "(aucune action)"
            rows.append({"step": step.index, "thought": thought, "action": action,
                         "observation": step.answer or "", "tokens": tokens, "first": True,
                         "span": 1})
    return rows


@dataclass(frozen=True)
class Trace:
    """A readable trace of an ``AgentRun`` (HTML for Jupyter, text for ``print``)."""

    run: Any
    max_chars: int = 300

    def _summary(self) -> str:
        run = self.run
        return (f"statut : {run.status} — {len(run.steps)} étape(s), {run.usage.total_tokens} "
                f"jetons, {run.usage.calls} appel(s) au modèle")

    def __str__(self) -> str:
        lines = [f"Trace de l'agent — {self._summary()}"]
        for row in _rows(self.run):
            if row["first"]:
                lines.append(f"[{row['step']}] ({row['tokens']} jetons)")
                if row["thought"]:
                    lines.append(f"    Pensée : {row['thought']}")
            lines.append(f"    Action : {row['action']}")
            if row["observation"]:
                text, left = _clip(" ".join(row["observation"].split()), self.max_chars)
                more = f"… [+{left} caractères]" if left else ""
                lines.append(f"    Observation : {text}{more}")
        if self.run.error:
            lines.append(f"Erreur : {self.run.error}")
        lines.append(f"Réponse : {self.run.answer}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def _observation_html(self, observation: str) -> str:
        text, left = _clip(observation, self.max_chars)
        if not left:
            return f"<pre style=\"white-space:pre-wrap; margin:0\">{html.escape(text)}</pre>"
        return (f"<details><summary>{html.escape(' '.join(text.split()))}… "
                f"({len(observation)} caractères)</summary>"
                f"<pre style=\"white-space:pre-wrap; margin:0\">{html.escape(observation)}</pre>"
                "</details>")

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th {_CELL}>{name}</th>" for name in
                       ("Étape", "Pensée", "Action", "Observation", "Jetons"))
        body = []
        for row in _rows(self.run):
            cells = []
            span = f' rowspan="{row["span"]}"' if row["span"] > 1 else ""
            if row["first"]:
                cells.append(f"<td {_CELL}{span}>{row['step']}</td>")
                cells.append(f"<td {_CELL}{span}>{esc(row['thought'])}</td>")
            cells.append(f"<td {_CELL}><code>{esc(row['action'])}</code></td>")
            cells.append(f"<td {_CELL}>{self._observation_html(row['observation'])}</td>")
            if row["first"]:
                cells.append(f"<td {_CELL}{span}>{row['tokens']}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        parts = [
            '<div class="course-trace">',
            f"<p><b>Trace de l'agent</b> — {esc(self._summary())}</p>",
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>",
        ]
        if self.run.error:
            parts.append(f"<p><b>Erreur :</b> {esc(self.run.error)}</p>")
        parts.append(f"<p><b>Réponse :</b> {esc(str(self.run.answer))}</p>")
        parts.append("</div>")
        return "\n".join(parts)


def show_trace(run: Any, *, max_chars: int = 300) -> Trace:
    """A readable trace of ``run``: an HTML table in Jupyter, plain text with ``print``.

    Observations longer than ``max_chars`` characters are folded (``<details>`` in HTML, cut with
    the number of characters left out in text).
    """
    return Trace(run, max_chars)


__all__ = ["Trace", "show_trace"]
