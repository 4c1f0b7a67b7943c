"""Talking to a chat model: one client for every backend, one ``chat()`` call, real token usage.

``make_client`` returns a genuine ``openai.OpenAI`` client for each backend (the offline simulator
included: it is served through the SDK's own HTTP library, so retries, parsing and exceptions are
the SDK's). ``chat`` adds what a course needs on top of ``client.chat.completions.create``:

* requests normalised for the provider's capability profile (:mod:`course_utils.providers`):
  reasoning models such as ``gpt-5``/``o3`` get ``max_completion_tokens`` with room for their
  reasoning, a low reasoning effort and no temperature other than 1; a named ``tool_choice``
  is rewritten where the server cannot take it (LM Studio, Ollama). Clients built by
  ``make_client`` apply the same normalisation to *every* request, so a lesson's direct
  ``client.chat.completions.create(...)`` call gets it too;
* defensive parsing: a tool turn is decided from ``tool_calls``, never from ``finish_reason``;
  arguments given as a dict are accepted; a 200 with ``choices: null`` and an error object (seen
  with OpenRouter) becomes a clear, retryable error after a bounded number of new attempts;
  reasoning text is read from the provider's extra fields;
* usage from the provider's real ``usage`` object (never a word count), summed by ``UsageLedger``
  (both in :mod:`course_utils.usage`, re-exported here);
* SDK exceptions turned into ``LLMError`` with a French message naming the fix, read from the
  provider's own error code and message (``insufficient_quota`` → « crédit épuisé », tools not
  supported, model not found, vLLM's missing tool flags, plain-string bodies), naming the
  variables of the *configured* backend. Retries of 429/5xx/timeouts remain the SDK's
  (``max_retries``), except an exhausted credit: the client marks it ``x-should-retry: false``,
  since waiting cannot help.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Iterable

import openai

from . import errors, providers
from ._http import http_module
from .settings import Settings, load_settings
from .errors import LLMError, _error_fields, _json_or_text
from .providers import is_reasoning_model
from .usage import Usage, UsageLedger, _record_session_usage, session_ledger

OFFLINE_BASE_URL = "http://offline.invalid/v1"


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model. ``arguments`` is ``None`` when ``error`` says why."""

    id: str
    name: str
    arguments: dict | None
    raw_arguments: str
    error: str | None = None

    def to_message(self) -> dict:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.raw_arguments},
        }


@dataclass(frozen=True)
class ChatResult:
    """The parsed answer of one chat request."""

    text: str | None
    message: dict
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    model: str
    usage: Usage
    reasoning: str | None = None
    adjustments: tuple[str, ...] = ()  # French notes: how the request was normalised

    @property
    def has_tool_calls(self) -> bool:
        return bool(self.tool_calls)


# --------------------------------------------------------------------------- session state

_DEFAULT: dict[str, Any] = {}
_OFFLINE_OF: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_SETTINGS_OF: weakref.WeakKeyDictionary[Any, Settings] = weakref.WeakKeyDictionary()


def set_default(settings: Settings, client: Any) -> None:
    """Remember the settings and client ``chat()`` uses when none is given (done by ``setup``)."""
    _DEFAULT["settings"] = settings
    _DEFAULT["client"] = client


def default_settings() -> Settings:
    if "settings" not in _DEFAULT:
        _DEFAULT["settings"] = load_settings()
    return _DEFAULT["settings"]


def default_client() -> openai.OpenAI:
    if "client" not in _DEFAULT:
        _DEFAULT["client"] = make_client(default_settings())
    return _DEFAULT["client"]


def settings_of(client: Any) -> Settings | None:
    """The settings a client was built from by ``make_client`` (``None`` for other clients)."""
    try:
        found = _SETTINGS_OF.get(client)
    except TypeError:
        return None
    if found is None and client is not None and client is _DEFAULT.get("client"):
        return _DEFAULT.get("settings")
    return found


def offline_model_of(client: Any) -> Any:
    """The ``OfflineModel`` serving ``client``, or ``None`` for a real provider."""
    try:
        return _OFFLINE_OF.get(client)
    except TypeError:
        return None


# --------------------------------------------------------------------------- clients


def make_client(
    settings: Settings | None = None,
    *,
    offline: Any = None,
    max_retries: int | None = None,
    timeout: float | None = None,
) -> openai.OpenAI:
    """A real ``openai.OpenAI`` client for the configured backend.

    ``offline`` — an ``OfflineModel`` to serve the client (scripted models, faults); when given,
    the settings' backend is ignored. Without it, the offline backend builds a fresh
    ``OfflineModel(seed=settings.seed)``. A networked client normalises each chat request for
    the provider's profile (see :class:`ProviderTransport`).
    """
    from .settings import ensure_network_allowed

    settings = settings or (default_settings() if offline is None else Settings())
    http = http_module()
    hooks = {"response": [_record_session_usage]}
    options: dict[str, Any] = {}
    if max_retries is not None:
        options["max_retries"] = max_retries
    if timeout is not None:
        options["timeout"] = timeout

    if offline is not None or settings.offline:
        if offline is None:
            from .offline import OfflineModel

            offline = OfflineModel(seed=settings.seed)
        client = openai.OpenAI(
            api_key="offline",
            base_url=OFFLINE_BASE_URL,
            http_client=http.Client(transport=offline.transport, event_hooks=hooks),
            **options,
        )
        _OFFLINE_OF[client] = offline
        _SETTINGS_OF[client] = settings if settings.offline else Settings()
        return client

    ensure_network_allowed(settings)
    headers = {}
    if settings.backend == "openrouter":
        headers = {"HTTP-Referer": "https://github.com/", "X-Title": "Cours agents LLM"}
    client = openai.OpenAI(
        api_key=settings.api_key,
        base_url=settings.base_url,
        default_headers=headers or None,
        http_client=http.Client(event_hooks=hooks, timeout=timeout or 60.0,
                                transport=ProviderTransport(settings, http.HTTPTransport())),
        **options,
    )
    _SETTINGS_OF[client] = settings
    return client


class ProviderTransport(http_module().BaseTransport):
    """HTTP transport that adapts chat requests to the provider, and its errors to the SDK.

    * ``POST …/chat/completions``: the JSON body goes through
      :func:`course_utils.providers.normalize_request` for the model's profile;
    * a 429 whose code is ``insufficient_quota`` gets ``x-should-retry: false`` (the SDK obeys
      it): an exhausted credit does not come back by waiting.
    """

    def __init__(self, settings: Settings, inner: Any):
        self.settings = settings
        self.inner = inner

    def handle_request(self, request: Any) -> Any:
        http = http_module()
        if request.method == "POST" and request.url.path.endswith("/chat/completions"):
            try:
                body = json.loads(request.read() or b"{}")
            except ValueError:
                body = None
            if isinstance(body, dict):
                profile = self.settings.profile_for(str(body.get("model") or ""))
                fixed, _notes = providers.normalize_request(profile, body)
                if fixed != body:
                    headers = {k: v for k, v in request.headers.items()
                               if k.lower() != "content-length"}
                    request = http.Request(request.method, request.url, headers=headers,
                                           content=json.dumps(fixed).encode(),
                                           extensions=request.extensions)
        response = self.inner.handle_request(request)
        if response.status_code == 429:
            response.read()
            if _error_fields(_json_or_text(response.content))[0] == "insufficient_quota":
                response.headers["x-should-retry"] = "false"
        return response

    def close(self) -> None:
        self.inner.close()


def backend_of(client: Any) -> str:
    """The backend a client talks to: from its settings, else guessed from its base URL."""
    settings = settings_of(client)
    if settings is not None:
        return settings.backend
    url = str(getattr(client, "base_url", "") or "")
    if "offline.invalid" in url:
        return "offline"
    if "openrouter" in url:
        return "openrouter"
    if "api.openai.com" in url:
        return "openai"
    return "compatible"


def _settings_for(client: Any) -> Settings:
    settings = settings_of(client)
    if settings is not None:
        return settings
    backend = backend_of(client)
    provider = providers.guess_compatible_provider(str(getattr(client, "base_url", "")))
    return Settings(backend=backend, provider=provider if backend == "compatible" else backend)


def normalize_params(
    backend: str,
    model: str,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    provider: str | None = None,
) -> dict[str, Any]:
    """Sampling parameters in the form this provider and model family accept."""
    params: dict[str, Any] = {}
    if temperature is not None:
        params["temperature"] = temperature
    if max_tokens is not None:
        params["max_tokens"] = max_tokens
    profile = providers.profile_for(provider or backend, model)
    fixed, _notes = providers.normalize_request(profile, params)
    return fixed


# --------------------------------------------------------------------------- errors


def explain_error(
    exc: BaseException,
    *,
    backend: str | None = None,
    model: str = "",
    settings: Settings | None = None,
) -> LLMError:
    """Turn an SDK exception into an ``LLMError`` whose French message says what to fix.

    The provider and the variables named come from ``settings`` (default: the session's, or a
    bare ``backend`` when that is given and differs); see :func:`course_utils.errors.explain`.
    """
    if settings is None:
        settings = _DEFAULT.get("settings")
        if settings is None or (backend is not None and settings.backend != backend):
            settings = Settings(backend=backend or "offline", provider=backend or "offline")
    return errors.explain(exc, settings=settings, model=model)


# --------------------------------------------------------------------------- chat


def _parse_arguments(raw: Any) -> tuple[dict | None, str, str | None]:
    if isinstance(raw, dict):
        return raw, json.dumps(raw, ensure_ascii=False), None
    text = "" if raw is None else str(raw)
    if not text.strip():
        return {}, text or "{}", None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, text, f"arguments JSON invalides ({exc.msg}, position {exc.pos})"
    if not isinstance(value, dict):
        return None, text, "les arguments doivent être un objet JSON ({...})"
    return value, text, None


def _extra(obj: Any, *names: str) -> Any:
    extra = getattr(obj, "model_extra", None) or {}
    for name in names:
        value = getattr(obj, name, None) if name not in extra else extra[name]
        if value:
            return value
    return None


def parse_completion(completion: Any) -> ChatResult:
    """Read an SDK ``ChatCompletion`` defensively (see the module docstring)."""
    choice = completion.choices[0]
    message = choice.message
    calls = []
    for call in message.tool_calls or []:
        function = getattr(call, "function", None)
        name = getattr(function, "name", "") or ""
        raw = getattr(function, "arguments", None)
        if raw is None:
            raw = (getattr(function, "model_extra", None) or {}).get("arguments")
        arguments, raw_text, error = _parse_arguments(raw)
        calls.append(ToolCall(id=call.id, name=name, arguments=arguments, raw_arguments=raw_text,
                              error=error))
    text = message.content
    reasoning = _extra(message, "reasoning_content", "reasoning")
    if isinstance(reasoning, list):
        reasoning = "\n".join(str(part.get("text", part)) if isinstance(part, dict) else str(part)
                              for part in reasoning)
    wire: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        wire["tool_calls"] = [call.to_message() for call in calls]
    return ChatResult(
        text=text,
        message=wire,
        tool_calls=tuple(calls),
        finish_reason=choice.finish_reason,
        model=completion.model or "",
        usage=Usage.from_api(completion.usage),
        reasoning=reasoning or None,
    )


def _missing_choices_error(completion: Any, backend: str) -> LLMError:
    error = _extra(completion, "error")
    detail = ""
    if isinstance(error, dict):
        detail = f" : {error.get('message') or error}"
    elif error:
        detail = f" : {error}"
    return LLMError(
        f"{backend} a répondu 200 sans « choices »{detail}. C'est une panne passagère du "
        "fournisseur : réessayez (l'erreur est marquée comme réessayable).",
        status=200,
        retryable=True,
    )


def chat(
    messages: Iterable[dict],
    *,
    client: Any = None,
    model: str | None = None,
    tools: list[dict] | None = None,
    tool_choice: Any = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    ledger: UsageLedger | None = None,
    max_retries: int | None = None,
    timeout: float | None = None,
    empty_choice_retries: int = 2,
    **extra: Any,
) -> ChatResult:
    """One chat request, parsed into a ``ChatResult``; errors raised as ``LLMError`` (French).

    ``client``/``model`` default to those of ``setup()`` (or of the settings). ``max_retries``
    and ``timeout`` override the client's for this call; the SDK retries 429/5xx/timeouts itself.
    ``extra`` goes to ``chat.completions.create`` unchanged (``n``, ``seed``, ...).
    """
    client = client or default_client()
    settings = _settings_for(client)
    backend = settings.backend
    if model is None:
        model = "offline-fast" if backend == "offline" else settings.model
    request: dict[str, Any] = {"model": model, "messages": list(messages)}
    if tools:
        request["tools"] = tools
    if tool_choice is not None:
        request["tool_choice"] = tool_choice
    if temperature is not None:
        request["temperature"] = temperature
    if max_tokens is not None:
        request["max_tokens"] = max_tokens
    request.update(extra)
    request, notes = providers.normalize_request(settings.profile_for(model), request)
    options: dict[str, Any] = {}
    if max_retries is not None:
        options["max_retries"] = max_retries
    if timeout is not None:
        options["timeout"] = timeout
    caller = client.with_options(**options) if options else client

    for attempt in range(empty_choice_retries + 1):
        try:
            completion = caller.chat.completions.create(**request)
        except openai.OpenAIError as exc:
            raise explain_error(exc, model=model, settings=settings) from exc
        if completion.choices:
            break
        if ledger is not None:
            ledger.record(model, completion.usage)
        if attempt == empty_choice_retries:
            raise _missing_choices_error(completion, backend)
    result = parse_completion(completion)
    if notes:
        result = replace(result, adjustments=notes)
    if ledger is not None:
        ledger.record_result(result)
    return result


__all__ = [
    "ChatResult",
    "LLMError",
    "ToolCall",
    "Usage",
    "UsageLedger",
    "backend_of",
    "chat",
    "explain_error",
    "is_reasoning_model",
    "make_client",
    "normalize_params",
    "settings_of",
    "parse_completion",
    "session_ledger",
    "set_default",
]
