"""show_trace, show_table, show_json, show_usage: HTML in Jupyter, plain text elsewhere,
deterministic, escaped, wrapped between words, token counts labelled by their source."""

from __future__ import annotations

import re

import pytest

from course_utils.agent import AgentRun, AgentStep
from course_utils.display import show_json, show_table, show_trace, show_usage
from course_utils.llm import ToolCall, Usage, UsageLedger

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
    assert html.count("<table") == 1
    for header in ("Étape", "Pensée", "Action", "Observation", "Jetons estimés"):
        assert f">{header}</th>" in html
    assert html.count("<tr>") == 1 + 3  # header + one row per tool call
    assert 'rowspan="2"' in html  # the two calls of step 1 share its step, thought and tokens
    assert "read_page(page_id=&quot;p1&quot;)" in html
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
        "Trace de l'agent — statut : finished — 2 étape(s), 280 jetons estimés par le simulateur, "
        "2 appel(s) au modèle")
    assert "[1] (120 jetons estimés)" in text
    assert "    Pensée : Je cherche les pages <pertinentes>." in text
    assert '    Action : search(query="Kanban 2025")' in text
    assert f"… [+{len(' '.join(LONG.split())) - 100} caractères]" in text.replace("\n      ", " ")
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


def test_the_finish_answer_is_shown_once(run):
    text, html = str(show_trace(run)), show_trace(run)._repr_html_()
    assert text.count("Acme.") == 1 and text.splitlines()[-1] == "Réponse : Acme."
    assert "    Action : finish\n    Observation : → réponse finale (ci-dessous)" in text
    assert html.count("Acme.") == 1 and "<b>Réponse :</b> Acme." in html


def test_tokens_say_whether_the_simulator_estimated_them(run):
    from dataclasses import replace

    real = replace(run, model="gpt-4o-mini")
    assert "280 jetons estimés par le simulateur" in str(show_trace(run))
    assert "280 jetons comptés par le fournisseur" in str(show_trace(real))
    assert "[1] (120 jetons)" in str(show_trace(real))
    assert ">Jetons</th>" in show_trace(real)._repr_html_()
    assert "estimés" not in show_trace(real)._repr_html_()


def test_large_numbers_have_a_thousands_separator(run):
    from dataclasses import replace

    big = replace(run, usage=Usage(21149, 550, 0, 21699, 12))
    assert "21\u202f699 jetons estimés" in str(show_trace(big))


def test_the_observation_column_gets_the_room_left_by_the_others(run):
    html = show_trace(run)._repr_html_()
    assert 'style="table-layout:fixed; width:100%"' in html
    cols = re.search(r"<colgroup>(.*?)</colgroup>", html).group(1)
    assert cols.count("<col") == 5 and "<col>" in cols  # the 4th (Observation) takes the rest
    assert "overflow-wrap:break-word" in html


def test_json_observations_are_pretty_printed_in_html(run):
    html = show_trace(run)._repr_html_()
    assert "[\n  {\n    &quot;id&quot;: &quot;p1&quot;," in html


MESSAGE = ("Erreur : l'outil « calculer » a échoué pendant son exécution (ValueError: élément "
           "interdit : Call). L'appel était bien formé : c'est l'outil lui-même qui a levé une "
           "exception. Essayez d'autres arguments ou une autre approche.")


def test_table_of_rows_in_html_and_text():
    rows = [{"appel": "calculer(expression=\"1 + 1\")", "type": "ok", "jetons": 120},
            {"appel": "calculer(expression=\"__import__('os')\")", "type": "erreur_dans_outil",
             "jetons": 21699, "message": MESSAGE}]
    table = show_table(rows, title="Deux appels", note="Une note <b>.")
    html = table._repr_html_()
    assert html.count("<tr>") == 3
    assert [h for h in re.findall(r">([^<>]+)</th>", html)] == ["appel", "type", "jetons",
                                                               "message"]
    assert 'style="text-align:right; vertical-align:top">21699</td>' in html
    assert "__import__(&#x27;os&#x27;)" in html and "Une note &lt;b&gt;." in html
    text = str(table)
    assert text.splitlines()[0] == "Deux appels"
    assert "—" in text.splitlines()[3]  # a missing cell shows a dash, not None


def test_text_table_wraps_long_cells_between_words():
    text = str(show_table([{"type": "erreur_dans_outil", "message": MESSAGE}]))
    assert max(len(line) for line in text.splitlines()) <= 20 + 2 + 60
    continuation = [line.strip() for line in text.splitlines()[2:]]
    assert " ".join(continuation).replace("erreur_dans_outil ", "", 1).strip() == MESSAGE


def test_a_dict_becomes_a_field_value_table():
    body = {"message": "Invalid parameter", "param": "messages.[1].role", "code": None}
    table = show_table(body)
    assert table.columns == ("champ", "valeur")
    assert "param    messages.[1].role" in str(table)
    assert "<td style=\"text-align:left; vertical-align:top\">code</td>" in table._repr_html_()


def test_json_is_pretty_printed_and_decoded_from_a_string():
    view = show_json('{"error": {"type": "outil_inconnu", "message": "« x » <n\'existe pas>"}}')
    assert str(view).splitlines()[:3] == ["{", '  "error": {', '    "type": "outil_inconnu",']
    assert "&lt;n&#x27;existe pas&gt;" in view._repr_html_()
    assert "white-space:pre-wrap" in view._repr_html_()
    long = str(show_json({"message": MESSAGE}))
    assert max(len(line) for line in long.splitlines()) <= 100
    assert all(word in long.split() for word in MESSAGE.split()[1:-1])  # no word is cut


def test_usage_table_names_the_source_of_its_tokens():
    offline, real = UsageLedger(), UsageLedger()
    offline.record("offline-fast", Usage(100, 20, 0, 120, 1))
    real.record("gpt-4o-mini", Usage(100, 20, 0, 120, 1))
    text = str(show_usage(offline))
    assert text.splitlines()[0].split() == ["modèle", "appels", "entrée", "sortie",
                                            "raisonnement", "total"]
    assert text.splitlines()[3].split() == ["TOTAL", "1", "100", "20", "0", "120"]
    assert "estimés par le simulateur" in text
    assert "comptés par le fournisseur" in str(show_usage(real))
    assert "estimés" not in str(show_usage(real))


def test_french_punctuation_stays_with_its_word_when_text_wraps():
    text = str(show_table([{"message": "x" * 50 + " « consulter_stock » : échec ; pourquoi ?"}]))
    body = "\n".join(text.splitlines()[2:])
    for piece in ("« consulter_stock »", "consulter_stock » :", "échec ;", "pourquoi ?"):
        assert piece.split()[0] in body
    assert not any(line.strip().startswith((":", ";", "?", "»")) for line in body.splitlines())
    assert not any(line.rstrip().endswith("«") for line in body.splitlines())
