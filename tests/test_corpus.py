"""The offline research corpus of lesson 02: search, read_page, query_internal_base and their tools."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from course_utils import corpus
from course_utils.corpus import Corpus, PageNotFoundError
from course_utils.tools import Toolbox

TASK = "Quels concurrents ont ajouté un tableau Kanban en 2025 ?"


@pytest.fixture(scope="module")
def shipped() -> Corpus:
    return corpus.default_corpus()


def by_id(c: Corpus, page_id: str):
    return c.page(page_id)


# --------------------------------------------------------------------------- the data


def test_shipped_corpus_is_a_few_dozen_dated_fictional_pages(shipped):
    assert 24 <= len(shipped.pages) <= 60
    assert len(set(shipped.ids)) == len(shipped.ids)
    assert "FICTIF" in shipped.note
    for page in shipped.pages:
        assert re.fullmatch(r"20\d\d-\d\d-\d\d", page.date), page.id
        assert page.title and page.source and 80 <= len(page.text) <= 700, page.id


def test_corpus_holds_the_2025_answers_the_2024_decoys_and_a_contradiction(shipped):
    def kanban_pages(year):
        return {p.id for p in shipped.pages if p.date.startswith(year) and "Kanban" in p.text}

    # three competitors' own pages announce a Kanban board released in 2025
    for page_id, company in (("p01", "Quadrille"), ("p02", "Orvalis"), ("p03", "Brindille")):
        page = by_id(shipped, page_id)
        assert page.date.startswith("2025") and company in page.text and "officiel" in page.source
    # decoys: Kanban boards released in 2024
    assert {"p04", "p05"} <= kanban_pages("2024")
    # a forum rumour says Lumenio added one in 2025; Lumenio's own FAQ says it did not
    assert "ajouté un tableau Kanban en 2025" in by_id(shipped, "p07").text
    assert "Pas encore" in by_id(shipped, "p08").text


def test_internal_base_is_a_small_stale_product_table(shipped):
    result = shipped.query_internal_base("")
    assert result["mise_a_jour"] == "2024-12-31"
    products = [row["produit"] for row in result["lignes"]]
    assert "Planora" in products and len(products) >= 6
    roles = {row["produit"]: row["role"] for row in result["lignes"]}
    assert roles["Planora"] == "notre produit" and roles["Quadrille"] == "concurrent"


# --------------------------------------------------------------------------- search


def test_search_returns_ranked_id_title_snippet_results(shipped):
    results = corpus.search(TASK)
    assert 1 <= len(results) <= 5
    for result in results:
        assert set(result) == {"id", "title", "snippet"}
        assert result["id"] in shipped.ids
        assert len(result["snippet"]) <= corpus.SNIPPET_CHARS
    scores = [score for score, _ in shipped.scores(TASK)]
    assert scores == sorted(scores, reverse=True)
    assert [r["id"] for r in results] == [p.id for _, p in shipped.scores(TASK)[:5]]


def test_search_ranking_is_useful_and_deterministic(shipped):
    assert corpus.search(TASK) == corpus.search(TASK)
    # the page summing up the three 2025 launches is among the first results of the task's question
    assert "p13" in [r["id"] for r in corpus.search(TASK, k=3)]
    for company, official in (("Quadrille", "p01"), ("Orvalis", "p02"), ("Brindille", "p03")):
        top = [r["id"] for r in corpus.search(f"{company} Kanban", k=4)]
        assert official in top, (company, top)
        assert all(company in by_id(shipped, i).title + by_id(shipped, i).text for i in top)


def test_search_ignores_case_accents_and_simple_inflections(shipped):
    assert corpus.search("KANBAN Orvalis") == corpus.search("kanban orvalis")
    assert corpus.search("ajoutés") == corpus.search("ajoute")
    assert corpus.search("tableaux") == corpus.search("tableau")


def test_search_respects_k_and_returns_nothing_for_unknown_words():
    assert len(corpus.search("Kanban", k=2)) == 2
    assert len(corpus.search("Kanban", k=20)) > 5
    assert corpus.search("Kanban", k=0) == []
    assert corpus.search("zzyzx qwertz") == []
    assert corpus.search("le la les") == []


def test_snippet_is_the_sentence_that_matches_the_query(shipped):
    (first,) = corpus.search("Ostraka repoussé 2026", k=1)
    assert first["id"] == "p10"
    assert "repousser" in first["snippet"] or "2026" in first["snippet"]


# --------------------------------------------------------------------------- read_page


def test_read_page_gives_title_source_date_and_text(shipped):
    text = corpus.read_page("p02")
    page = by_id(shipped, "p02")
    assert text.startswith("[p02] " + page.title)
    assert page.source in text and "publié le 2025-06-03" in text and page.text in text
    assert corpus.read_page("  P02 ") == text


def test_read_page_unknown_id_raises_a_clear_french_error():
    with pytest.raises(PageNotFoundError) as info:
        corpus.read_page("p99")
    message = str(info.value)
    assert "page inconnue" in message and "p99" in message and "search" in message
    assert isinstance(info.value, LookupError)


# --------------------------------------------------------------------------- internal base


def test_query_internal_base_finds_rows_by_words(shipped):
    rows = corpus.query_internal_base("Quadrille")["lignes"]
    assert [r["produit"] for r in rows] == ["Quadrille"]
    assert rows[0]["prix_mensuel_eur"] == 8
    ranked = corpus.query_internal_base("concurrent Kanban")["lignes"]
    assert {r["produit"] for r in ranked[:2]} == {"Mirabel Tasks", "Tessel"}
    assert all(r["role"] == "concurrent" or "Kanban" in r["vues"] for r in ranked)
    assert corpus.query_internal_base("zzyzx")["lignes"] == []


def test_query_internal_base_returns_copies(shipped):
    corpus.query_internal_base("Quadrille")["lignes"][0]["prix_mensuel_eur"] = 0
    assert corpus.query_internal_base("Quadrille")["lignes"][0]["prix_mensuel_eur"] == 8


# --------------------------------------------------------------------------- tools


def test_ready_made_tools_have_french_schemas_and_work_in_a_toolbox():
    box = Toolbox(corpus.research_tools())
    assert box.names == ["search", "read_page", "query_internal_base"]
    for schema in box.schemas:
        function = schema["function"]
        assert function["description"] and function["parameters"]["required"]
    assert box.get("search").parameters["required"] == ["query"]

    found = box.run({"id": "call_1", "name": "search", "arguments": '{"query": "Brindille Kanban"}'})
    assert found["role"] == "tool" and found["tool_call_id"] == "call_1"
    assert "p03" in [r["id"] for r in json.loads(found["content"])]

    page = box.run({"id": "call_2", "name": "read_page", "arguments": {"page_id": "p03"}})
    assert "Brindille" in page["content"]


def test_unknown_page_through_the_toolbox_is_a_readable_error_not_a_crash():
    box = Toolbox(corpus.research_tools())
    result = box.call({"id": "call_1", "name": "read_page", "arguments": {"page_id": "p404"}})
    assert result.error_type == "erreur_dans_outil"
    assert "page inconnue" in result.content and "p404" in result.content


def test_tools_can_be_built_over_another_corpus():
    tiny = Corpus.from_dict({"pages": [
        {"id": "a1", "title": "Chats", "source": "s", "date": "2025-01-01",
         "text": "Les chats dorment beaucoup."},
        {"id": "a2", "title": "Chiens", "source": "s", "date": "2025-01-02",
         "text": "Les chiens aboient."},
    ]})
    search, read_page, base = tiny.tools()
    assert [r["id"] for r in search("chiens")] == ["a2"]
    assert "aboient" in read_page("a2")
    assert base("chiens") == {"base": "base interne", "mise_a_jour": "", "lignes": []}
    with pytest.raises(ValueError):
        Corpus.from_dict({"pages": [tiny.pages[0].__dict__, tiny.pages[0].__dict__]})


def test_research_tools_run_inside_the_agent_loop():
    from course_utils.agent import run_agent
    from course_utils.testing import ScriptedModel, finish, tool_call, turn

    with ScriptedModel([
        turn(tool_call("search", query="Orvalis Kanban"), thought="Je cherche."),
        turn(tool_call("read_page", page_id="p02"), thought="Je lis le communiqué."),
        finish("Orvalis (juin 2025)."),
    ]) as model:
        run = run_agent(TASK, corpus.research_tools(), client=model.client, model="offline-fast")
    assert run.status == "finished" and run.answer == "Orvalis (juin 2025)."
    assert "p02" in run.steps[0].observations[0]
    assert "3 juin 2025" in run.steps[1].observations[0]


def test_importing_the_module_reads_no_file():
    code = ("import course_utils.corpus as c; "
            "assert c.default_corpus.cache_info().currsize == 0; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
