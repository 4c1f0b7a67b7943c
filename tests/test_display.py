"""show_trace: an HTML table in Jupyter, plain text elsewhere, deterministic and escaped."""

from __future__ import annotations

import re

import pytest

from course_utils.agent import AgentRun, AgentStep
from course_utils.display import show_trace
from course_utils.llm import ToolCall, Usage

LONG = "Page 1 : " + "le tableau Kanban arrive en 2025. " * 20  # ~680 characters


def call(call_id: str, name: str, raw: str) -> ToolCall:
    import json

    return ToolCall(id=call_id, name=name, arguments=json.loads(raw), raw_arguments=raw)


@pytest.fixture
def run() -> AgentRun:
    steps = (
        AgentStep(1, "Je cherche les pages <pertinentes>.",
                  (call("call_AAAAAAAAA", "search", '{"query": "Kanban 2025"}'),
                   call("call_BBBBBBBBB", "read_page", '{"page_id": "p1"}')),
                  ('[{"id": "p1", "title": "Acme & co"}]', LONG),
                  Usage(100, 20, 0, 120, 1)),
        AgentStep(2, None, (call("call_CCCCCCCCC", "finish", '{"answer": "Acme."}'),),
                  ("Acme.",), Usage(150, 10, 0, 160, 1), answer="Acme."),
    )
    return AgentRun(answer="Acme.", status="finished", steps=steps, usage=Usage(250, 30, 0, 280, 2),
                    model="offline-fast", task="Qui a ajouté un Kanban ?")


def test_html_is_a_table_with_the_five_columns(run):
    html = show_trace(run)._repr_html_()
    assert html.count("<table>") == 1
    for header in ("Étape", "Pensée", "Action", "Observation", "Jetons"):
        assert f">{header}</th>" in html
    assert html.count("<tr>") == 1 + 3  # header + one row per tool call
    assert 'rowspan="2"' in html  # the two calls of step 1 share its step, thought and tokens
    assert "read_page({&quot;page_id&quot;: &quot;p1&quot;})" in html
    assert ">120</td>" in html and ">160</td>" in html
    assert "statut : finished" in html and "<b>Réponse :</b> Acme." in html


def test_html_escapes_model_and_tool_text(run):
    html = show_trace(run)._repr_html_()
    assert "&lt;pertinentes&gt;" in html and "<pertinentes>" not in html
    assert "Acme &amp; co" in html


def test_long_observation_is_folded_in_details(run):
    html = show_trace(run, max_chars=100)._repr_html_()
    assert html.count("<details>") == 1
    details = re.search(r"<details><summary>(.*?)</summary>(.*?)</details>", html, re.S)
    assert details.group(1).endswith(f"… ({len(LONG)} caractères)")
    assert len(details.group(1)) < 150
    assert LONG.strip() in details.group(2)  # the whole text is still there, folded
    assert "<details>" not in show_trace(run, max_chars=10_000)._repr_html_()


def test_text_mode_cuts_long_observations(run):
    text = str(show_trace(run, max_chars=100))
    assert text.splitlines()[0] == (
        "Trace de l'agent — statut : finished — 2 étape(s), 280 jetons, 2 appel(s) au modèle")
    assert "    Pensée : Je cherche les pages <pertinentes>." in text
    assert '    Action : search({"query": "Kanban 2025"})' in text
    assert f"… [+{len(' '.join(LONG.split())) - 100} caractères]" in text
    assert text.splitlines()[-1] == "Réponse : Acme."


def test_output_is_deterministic_without_call_ids(run):
    a, b = show_trace(run), show_trace(run)
    assert a._repr_html_() == b._repr_html_() and str(a) == str(b)
    assert "call_" not in a._repr_html_() and "call_" not in str(a)
    assert "0x" not in a._repr_html_() and "0x" not in str(a)


def test_jupyter_shows_html_and_print_shows_text(run):
    from IPython.core.formatters import DisplayFormatter
    from IPython.lib.pretty import pretty

    trace = show_trace(run)
    data, _ = DisplayFormatter().format(trace)
    assert data["text/html"] == trace._repr_html_()
    assert data["text/plain"] == str(trace)
    assert pretty(trace) == str(trace)


def test_error_and_plain_answer_steps_are_shown():
    run = AgentRun(answer="Je n'ai pas pu terminer : clé refusée.", status="error",
                   steps=(AgentStep(1, None, (), (), Usage(), answer=None),),
                   error="clé refusée par offline (401)")
    text, html = str(show_trace(run)), show_trace(run)._repr_html_()
    assert "Erreur : clé refusée par offline (401)" in text
    assert "<b>Erreur :</b> clé refusée par offline (401)" in html
    assert "(aucune action)" in text
