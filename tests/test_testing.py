"""Scripted and function models: strict stand-ins that run under the real SDK."""

from __future__ import annotations

import json

import openai
import pytest

from course_utils.agent import run_agent
from course_utils.offline import ScriptExhausted
from course_utils.testing import (
    FunctionModel,
    ScriptedModel,
    finish,
    raw_tool_call,
    text,
    tool_call,
    turn,
)

USER = [{"role": "user", "content": "Bonjour"}]


def ask(client, **kwargs):
    return client.chat.completions.create(model="offline-fast", messages=USER, **kwargs)


def weather(location: str) -> dict:
    """Météo.

    Args:
        location: La ville.
    """
    return {"location": location, "temperature": 18}


def test_helpers_build_plain_steps():
    assert text("timeout") == {"content": "timeout"}
    assert tool_call("get_weather", location="Lyon") == {
        "name": "get_weather", "arguments": {"location": "Lyon"}}
    assert turn(tool_call("a"), thought="Je réfléchis.") == {
        "content": "Je réfléchis.", "tool_calls": [{"name": "a", "arguments": {}}]}
    assert finish("42") == {"content": None,
                            "tool_calls": [{"name": "finish", "arguments": {"answer": "42"}}]}
    with pytest.raises(ValueError, match="au moins un appel"):
        turn()


def test_scripted_model_plays_its_steps_through_the_sdk():
    with ScriptedModel([
        text("timeout"),  # a text, not the fault of the same name
        turn(tool_call("get_weather", location="Lyon"), thought="Je regarde."),
        turn(raw_tool_call("get_weather", '{"location": ')),
    ]) as model:
        client = model.client
        assert client is model.client and isinstance(client, openai.OpenAI)
        assert ask(client).choices[0].message.content == "timeout"
        message = ask(client).choices[0].message
        assert message.content == "Je regarde."
        assert message.tool_calls[0].function.name == "get_weather"
        assert json.loads(message.tool_calls[0].function.arguments) == {"location": "Lyon"}
        assert message.tool_calls[0].id.startswith("call_")
        assert ask(client).choices[0].message.tool_calls[0].function.arguments == (
            '{"location": ')
    assert len(model.requests) == 3 and model.requests[0]["messages"] == USER


def test_a_request_after_the_last_step_fails_loudly():
    model = ScriptedModel([text("un")])
    ask(model.client)
    with pytest.raises(ScriptExhausted, match="script épuisé"):
        ask(model.client)


def test_run_agent_does_not_hide_an_exhausted_script():
    model = ScriptedModel([turn(tool_call("weather", location="Lyon"))])
    with pytest.raises(ScriptExhausted):
        run_agent("Météo à Lyon ?", [weather], client=model.client)


def test_unconsumed_steps_fail_when_the_block_ends():
    with pytest.raises(AssertionError, match="non jouée"):
        with ScriptedModel([text("un"), text("deux")]) as model:
            ask(model.client)


def test_an_error_in_the_block_is_not_masked_by_the_check():
    with pytest.raises(KeyError):
        with ScriptedModel([text("un")]):
            raise KeyError("le vrai problème")


def test_faults_come_first_and_are_recorded():
    with ScriptedModel([text("ok")], faults=[429]) as model:
        assert ask(model.client).choices[0].message.content == "ok"
    assert [c["status"] for c in model.calls] == [429, 200]
    assert len(model.requests) == 2  # the retried request is a chat request too


def test_make_client_passes_sdk_options():
    model = ScriptedModel([text("jamais")], faults=[429])
    with pytest.raises(openai.RateLimitError):
        ask(model.make_client(max_retries=0))
    assert len(model.calls) == 1


def test_function_model_answers_from_the_request():
    def fn(request: dict):
        last = request["messages"][-1]
        if last["role"] == "tool":
            return finish(f"Observation : {json.loads(last['content'])['temperature']} °C")
        assert [t["function"]["name"] for t in request["tools"]] == ["weather", "finish"]
        return turn(tool_call("weather", location="Lyon"))

    with FunctionModel(fn) as model:
        run = run_agent("Météo à Lyon ?", [weather], client=model.client)
    assert (run.status, run.answer) == ("finished", "Observation : 18 °C")
    assert len(model.requests) == 2


def test_function_model_is_strict_about_none():
    model = FunctionModel(lambda request: None)
    with pytest.raises(AssertionError, match="a renvoyé None"):
        ask(model.client)


def test_function_model_repeating_forever_is_escalated():
    model = FunctionModel(lambda request: turn(tool_call("weather", location="Lyon")))
    run = run_agent("Météo à Lyon ?", [weather], client=model.client)
    assert run.status == "escalated" and len(model.requests) == 2
