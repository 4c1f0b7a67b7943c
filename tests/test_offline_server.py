"""The offline model as a student's code sees it: through the real ``openai`` SDK."""

from __future__ import annotations

import asyncio
import re
import socket

import openai
import pytest

from course_utils.offline import (
    OFFLINE_EMBEDDING_MODEL,
    OFFLINE_MODEL_BIG,
    OFFLINE_MODEL_FAST,
    InvalidStep,
    OfflineModel,
    ScriptExhausted,
    SkillContractError,
)
from course_utils.offline.skills import chat

FAST = OFFLINE_MODEL_FAST
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Météo actuelle d'une ville.",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    },
}


def chat_model(**kwargs) -> OfflineModel:
    """An offline model with only the chat skill (independent of the tool-use skills)."""
    return OfflineModel(seed=kwargs.pop("seed", 0), skills=[chat.respond], **kwargs)


def ask(client, text: str, **kwargs):
    return client.chat.completions.create(
        model=kwargs.pop("model", FAST), messages=[{"role": "user", "content": text}], **kwargs
    )


# ---------------------------------------------------------------- answers and their shape


def test_ping_answers_exactly_ok_with_a_spec_shaped_completion():
    model = chat_model()
    response = ask(model.client(), "Réponds uniquement par : OK")
    assert response.choices[0].message.content == "OK"
    assert response.choices[0].finish_reason == "stop"
    assert response.choices[0].message.role == "assistant"
    assert response.choices[0].message.tool_calls is None
    assert response.choices[0].message.refusal is None
    assert re.fullmatch(r"chatcmpl-[A-Za-z0-9]+", response.id)
    assert response.object == "chat.completion"
    assert response.model == FAST
    assert isinstance(response.created, int)
    usage = response.usage
    assert usage.completion_tokens == 1
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.completion_tokens_details.reasoning_tokens == 0
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_the_big_model_answers_under_its_own_name():
    response = ask(chat_model().client(), "Réponds uniquement par : pong", model=OFFLINE_MODEL_BIG)
    assert response.model == OFFLINE_MODEL_BIG
    assert response.choices[0].message.content == "pong"


def test_chat_skill_greets_and_is_honest_about_knowledge():
    client = chat_model().client()
    greeting = ask(client, "Bonjour !").choices[0].message.content
    assert greeting.startswith("Bonjour")
    honest = ask(client, "Quel est le PIB du Pérou en 2023 ?").choices[0].message.content
    assert "hors ligne" in honest and ".env" in honest
    assert not re.search(r"\d", honest.replace("offline-fast", ""))  # no invented figure


def test_usage_is_estimated_from_the_text_and_counts_tool_schemas():
    client = chat_model().client()
    short = ask(client, "Salut").usage.prompt_tokens
    longer = ask(client, "Salut " + "x" * 400).usage.prompt_tokens
    with_tools = ask(client, "Salut", tools=[WEATHER]).usage.prompt_tokens
    assert longer - short == 100  # 400 more characters ≈ 100 tokens (4 characters a token)
    assert with_tools > short + 20


def test_max_tokens_cuts_the_answer_with_finish_reason_length():
    client = chat_model().client()
    full = ask(client, "Que sais-tu de Victor Hugo ?")
    for option in ("max_tokens", "max_completion_tokens"):
        cut = ask(client, "Que sais-tu de Victor Hugo ?", **{option: 5})
        assert cut.choices[0].finish_reason == "length"
        assert cut.usage.completion_tokens <= 5
        assert full.choices[0].message.content.startswith(cut.choices[0].message.content)
    assert full.choices[0].finish_reason == "stop"


def test_n_gives_n_choices_that_differ_at_positive_temperature():
    client = chat_model().client()
    response = ask(client, "Raconte-moi une histoire.", n=4, temperature=1.0)
    assert [choice.index for choice in response.choices] == [0, 1, 2, 3]
    assert len({choice.message.content for choice in response.choices}) > 1


def test_models_endpoint_lists_the_three_offline_models():
    names = [card.id for card in chat_model().client().models.list()]
    assert names == [OFFLINE_MODEL_FAST, OFFLINE_MODEL_BIG, OFFLINE_EMBEDDING_MODEL]


def test_unknown_path_is_a_404():
    client = chat_model().client()
    with pytest.raises(openai.NotFoundError, match="Invalid URL"):
        client.post("/no/such/endpoint", cast_to=object, body={})


def test_model_client_is_built_like_make_client_and_reaches_the_session_ledger():
    from course_utils import llm
    from course_utils.usage import session_ledger

    model = chat_model()
    before = session_ledger().calls
    for client in (model.client(), model.client(max_retries=0), llm.make_client(offline=model),
                   model.client(api_key="sk-autre-cle")):
        assert ask(client, "Réponds uniquement par : OK").choices[0].message.content == "OK"
    assert session_ledger().calls == before + 4  # every offline client feeds the ledger
    assert llm.offline_model_of(model.client()) is model
    assert model.client(max_retries=0).max_retries == 0


def test_async_client_is_served_too():
    model = chat_model()

    async def run():
        client = model.async_client()
        return await client.chat.completions.create(
            model=FAST, messages=[{"role": "user", "content": "Réponds uniquement par : OK"}]
        )

    assert asyncio.run(run()).choices[0].message.content == "OK"


# ---------------------------------------------------------------- validation like the real API


def bad_request(client, **kwargs) -> openai.BadRequestError:
    kwargs.setdefault("model", FAST)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(**kwargs)
    body = info.value.body
    assert body["type"] == "invalid_request_error"
    return info.value


def test_tool_message_without_pending_call_is_rejected():
    model = chat_model()
    error = bad_request(
        model.client(max_retries=0),
        messages=[
            {"role": "user", "content": "Météo à Lyon ?"},
            {"role": "tool", "tool_call_id": "call_abc", "content": "18 °C"},
        ],
    )
    assert "messages with role 'tool' must be a response to a preceeding message with " \
           "'tool_calls'" in error.message
    assert error.body["param"] == "messages.[1].role"
    assert model.calls[-1]["status"] == 400
    assert len(model.calls) == 1  # a 400 is not retried


def test_unanswered_tool_call_is_rejected_and_named():
    error = bad_request(
        chat_model().client(),
        messages=[
            {"role": "user", "content": "Météo à Lyon et Paris ?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"location":"Lyon"}'}},
                {"id": "call_b", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'}},
            ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "18"},
            {"role": "user", "content": "Alors ?"},
        ],
        tools=[WEATHER],
    )
    assert "must be followed by tool messages responding to each 'tool_call_id'" in error.message
    assert error.message.endswith("did not have response messages: call_b")


def test_tool_result_for_an_unknown_call_id_is_rejected():
    error = bad_request(
        chat_model().client(),
        messages=[
            {"role": "user", "content": "Météo ?"},
            {"role": "assistant", "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_zz", "content": "18"},
        ],
    )
    assert "'call_zz' not found in 'tool_calls' of previous message" in error.message
    assert error.body["param"] == "messages.[2].tool_call_id"


def test_unknown_model_is_a_400_naming_it_and_the_available_ones():
    error = bad_request(chat_model().client(), model="gpt-4o",
                        messages=[{"role": "user", "content": "x"}])
    assert error.code == "model_not_found"
    assert "gpt-4o" in error.message
    assert OFFLINE_MODEL_FAST in error.message and OFFLINE_MODEL_BIG in error.message


def test_tool_choice_naming_a_missing_function_or_without_tools_is_rejected():
    client = chat_model().client()
    messages = [{"role": "user", "content": "Météo ?"}]
    error = bad_request(client, messages=messages, tools=[WEATHER],
                        tool_choice={"type": "function", "function": {"name": "get_time"}})
    assert "function 'get_time' not found in 'tools'" in error.message
    error = bad_request(client, messages=messages, tool_choice="auto")
    assert "'tool_choice' is only allowed when 'tools' are specified" in error.message


@pytest.mark.parametrize(
    "tool, param, fragment",
    [
        ({"type": "retrieval"}, "tools[0].type", "Invalid value: 'retrieval'"),
        ({"type": "function", "function": {"description": "x"}}, "tools[0].function.name",
         "Missing required parameter"),
        ({"type": "function", "function": {"name": "get weather"}}, "tools[0].function.name",
         "does not match pattern"),
        ({"type": "function", "function": {"name": "f", "parameters": {"type": "string"}}},
         "tools[0].function.parameters", "must be a JSON Schema of 'type: \"object\"'"),
    ],
)
def test_malformed_tools_are_rejected(tool, param, fragment):
    error = bad_request(chat_model().client(), messages=[{"role": "user", "content": "x"}],
                        tools=[tool])
    assert error.body["param"] == param
    assert fragment in error.message


@pytest.mark.parametrize(
    "kwargs, param",
    [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "bot", "content": "x"}]}, "messages.[0].role"),
        ({"messages": [{"role": "user", "content": "x"}], "n": 9}, "n"),
        ({"messages": [{"role": "user", "content": "x"}], "n": 0}, "n"),
        ({"messages": [{"role": "user", "content": "x"}], "temperature": 2.5}, "temperature"),
        ({"messages": [{"role": "user", "content": None}]}, "messages.[0].content"),
        ({"messages": [{"role": "user", "content": "x"},
                       {"role": "assistant", "tool_calls": [
                           {"id": "call_a", "type": "function",
                            "function": {"name": "f", "arguments": {"a": 1}}}]}]},
         "messages.[1].tool_calls.[0].function.arguments"),
    ],
)
def test_invalid_parameters_are_rejected_with_their_param(kwargs, param):
    assert bad_request(chat_model().client(), **kwargs).body["param"] == param


def test_missing_messages_is_rejected():
    client = chat_model().client()
    with pytest.raises(openai.BadRequestError, match="Missing required parameter: 'messages'"):
        client.post("/chat/completions", cast_to=object, body={"model": FAST})


def test_the_sdk_message_object_given_back_is_accepted():
    call_step = {"content": None, "tool_calls": [
        {"name": "get_weather", "arguments": {"location": "Lyon"}}]}
    model = chat_model().script([call_step, "Il fait 18 °C à Lyon.", "Il fait 18 °C à Lyon."])
    client = model.client()
    messages = [{"role": "user", "content": "Météo à Lyon ?"}]
    message = client.chat.completions.create(
        model=FAST, messages=messages, tools=[WEATHER]).choices[0].message
    result = {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "18"}
    # both ways students give the message back: the object, and its full dump (refusal, audio…)
    for given_back in (message, message.model_dump()):
        final = client.chat.completions.create(
            model=FAST, tools=[WEATHER], messages=[*messages, given_back, result])
        assert final.choices[0].message.content == "Il fait 18 °C à Lyon."
    assert model.calls[-1]["body"]["messages"][1]["function_call"] is None  # the dump's extras
    model.assert_complete()


# ---------------------------------------------------------------- scripting


def test_script_plays_steps_strictly_in_order_with_malformed_json_as_is():
    model = chat_model().script([
        {"content": "Je regarde la météo.", "tool_calls": [
            {"name": "get_weather", "arguments": '{"location": "Lyon"'}]},
        "Il fait beau.",
    ])
    client = model.client()
    first = client.chat.completions.create(
        model=FAST, messages=[{"role": "user", "content": "Météo ?"}], tools=[WEATHER])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Je regarde la météo."
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert call.function.arguments == '{"location": "Lyon"'  # malformed JSON, unchanged
    assert re.fullmatch(r"call_[A-Za-z0-9]{9}", call.id)
    second = client.chat.completions.create(model=FAST, tools=[WEATHER], messages=[
        {"role": "user", "content": "Météo ?"}, choice.message,
        {"role": "tool", "tool_call_id": call.id, "content": "Erreur : JSON invalide"}])
    assert second.choices[0].message.content == "Il fait beau."
    model.assert_complete()


def test_a_tool_call_turn_has_null_content_and_dict_arguments_become_json():
    model = chat_model().script([{"content": None, "tool_calls": [
        {"name": "get_weather", "arguments": {"location": "Saint-Étienne"}}]}])
    response = ask(model.client(), "Météo ?", tools=[WEATHER])
    message = response.choices[0].message
    assert message.content is None
    assert message.tool_calls[0].function.arguments == '{"location":"Saint-Étienne"}'


def test_exhausted_script_fails_loudly_and_is_recorded():
    model = chat_model().script(["un"])
    client = model.client()
    assert ask(client, "Bonjour").choices[0].message.content == "un"
    with pytest.raises(ScriptExhausted, match="script épuisé"):
        ask(client, "Encore ?")
    assert isinstance(ScriptExhausted("x"), AssertionError)
    assert len(model.calls) == 2  # not retried by the SDK
    assert model.calls[-1]["status"] is None
    with pytest.raises(AssertionError, match="script épuisé"):
        model.assert_complete()


def test_unconsumed_steps_and_faults_make_assert_complete_fail():
    model = chat_model(faults=[503]).script(["un", "deux"])
    with pytest.raises(AssertionError) as info:
        model.assert_complete()
    assert "'un', 'deux'" in str(info.value)
    assert "503" in str(info.value)
    client = model.client()
    ask(client, "a")  # 503 retried, then "un"
    ask(client, "b")
    model.assert_complete()


def test_invalid_steps_are_refused_when_scripted():
    with pytest.raises(InvalidStep, match="étape de script n°1"):
        chat_model().script(["ok", {"text": "oops"}])
    with pytest.raises(ValueError):
        chat_model().script([{"content": None, "tool_calls": []}])
    with pytest.raises(InvalidStep):
        chat_model().script([200])


def test_responder_answers_or_falls_back_to_the_skills_on_none():
    seen = []

    def fn(request):
        seen.append(request["messages"][-1]["content"])
        return "réponse scriptée" if "météo" in request["messages"][-1]["content"] else None

    model = chat_model().responder(fn)
    client = model.client()
    assert ask(client, "Et la météo ?").choices[0].message.content == "réponse scriptée"
    assert ask(client, "Réponds uniquement par : OK").choices[0].message.content == "OK"
    assert seen == ["Et la météo ?", "Réponds uniquement par : OK"]


def test_calls_record_every_http_request():
    model = chat_model()
    client = model.client()
    ask(client, "Réponds uniquement par : OK")
    client.models.list()
    assert model.calls[0]["method"] == "POST"
    assert model.calls[0]["path"] == "/v1/chat/completions"
    assert model.calls[0]["body"]["messages"][0]["content"] == "Réponds uniquement par : OK"
    assert model.calls[0]["status"] == 200 and model.calls[0]["fault"] is None
    assert model.calls[0]["skill"] == "chat"
    assert model.calls[1] == {"method": "GET", "path": "/v1/models", "body": None,
                              "status": 200, "fault": None, "skill": None}
    assert len(model.chat_requests) == 1


def test_the_call_record_names_the_skill_that_answered():
    model = OfflineModel(seed=0, faults=[429, "timeout"])
    client = model.client(max_retries=2)
    ask(client, "Quel temps fait-il à Lyon ?", tools=[WEATHER])  # two retries, then tool use
    ask(client, "Bonjour")
    react_tools = [WEATHER, {"type": "function", "function": {
        "name": "finish", "description": "Réponse finale.",
        "parameters": {"type": "object", "properties": {"answer": {"type": "string"}},
                       "required": ["answer"]}}}]
    ask(client, "Quel temps fait-il à Lyon ?", tools=react_tools)
    assert [call["skill"] for call in model.calls] == [
        "http_429", "timeout", "tool_use", "chat", "react"]

    scripted = OfflineModel(seed=0).script(["Réponse scriptée.", 503])
    ask(scripted.client(max_retries=0), "Bonjour")
    with pytest.raises(openai.InternalServerError):
        ask(scripted.client(max_retries=0), "Bonjour")
    driven = OfflineModel(seed=0).responder(
        lambda request: "Pilotée." if "pilote" in request["messages"][-1]["content"] else None)
    ask(driven.client(), "pilote")
    ask(driven.client(), "Bonjour")  # the responder defers: a skill answers
    assert [call["skill"] for call in scripted.calls] == ["script", "http_503"]
    assert [call["skill"] for call in driven.calls] == ["script", "chat"]


def test_custom_skills_are_named_by_attribute_or_function_name():
    def echo(request, ctx):
        return "écho"

    def polite(request, ctx):
        return "Bien sûr."

    polite.skill_name = "politesse"
    model = OfflineModel(seed=0, skills=[echo])
    ask(model.client(), "Bonjour")
    model_b = OfflineModel(seed=0, skills=[polite])
    ask(model_b.client(), "Bonjour")
    assert model.calls[0]["skill"] == "echo" and model_b.calls[0]["skill"] == "politesse"


def test_the_skills_docstring_lists_the_skills_in_order():
    import re

    from course_utils.offline import skills

    listed = re.findall(r"^\* ``(\w+)`` —", skills.__doc__, re.MULTILINE)
    assert tuple(listed) == skills.SKILL_ORDER
    assert [skills.skill_name(fn) for fn in skills.default_skills()] == list(skills.SKILL_ORDER)
    assert skills.SKILL_ORDER[-1] == "chat"


def test_a_skill_breaking_tool_choice_fails_loudly():
    def rogue(request, ctx):
        return {"content": None, "tool_calls": [{"name": "get_weather", "arguments": {}}]}

    model = OfflineModel(seed=0, skills=[rogue])
    with pytest.raises(SkillContractError, match="tool_choice='none'"):
        ask(model.client(), "Météo ?", tools=[WEATHER], tool_choice="none")
    with pytest.raises(AssertionError, match="tool_choice='none'"):
        model.assert_complete()  # recorded, even if the caller swallowed the exception


def test_a_responder_returning_an_invalid_step_fails_loudly():
    model = chat_model().responder(lambda request: {"text": "oops"})
    with pytest.raises(InvalidStep, match="responder"):
        ask(model.client(), "Bonjour")
    with pytest.raises(AssertionError, match="responder"):
        model.assert_complete()


# ---------------------------------------------------------------- determinism


def test_same_request_same_seed_gives_the_same_response_ids_included():
    script = {"content": None, "tool_calls": [
        {"name": "get_weather", "arguments": {"location": "Lyon"}},
        {"name": "get_weather", "arguments": {"location": "Paris"}}]}
    dumps = []
    for _ in range(2):
        model = chat_model().script([script, script])
        client = model.client()
        for _ in range(2):
            dumps.append(ask(client, "Météo à Lyon et Paris ?", tools=[WEATHER]).model_dump())
    assert all(dump == dumps[0] for dump in dumps)
    ids = [call["id"] for call in dumps[0]["choices"][0]["message"]["tool_calls"]]
    assert len(set(ids)) == 2


def test_tool_call_ids_are_unique_within_a_conversation():
    step = {"content": None, "tool_calls": [{"name": "get_weather", "arguments": {}}]}
    model = chat_model().script([step] * 6)
    client = model.client()
    messages = [{"role": "user", "content": "Météo ?"}]
    seen = []
    for _ in range(6):
        message = client.chat.completions.create(
            model=FAST, messages=messages, tools=[WEATHER]).choices[0].message
        seen.append(message.tool_calls[0].id)
        messages += [message, {"role": "tool", "tool_call_id": seen[-1], "content": "{}"}]
    assert len(set(seen)) == 6


def samples(seed: int | None, count: int = 4) -> list[str]:
    client = OfflineModel(seed=seed, skills=[chat.respond]).client()
    return [
        ask(client, "Quelle est la capitale du Pérou ?", temperature=0.8).choices[0].message.content
        for _ in range(count)
    ]


def test_positive_temperature_gives_a_reproducible_sequence_of_different_samples():
    first = samples(0)
    assert len(set(first)) > 1
    assert samples(0) == first


def test_course_seed_changes_ids_and_samples(monkeypatch):
    def run():
        client = OfflineModel(skills=[chat.respond]).client()
        return ask(client, "Bonjour").id, samples(None, 6)

    monkeypatch.setenv("COURSE_SEED", "0")
    seed0 = run()
    monkeypatch.setenv("COURSE_SEED", "7")
    seed7 = run()
    assert seed0[0] != seed7[0]
    assert seed0[1] != seed7[1]
    assert run() == seed7


def test_request_seed_mixes_into_the_samples():
    client = chat_model().client()
    a = [ask(client, "Bonjour", temperature=1.0, seed=s).choices[0].message.content
         for s in range(6)]
    assert len(set(a)) > 1


# ---------------------------------------------------------------- streaming


def reassemble(stream):
    text, calls, finish, chunks = "", {}, None, []
    for chunk in stream:
        chunks.append(chunk)
        for choice in chunk.choices:
            delta = choice.delta
            text += delta.content or ""
            for call in delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
                slot["id"] = call.id or slot["id"]
                if call.function:
                    slot["name"] += call.function.name or ""
                    slot["arguments"] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    return text, [calls[i] for i in sorted(calls)], finish, chunks


@pytest.mark.parametrize("step", [
    "Bonjour ! Il fait 18 °C à Lyon, ciel nuageux.",
    {"content": "Je consulte la météo.", "tool_calls": [
        {"name": "get_weather", "arguments": {"location": "Lyon"}},
        {"name": "get_weather", "arguments": '{"location": "Par'}]},
])
def test_stream_with_usage_reassembles_to_the_non_streamed_answer(step):
    model = chat_model().script([step, step])
    client = model.client()
    kwargs = {"model": FAST, "messages": [{"role": "user", "content": "Météo ?"}],
              "tools": [WEATHER]}
    plain = client.chat.completions.create(**kwargs)
    stream = client.chat.completions.create(
        **kwargs, stream=True, stream_options={"include_usage": True})
    text, calls, finish, chunks = reassemble(stream)
    message = plain.choices[0].message
    assert text == (message.content or "")
    assert calls == [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                     for c in message.tool_calls or []]
    assert finish == plain.choices[0].finish_reason
    assert chunks[-1].choices == [] and chunks[-1].usage == plain.usage
    assert all(chunk.usage is None for chunk in chunks[:-1])
    assert model.calls[-1]["status"] == 200


def test_stream_from_the_skills_matches_the_plain_answer():
    client = chat_model().client()
    plain = ask(client, "Salut !")
    text, _, finish, chunks = reassemble(ask(client, "Salut !", stream=True))
    assert text == plain.choices[0].message.content and finish == "stop"
    assert len(chunks) > 3 and chunks[0].object == "chat.completion.chunk"


# ---------------------------------------------------------------- no network


@pytest.fixture
def no_socket(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("connexion réseau tentée par le modèle hors ligne")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_no_socket_is_ever_opened(no_socket):
    with pytest.raises(AssertionError, match="connexion réseau"):
        socket.create_connection(("example.org", 80))  # the guard works
    model = chat_model(faults=[429, "empty_message"])
    client = model.client()
    assert ask(client, "Réponds uniquement par : OK").choices[0].message.content == ""
    assert ask(client, "Réponds uniquement par : OK").choices[0].message.content == "OK"
    text, *_ = reassemble(ask(client, "Bonjour", stream=True,
                              stream_options={"include_usage": True}))
    assert text.startswith("Bonjour")
    assert len(client.embeddings.create(model=OFFLINE_EMBEDDING_MODEL, input="x").data) == 1
    assert [call["status"] for call in model.calls] == [429, 200, 200, 200, 200]


def test_default_skills_leave_plain_chat_to_the_chat_skill():
    model = OfflineModel(seed=0)  # default order: react, tool use, chat
    assert ask(model.client(), "Réponds uniquement par : OK").choices[0].message.content == "OK"
