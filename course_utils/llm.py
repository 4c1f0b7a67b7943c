"""Talking to a chat model: one client for every backend, one ``chat()`` call, real token usage.

``make_client`` returns a genuine ``openai.OpenAI`` client for each backend (the offline simulator
included: it is served through the SDK's own HTTP library, so retries, parsing and exceptions are
the SDK's). ``chat`` adds what a course needs on top of ``client.chat.completions.create``:

* parameters normalised per model family (reasoning models such as ``gpt-5``/``o3`` take
  ``max_completion_tokens`` and no temperature other than 1; local servers take ``max_tokens``);
* defensive parsing: a tool turn is decided from ``tool_calls``, never from ``finish_reason``;
  arguments given as a dict are accepted; a 200 with ``choices: null`` and an error object (seen
  with OpenRouter) becomes a clear, retryable error after a bounded number of new attempts;
  reasoning text is read from the provider's extra fields;
* usage from the provider's real ``usage`` object (never a word count), summed by ``UsageLedger``
  (both in :mod:`course_utils.usage`, re-exported here);
* SDK exceptions turned into ``LLMError`` with a French message naming the fix (a 401 names the
  variable holding the key). Retries of 429/5xx/timeouts remain the SDK's (``max_retries``).
"""

from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable

import openai

from ._http import http_module
from .config import Settings, load_settings
from .usage import Usage, UsageLedger, _record_session_usage, session_ledger

OFFLINE_BASE_URL = "http://offline.invalid/v1"
_REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)", re.IGNORECASE)


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

    @property
    def has_tool_calls(self) -> bool:
        return bool(self.tool_calls)


class LLMError(RuntimeError):
    """A provider error explained in French. ``retryable`` says whether waiting may help."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable


# --------------------------------------------------------------------------- session state

_DEFAULT: dict[str, Any] = {}
_OFFLINE_OF: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


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
    ``OfflineModel(seed=settings.seed)``.
    """
    from .config import ensure_network_allowed

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
        return client

    ensure_network_allowed(settings)
    headers = {}
    if settings.backend == "openrouter":
        headers = {"HTTP-Referer": "https://github.com/", "X-Title": "Cours agents LLM"}
    return openai.OpenAI(
        api_key=settings.api_key,
        base_url=settings.base_url,
        default_headers=headers or None,
        http_client=http.Client(event_hooks=hooks, timeout=timeout or 60.0),
        **options,
    )


def backend_of(client: Any) -> str:
    """Guess the backend family from a client's base URL."""
    url = str(getattr(client, "base_url", "") or "")
    if "offline.invalid" in url:
        return "offline"
    if "openrouter" in url:
        return "openrouter"
    if "api.openai.com" in url:
        return "openai"
    return "compatible"


def is_reasoning_model(model: str) -> bool:
    """gpt-5 and o-series models (also behind a provider prefix such as ``openai/o3``)."""
    return bool(_REASONING_MODEL.match(model or ""))


def normalize_params(
    backend: str,
    model: str,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """Sampling parameters in the form this backend and model family accept."""
    params: dict[str, Any] = {}
    reasoning = is_reasoning_model(model)
    if temperature is not None and not (reasoning and temperature != 1):
        params["temperature"] = temperature
    if max_tokens is not None:
        if reasoning or backend == "openai":
            params["max_completion_tokens"] = max_tokens
        else:
            params["max_tokens"] = max_tokens
    return params


# --------------------------------------------------------------------------- errors


def explain_error(exc: BaseException, *, backend: str = "offline", model: str = "") -> LLMError:
    """Turn an SDK exception into an ``LLMError`` whose French message says what to fix."""
    provider = backend
    key_var = {"openrouter": "OPENROUTER_API_KEY"}.get(backend, "OPENAI_API_KEY")
    detail = getattr(exc, "message", None) or str(exc)
    if isinstance(exc, openai.AuthenticationError):
        return LLMError(
            f"clé refusée par {provider} (401) : vérifiez {key_var} dans .env "
            "(ou dans les variables d'environnement), sans espace ni guillemet en trop.",
            status=401,
        )
    if isinstance(exc, openai.PermissionDeniedError):
        return LLMError(
            f"accès refusé par {provider} (403) au modèle « {model} » : la clé de {key_var} n'y a "
            "pas droit. Choisissez un autre modèle (OPENAI_MODEL) ou vérifiez votre compte.",
            status=403,
        )
    if isinstance(exc, openai.NotFoundError):
        return LLMError(
            f"introuvable chez {provider} (404) : modèle « {model} » ou adresse inexacte. "
            "Vérifiez OPENAI_MODEL et OPENAI_BASE_URL dans .env.",
            status=404,
        )
    if isinstance(exc, openai.RateLimitError):
        return LLMError(
            f"limite de débit atteinte chez {provider} (429), même après les nouvelles tentatives "
            "du SDK : attendez un peu, ou augmentez max_retries.",
            status=429,
            retryable=True,
        )
    if isinstance(exc, openai.BadRequestError):
        return LLMError(f"requête refusée par {provider} (400) : {detail}", status=400)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return LLMError(
            f"erreur du serveur {provider} ({status}) après les nouvelles tentatives du SDK : "
            f"{detail}",
            status=status,
            retryable=status >= 500 or status in (408, 409),
        )
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(
            f"délai dépassé en attendant {provider} : le serveur est lent ou surchargé ; "
            "réessayez ou augmentez timeout.",
            retryable=True,
        )
    if isinstance(exc, openai.APIConnectionError):
        hint = (
            " Le serveur local est-il lancé (par ex. `ollama serve`) ? Vérifiez OPENAI_BASE_URL."
            if backend == "compatible"
            else " Vérifiez votre connexion."
        )
        return LLMError(f"connexion impossible à {provider}.{hint}", retryable=True)
    return LLMError(f"erreur inattendue de {provider} : {type(exc).__name__}: {detail}")


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
    backend = backend_of(client)
    if model is None:
        model = "offline-fast" if backend == "offline" else default_settings().model
    request: dict[str, Any] = {"model": model, "messages": list(messages)}
    if tools:
        request["tools"] = tools
    if tool_choice is not None:
        request["tool_choice"] = tool_choice
    request.update(normalize_params(backend, model, temperature=temperature,
                                    max_tokens=max_tokens))
    request.update(extra)
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
            raise explain_error(exc, backend=backend, model=model) from exc
        if completion.choices:
            break
        if ledger is not None:
            ledger.record(model, completion.usage)
        if attempt == empty_choice_retries:
            raise _missing_choices_error(completion, backend)
    result = parse_completion(completion)
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
    "parse_completion",
    "session_ledger",
    "set_default",
]
