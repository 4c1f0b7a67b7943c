"""Errors of the offline model.

Two families, on purpose:

* ``ApiError`` is what a real provider would answer: it becomes an HTTP response with an
  OpenAI-style body ``{"error": {"message", "type", "param", "code"}}``, so the SDK raises its own
  exception (``BadRequestError``, ``RateLimitError``…). Its messages imitate the provider's
  English text, because that is what students meet with a real key.
* ``OfflineModelError`` (an ``AssertionError``) is a mistake in a *test setup* — a script that
  ran out, a skill that broke its contract, an invalid step. It is raised from the transport; the
  SDK does not wrap exceptions that are not network errors, so it reaches the caller unchanged,
  with a French message (and its English gist) that names the fix. It is never retried.
"""

from __future__ import annotations

import json
from typing import Any


class ApiError(Exception):
    """An error answer of the simulated API (HTTP status + OpenAI-style body)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",  # noqa: A002 - the field's name on the wire
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }

    def content(self) -> bytes:
        return json.dumps(self.body(), ensure_ascii=False).encode("utf-8")

    def __repr__(self) -> str:
        return f"ApiError({self.status}, {self.message!r}, param={self.param!r}, code={self.code!r})"


class OfflineModelError(AssertionError):
    """A test-setup mistake detected by the offline model (never an API answer)."""


class ScriptExhausted(OfflineModelError):
    """A chat request arrived after the last scripted step was played."""


class InvalidStep(OfflineModelError, ValueError):
    """A scripted / responder / skill step does not have the shape of a step."""


class SkillContractError(OfflineModelError):
    """A skill answered something the request forbids (e.g. a tool call under ``tool_choice="none"``)."""
