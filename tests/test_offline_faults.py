"""Injected faults surface as the SDK's own exceptions, with the SDK's own retries."""

from __future__ import annotations

import openai
import pytest

from course_utils.offline import OFFLINE_MODEL_FAST, InvalidStep, OfflineModel
from course_utils.offline.skills import chat

PING = [{"role": "user", "content": "Réponds uniquement par : OK"}]


def model_with(faults, **kwargs) -> OfflineModel:
    return OfflineModel(seed=0, faults=faults, skills=[chat.respond], **kwargs)


def ping(client, **kwargs):
    return client.chat.completions.create(model=OFFLINE_MODEL_FAST, messages=PING, **kwargs)


@pytest.mark.parametrize(
    "status, exception",
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
    ],
)
def test_client_errors_raise_at_once_without_retry(status, exception):
    model = model_with([status])
    with pytest.raises(exception) as info:
        ping(model.client())  # default max_retries=2
    assert info.value.status_code == status
    assert set(info.value.body) == {"message", "type", "param", "code"}
    assert len(model.calls) == 1
    assert model.calls[0]["status"] == status and model.calls[0]["fault"] == status
    model.assert_complete()


def test_401_reads_like_a_bad_key_with_the_key_masked():
    model = model_with([401])
    with pytest.raises(openai.AuthenticationError) as info:
        ping(model.client(api_key="sk-secret-abcdefghij1234"))
    assert "Incorrect API key provided: sk-" in info.value.message
    assert "secret" not in info.value.message and info.value.message.count("1234") == 1
    assert info.value.code == "invalid_api_key"


def test_429_twice_then_an_answer_after_two_sdk_retries_that_honour_the_hint(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(openai._base_client.time, "sleep", waits.append)  # record, don't wait
    model = model_with([429, 429])
    response = ping(model.client())
    assert response.choices[0].message.content == "OK"
    assert [call["status"] for call in model.calls] == [429, 429, 200]
    assert [call["fault"] for call in model.calls] == [429, 429, None]
    # two retries, each waiting the 20 ms the error's retry-after-ms asked for (not the SDK's
    # own exponential backoff of ~0.5 s, 1 s)
    assert waits == [0.02, 0.02]
    model.assert_complete()  # both faults consumed


def test_more_429_than_retries_raises_rate_limit_error_with_retry_hint():
    model = model_with([429, 429, 429, 429])
    with pytest.raises(openai.RateLimitError) as info:
        ping(model.client(max_retries=2))
    assert len(model.calls) == 3  # first try + two retries
    assert info.value.code == "rate_limit_exceeded"
    assert info.value.response.headers["retry-after-ms"] == "20"
    with pytest.raises(AssertionError, match="429"):
        model.assert_complete()  # one fault left


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_raise_internal_server_error(status):
    model = model_with([status])
    with pytest.raises(openai.InternalServerError) as info:
        ping(model.client(max_retries=0))
    assert info.value.status_code == status
    assert info.value.body["type"] == "server_error"


def test_503_is_retried_by_the_sdk_then_answers():
    model = model_with([503])
    assert ping(model.client()).choices[0].message.content == "OK"
    assert [call["status"] for call in model.calls] == [503, 200]


def test_timeout_raises_api_timeout_error():
    model = model_with(["timeout"])
    with pytest.raises(openai.APITimeoutError):
        ping(model.client(max_retries=0))
    assert model.calls[0]["fault"] == "timeout" and model.calls[0]["status"] is None


def test_connection_failure_raises_api_connection_error():
    model = model_with(["connection"])
    with pytest.raises(openai.APIConnectionError) as info:
        ping(model.client(max_retries=0))
    assert not isinstance(info.value, openai.APITimeoutError)


def test_choices_null_is_a_200_whose_choices_are_none():
    model = model_with(["choices_null"])
    response = ping(model.client())
    assert response.choices is None  # the SDK does not raise: the student's code must check
    assert response.model_extra["error"]["code"] == 502
    assert model.calls[0]["status"] == 200


def test_choices_null_while_streaming_raises_api_error():
    model = model_with(["choices_null"])
    stream = ping(model.client(), stream=True)
    with pytest.raises(openai.APIError, match="Provider returned error"):
        list(stream)


def test_empty_message_has_no_text_and_no_tool_call():
    model = model_with(["empty_message"])
    choice = ping(model.client()).choices[0]
    assert choice.message.content == ""
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    assert ping(model.client()).choices[0].message.content == "OK"  # then normal answers


def test_faults_are_consumed_by_any_endpoint_in_order():
    model = model_with([429, "empty_message"])
    client = model.client()
    embedding = client.embeddings.create(model="offline-embed", input="chat", encoding_format="float")
    assert embedding.data == []  # 429 retried, then the empty answer hit the embeddings call
    assert ping(client).choices[0].message.content == "OK"
    assert [(c["path"], c["fault"]) for c in model.calls] == [
        ("/v1/embeddings", 429), ("/v1/embeddings", "empty_message"),
        ("/v1/chat/completions", None)]


def test_add_faults_appends_to_pending_faults():
    model = model_with([])
    client = model.client(max_retries=0)
    assert ping(client).choices[0].message.content == "OK"
    assert model.add_faults([403, 500]) is model
    with pytest.raises(openai.PermissionDeniedError):
        ping(client)
    with pytest.raises(openai.InternalServerError):
        ping(client)
    model.assert_complete()


def test_script_steps_can_be_faults_for_their_own_request():
    model = model_with([]).script([429, "Bonjour"])
    assert ping(model.client()).choices[0].message.content == "Bonjour"
    assert [call["fault"] for call in model.calls] == [429, None]
    model.assert_complete()


def test_unknown_faults_are_refused():
    with pytest.raises(InvalidStep, match="panne inconnue"):
        model_with(["slow"])
    with pytest.raises(InvalidStep, match="entre 400 et 599"):
        model_with([302])
