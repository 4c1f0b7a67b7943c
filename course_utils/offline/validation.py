"""Request validation, the way the real API does it.

Each check raises ``ApiError(400, ...)`` with an OpenAI-style ``param`` (``messages.[3].role``) and
a message close to OpenAI's English text, so a student meets offline the error a real provider
would send for the same mistake. Checked: the model; ``messages`` (present, non-empty, known
roles, contents of the right type); the tool-call protocol (every ``tool`` message answers a
pending call of the assistant turn just before; every assistant tool call gets its result before
the conversation goes on); ``tools`` (``type: function``, a valid name, ``parameters`` an object
schema); ``tool_choice`` / ``parallel_tool_calls`` (need ``tools``, name an existing function);
``n``, ``temperature``, ``max_tokens`` / ``max_completion_tokens``, ``stream_options``.

Assistant messages given back as the SDK dumped them (``refusal``, ``annotations``,
``audio: null``, ``function_call: null``…) are accepted; tool-call ``arguments`` must be a
string, as with the real API.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ApiError

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
MAX_N = 8
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_TYPE_NAMES = {
    bool: "a boolean",
    int: "an integer",
    float: "a decimal",
    str: "a string",
    list: "an array",
    dict: "an object",
    type(None): "null",
}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _missing(param: str) -> ApiError:
    return ApiError(
        400, f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
    )


def _invalid_type(param: str, expected: str, value: Any) -> ApiError:
    return ApiError(
        400,
        f"Invalid type for '{param}': expected {expected}, but got {_type_name(value)} instead.",
        param=param,
        code="invalid_type",
    )


def _invalid_value(param: str, value: Any, supported: tuple[str, ...]) -> ApiError:
    quoted = [f"'{s}'" for s in supported]
    choices = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    return ApiError(
        400,
        f"Invalid value: '{value}'. Supported values are: {choices}.",
        param=param,
        code="invalid_value",
    )


def _empty_array(param: str) -> ApiError:
    return ApiError(
        400,
        f"Invalid '{param}': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead.",
        param=param,
        code="empty_array",
    )


def check_model(body: dict, available: tuple[str, ...]) -> str:
    """The requested model, if it is one of ``available``; else 400 ``model_not_found``."""
    model = body.get("model")
    if model is None:
        raise ApiError(400, "you must provide a model parameter", param="model")
    if not isinstance(model, str):
        raise _invalid_type("model", "a string", model)
    if model not in available:
        raise ApiError(
            400,
            f"The model `{model}` does not exist or you do not have access to it. This offline "
            f"simulator serves only: {', '.join(available)}.",
            param="model",
            code="model_not_found",
        )
    return model


def _check_number(body: dict, name: str, low: float, high: float | None, integer: bool) -> None:
    value = body.get(name)
    if value is None:
        return
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise _invalid_type(name, "an integer" if integer else "a decimal", value)
    word = "integer" if integer else "decimal"
    if value < low:
        raise ApiError(
            400,
            f"Invalid '{name}': {word} below minimum value. Expected a value >= {low:g}, but got "
            f"{value} instead.",
            param=name,
            code=f"{word}_below_min_value",
        )
    if high is not None and value > high:
        raise ApiError(
            400,
            f"Invalid '{name}': {word} above maximum value. Expected a value <= {high:g}, but got "
            f"{value} instead.",
            param=name,
            code=f"{word}_above_max_value",
        )


def _check_content(message: dict, index: int, *, required: bool) -> None:
    param = f"messages.[{index}].content"
    if "content" not in message and required:
        raise _missing(param)
    content = message.get("content")
    if content is None:
        if required:
            raise ApiError(
                400,
                "Invalid value for 'content': expected a string, got null.",
                param=param,
                code="invalid_value",
            )
        return
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _invalid_type(param, "one of a string or array of objects", content)
    for position, part in enumerate(content):
        if not isinstance(part, dict) or "type" not in part:
            raise _invalid_type(f"{param}.[{position}]", "an object with a 'type'", part)


def _check_tool_calls(calls: Any, index: int) -> list[str]:
    param = f"messages.[{index}].tool_calls"
    if not isinstance(calls, list):
        raise _invalid_type(param, "an array", calls)
    if not calls:
        raise _empty_array(param)
    ids = []
    for position, call in enumerate(calls):
        here = f"{param}.[{position}]"
        if not isinstance(call, dict):
            raise _invalid_type(here, "an object", call)
        if call.get("id") is None:
            raise _missing(f"{here}.id")
        if not isinstance(call["id"], str):
            raise _invalid_type(f"{here}.id", "a string", call["id"])
        if call.get("type", "function") != "function":
            raise _invalid_value(f"{here}.type", call.get("type"), ("function",))
        function = call.get("function")
        if not isinstance(function, dict):
            raise _missing(f"{here}.function")
        if not isinstance(function.get("name"), str):
            raise _missing(f"{here}.function.name")
        arguments = function.get("arguments")
        if arguments is None:
            raise _missing(f"{here}.function.arguments")
        if not isinstance(arguments, str):
            raise _invalid_type(f"{here}.function.arguments", "a string", arguments)
        ids.append(call["id"])
    return ids


def _unanswered_error(assistant_index: int, pending: list[str]) -> ApiError:
    return ApiError(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(pending),
        param=f"messages.[{assistant_index}].role",
    )


def check_messages(body: dict) -> None:
    """Roles, contents and the tool-call protocol of ``messages``."""
    if "messages" not in body or body["messages"] is None:
        raise _missing("messages")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _invalid_type("messages", "an array", messages)
    if not messages:
        raise _empty_array("messages")
    pending: list[str] | None = None  # unanswered ids of the open tool-call turn
    opened_at = -1
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise _invalid_type(f"messages.[{index}]", "an object", message)
        role = message.get("role")
        if role is None:
            raise _missing(f"messages.[{index}].role")
        if role not in ROLES:
            raise _invalid_value(f"messages.[{index}].role", role, ROLES)
        if role == "tool":
            if pending is None:
                raise ApiError(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"messages.[{index}].role",
                )
            call_id = message.get("tool_call_id")
            if call_id is None:
                raise _missing(f"messages.[{index}].tool_call_id")
            if call_id not in pending:
                raise ApiError(
                    400,
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' "
                    "of previous message.",
                    param=f"messages.[{index}].tool_call_id",
                )
            pending.remove(call_id)
            _check_content(message, index, required=True)
            continue
        if pending:
            raise _unanswered_error(opened_at, pending)
        pending = None
        if role == "assistant":
            calls = message.get("tool_calls")
            if calls is not None:
                pending, opened_at = _check_tool_calls(calls, index), index
            _check_content(message, index, required=calls is None)
        elif role != "function":
            _check_content(message, index, required=True)
    if pending:
        raise _unanswered_error(opened_at, pending)


def check_tools(body: dict) -> list[str]:
    """Validate ``tools`` and return the function names it declares."""
    tools = body.get("tools")
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise _invalid_type("tools", "an array", tools)
    if not tools:
        raise _empty_array("tools")
    names = []
    for position, tool in enumerate(tools):
        here = f"tools[{position}]"
        if not isinstance(tool, dict):
            raise _invalid_type(here, "an object", tool)
        if tool.get("type") is None:
            raise _missing(f"{here}.type")
        if tool["type"] != "function":
            raise _invalid_value(f"{here}.type", tool["type"], ("function", "custom"))
        function = tool.get("function")
        if not isinstance(function, dict):
            raise _missing(f"{here}.function")
        name = function.get("name")
        if name is None:
            raise _missing(f"{here}.function.name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise ApiError(
                400,
                f"Invalid '{here}.function.name': string does not match pattern. Expected a "
                "string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
                param=f"{here}.function.name",
                code="invalid_value",
            )
        parameters = function.get("parameters")
        if parameters is not None:
            kind = parameters.get("type") if isinstance(parameters, dict) else None
            if kind != "object":
                got = kind if isinstance(parameters, dict) else _type_name(parameters)
                raise ApiError(
                    400,
                    f"Invalid schema for function '{name}': schema must be a JSON Schema of "
                    f"'type: \"object\"', got 'type: \"{got}\"'.",
                    param=f"{here}.function.parameters",
                    code="invalid_function_parameters",
                )
        names.append(name)
    return names


def check_tool_choice(body: dict, names: list[str]) -> None:
    """``tool_choice`` and ``parallel_tool_calls`` need tools; a forced function must exist."""
    for option in ("tool_choice", "parallel_tool_calls"):
        if body.get(option) is not None and not names:
            raise ApiError(
                400,
                f"Invalid value for '{option}': '{option}' is only allowed when 'tools' are "
                "specified.",
                param=option,
            )
    choice = body.get("tool_choice")
    if choice is None or isinstance(choice, str) and choice in ("none", "auto", "required"):
        return
    if isinstance(choice, str):
        raise _invalid_value("tool_choice", choice, ("none", "auto", "required"))
    if not isinstance(choice, dict):
        raise _invalid_type("tool_choice", "one of a string or object", choice)
    if choice.get("type") != "function":
        raise _invalid_value("tool_choice.type", choice.get("type"), ("function",))
    name = (choice.get("function") or {}).get("name")
    if not isinstance(name, str):
        raise _missing("tool_choice.function.name")
    if name not in names:
        raise ApiError(
            400,
            f"Invalid value for 'tool_choice': function '{name}' not found in 'tools'. "
            f"Available functions: {', '.join(names)}.",
            param="tool_choice",
        )


def check_chat_request(body: dict, available: tuple[str, ...]) -> str:
    """Validate a ``/chat/completions`` body; return the model name."""
    model = check_model(body, available)
    check_messages(body)
    names = check_tools(body)
    check_tool_choice(body, names)
    _check_number(body, "n", 1, MAX_N, integer=True)
    _check_number(body, "temperature", 0, 2, integer=False)
    _check_number(body, "max_tokens", 1, None, integer=True)
    _check_number(body, "max_completion_tokens", 1, None, integer=True)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise _invalid_type("stream", "a boolean", stream)
    if body.get("stream_options") is not None and not stream:
        raise ApiError(
            400,
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )
    return model
