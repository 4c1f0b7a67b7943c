"""The offline model's *tool use* skill, through the real ``openai`` SDK.

Each test plays a student's function-calling loop against ``OfflineModel`` and checks what a user
sees: which calls come in which turn, with which arguments, and a French answer that quotes the
tool results and nothing else. Schemas are written here as a student writes them by hand.
"""

from __future__ import annotations

import json
import re

import pytest

from course_utils.offline import OfflineModel
from course_utils.offline.skills import SkillContext, tool_use

MODEL = "offline-fast"


def fn(name, description, properties, required=()):
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": list(required)}}}


def string(description="", **extra):
    return {"type": "string", "description": description, **extra}


def number(description="", kind="number"):
    return {"type": kind, "description": description}


WEATHER = fn("get_weather", "Donne la météo actuelle d'une ville.", {
    "location": string("Nom de la ville, par exemple Paris"),
    "unit": string("Unité de température", enum=["celsius", "fahrenheit"])}, ["location"])
TIME = fn("get_time", "Donne l'heure actuelle dans un fuseau horaire.", {
    "timezone": string("Fuseau horaire IANA, par exemple Europe/Paris")}, ["timezone"])
REMINDER = fn("create_reminder", "Crée un rappel.", {
    "title": string("Titre du rappel"), "time": string("Date et heure du rappel"),
    "priority": string("Priorité", enum=["low", "medium", "high"])}, ["title", "time"])
COURSES = fn("search_courses", "Recherche des cours dans le catalogue.", {
    "category": string("Catégorie", enum=["Programming", "ML", "Data"]),
    "min_duration": number("Durée minimale en heures"),
    "max_price": number("Prix maximal en euros"),
    "level": string("Niveau", enum=["beginner", "intermediate", "advanced"])})
TIP = fn("calculate_tip", "Calcule le pourboire et le total d'une addition.", {
    "amount": number("Montant de l'addition"),
    "tip_percent": number("Pourcentage de pourboire")}, ["amount", "tip_percent"])
NEWS = fn("search_news", "Cherche les dernières actualités sur un sujet.", {
    "query": string("Sujet recherché"), "max_results": number("Nombre d'articles", "integer")},
    ["query"])
CONVERT = fn("convert_currency", "Convertit un montant d'une devise à une autre.", {
    "amount": number("Montant à convertir"), "from_currency": string("Devise source (code ISO)"),
    "to_currency": string("Devise cible (code ISO)")}, ["amount", "from_currency", "to_currency"])
ROUTE = fn("get_route", "Calcule l'itinéraire entre deux villes.", {
    "origin": string("Ville de départ"), "destination": string("Ville d'arrivée"),
    "mode": string("Moyen de transport", enum=["driving", "walking", "transit"])},
    ["origin", "destination"])
LOG = fn("analyze_log", "Analyse un extrait de journal applicatif et compte les lignes d'un niveau.", {
    "log_text": string("Le texte du journal"),
    "level": string("Niveau à compter", enum=["ERROR", "WARNING", "INFO"])}, ["log_text", "level"])


def binary(name, description, a="a", b="b"):
    return fn(name, description, {a: number(), b: number()}, [a, b])


MATH = [binary("add", "Additionne deux nombres."), binary("subtract", "Soustrait b de a."),
        binary("multiply", "Multiplie deux nombres."),
        binary("power", "Élève base à la puissance exponent.", "base", "exponent")]
RATES = {("EUR", "USD"): 1.10, ("EUR", "JPY"): 160.0, ("USD", "JPY"): 145.0}


def execute(name: str, args: dict):
    """The student's tools (fixed, deterministic)."""
    if name == "get_weather":
        return {"location": args["location"], "temperature": 18, "unit": "celsius",
                "condition": "nuageux"}
    if name == "get_time":
        return {"timezone": args["timezone"], "time": "14:32"}
    if name == "create_reminder":
        return {"status": "créé", "title": args["title"], "time": args["time"]}
    if name == "calculate_tip":
        tip = round(args["amount"] * args["tip_percent"] / 100, 2)
        return {"tip": tip, "total": round(args["amount"] + tip, 2)}
    if name == "convert_currency":
        rate = RATES[(args["from_currency"], args["to_currency"])]
        return {"converted": round(args["amount"] * rate, 2), "rate": rate}
    if name == "search_news":
        return [{"title": "L'IA au lycée"}, {"title": "Nouveau modèle ouvert"}]
    if name == "get_route":
        return {"distance_km": 465, "duration_min": 270}
    if name == "analyze_log":
        return {"level": args["level"], "count": 2}
    if name in ("add", "subtract", "multiply", "power"):
        x, y = args.values()
        return {"result": {"add": x + y, "subtract": x - y, "multiply": x * y,
                           "power": x ** y}[name]}
    raise AssertionError(f"unexpected tool {name}")


@pytest.fixture()
def model():
    return OfflineModel(seed=0)


@pytest.fixture()
def client(model):
    return model.client()


def ask(client, messages, tools, **extra):
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools, **extra)
    return response.choices[0].message


def calls_of(message) -> list[tuple[str, dict]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def loop(client, tools, text, tool=execute, max_turns=6, **extra):
    """A student's agentic loop; returns (list of turns' calls, final text, messages)."""
    messages = [{"role": "user", "content": text}]
    turns = []
    for _ in range(max_turns):
        message = ask(client, messages, tools, **extra)
        if not message.tool_calls:
            return turns, message.content, messages
        turns.append(calls_of(message))
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = tool(call.function.name, json.loads(call.function.arguments))
            content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError(f"no final answer after {max_turns} turns: {turns}")


def numbers_in(text: str) -> set[float]:
    return {float(n.replace(",", ".")) for n in re.findall(r"\d+(?:[.,]\d+)?", text)}


def tool_numbers(messages) -> set[float]:
    found = set()
    for message in messages:
        if message.get("role") == "tool":
            found |= numbers_in(message["content"])
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                found |= numbers_in(call["function"]["arguments"])
    return found


# --------------------------------------------------------------------------- quality bar


def test_weather_one_call_then_answer_from_the_result_only(client):
    turns, answer, messages = loop(client, [WEATHER], "Quel temps fait-il à Lyon ?")
    assert turns == [[("get_weather", {"location": "Lyon"})]]  # no unit invented
    assert "18" in answer and "nuageux" in answer and "Lyon" in answer
    assert numbers_in(answer) <= tool_numbers(messages)


def test_three_independent_intents_in_one_turn(client):
    text = ("Quelle heure est-il à Paris et quel temps fait-il ? Crée aussi un rappel pour "
            "demain 9h : 'Réunion équipe'")
    message = ask(client, [{"role": "user", "content": text}], [TIME, WEATHER, REMINDER])
    assert calls_of(message) == [
        ("get_time", {"timezone": "Europe/Paris"}),
        ("get_weather", {"location": "Paris"}),
        ("create_reminder", {"title": "Réunion équipe", "time": "demain 09:00"}),
    ]
    assert len({c.id for c in message.tool_calls}) == 3


def test_parallel_tool_calls_false_gives_one_call_per_turn(client):
    text = ("Quelle heure est-il à Paris et quel temps fait-il ? Crée aussi un rappel pour "
            "demain 9h : 'Réunion équipe'")
    turns, answer, _ = loop(client, [TIME, WEATHER, REMINDER], text, parallel_tool_calls=False)
    assert [len(t) for t in turns] == [1, 1, 1]
    assert [t[0][0] for t in turns] == ["get_time", "get_weather", "create_reminder"]
    assert "14:32" in answer and "18" in answer and "Réunion équipe" in answer


def test_search_courses_fills_only_the_filters_the_request_gives(client):
    message = ask(client, [{"role": "user", "content": (
        "Trouve-moi tous les cours de Machine Learning de plus de 20 heures")}], [COURSES])
    assert calls_of(message) == [("search_courses", {"category": "ML", "min_duration": 20})]


def test_numbers_go_to_parameters_by_their_units(client):
    turns, answer, _ = loop(client, [TIP], "Ajoute 18 % de pourboire à 42,50 €")
    assert turns == [[("calculate_tip", {"amount": 42.5, "tip_percent": 18})]]
    assert "7.65" in answer and "50.15" in answer  # tip and total, quoted from the result


def test_tool_choice_none_gives_text_only(client):
    message = ask(client, [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}],
                  [WEATHER, TIME], tool_choice="none")
    assert not message.tool_calls
    assert "get_weather" in message.content and "outil" in message.content


def test_tool_choice_required_calls_a_tool_even_for_a_greeting(client):
    message = ask(client, [{"role": "user", "content": "Dis-moi bonjour"}],
                  [WEATHER, TIME, REMINDER], tool_choice="required")
    (name, args), = calls_of(message)
    required = {"get_weather": ["location"], "get_time": ["timezone"],
                "create_reminder": ["title", "time"]}[name]
    assert all(isinstance(args.get(p), str) and args[p] for p in required)


def test_forced_function_is_called(client):
    message = ask(client, [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}],
                  [WEATHER, TIME], tool_choice={"type": "function", "function": {"name": "get_time"}})
    assert [name for name, _ in calls_of(message)] == ["get_time"]


def test_request_no_tool_can_serve_is_declined_in_french(client):
    message = ask(client, [{"role": "user", "content": "Achète-moi un billet d'avion"}],
                  [WEATHER, TIME, REMINDER])
    assert not message.tool_calls
    assert "Je ne peux pas" in message.content
    assert all(name in message.content for name in ("get_weather", "get_time", "create_reminder"))


# --------------------------------------------------------------------------- lesson 01 exercises


def test_news_currency_route_in_a_single_turn(client):
    text = ("Donne-moi les dernières actualités sur l'IA, convertis 50 euros en dollars et "
            "calcule l'itinéraire de Paris à Lyon")
    message = ask(client, [{"role": "user", "content": text}], [NEWS, CONVERT, ROUTE])
    assert calls_of(message) == [
        ("search_news", {"query": "IA"}),
        ("convert_currency", {"amount": 50, "from_currency": "EUR", "to_currency": "USD"}),
        ("get_route", {"origin": "Paris", "destination": "Lyon"}),
    ]


@pytest.mark.parametrize("choice", ["auto", "required", "none"])
def test_analyze_log_under_each_tool_choice(client, choice):
    text = "Analyse ce journal et compte les erreurs : ERROR db timeout; INFO started; ERROR disk"
    message = ask(client, [{"role": "user", "content": text}], [LOG], tool_choice=choice)
    if choice == "none":
        assert not message.tool_calls and "analyze_log" in message.content
    else:
        (name, args), = calls_of(message)
        assert name == "analyze_log" and args["level"] == "ERROR"
        assert args["log_text"] == "ERROR db timeout; INFO started; ERROR disk"


def test_currency_two_calls_then_both_results_quoted(client):
    turns, answer, _ = loop(client, [CONVERT], "Combien font 100 euros en dollars et en yen ?")
    assert turns == [[
        ("convert_currency", {"amount": 100, "from_currency": "EUR", "to_currency": "USD"}),
        ("convert_currency", {"amount": 100, "from_currency": "EUR", "to_currency": "JPY"}),
    ]]
    assert "110" in answer and "16000" in answer and "USD" in answer and "JPY" in answer


@pytest.mark.parametrize("text", ["Calcule (10 - 3) * 2 + 5**2", "Calcule (10 − 3) × 2 + 5^2",
                                  "Combien font (10 moins 3) fois 2 plus 5 puissance 2 ?"])
def test_dependent_arithmetic_calls_respect_precedence(client, text):
    turns, answer, messages = loop(client, MATH, text)
    assert turns == [
        [("subtract", {"a": 10, "b": 3}), ("power", {"base": 5, "exponent": 2})],
        [("multiply", {"a": 7, "b": 2})],
        [("add", {"a": 14, "b": 25})],
    ]
    assert "39" in answer
    assert numbers_in(answer) <= tool_numbers(messages) | {10, 3, 2, 5}


def test_arithmetic_state_comes_from_the_tool_results_not_from_memory(client):
    def wrong_subtract(name, args):  # a buggy tool: the model must use what it returned
        if name == "subtract":
            return {"result": 8}
        return execute(name, args)

    turns, answer, _ = loop(client, MATH, "Calcule (10 - 3) * 2 + 5**2", tool=wrong_subtract)
    assert turns[1] == [("multiply", {"a": 8, "b": 2})]
    assert turns[2] == [("add", {"a": 16, "b": 25})]
    assert "41" in answer


# --------------------------------------------------------------------------- errors


def test_unknown_tool_error_is_corrected_with_an_available_tool(model, client):
    model.responder(lambda request: {"content": None, "tool_calls": [
        {"name": "get_meteo", "arguments": {"ville": "Lyon"}}]}
        if len(request["messages"]) == 1 else None)

    def tools_of_student(name, args):
        if name == "get_meteo":
            return {"error": {"type": "outil_inconnu", "message": (
                "Erreur : l'outil « get_meteo » n'existe pas. Outils disponibles : get_weather.")}}
        return execute(name, args)

    turns, answer, _ = loop(client, [WEATHER], "Quel temps fait-il à Lyon ?", tool=tools_of_student)
    assert turns == [[("get_meteo", {"ville": "Lyon"})], [("get_weather", {"location": "Lyon"})]]
    assert "18" in answer


def test_missing_argument_error_is_retried_once_with_the_argument(client):
    attempts = []

    def strict(name, args):
        attempts.append(args)
        if "unit" not in args:
            return {"error": {"type": "argument_manquant",
                              "message": "Erreur : argument obligatoire manquant « unit »."}}
        return execute(name, args)

    turns, answer, _ = loop(client, [WEATHER], "Quel temps fait-il à Lyon ?", tool=strict)
    assert attempts == [{"location": "Lyon"}, {"location": "Lyon", "unit": "celsius"}]
    assert "18" in answer


def test_failing_tool_is_reported_honestly_and_never_called_twice(client):
    def broken(name, args):
        return {"error": {"type": "erreur_dans_outil", "message": (
            "Erreur : l'outil « get_weather » a échoué pendant son exécution (KeyError: 'Lyon').")}}

    turns, answer, _ = loop(client, [WEATHER], "Quel temps fait-il à Lyon ?", tool=broken)
    assert turns == [[("get_weather", {"location": "Lyon"})]]
    assert "échoué" in answer and "KeyError" in answer
    assert "18" not in answer


def test_plain_text_error_result_is_not_mistaken_for_data(client):
    turns, answer, _ = loop(client, [TIP], "Ajoute 18 % de pourboire à 42,50 €",
                            tool=lambda n, a: "Erreur : service de calcul indisponible")
    assert len(turns) == 1
    assert "indisponible" in answer and "échoué" in answer


# --------------------------------------------------------------------------- invented tools


def test_invented_booking_tool_fills_its_schema(client):
    book = fn("book_table", "Réserve une table au restaurant.", {
        "restaurant": string("Nom du restaurant"),
        "party_size": number("Nombre de personnes", "integer"),
        "time": string("Date et heure de la réservation")}, ["restaurant", "party_size", "time"])
    message = ask(client, [{"role": "user", "content": (
        "Réserve une table pour 4 personnes au restaurant « Le Zinc » demain à 20h")}], [book])
    assert calls_of(message) == [("book_table", {"restaurant": "Le Zinc", "party_size": 4,
                                                 "time": "demain 20:00"})]


def test_invented_forecast_tool_repeats_for_a_second_city(client):
    forecast = fn("get_forecast", "Weather forecast for a city over several days.", {
        "city": string("City name"), "days": number("Number of days", "integer")},
        ["city", "days"])
    message = ask(client, [{"role": "user", "content": (
        "Donne-moi les prévisions sur 3 jours pour Nantes, et pour Brest")}], [forecast])
    assert calls_of(message) == [("get_forecast", {"city": "Nantes", "days": 3}),
                                 ("get_forecast", {"city": "Brest", "days": 3})]


def test_invented_arithmetic_tools_in_french(client):
    tools = [binary("somme", "Renvoie la somme de x et y.", "x", "y"),
             binary("produit", "Renvoie le produit de x et y.", "x", "y")]

    def run(name, args):
        return args["x"] + args["y"] if name == "somme" else args["x"] * args["y"]

    turns, answer, _ = loop(client, tools, "Combien font 6 fois 7 plus 8 ?", tool=run)
    assert turns == [[("produit", {"x": 6, "y": 7})], [("somme", {"x": 42, "y": 8})]]
    assert "50" in answer


# --------------------------------------------------------------------------- contract details


def test_same_request_same_answer(client):
    messages = [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])
    assert first.choices[0].message.tool_calls[0].function.arguments == \
        second.choices[0].message.tool_calls[0].function.arguments
    assert first.choices[0].finish_reason == "tool_calls"


def test_missing_required_value_gives_a_question_not_an_invented_call(client):
    message = ask(client, [{"role": "user", "content": "Quel temps fait-il ?"}], [WEATHER])
    assert not message.tool_calls
    assert "location" in message.content and "?" in message.content


def test_without_tools_the_last_call_answers_from_the_results():
    request = {"model": MODEL, "messages": [
        {"role": "user", "content": "Quel temps fait-il à Lyon ?"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"location": "Lyon"}'}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": '{"temperature": 21, "condition": "ensoleillé"}'},
        {"role": "user", "content": "Et le programme télé ?"},
    ]}
    assert tool_use.respond(request, SkillContext(seed=0, model=MODEL)) is None  # new task
    request["messages"][-1] = {"role": "user", "content": "Réponds maintenant avec ce que tu as."}
    wrapped = tool_use.respond(request, SkillContext(seed=0, model=MODEL))  # closes the first
    assert isinstance(wrapped, str) and "21" in wrapped and "ensoleillé" in wrapped
    request["messages"].pop()
    answer = tool_use.respond(request, SkillContext(seed=0, model=MODEL))
    assert isinstance(answer, str) and "21" in answer and "ensoleillé" in answer


def test_finish_tool_is_left_to_react():
    finish = fn("finish", "Termine.", {"answer": string()}, ["answer"])
    request = {"model": MODEL, "messages": [{"role": "user", "content": "Météo à Lyon ?"}],
               "tools": [WEATHER, finish]}
    assert tool_use.respond(request, SkillContext(seed=0, model=MODEL)) is None


def test_calculator_tool_gets_the_whole_expression(client):
    calculator = fn("calculator", "Evaluate an arithmetic expression.",
                    {"expr": string("The expression, e.g. 2*(3+4)")}, ["expr"])
    turns, answer, _ = loop(client, [calculator], "Combien font 12 fois 7 plus 1 ?",
                            tool=lambda name, args: {"value": 85})
    assert turns == [[("calculator", {"expr": "12 * 7 + 1"})]]
    assert "85" in answer


# --------------------------------------------------------------------------- dependent calls (H2b)


NEXT_MEETING = fn("get_next_meeting", "Donne la prochaine réunion de l'agenda de l'utilisateur.", {})
SEARCH_PRODUCT = fn("chercher_produit", "Cherche des produits dans le catalogue.", {
    "requete": string("Mots-clés du produit")}, ["requete"])
STOCK = fn("consulter_stock", "Donne la quantité en stock d'un produit.", {
    "ref": string("Référence du produit")}, ["ref"])
APPOINTMENTS = fn("list_appointments", "Lists the user's appointments for a day.", {
    "day": string("The day, e.g. demain")}, ["day"])
FORECAST = fn("get_forecast", "Weather forecast for a city.", {"city": string("City name")},
              ["city"])
EVENTS = fn("get_events", "Liste les rendez-vous de l'agenda de l'utilisateur pour un jour donné.",
            {"date": string("Le jour, par exemple « demain ».")}, ["date"])
TRAVEL = fn("get_travel_time", "Donne le temps de trajet en minutes entre deux lieux de Lyon.", {
    "origin": string("Lieu de départ."), "destination": string("Lieu d'arrivée."),
    "mode": string("Moyen de transport.", enum=["walking", "transit", "driving"])},
    ["origin", "destination"])
BOOK = fn("book_table", "Réserve une table dans un restaurant.", {
    "restaurant": string("Nom du restaurant."), "time": string("Heure de la réservation, au format HH:MM."),
    "people": number("Nombre de personnes.", "integer")}, ["restaurant", "time", "people"])


def world(name, args):
    """Tools of the dependent-call scenarios (fixed fake data)."""
    if name == "get_next_meeting":
        return {"title": "Revue de projet", "city": "Marseille", "time": "2025-03-14 10:00"}
    if name == "chercher_produit":
        return [{"ref": "CAF-001", "produit": "Café moulu 250 g"},
                {"ref": "THE-004", "produit": "Thé vert 100 g"}]
    if name == "consulter_stock":
        return {"ref": args["ref"], "quantite": 42 if args["ref"] == "CAF-001" else 7}
    if name == "list_appointments":
        return {"appointments": [
            {"start": "08:00", "end": "09:00", "subject": "Dentiste", "place": "Nantes"},
            {"start": "14:00", "end": "15:30", "subject": "Client", "place": "Angers"}]}
    if name == "get_forecast":
        return {"city": args["city"], "forecast": "averses", "temperature": 11}
    if name == "get_events":
        return [{"heure": "09:30", "fin": "10:30", "titre": "Point", "lieu": "Bureau Part-Dieu"},
                {"heure": "17:00", "fin": "18:30", "titre": "Atelier", "lieu": "Confluence"}]
    if name == "get_travel_time":
        return {**args, "duration_min": 14}
    if name == "book_table":
        return {**args, "confirmation": "RES-001"}
    return execute(name, args)


def test_a_city_described_by_reference_comes_from_the_first_result(client):
    turns, answer, _ = loop(client, [NEXT_MEETING, WEATHER],
                            "Quel temps fait-il dans la ville de ma prochaine réunion ?", tool=world)
    assert turns == [[("get_next_meeting", {})], [("get_weather", {"location": "Marseille"})]]
    assert "18" in answer and "nuageux" in answer and "Marseille" in answer


def test_invented_tools_last_appointment_place_then_forecast(client):
    turns, answer, _ = loop(client, [FORECAST, APPOINTMENTS],
                            "Quel temps fera-t-il demain dans la ville de mon dernier rendez-vous ?",
                            tool=world)
    assert turns == [[("list_appointments", {"day": "demain"})],
                     [("get_forecast", {"city": "Angers"})]]  # the latest one, not the first
    assert "averses" in answer and "11" in answer


def test_an_identifier_comes_from_a_search_then_the_quantity_answers(client):
    turns, answer, _ = loop(client, [SEARCH_PRODUCT, STOCK], "Combien reste-t-il de café en stock ?",
                            tool=world)
    assert turns == [[("chercher_produit", {"requete": "café"})],
                     [("consulter_stock", {"ref": "CAF-001"})]]
    assert answer.startswith("Réponse : 42 (quantité, réf. CAF-001)")


def test_one_booking_per_intent_and_table_pour_n_fills_people(client):
    message = ask(client, [{"role": "user", "content": (
        "Je dîne au restaurant « Le Zinc » demain. Réserve une table pour 4 à 20h.")}], [BOOK])
    assert calls_of(message) == [("book_table", {"restaurant": "Le Zinc", "time": "20:00",
                                                 "people": 4})]
    message = ask(client, [{"role": "user", "content": (
        "Réserve une table pour 2 au restaurant « Le Zinc » demain soir")}], [BOOK])
    assert not message.tool_calls and "time" in message.content  # « demain » is not an hour


def test_none_before_a_dependent_call_names_both_steps(client):
    message = ask(client, [{"role": "user", "content": (
        "Quel temps fait-il dans la ville de ma prochaine réunion ?")}], [NEXT_MEETING, WEATHER],
        tool_choice="none")
    assert "get_next_meeting()" in message.content
    assert "get_weather(location=<prochaine réunion, d'après get_next_meeting>)" in message.content


def test_result_labels_read_naturally(client):
    turns, answer, _ = loop(client, [ROUTE], "Calcule l'itinéraire de Paris à Lyon")
    assert "Itinéraire de Paris à Lyon : distance : 465 km, durée : 270 min" in answer
    travel = fn("get_travel_time", "Donne le temps de trajet en minutes entre deux lieux.", {
        "origin": string("Lieu de départ"), "destination": string("Lieu d'arrivée")},
        ["origin", "destination"])
    turns, answer, _ = loop(client, [travel], "Combien de temps pour aller de Paris à Lyon ?",
                            tool=lambda name, args: {**args, "duration_min": 14})
    assert "durée : 14 min" in answer and "Heure" not in answer


def test_positive_temperature_varies_wording_never_the_calls(client):
    messages = [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}]
    steady = [ask(client, messages, [WEATHER]) for _ in range(3)]
    assert {m.content for m in steady} == {None}
    varied = [ask(client, messages, [WEATHER], temperature=0.8) for _ in range(4)]
    assert len({m.content for m in varied}) == 4
    assert all(calls_of(m) == [("get_weather", {"location": "Lyon"})] for m in varied)
    result = [*messages, steady[0].model_dump(exclude_none=True), {
        "role": "tool", "tool_call_id": steady[0].tool_calls[0].id,
        "content": json.dumps(execute("get_weather", {"location": "Lyon"}))}]
    finals = [ask(client, result, [WEATHER], temperature=0.8).content for _ in range(3)]
    assert len(set(finals)) == 3 and all("18" in f and "nuageux" in f for f in finals)
    assert ask(client, result, [WEATHER]).content == "Météo à Lyon : température 18 °C, nuageux."


# --------------------------------------------------------------------------- reported defects (H2c)


@pytest.mark.parametrize("tail", [
    "J'y vais depuis le lieu de mon dernier rendez-vous : réserve une table pour 4 personnes à "
    "l'heure où je peux arriver.",
    "Regarde où se termine ma dernière réunion demain, calcule le trajet jusqu'au restaurant et "
    "réserve une table pour 4 personnes pour l'heure d'arrivée.",
    "Réserve une table pour 4 personnes à mon heure d'arrivée, en partant du lieu de mon dernier "
    "rendez-vous.",
    "Calcule le trajet depuis ma dernière réunion de demain et réserve une table pour 4 à l'heure "
    "à laquelle j'arriverai.",
])
def test_planning_request_defers_the_booking_and_chains_the_calls(client, tail):
    text = ("Demain soir je dîne avec 3 amis au restaurant « Les Lyonnais », dans le Vieux Lyon. "
            + tail)
    turns, answer, _ = loop(client, [EVENTS, TRAVEL, BOOK], text, tool=world)
    assert turns == [
        [("get_events", {"date": "demain"})],
        [("get_travel_time", {"origin": "Confluence", "destination": "Vieux Lyon"})],
        [("book_table", {"restaurant": "Les Lyonnais", "time": "18:44", "people": 4})]]
    assert "RES-001" in answer


def test_a_day_never_fills_a_clock_time_taken_from_another_call(client):
    text = "Regarde mon agenda de demain et réserve une table chez « Les Lyonnais » pour 2 personnes."
    message = ask(client, [{"role": "user", "content": text}], [EVENTS, BOOK])
    assert calls_of(message) == [("get_events", {"date": "demain"})]  # no book_table(time="demain")
    turns, answer, _ = loop(client, [EVENTS, BOOK], text, tool=world)
    assert turns == [[("get_events", {"date": "demain"})]]
    assert "time (Heure de la réservation, au format HH:MM.)" in answer
    message = ask(client, [{"role": "user", "content": (
        "Réserve une table pour 2 chez « Les Lyonnais » demain à 20h et liste mes rendez-vous de "
        "demain.")}], [EVENTS, BOOK])
    assert calls_of(message) == [  # « HH:MM » asked: the hour, without the day
        ("book_table", {"restaurant": "Les Lyonnais", "time": "20:00", "people": 2}),
        ("get_events", {"date": "demain"})]


def test_a_closing_message_under_tool_choice_required_still_gets_a_call(client):
    from course_utils.agent import BEST_EFFORT_PROMPT

    first = ask(client, [{"role": "user", "content": "Quel temps fait-il à Lyon ?"}], [WEATHER])
    messages = [{"role": "user", "content": "Quel temps fait-il à Lyon ?"},
                first.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": first.tool_calls[0].id,
                 "content": json.dumps(execute("get_weather", {"location": "Lyon"}))},
                {"role": "user", "content": BEST_EFFORT_PROMPT}]
    message = ask(client, messages, [WEATHER], tool_choice="required")  # the API's contract
    assert [name for name, _ in calls_of(message)] == ["get_weather"]
    assert "18" in ask(client, messages, [WEATHER]).content  # « auto »: the answer, from the result


SHARE_PRICE = fn("get_stock_price", "Cours actuel d'une action en bourse.", {
    "ticker": string("Symbole boursier, par exemple AAPL.")}, ["ticker"])
PARCEL = fn("track_parcel", "Suit un colis.", {
    "tracking_number": string("Numéro de suivi du colis.")}, ["tracking_number"])
FLIGHT = fn("get_flight_status", "Statut d'un vol.", {"flight": string("Code du vol.")},
            ["flight"])


@pytest.mark.parametrize("text, tools, expected", [
    ("Quel est le cours de l'action MSFT ?", [SHARE_PRICE], [("get_stock_price", {"ticker": "MSFT"})]),
    ("Quel est le cours de Microsoft (MSFT) ?", [SHARE_PRICE],
     [("get_stock_price", {"ticker": "MSFT"})]),
    ("Donne-moi le cours de AAPL et de MSFT.", [SHARE_PRICE],
     [("get_stock_price", {"ticker": "AAPL"}), ("get_stock_price", {"ticker": "MSFT"})]),
    ("Où en est mon colis 1Z999AA10123456784 ?", [PARCEL],
     [("track_parcel", {"tracking_number": "1Z999AA10123456784"})]),
    ("Le vol AF1234 est-il à l'heure ?", [FLIGHT], [("get_flight_status", {"flight": "AF1234"})]),
    ("Le vol AF 1234 est-il à l'heure ?", [FLIGHT],
     [("get_flight_status", {"flight": "AF 1234"})]),
])
def test_codes_tickers_and_references_written_in_capitals_are_arguments(client, text, tools,
                                                                         expected):
    message = ask(client, [{"role": "user", "content": text}], tools)
    assert calls_of(message) == expected


def test_acronyms_and_currency_codes_are_not_taken_for_codes(client):
    from course_utils.offline.understanding import nlu

    found = nlu.identifiers("Explique l'IA en PDF, en EUR ou en USD, au format HH:MM, à 9h30 "
                            "ou à 20h, à 10km : OK ?")
    assert found == []
    assert [s.value for s in nlu.identifiers("Compare MSFT, BRK.B et #42 (réf. CMD-2025-0042).")] \
        == ["MSFT", "BRK.B", "#42", "CMD-2025-0042"]
    # without a code in the request, the model still asks for it rather than invent one
    message = ask(client, [{"role": "user", "content": "Quel est le cours de l'action ?"}], [SHARE_PRICE])
    assert not message.tool_calls and "ticker" in message.content


def test_a_ticker_found_in_capitals_is_called_then_answered_from_the_result(client):
    def quote(name, args):
        return {"ticker": args["ticker"], "price": 412.3, "currency": "USD"}

    turns, answer, _ = loop(client, [SHARE_PRICE], "Quel est le cours de l'action MSFT ?",
                            tool=quote)
    assert turns == [[("get_stock_price", {"ticker": "MSFT"})]]
    assert "412.3" in answer and "il me manque" not in answer
