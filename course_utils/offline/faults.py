"""Injected faults: what a flaky provider does to a request.

A fault is an ``int`` (an HTTP error status, 400–599) or one of the strings in ``FAULT_NAMES``.
``OfflineModel(faults=[...])`` consumes one per HTTP request (any endpoint, SDK retries
included) before anything else; a script step may also be a fault, for its own chat request.

* ``int`` → that status with an OpenAI-style error body (``status_error``). 429, 502, 503 and 504
  carry ``retry-after-ms: 20`` so the SDK's retries are fast; other statuses carry no retry hint
  (the SDK then backs off ~0.5 s, 1 s… as it would against a real provider).
* ``"timeout"`` → the HTTP library's ``ReadTimeout`` (SDK: ``APITimeoutError``).
* ``"connection"`` → ``ConnectError`` (SDK: ``APIConnectionError``).
* ``"choices_null"`` → HTTP 200 whose body has ``"choices": null`` and an ``"error"`` object, as
  OpenRouter answers when the upstream provider failed (the SDK does not raise: the parsed
  completion has ``choices is None``). On a streamed request: one chunk carrying ``error``, which
  the SDK turns into ``openai.APIError`` while iterating. On embeddings: ``"data": null``.
* ``"empty_message"`` → HTTP 200 with an assistant message whose content is ``""`` and no tool
  call (embeddings: an empty ``data`` list).

Scripted steps can also simulate model-side failures without a fault name: an invented tool
(``{"tool_calls": [{"name": "nope", "arguments": {}}]}``), malformed JSON arguments (a ``str``
argument is sent as is), or the same call repeated forever (a ``responder`` returning it).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from .errors import ApiError, InvalidStep

FAULT_NAMES = ("timeout", "connection", "choices_null", "empty_message")
RETRY_AFTER_MS = "20"
_RETRY_HINT_STATUSES = {429, 502, 503, 504}
_SIMULATED = " [panne simulée par le modèle hors ligne]"


def is_fault(item: Any) -> bool:
    """True for an item that names a fault (an error status or a fault name)."""
    if isinstance(item, bool):
        return False
    return isinstance(item, int) or (isinstance(item, str) and item in FAULT_NAMES)


def fault_name(item: int | str) -> str:
    """How a call record names a fault: ``"http_429"`` for a status, else the fault's name."""
    return f"http_{item}" if isinstance(item, int) else str(item)


def check_fault(item: Any) -> int | str:
    """Return ``item`` if it is a valid fault, else raise ``InvalidStep`` (French message)."""
    if isinstance(item, bool) or not is_fault(item):
        raise InvalidStep(
            f"panne inconnue : {item!r}. Attendu : un statut HTTP d'erreur (int, 400–599) ou "
            f"l'un de {', '.join(FAULT_NAMES)} / unknown fault"
        )
    if isinstance(item, int) and not 400 <= item <= 599:
        raise InvalidStep(
            f"statut de panne invalide : {item} (attendu entre 400 et 599) / invalid fault status"
        )
    return item


def _masked_key(authorization: str) -> str:
    key = authorization.removeprefix("Bearer ").strip()
    if len(key) <= 8:
        return "*" * len(key) or "(none)"
    return key[:3] + "*" * (len(key) - 7) + key[-4:]


def status_error(status: int, *, model: str = "", authorization: str = "") -> ApiError:
    """The error a real provider sends with ``status`` (messages modelled on OpenAI's)."""
    model = model or "offline-fast"
    if status == 400:
        err = ApiError(400, "Invalid request.")
    elif status == 401:
        err = ApiError(
            401,
            f"Incorrect API key provided: {_masked_key(authorization)}. You can find your API "
            "key at https://platform.openai.com/account/api-keys.",
            code="invalid_api_key",
        )
    elif status == 403:
        err = ApiError(
            403,
            "Country, region, or territory not supported",
            type="request_forbidden",
            code="unsupported_country_region_territory",
        )
    elif status == 404:
        err = ApiError(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )
    elif status == 429:
        err = ApiError(
            429,
            f"Rate limit reached for {model} in organization org-offline on requests per min "
            "(RPM): Limit 3, Used 3, Requested 1. Please try again in 20ms.",
            type="requests",
            code="rate_limit_exceeded",
        )
    elif status == 500:
        err = ApiError(
            500,
            "The server had an error while processing your request. Sorry about that!",
            type="server_error",
        )
    elif status == 503:
        err = ApiError(
            503,
            "The engine is currently overloaded, please try again later.",
            type="server_error",
            code="service_unavailable",
        )
    else:
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        kind = "server_error" if status >= 500 else "invalid_request_error"
        err = ApiError(status, f"{phrase}.", type=kind)
    err.message += _SIMULATED
    if status in _RETRY_HINT_STATUSES:
        err.headers["retry-after-ms"] = RETRY_AFTER_MS
    return err


def choices_null_error() -> dict[str, Any]:
    """The ``error`` object OpenRouter puts beside ``"choices": null``."""
    return {
        "message": "Provider returned error" + _SIMULATED,
        "code": 502,
        "metadata": {"provider_name": "offline", "raw": "upstream model unavailable"},
    }
