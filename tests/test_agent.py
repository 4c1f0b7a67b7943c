"""run_agent: the ReAct loop and each of its safeguards, under the real SDK (scripted models)."""

from __future__ import annotations

import json
from typing import Literal

import pytest

from course_utils.agent import BEST_EFFORT_PROMPT, AgentRun, estimate_tokens, run_agent
from course_utils.llm import Usage, UsageLedger
from course_utils.offline import OfflineModel
from course_utils.testing import (
    ScriptedModel,
    finish,
    raw_tool_call,
    text,
    tool_call,
    turn,
)
from course_utils.tools import Toolbox, tool

EXECUTED: list[tuple[str, dict]] = []


@tool
def get_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Donne la météo actuelle d'une ville.

    Args:
        location: La ville.
        unit: L'unité de température.
    """
    EXECUTED.append(("get_weather", {"location": location}))
    return {"location": location, "temperature": 18, "unit": unit, "condition": "nuageux"}


@tool
def get_time(timezone: str) -> dict:
    """Donne l'heure dans un fuseau horaire.

    Args:
        timezone: Le fuseau, par exemple Europe/Paris.
    """
    EXECUTED.append(("get_time", {"timezone": timezone}))
    return {"timezone": timezone, "time": "09:30"}


@tool
def lookup_capital(country: str) -> str:
    """Capitale d'un pays.

    Args:
        country: Le pays.
    """
    EXECUTED.append(("lookup_capital", {"country": country}))
    return {"France": "Paris"}[country]


TOOLS = [get_weather, get_time, lookup_capital]
TASK = "Quel temps fait-il à Lyon ?"


@pytest.fixture(autouse=True)
def _clear_executions():
    EXECUTED.clear()


def tool_payload(run: AgentRun, step: int, k: int = 0) -> dict:
    return json.loads(run.steps[step].observations[k])


def assert_every_call_answered(messages) -> None:
    """Each assistant tool call is followed by exactly its tool results (what the API demands)."""
    pending: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] == pending.pop(0)
        else:
            assert not pending, f"appels sans réponse : {pending}"
            pending = [c["id"] for c in message.get("tool_calls") or []]
    assert not pending


# --------------------------------------------------------------------------- ordinary runs


def test_finish_tool_ends_the_run_with_steps_and_usage():
    ledger = UsageLedger()
    with ScriptedModel([
        turn(tool_call("get_weather", location="Lyon"), thought="Je consulte la météo."),
        finish("Il fait 18 °C à Lyon, temps nuageux."),
    ]) as model:
        run = run_agent(TASK, TOOLS, client=model.client, ledger=ledger)
    assert run.status == "finished" and run.error is None
    assert run.answer == "Il fait 18 °C à Lyon, temps nuageux."
    assert [s.index for s in run.steps] == [1, 2]
    assert run.steps[0].thought == "Je consulte la météo."
    assert run.steps[0].tool_calls[0].name == "get_weather"
    assert tool_payload(run, 0)["temperature"] == 18
    assert run.steps[1].answer == run.answer
    # usage is the provider's, per step and in total, and the ledger saw the same
    assert run.usage.calls == 2 and run.usage.total_tokens > 0
    assert run.usage == run.steps[0].usage + run.steps[1].usage
    assert ledger.total == run.usage
    assert run.model == "offline-fast"
    # the request offered the tools plus finish, with a system prompt, then the task
    first = model.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == [
        "get_weather", "get_time", "lookup_capital", "finish"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert_every_call_answered(run.messages)
    json.dumps(run.to_dict(), ensure_ascii=False)  # serialisable
    assert "statut : finished" in str(run) and "Réponse : Il fait 18 °C" in str(run)
    from IPython.lib.pretty import pretty

    assert pretty(run) == str(run)  # what Jupyter shows for `run`


def test_printed_run_says_where_its_token_count_comes_from():
    """Offline counts are the simulator's estimates; a real model's are the provider's."""
    usage = Usage(prompt_tokens=2000, completion_tokens=884, total_tokens=2884, calls=3)
    offline = AgentRun(answer="", status="max_steps", usage=usage, model="offline-fast")
    real = AgentRun(answer="", status="max_steps", usage=usage, model="gpt-4o-mini")
    assert "2884 jetons estimés par le simulateur (3 appel(s)" in str(offline)
    assert "2884 jetons comptés par le fournisseur (3 appel(s)" in str(real)


def test_plain_text_answer_also_finishes():
    with ScriptedModel([text("Bonjour ! Je peux donner la météo.")]) as model:
        run = run_agent("Bonjour", TOOLS, client=model.client, system="")
    assert (run.status, run.answer) == ("finished", "Bonjour ! Je peux donner la météo.")
    assert [m["role"] for m in model.requests[0]["messages"]] == ["user"]  # system="" sends none
    assert run.messages[-1] == {"role": "assistant", "content": run.answer}


def test_all_calls_of_a_turn_are_executed_in_order_and_answered():
    with ScriptedModel([
        turn(tool_call("get_time", timezone="Europe/Paris"),
             tool_call("get_weather", location="Paris"),
             tool_call("lookup_capital", country="France")),
        finish("Il est 09:30 à Paris, 18 °C."),
    ]) as model:
        run = run_agent("Heure et météo à Paris ?", TOOLS, client=model.client)
    assert [name for name, _ in EXECUTED] == ["get_time", "get_weather", "lookup_capital"]
    assert len(run.steps[0].observations) == 3 and run.steps[0].observations[2] == "Paris"
    ids = [c.id for c in run.steps[0].tool_calls]
    second = model.requests[1]["messages"]
    assert [m["tool_call_id"] for m in second if m["role"] == "tool"] == ids
    assert_every_call_answered(run.messages)


def test_a_toolbox_keeps_its_own_finish():
    @tool
    def finish(answer: str, confidence: float = 1.0) -> str:
        """Réponse finale.

        Args:
            answer: La réponse.
            confidence: Confiance entre 0 et 1.
        """
        return f"{answer} (confiance {confidence})"

    with ScriptedModel([turn(tool_call("finish", answer="Paris", confidence=0.9))]) as model:
        run = run_agent("Capitale ?", Toolbox([lookup_capital, finish]), client=model.client)
    names = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert names == ["lookup_capital", "finish"]
    assert run.answer == "Paris" and run.steps[0].observations == ("Paris (confiance 0.9)",)


# --------------------------------------------------------------------------- tool errors


def test_unknown_tool_is_reported_and_the_loop_recovers():
    with ScriptedModel([
        turn(tool_call("get_wether", location="Lyon")),
        turn(tool_call("get_weather", location="Lyon")),
        finish("18 °C à Lyon."),
    ]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    error = tool_payload(run, 0)["error"]
    assert error["type"] == "outil_inconnu"
    assert "« get_wether » n'existe pas" in error["message"]
    assert "get_weather, get_time, lookup_capital, finish" in error["message"]
    # the model saw the error, then the loop went on to the right answer
    assert model.requests[1]["messages"][-1]["content"] == run.steps[0].observations[0]
    assert (run.status, run.answer) == ("finished", "18 °C à Lyon.")
    assert EXECUTED == [("get_weather", {"location": "Lyon"})]


def test_key_error_inside_a_tool_gives_a_different_message():
    with ScriptedModel([
        turn(tool_call("lookup_capital", country="Atlantide")),
        finish("Je ne connais pas la capitale de l'Atlantide."),
    ]) as model:
        run = run_agent("Capitale de l'Atlantide ?", TOOLS, client=model.client)
    error = tool_payload(run, 0)["error"]
    assert error["type"] == "erreur_dans_outil"
    assert "KeyError" in error["message"] and "Atlantide" in error["message"]
    assert "n'existe pas" not in error["message"]
    assert run.status == "finished"


def test_invalid_json_arguments_ask_for_valid_json():
    with ScriptedModel([
        turn(raw_tool_call("get_weather", '{"location": "Lyon"')),
        turn(tool_call("get_weather", location="Lyon")),
        finish("18 °C."),
    ]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    error = tool_payload(run, 0)["error"]
    assert error["type"] == "json_invalide" and "JSON valide" in error["message"]
    assert run.steps[0].tool_calls[0].arguments is None
    assert run.status == "finished" and len(EXECUTED) == 1


# --------------------------------------------------------------------------- safeguards


def test_same_call_ten_times_escalates_at_the_second_request():
    model = ScriptedModel([turn(tool_call("get_weather", location="Lyon"))] * 10)
    run = run_agent(TASK, TOOLS, client=model.client)
    assert run.status == "escalated"
    assert len(model.requests) == 2  # stopped at the second identical request
    assert EXECUTED == [("get_weather", {"location": "Lyon"})]  # executed once only
    assert "humain" in run.answer or "équipe" in run.answer
    assert "get_weather" in run.answer and run.answer.startswith("Je suis désolé")
    assert json.loads(run.steps[1].observations[0])["error"]["type"] == "appel_repete"
    assert_every_call_answered(run.messages)  # the conversation can be handed over as is


def test_repetition_compares_normalised_arguments_not_text():
    with ScriptedModel([
        turn(raw_tool_call("get_weather", '{"location": "Lyon", "unit": "celsius"}')),
        turn(raw_tool_call("get_weather", '{ "unit":"celsius","location":"Lyon" }')),
    ]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    assert run.status == "escalated" and len(EXECUTED) == 1


def test_same_call_not_in_a_row_is_allowed():
    with ScriptedModel([
        turn(tool_call("get_weather", location="Lyon")),
        turn(tool_call("get_time", timezone="Europe/Paris")),
        turn(tool_call("get_weather", location="Lyon")),
        finish("Fini."),
    ]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    assert run.status == "finished" and len(EXECUTED) == 3


def test_max_steps_then_one_best_effort_call_without_tools():
    with ScriptedModel([
        turn(tool_call("get_time", timezone="Europe/Paris")),
        text("Il est 09:30 à Paris ; je n'ai pas pu consulter la météo."),
    ]) as model:
        run = run_agent("Quelle heure est-il et quel temps fait-il à Paris ?", TOOLS,
                        client=model.client, max_steps=1)
    assert run.status == "max_steps"
    assert run.answer == "Il est 09:30 à Paris ; je n'ai pas pu consulter la météo."
    assert len(model.requests) == 2 and len(EXECUTED) == 1
    last = model.requests[-1]
    assert last["tool_choice"] == "none"
    assert last["messages"][-1] == {"role": "user", "content": BEST_EFFORT_PROMPT}
    assert run.steps[-1].answer == run.answer and not run.steps[-1].tool_calls


def test_token_budget_stops_before_the_call_that_would_exceed_it():
    script = [turn(tool_call("get_weather", location="Lyon")), finish("18 °C.")]
    with ScriptedModel(script) as model:
        full = run_agent(TASK, TOOLS, client=model.client)
    # what the second call needs: real usage of the first + the estimate of the second prompt
    tools = model.requests[1]["tools"]
    second_need = full.steps[0].usage.total_tokens + estimate_tokens(
        model.requests[1]["messages"], tools)
    budget = second_need - 1
    assert estimate_tokens(model.requests[0]["messages"], tools) <= budget  # 1st call fits

    EXECUTED.clear()
    model = ScriptedModel(script)
    run = run_agent(TASK, TOOLS, client=model.client, token_budget=budget)
    assert run.status == "budget_exhausted"
    assert len(model.calls) == 1  # the second call was never made
    assert len(run.steps) == 1 and run.usage == full.steps[0].usage
    assert "Budget de jetons épuisé" in run.answer and str(budget) in run.answer

    model = ScriptedModel(script)
    assert run_agent(TASK, TOOLS, client=model.client, token_budget=second_need + 50).status == (
        "finished")


def test_budget_too_small_for_the_first_call_makes_no_call():
    model = ScriptedModel([finish("x")])
    run = run_agent(TASK, TOOLS, client=model.client, token_budget=10)
    assert run.status == "budget_exhausted" and model.calls == [] and run.steps == ()


def test_empty_messages_are_retried_without_losing_the_conversation():
    with ScriptedModel([turn(tool_call("get_weather", location="Lyon")), "empty_message",
                        "empty_message", finish("18 °C.")]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    assert run.status == "finished" and run.answer == "18 °C."
    assert len(model.requests) == 4 and run.usage.calls == 4
    assert model.requests[1] == model.requests[2] == model.requests[3]  # same conversation resent
    assert all(m.get("content") != "" for m in run.messages)
    assert run.steps[1].usage.calls == 3  # the empty answers are counted in the step that retried


def test_empty_messages_beyond_the_limit_stop_with_error():
    model = ScriptedModel(["empty_message"] * 3)
    run = run_agent(TASK, TOOLS, client=model.client, max_empty_retries=2)
    assert run.status == "error" and "vide 3 fois" in run.error
    assert len(model.requests) == 3


# --------------------------------------------------------------------------- provider errors


def test_429_then_500_are_retried_by_the_sdk_and_the_run_finishes():
    model = OfflineModel(faults=[429, 500])  # the default model: its ReAct skill drives the loop
    run = run_agent(TASK, TOOLS, client=model.client())
    assert run.status == "finished" and "18" in run.answer
    assert [c["status"] for c in model.calls] == [429, 500, 200, 200]
    # nothing lost across retries: each retry resent the same conversation...
    assert model.calls[0]["body"] == model.calls[1]["body"] == model.calls[2]["body"]
    # ...and every request is a prefix of the final conversation
    for body in model.chat_requests:
        assert list(run.messages[: len(body["messages"])]) == body["messages"]
    assert EXECUTED == [("get_weather", {"location": "Lyon"})]
    assert_every_call_answered(run.messages)


def test_401_stops_at_once_with_the_french_key_message():
    model = OfflineModel(faults=[401])
    run = run_agent(TASK, TOOLS, client=model.client())
    assert run.status == "error"
    assert len(model.calls) == 1  # no retry of a bad key
    assert "clé refusée" in run.error and "OPENAI_API_KEY" in run.error
    assert run.answer.startswith("Je n'ai pas pu terminer") and run.steps == ()
    assert run.messages[-1] == {"role": "user", "content": TASK}


def test_max_retries_is_set_per_run():
    model = ScriptedModel([finish("x")], faults=[429, 429])
    run = run_agent(TASK, TOOLS, client=model.client, max_retries=0)
    assert run.status == "error" and "429" in run.error
    assert len(model.calls) == 1


def test_choices_null_is_retried():
    with ScriptedModel([finish("18 °C.")], faults=["choices_null"]) as model:
        run = run_agent(TASK, TOOLS, client=model.client)
    assert run.status == "finished" and len(model.calls) == 2


def test_continues_an_earlier_conversation():
    earlier = [{"role": "system", "content": "Sois bref."},
               {"role": "user", "content": "Bonjour"},
               {"role": "assistant", "content": "Bonjour !"}]
    with ScriptedModel([finish("18 °C.")]) as model:
        run = run_agent(TASK, TOOLS, client=model.client, messages=earlier)
    assert model.requests[0]["messages"] == [*earlier, {"role": "user", "content": TASK}]
    assert run.messages[:4] == tuple(model.requests[0]["messages"])


def test_invalid_arguments_are_refused_in_french():
    with pytest.raises(ValueError, match="max_steps"):
        run_agent(TASK, TOOLS, max_steps=0)


def test_a_single_function_is_accepted_as_the_toolbox():
    with ScriptedModel([finish("ok")]) as model:
        run = run_agent(TASK, get_weather.fn, client=model.client)
    assert run.status == "finished"
    assert [t["function"]["name"] for t in model.requests[0]["tools"]] == ["get_weather", "finish"]
