"""The offline model's *ReAct* skill, through the real ``openai`` SDK.

A small fictional corpus lives in this file (six pages, of which three say that a competitor
added a Kanban board in 2025, and three are decoys). The tests drive a ReAct loop with a
``finish`` tool and check the trace a student reads: one thought per turn, the actions, when it
stops, and an answer made only of what the pages read say.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Literal

import pytest

from course_utils.offline import OfflineModel
from course_utils.offline.skills import SkillContext, react
from course_utils.offline.policy.research import stop_rule

MODEL = "offline-fast"

PAGES = {
    "p1": ("Acme lance un tableau Kanban",
           "Acme a ajouté un tableau Kanban à son application en mars 2025. Les cartes se "
           "déplacent par glisser-déposer."),
    "p2": ("Globex et le Kanban",
           "Globex propose un tableau Kanban depuis 2023. Aucune nouveauté n'est prévue."),
    "p3": ("Initech : un diagramme de Gantt",
           "Initech a ajouté un diagramme de Gantt en 2025, mais toujours pas de Kanban."),
    "p4": ("Umbrella ajoute le Kanban",
           "En juin 2025, Umbrella a ajouté un tableau Kanban pour ses clients."),
    "p5": ("Recette de la tarte aux pommes", "Épluchez les pommes et préchauffez le four."),
    "p6": ("Hooli teste le Kanban",
           "Hooli a ajouté en 2025 un tableau Kanban expérimental, réservé aux testeurs."),
}
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella", "Hooli")
TASK = "Quels concurrents ont ajouté un tableau Kanban en 2025 ?"


def fn(name, description, properties, required=()):
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": list(required)}}}


SEARCH = fn("search", "Cherche des pages dans le corpus.",
            {"query": {"type": "string", "description": "Requête"}}, ["query"])
READ = fn("read_page", "Lit une page du corpus.",
          {"page_id": {"type": "string", "description": "Identifiant de la page"}}, ["page_id"])
FINISH = fn("finish", "Termine la tâche avec la réponse finale.",
            {"answer": {"type": "string", "description": "La réponse finale"}}, ["answer"])
WEATHER = fn("get_weather", "Donne la météo actuelle d'une ville.",
             {"location": {"type": "string", "description": "Ville"}}, ["location"])
TIME = fn("get_time", "Donne l'heure actuelle dans un fuseau horaire.",
          {"timezone": {"type": "string", "description": "Fuseau IANA"}}, ["timezone"])
REMINDER = fn("create_reminder", "Crée un rappel.", {
    "title": {"type": "string", "description": "Titre"},
    "time": {"type": "string", "description": "Date et heure"}}, ["title", "time"])
MATH = [fn(name, desc, {"a": {"type": "number"}, "b": {"type": "number"}}, ["a", "b"])
        for name, desc in (("add", "Additionne deux nombres."), ("subtract", "Soustrait b de a."),
                           ("multiply", "Multiplie deux nombres."))]


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower())
                   if not unicodedata.combining(c))


def search(query: str) -> list[dict]:
    terms = set(re.findall(r"\w+", fold(query)))
    scored = []
    for page_id, (title, text) in PAGES.items():
        score = len(terms & set(re.findall(r"\w+", fold(f"{title} {text}"))))
        if score:
            scored.append((-score, page_id))
    return [{"id": p, "title": PAGES[p][0], "snippet": PAGES[p][1][:50]} for _, p in sorted(scored)]


def execute(name: str, args: dict):
    if name == "search":
        return search(args["query"])
    if name == "read_page":
        if args["page_id"] not in PAGES:
            return {"error": {"type": "erreur_dans_outil", "message": "page introuvable"}}
        return PAGES[args["page_id"]][1]
    if name == "get_weather":
        return {"temperature": 18, "condition": "nuageux"}
    if name == "get_time":
        return {"time": "14:32"}
    if name == "create_reminder":
        return {"status": "créé"}
    if name in ("add", "subtract", "multiply"):
        a, b = args["a"], args["b"]
        return {"result": {"add": a + b, "subtract": a - b, "multiply": a * b}[name]}
    raise AssertionError(name)


@pytest.fixture()
def client():
    return OfflineModel(seed=0).client()


def react_loop(client, tools, task, *, system=None, tool=execute, max_turns=14, **extra):
    """A minimal ReAct loop: returns the turns as (thought, [(name, args)]) and the answer."""
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": task}]
    turns = []
    for _ in range(max_turns):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools,
                                                  **extra)
        message = response.choices[0].message
        if not message.tool_calls:
            return turns, message.content
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
        turns.append((message.content, calls))
        if any(name == "finish" for name, _ in calls):
            assert len(calls) == 1, "finish must be alone in its turn"
            return turns, calls[0][1]["answer"]
        messages.append(message.model_dump(exclude_none=True))
        for call, (name, args) in zip(message.tool_calls, calls):
            result = tool(name, args)
            content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError(f"no finish after {max_turns} turns")


def all_calls(turns):
    return [call for _, calls in turns for call in calls]


def assert_no_repeat(turns):
    flat = [(name, json.dumps(args, sort_keys=True)) for name, args in all_calls(turns)]
    assert len(flat) == len(set(flat)), f"a call was repeated: {flat}"


def pages_read(turns):
    return [args["page_id"] for name, args in all_calls(turns) if name == "read_page"]


# --------------------------------------------------------------------------- research


def test_research_reads_relevant_pages_and_names_only_what_it_read(client):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH], TASK)
    assert all(thought and "\n" not in thought for thought, _ in turns)  # one-line thoughts
    assert all(len(calls) == 1 for _, calls in turns)
    assert turns[0][1][0][0] == "search" and "Kanban" in turns[0][1][0][1]["query"]
    assert_no_repeat(turns)
    read = pages_read(turns)
    assert "p5" not in read  # the off-topic page is never opened
    named = {c for c in COMPANIES if c in answer}
    assert named == {"Acme", "Umbrella", "Hooli"}  # the decoys (2023, Gantt) are left out
    read_companies = {c for c in COMPANIES for p in read if c in PAGES[p][1]}
    assert named <= read_companies


def test_stop_rule_on_sources_is_respected(client):
    system = "Tu es un agent de recherche. Arrête-toi dès que tu as deux sources concordantes."
    turns, answer = react_loop(client, [SEARCH, READ, FINISH], TASK, system=system)
    read = pages_read(turns)
    answering = [p for p in read if p in ("p1", "p4", "p6")]
    assert len(answering) == 2 and read[-1] in ("p1", "p4", "p6")  # stops right at the 2nd
    assert "2 sources concordantes" in turns[-1][0]
    assert len(read) < len(pages_read(react_loop(client, [SEARCH, READ, FINISH], TASK)[0]))


def test_stop_rule_on_pages_read_is_respected(client):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH], TASK,
                               system="Lis au plus 2 pages, puis réponds.")
    assert len(pages_read(turns)) == 2
    assert turns[-1][1][0][0] == "finish"


def test_stop_rules_parsed_from_french():
    assert stop_rule("trois sources concordantes ou huit pages lues") == stop_rule(
        "3 sources ou 8 pages lues")
    rule = stop_rule("Règle : trois sources concordantes ou huit pages lues.")
    assert (rule.sources, rule.pages) == (3, 8)
    assert stop_rule("Ne lis pas plus de 4 pages.").pages == 4
    assert stop_rule("Réponds vite.") == stop_rule("")


def test_singular_question_stops_at_the_first_answering_page(client):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH],
                               "En quelle année Globex a-t-il proposé un tableau Kanban ?")
    assert pages_read(turns)[-1] == "p2"
    assert "2023" in answer and "[p2]" in answer


def test_nothing_relevant_finishes_honestly(client):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH],
                               "Quel est le chiffre d'affaires de Zorglub en 1999 ?")
    assert_no_repeat(turns)
    assert not any(c in answer for c in COMPANIES)
    assert "aucun" in answer.lower()


def test_unreadable_page_is_skipped_not_retried(client):
    def flaky(name, args):
        if name == "read_page" and args["page_id"] == "p1":
            return {"error": {"type": "erreur_dans_outil", "message": "page introuvable"}}
        return execute(name, args)

    turns, answer = react_loop(client, [SEARCH, READ, FINISH], TASK, tool=flaky)
    assert pages_read(turns).count("p1") == 1
    assert "Acme" not in answer and "Umbrella" in answer


# --------------------------------------------------------------------------- ordinary tools + finish


def test_weather_then_finish_alone(client):
    turns, answer = react_loop(client, [WEATHER, FINISH], "Quel temps fait-il à Lyon ?")
    assert [calls for _, calls in turns] == [[("get_weather", {"location": "Lyon"})],
                                             [("finish", {"answer": answer})]]
    assert turns[0][0] and turns[1][0]  # a thought each turn
    assert "18" in answer and "nuageux" in answer


def test_three_intents_in_one_turn_then_finish(client):
    text = ("Quelle heure est-il à Paris et quel temps fait-il ? Crée aussi un rappel pour "
            "demain 9h : 'Réunion équipe'")
    turns, answer = react_loop(client, [TIME, WEATHER, REMINDER, FINISH], text)
    assert [name for name, _ in turns[0][1]] == ["get_time", "get_weather", "create_reminder"]
    assert len(turns) == 2 and turns[1][1][0][0] == "finish"
    assert "14:32" in answer and "18" in answer


def test_arithmetic_chain_then_finish(client):
    turns, answer = react_loop(client, MATH + [FINISH], "Calcule (10 - 3) * 2 + 4")
    assert [calls for _, calls in turns[:-1]] == [
        [("subtract", {"a": 10, "b": 3})], [("multiply", {"a": 7, "b": 2})],
        [("add", {"a": 14, "b": 4})]]
    assert "18" in answer


def test_tool_exception_finishes_honestly_without_repeating(client):
    def broken(name, args):
        return {"error": {"type": "erreur_dans_outil",
                          "message": "l'outil a levé une exception (TimeoutError: service lent)"}}

    turns, answer = react_loop(client, [WEATHER, FINISH], "Quel temps fait-il à Lyon ?",
                               tool=broken)
    assert [c[0] for c in all_calls(turns)] == ["get_weather", "finish"]
    assert "TimeoutError" in answer and "échoué" in answer


def test_missing_argument_is_corrected_once(client):
    seen = []

    def picky(name, args):
        seen.append(args)
        if name == "get_weather" and "unit" not in args:
            return {"error": {"type": "argument_manquant",
                              "message": "argument obligatoire manquant « unit »"}}
        return execute(name, args)

    weather = fn("get_weather", "Donne la météo.", {
        "location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "kelvin"]}},
        ["location"])
    turns, answer = react_loop(client, [weather, FINISH], "Quel temps fait-il à Lyon ?",
                               tool=picky)
    assert seen == [{"location": "Lyon"}, {"location": "Lyon", "unit": "celsius"}]
    assert "18" in answer and turns[1][0].startswith("L'appel précédent a échoué")


def test_unrelated_request_finishes_with_what_it_can_do(client):
    turns, answer = react_loop(client, [WEATHER, FINISH], "Achète-moi un billet d'avion")
    assert len(turns) == 1 and "get_weather" in answer and "Je ne peux pas" in answer


def test_invented_toolbox_with_finish(client):
    stock = fn("check_stock", "Vérifie le stock disponible d'un produit.", {
        "product": {"type": "string", "description": "Nom du produit"}}, ["product"])
    price = fn("get_price", "Donne le prix d'un produit.", {
        "product": {"type": "string", "description": "Nom du produit"}}, ["product"])

    def shop(name, args):
        return {"stock": 12} if name == "check_stock" else {"price": 3.5}

    turns, answer = react_loop(client, [stock, price, FINISH],
                               "Vérifie le stock de « café moulu » et donne son prix", tool=shop)
    assert turns[0][1] == [("check_stock", {"product": "café moulu"}),
                           ("get_price", {"product": "café moulu"})]
    assert "12" in answer and "3.5" in answer


def test_tool_choice_none_and_forced_finish(client):
    messages = [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}]
    message = client.chat.completions.create(model=MODEL, messages=messages,
                                             tools=[WEATHER, FINISH], tool_choice="none"
                                             ).choices[0].message
    assert not message.tool_calls and "get_weather" in message.content
    message = client.chat.completions.create(
        model=MODEL, messages=messages, tools=[WEATHER, FINISH],
        tool_choice={"type": "function", "function": {"name": "finish"}}).choices[0].message
    assert [c.function.name for c in message.tool_calls] == ["finish"]


# --------------------------------------------------------------------------- text format


REACT_PROMPT = """Tu résous la tâche en alternant Pensée, Action et Observation.
Actions disponibles :
- search[requête] : cherche des pages
- read_page[page_id] : lit une page
- finish[réponse] : donne la réponse finale
Format :
Pensée : ...
Action : search[...]
Observation : ...
"""


def text_loop(client, system, task, max_turns=12):
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    outputs = []
    for _ in range(max_turns):
        text = client.chat.completions.create(model=MODEL, messages=messages
                                              ).choices[0].message.content
        outputs.append(text)
        messages.append({"role": "assistant", "content": text})
        match = re.search(r"Action : (\w+)\[(.*)\]\s*$", text)
        if match is None or match.group(1) == "finish":
            return outputs
        result = execute(match.group(1), {"query" if match.group(1) == "search" else "page_id":
                                          match.group(2)})
        messages.append({"role": "user",
                         "content": "Observation : " + json.dumps(result, ensure_ascii=False)})
    raise AssertionError("no final answer")


def test_text_format_one_step_per_turn_until_finish(client):
    outputs = text_loop(client, REACT_PROMPT, TASK)
    assert all(o.startswith("Pensée : ") and o.count("Action : ") == 1 for o in outputs)
    assert outputs[0].endswith("]") and "Action : search[" in outputs[0]
    assert "Action : read_page[" in outputs[1]
    final = outputs[-1]
    assert "Action : finish[" in final and "Acme" in final and "Globex" not in final


def test_text_format_with_final_answer_label():
    system = ("Réponds au format Pensée / Action / Observation. Actions : "
              "\n- get_weather[ville] : météo d'une ville\nTermine par « Réponse finale : ... ».")
    request = {"model": MODEL, "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": "Quel temps fait-il à Nantes ?"},
        {"role": "assistant", "content": "Pensée : je regarde.\nAction : get_weather[Nantes]"},
        {"role": "user", "content": 'Observation : {"temperature": 12, "condition": "pluie"}'},
    ]}
    text = react.respond(request, SkillContext(seed=0, model=MODEL))
    assert text.startswith("Pensée : ") and "Réponse finale : " in text
    assert "12" in text and "pluie" in text
    request["messages"] = request["messages"][:2]
    assert react.respond(request, SkillContext(seed=0, model=MODEL)).endswith(
        "Action : get_weather[Nantes]")


def test_plain_chat_is_not_react():
    request = {"model": MODEL, "messages": [{"role": "user", "content": "Bonjour"}]}
    assert react.respond(request, SkillContext(seed=0, model=MODEL)) is None
    request["tools"] = [WEATHER]
    assert react.respond(request, SkillContext(seed=0, model=MODEL)) is None


# --------------------------------------------------------------------------- with run_agent


def test_run_agent_on_the_fake_corpus():
    from course_utils.agent import run_agent
    from course_utils.tools import Toolbox

    def search_pages(query: str) -> list:
        """Cherche des pages dans le corpus.

        Args:
            query: Requête.
        """
        return search(query)

    def read_page(page_id: str) -> str:
        """Lit une page du corpus.

        Args:
            page_id: Identifiant de la page.
        """
        return PAGES[page_id][1]

    model = OfflineModel(seed=0)
    run = run_agent(TASK, Toolbox([search_pages, read_page]), client=model.client(),
                    model=MODEL, max_steps=10)
    assert run.status == "finished"
    assert {c for c in COMPANIES if c in run.answer} == {"Acme", "Umbrella", "Hooli"}


def test_run_agent_recovers_from_the_toolbox_own_errors():
    from course_utils.agent import run_agent
    from course_utils.tools import Toolbox

    def get_weather(location: str, unit: str = "celsius") -> dict:
        """Donne la météo actuelle d'une ville.

        Args:
            location: Nom de la ville.
            unit: Unité de température.
        """
        return {"location": location, "temperature": 18, "condition": "nuageux"}

    bad_first_calls = iter([
        {"content": None, "tool_calls": [{"name": "get_meteo", "arguments": {"ville": "Lyon"}}]},
        {"content": None, "tool_calls": [{"name": "get_weather", "arguments": {}}]},
    ])
    model = OfflineModel(seed=0).responder(lambda request: next(bad_first_calls, None))
    run = run_agent("Quel temps fait-il à Lyon ?", Toolbox([get_weather]), client=model.client(),
                    model=MODEL, max_steps=6)
    names = [[c.name for c in step.tool_calls] for step in run.steps]
    assert names == [["get_meteo"], ["get_weather"], ["get_weather"], ["finish"]]
    assert run.steps[2].tool_calls[0].arguments == {"location": "Lyon"}
    assert run.status == "finished" and "18" in run.answer and "nuageux" in run.answer


# --------------------------------------------------------------------------- reported defects (H2b)


def meeting_tools():
    from course_utils.tools import tool

    def get_next_meeting() -> dict:
        """Donne la prochaine réunion de l'agenda de l'utilisateur."""
        return {"title": "Revue de projet", "city": "Marseille", "time": "2025-03-14 10:00"}

    def get_weather(location: str) -> dict:
        """Donne la météo actuelle d'une ville.

        Args:
            location: Ville, par exemple Lyon.
        """
        return {"location": location, "temperature": 19, "condition": "ensoleillé"}

    return [tool(get_next_meeting), tool(get_weather)]


def shop_tools():
    from course_utils.tools import tool

    def chercher_produit(requete: str) -> list:
        """Cherche des produits dans le catalogue.

        Args:
            requete: Mots-clés du produit.
        """
        return [{"ref": "CAF-001", "produit": "Café moulu 250 g"},
                {"ref": "THE-004", "produit": "Thé vert 100 g"}]

    def consulter_stock(ref: str) -> dict:
        """Donne la quantité en stock d'un produit.

        Args:
            ref: Référence du produit.
        """
        return {"ref": ref, "quantite": 42 if ref == "CAF-001" else 7}

    return [tool(chercher_produit), tool(consulter_stock)]


def planning_tools():
    """Lesson 01's « assistant de planification » tools (fixed fake data)."""
    from course_utils.tools import tool

    agenda = [{"heure": "09:30", "fin": "10:30", "titre": "Point d'équipe", "lieu": "Bureau Part-Dieu"},
              {"heure": "17:00", "fin": "18:30", "titre": "Atelier client", "lieu": "Confluence"}]
    trips = {("Bureau Part-Dieu", "Vieux Lyon"): 18, ("Confluence", "Vieux Lyon"): 14}

    def get_events(date: str) -> list[dict]:
        """Liste les rendez-vous de l'agenda de l'utilisateur pour un jour donné.

        Args:
            date: Le jour, par exemple « demain ».
        """
        return agenda if date.strip().lower() == "demain" else []

    def get_travel_time(origin: str, destination: str,
                        mode: Literal["walking", "transit", "driving"] = "transit") -> dict:
        """Donne le temps de trajet en minutes entre deux lieux de Lyon.

        Args:
            origin: Lieu de départ.
            destination: Lieu d'arrivée.
            mode: Moyen de transport.
        """
        return {"origin": origin, "destination": destination, "mode": mode,
                "duration_min": trips[(origin, destination)]}

    def book_table(restaurant: str, time: str, people: int) -> dict:
        """Réserve une table dans un restaurant.

        Args:
            restaurant: Nom du restaurant.
            time: Heure de la réservation, au format HH:MM.
            people: Nombre de personnes.
        """
        return {"restaurant": restaurant, "time": time, "people": people,
                "confirmation": "RES-001"}

    return [tool(get_events), tool(get_travel_time), tool(book_table)]


def run_of(task, tools, **options):
    from course_utils.agent import run_agent

    return run_agent(task, tools, client=OfflineModel(seed=0).client(), model=MODEL, **options)


def actions(run):
    return [(c.name, c.arguments) for c in run.tool_calls]


def test_best_effort_answer_uses_the_pages_read_and_says_it_is_partial():
    from course_utils.corpus import research_tools

    run = run_of("Pourquoi Ostraka a-t-il repoussé son tableau Kanban ?", research_tools(),
                 max_steps=2)
    assert run.status == "max_steps"
    assert [name for name, _ in actions(run)] == ["search", "read_page"]
    assert "reconstruire d'abord notre moteur de tâches" in run.answer and "p10" in run.answer
    assert "partielle" in run.answer and "aucun résultat" not in run.answer


def test_best_effort_answer_with_ordinary_tools_says_what_is_missing():
    run = run_of("Quel temps fait-il dans la ville de ma prochaine réunion ?", meeting_tools(),
                 max_steps=1)
    assert run.status == "max_steps" and actions(run) == [("get_next_meeting", {})]
    assert "Marseille" in run.answer and 'get_weather(location="Marseille")' in run.answer
    assert "partielle" in run.answer


def test_a_new_question_after_results_is_not_a_wrap_up(client):
    messages = [
        {"role": "user", "content": "Quel temps fait-il à Lyon ?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"location": "Lyon"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature": 18}'},
        {"role": "user", "content": "Et quel temps fait-il à Nantes ?"}]
    message = client.chat.completions.create(model=MODEL, messages=messages,
                                             tools=[WEATHER, FINISH]).choices[0].message
    assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [
        ("get_weather", {"location": "Nantes"})]


@pytest.mark.parametrize("task, page, quoted", [
    ("Pourquoi Ostraka a-t-il repoussé son tableau Kanban ?", "p10",
     "afin de reconstruire d'abord notre moteur de tâches"),
    ("Combien de salariés compte Lumenio ?", "p26", "40 salariés"),
])
def test_typed_questions_stop_at_the_page_that_answers_them(task, page, quoted):
    from course_utils.corpus import research_tools

    run = run_of(task, research_tools(), max_steps=30)
    assert run.status == "finished"
    assert [name for name, _ in actions(run)] == ["search", "read_page", "finish"]
    assert actions(run)[1][1] == {"page_id": page}
    assert quoted in run.answer and page in run.answer and "Aucune" not in run.answer


def test_kanban_2025_on_the_shipped_corpus_leaves_the_2024_decoys_out():
    from course_utils.corpus import research_tools

    run = run_of(TASK, research_tools(), max_steps=12)
    assert run.status == "finished"
    assert {"Quadrille", "Brindille"} <= {c for c in ("Quadrille", "Orvalis", "Brindille")
                                          if c in run.answer}
    assert "Mirabel" not in run.answer and "Tessel" not in run.answer


TYPED_PAGES = {
    "z1": ("Zéphyr Mobile : lancement repoussé",
           "Le lancement de notre application mobile est repoussé à l'automne, parce que les "
           "tests de sécurité ont révélé des failles. Les abonnés seront prévenus."),
    "z2": ("Zéphyr recrute", "Zéphyr a repoussé son salon annuel. La société emploie désormais "
                             "85 employés à Nantes."),
    "z3": ("Cuisine : le gratin", "Le gratin a repoussé les limites du goût."),
}


def typed_search(query: str) -> list[dict]:
    terms = set(re.findall(r"\w+", fold(query)))
    found = [(-len(terms & set(re.findall(r"\w+", fold(t + " " + x)))), p)
             for p, (t, x) in TYPED_PAGES.items()]
    return [{"id": p, "title": TYPED_PAGES[p][0], "snippet": TYPED_PAGES[p][1][:40]}
            for score, p in sorted(found) if score]


def typed_tool(name, args):
    if name == "search":
        return typed_search(args["query"])
    return TYPED_PAGES[args["page_id"]][1]


@pytest.mark.parametrize("task, page, expected", [
    ("Pourquoi Zéphyr a-t-il repoussé son application mobile ?", "z1", "parce que"),
    ("Combien d'employés compte Zéphyr ?", "z2", "85 employés"),
])
def test_typed_questions_on_an_invented_corpus(client, task, page, expected):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH], task, tool=typed_tool)
    assert pages_read(turns)[-1] == page and "z3" not in pages_read(turns)
    assert expected in answer and f"[{page}" in answer


def test_product_search_and_stock_lookup_are_not_a_document_corpus():
    run = run_of("Combien reste-t-il de café en stock ?", shop_tools(), max_steps=6)
    assert actions(run)[:2] == [("chercher_produit", {"requete": "café"}),
                                ("consulter_stock", {"ref": "CAF-001"})]
    assert run.status == "finished"
    assert run.answer.startswith("Réponse : 42") and "CAF-001" in run.answer
    assert "Aucune" not in run.answer and "aucun résultat" not in run.answer


def test_a_value_described_by_reference_is_read_from_an_earlier_result():
    run = run_of("Quel temps fait-il dans la ville de ma prochaine réunion ?", meeting_tools())
    assert actions(run)[:2] == [("get_next_meeting", {}),
                                ("get_weather", {"location": "Marseille"})]
    assert run.status == "finished" and "19" in run.answer and "ensoleillé" in run.answer
    assert run.steps[0].thought.startswith("Il me faut d'abord get_next_meeting()")


def test_lesson_01_planning_request_chains_agenda_trip_and_booking():
    task = ("Demain soir je dîne avec 3 amis au restaurant « Les Lyonnais », dans le Vieux Lyon. "
            "J'y vais depuis le lieu de mon dernier rendez-vous : réserve une table pour 4 "
            "personnes à l'heure où je peux arriver.")
    run = run_of(task, planning_tools(), max_steps=8)
    assert [[(c.name, c.arguments) for c in step.tool_calls] for step in run.steps[:3]] == [
        [("get_events", {"date": "demain"})],
        [("get_travel_time", {"origin": "Confluence", "destination": "Vieux Lyon"})],
        [("book_table", {"restaurant": "Les Lyonnais", "time": "18:44", "people": 4})],
    ]
    assert run.status == "finished" and "RES-001" in run.answer
    assert "durée : 14 min" in run.answer and "Heure de" not in run.answer


def test_temperature_varies_wording_not_actions():
    def runs(temperature):
        model = OfflineModel(seed=0)
        from course_utils.agent import run_agent
        return [run_agent("Quel temps fait-il à Lyon ?", meeting_tools()[1:], client=model.client(),
                          model=MODEL, temperature=temperature) for _ in range(3)]

    steady, varied = runs(0), runs(0.9)
    assert len({(r.steps[0].thought, r.answer) for r in steady}) == 1
    assert len({r.steps[0].thought for r in varied}) == 3  # three different samples
    assert {json.dumps(actions(r)[:1]) for r in varied} == {json.dumps(actions(steady[0])[:1])}
    assert all("19" in r.answer and "ensoleillé" in r.answer for r in varied)
    again = runs(0.9)  # reproducible: same seed, same sequence of samples
    assert [r.answer for r in again] == [r.answer for r in varied]


def test_temperature_varies_research_but_answers_only_from_pages_read(client):
    answers_seen, paths = set(), set()
    for _ in range(4):
        turns, answer = react_loop(client, [SEARCH, READ, FINISH], TASK, temperature=1.0)
        assert_no_repeat(turns)
        named = {c for c in COMPANIES if c in answer}
        assert named <= {c for c in COMPANIES for p in pages_read(turns) if c in PAGES[p][1]}
        assert "Globex" not in named and "Initech" not in named
        answers_seen.add(answer)
        paths.add(tuple(turn[0] for turn in turns))
    assert len(paths) > 1


# --------------------------------------------------------------------------- reported defects (H2c)


def test_planning_request_in_other_words_chains_agenda_trip_and_booking():
    task = ("Demain soir je dîne avec 3 amis au restaurant « Les Lyonnais », dans le Vieux Lyon. "
            "Regarde où se termine ma dernière réunion demain, calcule le trajet jusqu'au "
            "restaurant et réserve une table pour 4 personnes pour l'heure d'arrivée.")
    run = run_of(task, planning_tools(), max_steps=8)
    assert [[(c.name, c.arguments) for c in step.tool_calls] for step in run.steps[:3]] == [
        [("get_events", {"date": "demain"})],
        [("get_travel_time", {"origin": "Confluence", "destination": "Vieux Lyon"})],
        [("book_table", {"restaurant": "Les Lyonnais", "time": "18:44", "people": 4})],
    ]
    assert run.status == "finished" and "RES-001" in run.answer and "demain" not in json.dumps(
        [c.arguments for c in run.tool_calls if c.name == "book_table"])


def without_sources(answer: str) -> str:
    return re.sub(r"\[[^\]]*\]", "", answer)  # « [p08 : « titre ? »] » names a page, says nothing


def test_yes_no_question_answers_with_the_page_verdict_not_its_question():
    from course_utils.corpus import research_tools

    run = run_of("Lumenio propose-t-il un tableau Kanban ?", research_tools(), max_steps=30)
    assert run.status == "finished" and [n for n, _ in actions(run)] == [
        "search", "read_page", "finish"]
    assert run.answer.startswith("Pas encore.")
    assert "feuille de route pour 2026" in run.answer and "p08" in run.answer
    assert "?" not in without_sources(run.answer)


YES_NO_PAGES = {
    "y1": ("FAQ Zéphyr : un mode hors ligne ?",
           "Zéphyr propose-t-il un mode hors ligne ? Non. Le mode hors ligne n'est pas disponible "
           "dans Zéphyr : l'application a besoin d'une connexion."),
    "y2": ("Nouveautés de Zéphyr", "Depuis mars, Zéphyr propose un export PDF de tous les "
                                   "rapports. L'export Excel reste prévu pour 2026."),
    "y3": ("Forum : Zéphyr et le mode sombre", "Un utilisateur demande si Zéphyr a un mode sombre. "
                                               "Le mode sombre est prévu pour l'automne."),
}


def yes_no_tool(name, args):
    if name == "search":
        terms = set(re.findall(r"\w+", fold(args["query"]))) - {"zephyr", "propose", "il", "t"}
        return [{"id": p, "title": t, "snippet": x[:50]} for p, (t, x) in YES_NO_PAGES.items()
                if terms & set(re.findall(r"\w+", fold(t + " " + x)))]
    return YES_NO_PAGES[args["page_id"]][1]


@pytest.mark.parametrize("task, page, verdict, quoted", [
    ("Zéphyr propose-t-il un mode hors ligne ?", "y1", "Non.", "n'est pas disponible"),
    ("Zéphyr propose-t-il un export PDF ?", "y2", "Oui.", "export PDF de tous les rapports"),
    ("Est-ce que Zéphyr a un mode sombre ?", "y3", "Pas encore.", "prévu pour l'automne"),
])
def test_yes_no_questions_on_an_invented_corpus(client, task, page, verdict, quoted):
    turns, answer = react_loop(client, [SEARCH, READ, FINISH], task, tool=yes_no_tool)
    assert pages_read(turns)[-1] == page
    assert answer.startswith(verdict) and answer.count("[y") == 1
    assert quoted in answer and f"[{page}" in answer
    assert "?" not in without_sources(answer) and "demande si" not in answer


@pytest.mark.parametrize("max_steps, read", [(2, []), (3, ["p21"])])
def test_best_effort_keeps_the_unverified_snippets_whatever_was_read(max_steps, read):
    from course_utils.corpus import research_tools

    run = run_of(TASK, research_tools(), max_steps=max_steps)
    assert run.status == "max_steps"
    assert [a["page_id"] for n, a in actions(run) if n == "read_page"] == read
    assert "non vérifiés" in run.answer and "partielle" in run.answer
    assert "Quadrille" in run.answer and "[p23]" in run.answer and "[p13]" in run.answer
    if read:
        assert "aucune des pages lues (p21) ne répond" in run.answer


def test_singular_when_question_finishes_at_the_page_that_answers_it():
    from course_utils.corpus import research_tools

    task = "Quand le tableau Kanban d'Orvalis est-il devenu disponible pour tous ?"
    run = run_of(task, research_tools(), max_steps=30)
    assert run.status == "finished"
    assert actions(run)[:2] == [("search", actions(run)[0][1]), ("read_page", {"page_id": "p02"})]
    assert [n for n, _ in actions(run)] == ["search", "read_page", "finish"]
    assert "3 juin 2025" in run.answer and "[p02]" in run.answer
    two = run_of(task, research_tools(), max_steps=30,
                 system="Arrête-toi dès que deux sources concordantes répondent.")
    assert len([n for n, _ in actions(two) if n == "read_page"]) >= 2  # the stop rule asks more
