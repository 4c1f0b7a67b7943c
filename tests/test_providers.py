"""Provider profiles, request normalisation, French errors from the provider's own body, cost.

Each error body below is the one the provider documents or is reported to send (cited); the
HTTP side is a ``MockTransport``, so the SDK's real parsing and retries run.
"""

from __future__ import annotations

import json

import openai
import pytest

from course_utils import providers
from course_utils._http import http_module
from course_utils.config import Settings, load_settings
from course_utils.llm import LLMError, ProviderTransport, chat, explain_error
from course_utils.usage import Usage, UsageLedger, canonical_model, format_dollars

http = http_module()
FAKE_KEY = "sk-FAKE-must-not-leak-0123456789"
MESSAGES = [{"role": "user", "content": "Quel temps fait-il à Paris ?"}]
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Météo.",
                                         "parameters": {"type": "object", "properties": {}}}}
OTHER = {"type": "function", "function": {"name": "get_time", "description": "Heure.",
                                          "parameters": {"type": "object", "properties": {}}}}


def ok_body(model="m"):
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}


def client_for(settings: Settings, handler, *, max_retries=0):
    """A client like make_client's (ProviderTransport), over a MockTransport handler."""
    from course_utils import llm

    client = openai.OpenAI(
        api_key=FAKE_KEY, base_url=settings.base_url or "http://127.0.0.1:9/v1",
        max_retries=max_retries,
        http_client=http.Client(transport=ProviderTransport(settings, http.MockTransport(handler))))
    llm._SETTINGS_OF[client] = settings
    return client


def settings(**env) -> Settings:
    return load_settings({"COURSE_ENV_FILE": "none", **env})


# --------------------------------------------------------------------------- profiles


def test_every_profile_cites_a_documented_behaviour_where_it_departs_from_openai():
    for name, profile in providers.PROFILES.items():
        departs = any(v != providers.HONOURED for v in profile.tool_choice.values())
        if departs or profile.tools_need_server_flags:
            assert profile.sources, name
    assert providers.profile_for("openai", "gpt-5-mini").reasoning
    assert not providers.profile_for("openai", "gpt-4.1-mini").reasoning
    assert providers.profile_for("ollama").treatment("required") == providers.IGNORED
    assert "Ollama ignore" in providers.profile_for("ollama").tool_choice_note("required")
    assert providers.profile_for("openai").tool_choice_note("none") is None
    assert "tool_choice" in providers.profile_for("lmstudio").describe()


def test_lm_studio_gets_required_over_the_named_tool_instead_of_the_object_form():
    body = {"model": "m", "messages": MESSAGES, "tools": [TOOL, OTHER],
            "tool_choice": {"type": "function", "function": {"name": "get_time"}}}
    fixed, notes = providers.normalize_request(providers.profile_for("lmstudio"), body)
    assert fixed["tool_choice"] == "required"
    assert [t["function"]["name"] for t in fixed["tools"]] == ["get_time"]
    assert notes and body["tool_choice"]["type"] == "function"  # the caller's body is untouched


def test_ollama_none_drops_the_tools_and_required_is_left_to_the_server():
    profile = providers.profile_for("ollama")
    fixed, _ = providers.normalize_request(profile, {"messages": MESSAGES, "tools": [TOOL],
                                                     "tool_choice": "none"})
    assert "tools" not in fixed and "tool_choice" not in fixed
    fixed, _ = providers.normalize_request(profile, {"messages": MESSAGES, "tools": [TOOL],
                                                     "tool_choice": "required"})
    assert fixed["tool_choice"] == "required"


def test_every_direct_request_of_a_course_client_is_normalised():
    seen = []

    def handler(request):
        seen.append(json.loads(request.content))
        return http.Response(200, json=ok_body("gpt-5-mini-2025-08-07"))

    s = settings(OPENAI_API_KEY=FAKE_KEY, OPENAI_MODEL="gpt-5-mini")
    client = client_for(s, handler)
    client.chat.completions.create(model="gpt-5-mini", messages=MESSAGES, max_tokens=10,
                                   temperature=0)
    assert "temperature" not in seen[0] and "max_tokens" not in seen[0]
    assert seen[0]["max_completion_tokens"] == providers.REASONING_MIN_BUDGET
    assert seen[0]["reasoning_effort"] == "low"
    result = chat(MESSAGES, client=client, max_tokens=10)
    assert result.text == "OK" and result.adjustments


# --------------------------------------------------------------------------- errors


def error_handler(status, body, *, text=False, counter=None):
    def handler(request):
        if counter is not None:
            counter.append(1)
        if text:
            return http.Response(status, text=body)
        return http.Response(status, json=body)

    return handler


def raise_from(s: Settings, handler, **kwargs) -> LLMError:
    with pytest.raises(LLMError) as info:
        chat(MESSAGES, client=client_for(s, handler), tools=[TOOL], **kwargs)
    return info.value


def test_insufficient_quota_says_credit_exhausted_and_is_not_retried():
    # https://github.com/openai/openai-cookbook/issues/844: 429, code insufficient_quota
    calls: list = []
    body = {"error": {"message": "You exceeded your current quota, please check your plan and "
                      "billing details.", "type": "insufficient_quota", "param": None,
                      "code": "insufficient_quota"}}
    s = settings(OPENAI_API_KEY=FAKE_KEY)
    with pytest.raises(LLMError) as info:
        chat(MESSAGES, client=client_for(s, error_handler(429, body, counter=calls),
                                         max_retries=2))
    error = info.value
    assert "crédit épuisé" in error.message and not error.retryable and error.kind == "credit"
    assert "You exceeded your current quota" in error.message
    assert len(calls) == 1  # the SDK's two retries were not spent
    assert FAKE_KEY not in error.message


def test_openrouter_model_without_tools_names_the_model_variable_and_keeps_the_reason():
    # https://github.com/mastra-ai/mastra/issues/2839
    body = {"error": {"message": "No endpoints found that support tool use. To learn more about "
                      "provider routing, visit: https://openrouter.ai/docs/provider-routing",
                      "code": 404}}
    s = settings(OPENROUTER_API_KEY=FAKE_KEY, OPENAI_MODEL="deepseek/deepseek-r1:free")
    error = raise_from(s, error_handler(404, body), model="deepseek/deepseek-r1:free")
    assert error.kind == "tools_unsupported" and error.capability
    assert "OPENAI_MODEL_FAST" in error.message and "No endpoints found" in error.message
    assert "OpenRouter" in error.message and "OPENAI_BASE_URL" not in error.message


def test_openrouter_wrong_address_names_openrouter_base_url():
    s = settings(OPENROUTER_API_KEY=FAKE_KEY)
    error = raise_from(s, error_handler(404, "Not Found", text=True))
    assert "OPENROUTER_BASE_URL" in error.message and error.kind == "not_found"


def test_vllm_without_tool_flags_says_how_to_restart_it():
    # https://github.com/vllm-project/vllm/issues/9986 (body with top-level "object": "error")
    body = {"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice"
            " and --tool-call-parser to be set", "type": "BadRequestError", "param": None,
            "code": 400}
    s = settings(OPENAI_BASE_URL="http://127.0.0.1:8000/v1", OPENAI_MODEL="qwen")
    error = raise_from(s, error_handler(400, body))
    assert error.kind == "tools_unsupported" and "--enable-auto-tool-choice" in error.message
    assert "vLLM" in error.message


def test_lm_studio_plain_string_body_is_quoted_not_dropped():
    # https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/670: {"error": "<string>"}
    body = {"error": "Invalid tool_choice type: 'object'. Supported string values: none, auto, "
            "required"}
    s = settings(OPENAI_BASE_URL="http://127.0.0.1:1234/v1", COURSE_PROVIDER="lmstudio")
    exc = openai.BadRequestError("Error code: 400", response=http.Response(
        400, json=body, request=http.Request("POST", "http://x")), body=body["error"])
    error = explain_error(exc, settings=s, model="qwen")
    assert error.kind == "tool_choice_unsupported" and "Invalid tool_choice type" in error.message
    text = raise_from(s, error_handler(400, "something odd happened", text=True))
    assert "something odd happened" in text.message


def test_ollama_model_not_found_says_ollama_pull():
    body = {"error": {"message": "model \"llama9\" not found, try pulling it first",
                      "type": "api_error", "param": None, "code": None}}
    s = settings(OPENAI_BASE_URL="http://localhost:11434/v1", OPENAI_MODEL="llama9")
    error = raise_from(s, error_handler(404, body), model="llama9")
    assert error.kind == "model_not_found" and "ollama pull" in error.message


def test_backend_named_from_settings_not_from_the_url():
    s = settings(COURSE_BACKEND="openai", OPENAI_API_KEY=FAKE_KEY,
                 OPENAI_BASE_URL="http://127.0.0.1:8000/v1")
    error = raise_from(s, error_handler(401, {"error": {"message": "bad key"}}))
    assert "clé refusée par OpenAI" in error.message and "OPENAI_API_KEY" in error.message


def test_connection_refused_names_how_to_start_the_local_server():
    def handler(request):
        raise http.ConnectError("refused", request=request)

    s = settings(OPENAI_BASE_URL="http://localhost:11434/v1")
    error = raise_from(s, handler)
    assert error.kind == "connection" and "ollama serve" in error.message
    assert "OPENAI_BASE_URL" in error.message


# --------------------------------------------------------------------------- usage and cost


def test_dated_model_names_are_grouped_under_the_configured_one():
    assert canonical_model("gpt-5-mini-2025-08-07") == "gpt-5-mini"
    assert canonical_model("gpt-4-0613") == "gpt-4" and canonical_model("llama3.1") == "llama3.1"
    ledger = UsageLedger()
    ledger.record("gpt-5-mini-2025-08-07", Usage(10, 5, 2, 15, 1))
    ledger.record("gpt-5-mini", Usage(10, 5, 0, 15, 1))
    assert list(ledger.by_model) == ["gpt-5-mini"] and ledger.calls == 2


def test_cost_counts_reasoning_as_output_and_cached_input_at_its_price(monkeypatch):
    monkeypatch.delenv("COURSE_PRICES", raising=False)
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000, reasoning_tokens=900_000,
                  total_tokens=2_000_000, calls=1, cached_tokens=500_000)
    # gpt-4.1-mini: 0.40 input, 0.10 cached, 1.60 output per million
    assert usage.cost("gpt-4.1-mini-2025-04-14") == pytest.approx(0.20 + 0.05 + 1.60)
    assert usage.cost("openai/gpt-4.1-mini") == pytest.approx(1.85)
    assert usage.cost("mystery-model") is None
    monkeypatch.setenv("COURSE_PRICES", json.dumps({"mystery-model": [1, 1, 1]}))
    assert usage.cost("mystery-model") == pytest.approx(2.0)
    assert format_dollars(0.00421) == "0,0042 $" and format_dollars(1.5) == "1,50 $"


def test_offline_cost_is_labelled_as_an_estimate_at_a_named_reference_price():
    ledger = UsageLedger()
    ledger.record("offline-fast", Usage(1000, 100, 0, 1100, 2))
    line = ledger.cost_summary(provider="offline")
    assert "simulateur" in line and "gpt-4.1-mini" in line and "$" in line
    assert "aucun coût" in ledger.cost_summary(provider="ollama")


def test_run_agent_budget_in_dollars_stops_before_the_call_that_would_exceed_it():
    from course_utils.agent import estimate_tokens, run_agent
    from course_utils.testing import ScriptedModel, finish, tool_call, turn
    from course_utils.usage import price_of

    def get_weather(location: str) -> dict:
        """Donne la météo d'une ville.

        Args:
            location: La ville.
        """
        return {"location": location, "temperature": 18}

    script = [turn(tool_call("get_weather", location="Lyon")), finish("18 °C.")]
    with ScriptedModel(script) as model:
        full = run_agent("Météo à Lyon ?", [get_weather], client=model.client)
    assert full.cost and full.cost > 0
    spent_first = full.steps[0].usage.cost(full.model)
    second = estimate_tokens(model.requests[1]["messages"], model.requests[1]["tools"])
    budget = spent_first + second * price_of(full.model)[0] / 1e6 - 1e-9
    model = ScriptedModel(script)
    run = run_agent("Météo à Lyon ?", [get_weather], client=model.client, cost_budget=budget)
    assert run.status == "budget_exhausted" and len(model.calls) == 1
    assert "$" in run.answer and "estimation" in run.answer
    model = ScriptedModel(script)
    assert run_agent("Météo à Lyon ?", [get_weather], client=model.client,
                     cost_budget=1.0).status == "finished"


def test_a_raw_client_refused_a_reasoning_parameter_is_told_what_the_course_client_does():
    body = {"error": {"message": "Unsupported value: 'temperature' does not support 0 with this "
                      "model. Only the default (1) value is supported.",
                      "type": "invalid_request_error", "param": "temperature",
                      "code": "unsupported_value"}}
    exc = openai.BadRequestError("Error code: 400", response=http.Response(
        400, json=body, request=http.Request("POST", "http://x")), body=body["error"])
    error = explain_error(exc, settings=settings(OPENAI_API_KEY=FAKE_KEY), model="gpt-5-mini")
    assert "temperature=1" in error.message and "Only the default (1)" in error.message


def test_the_simulator_answers_a_named_tool_choice_with_stop_as_openai_does():
    # OpenAI: named tool_choice -> finish_reason "stop" (https://github.com/vllm-project/vllm/pull/25054)
    from course_utils.llm import make_client
    from course_utils.offline import OfflineModel

    client = make_client(offline=OfflineModel())
    tools = [TOOL, OTHER]
    forced = client.chat.completions.create(
        model="offline-fast", messages=MESSAGES, tools=tools,
        tool_choice={"type": "function", "function": {"name": "get_time"}})
    assert forced.choices[0].finish_reason == "stop"
    assert [c.function.name for c in forced.choices[0].message.tool_calls] == ["get_time"]
    auto = client.chat.completions.create(model="offline-fast", messages=MESSAGES, tools=tools,
                                          tool_choice="required")
    assert auto.choices[0].finish_reason == "tool_calls"
