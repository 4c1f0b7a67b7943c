"""llm: parameter normalisation, defensive parsing, French errors, real usage.

These tests talk to a tiny hand-written HTTP handler (not the offline model), so that each
provider quirk is reproduced exactly as a real provider sends it.
"""

from __future__ import annotations

import json

import openai
import pytest

from course_utils._http import http_module
from course_utils.llm import (
    LLMError,
    Usage,
    UsageLedger,
    chat,
    explain_error,
    is_reasoning_model,
    normalize_params,
)

http = http_module()


def completion(message: dict, *, usage=None, finish="stop", model="m") -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", **message},
                     "finish_reason": finish}],
        "usage": usage,
    }


def client_for(*bodies, status=200, seen=None):
    """A real OpenAI client whose HTTP answers are ``bodies``, in order."""
    queue = list(bodies)

    def handler(request):
        if seen is not None:
            seen.append(json.loads(request.content))
        body = queue.pop(0) if len(queue) > 1 else queue[0]
        return http.Response(status, json=body)

    return openai.OpenAI(api_key="k", base_url="http://provider.invalid/v1", max_retries=0,
                         http_client=http.Client(transport=http.MockTransport(handler)))


USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17,
         "completion_tokens_details": {"reasoning_tokens": 3}}


def test_tool_turn_is_decided_from_tool_calls_not_finish_reason():
    call = {"id": "call_abc", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"location": "Lyon"}'}}
    client = client_for(completion({"content": None, "tool_calls": [call]}, finish="stop"))
    result = chat([{"role": "user", "content": "x"}], client=client, model="m")
    assert result.has_tool_calls
    assert result.tool_calls[0].arguments == {"location": "Lyon"}
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"location": "Lyon"}'


def test_arguments_given_as_a_dict_are_accepted():
    call = {"id": "call_abc", "type": "function",
            "function": {"name": "f", "arguments": {"x": 1}}}
    client = client_for(completion({"content": None, "tool_calls": [call]}))
    result = chat([{"role": "user", "content": "x"}], client=client, model="m")
    assert result.tool_calls[0].arguments == {"x": 1}
    assert json.loads(result.message["tool_calls"][0]["function"]["arguments"]) == {"x": 1}


def test_invalid_json_arguments_are_reported_not_raised():
    call = {"id": "call_abc", "type": "function", "function": {"name": "f", "arguments": "{x:"}}
    client = client_for(completion({"content": None, "tool_calls": [call]}))
    result = chat([{"role": "user", "content": "x"}], client=client, model="m")
    assert result.tool_calls[0].arguments is None
    assert "JSON invalides" in result.tool_calls[0].error


def test_choices_null_becomes_a_retryable_french_error_after_bounded_attempts():
    seen: list = []
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": None,
            "error": {"message": "Upstream overloaded", "code": 502}}
    client = client_for(body, seen=seen)
    with pytest.raises(LLMError) as info:
        chat([{"role": "user", "content": "x"}], client=client, model="m", empty_choice_retries=2)
    assert info.value.retryable
    assert "Upstream overloaded" in info.value.message and "choices" in info.value.message
    assert len(seen) == 3


def test_choices_null_then_answer_recovers():
    bad = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": None,
           "error": {"message": "oops"}}
    client = client_for(bad, completion({"content": "OK"}))
    assert chat([{"role": "user", "content": "x"}], client=client, model="m").text == "OK"


def test_reasoning_text_is_read_from_extra_fields():
    client = client_for(completion({"content": "42", "reasoning": "6 fois 7"}))
    assert chat([{"role": "user", "content": "x"}], client=client, model="m").reasoning == "6 fois 7"


def test_usage_is_the_providers_not_a_word_count():
    client = client_for(completion({"content": "un deux trois quatre"}, usage=USAGE))
    ledger = UsageLedger()
    result = chat([{"role": "user", "content": "x"}], client=client, model="m", ledger=ledger)
    assert result.usage == Usage(12, 5, 3, 17, 1)
    chat([{"role": "user", "content": "x"}], client=client, model="m", ledger=ledger)
    assert ledger.by_model["m"] == Usage(24, 10, 6, 34, 2)
    assert "TOTAL" in ledger.summary()


def test_reasoning_models_take_max_completion_tokens_and_no_temperature():
    assert is_reasoning_model("gpt-5-mini") and is_reasoning_model("openai/o3")
    assert not is_reasoning_model("gpt-4.1-mini")
    # reasoning models: no temperature but 1, a budget with room for the reasoning, low effort
    assert normalize_params("openai", "gpt-5", temperature=0.7, max_tokens=100) == {
        "max_completion_tokens": 2048, "reasoning_effort": "low"}
    assert normalize_params("openai", "o3", temperature=1, max_tokens=5000) == {
        "temperature": 1, "max_completion_tokens": 5000, "reasoning_effort": "low"}
    assert normalize_params("openrouter", "openai/gpt-5-mini", max_tokens=10) == {
        "max_completion_tokens": 2048, "reasoning": {"effort": "low"}}
    assert normalize_params("openai", "gpt-4.1-mini", temperature=0, max_tokens=10) == {
        "temperature": 0, "max_completion_tokens": 10}
    assert normalize_params("compatible", "llama3.1", temperature=0.2, max_tokens=50) == {
        "temperature": 0.2, "max_tokens": 50}


def test_request_carries_normalised_parameters():
    seen: list = []
    client = client_for(completion({"content": "ok"}), seen=seen)
    chat([{"role": "user", "content": "x"}], client=client, model="gpt-5-mini",
         temperature=0.3, max_tokens=20)
    assert "temperature" not in seen[0]
    assert seen[0]["max_completion_tokens"] == 2048 and "max_tokens" not in seen[0]
    assert seen[0]["reasoning_effort"] == "low"


def error_client(status: int, message: str = "bad"):
    def handler(request):
        return http.Response(status, json={"error": {"message": message, "type": "x",
                                                     "param": None, "code": None}})

    return openai.OpenAI(api_key="k", base_url="http://provider.invalid/v1", max_retries=0,
                         http_client=http.Client(transport=http.MockTransport(handler)))


@pytest.mark.parametrize(
    ("status", "needle", "retryable"),
    [(401, "OPENAI_API_KEY", False), (403, "403", False), (404, "OPENAI_MODEL", False),
     (400, "bad", False), (429, "429", True), (503, "503", True)],
)
def test_sdk_errors_become_french_messages_naming_the_fix(status, needle, retryable):
    with pytest.raises(LLMError) as info:
        chat([{"role": "user", "content": "x"}], client=error_client(status), model="m")
    assert needle in info.value.message
    assert info.value.retryable is retryable
    assert info.value.status == status


def test_openrouter_401_names_openrouter_key():
    exc = openai.AuthenticationError(
        "no", response=http.Response(401, request=http.Request("POST", "http://x")), body=None)
    assert "OPENROUTER_API_KEY" in explain_error(exc, backend="openrouter").message
