"""Token estimates of the offline model (``usage`` and ``max_tokens``).

There is no tokenizer offline, so tokens are *estimated from characters*: one token per 4
characters, rounded up (the usual rule of thumb for English; French runs a little higher on a real
tokenizer). Fixed overheads follow OpenAI's published counting recipe: each message costs 4 tokens
of framing, each reply 3 tokens of priming, each tool call 4 tokens beside its name and arguments.
The prompt counts every message's text, tool calls and name, plus the JSON of ``tools`` and of a
forced ``tool_choice``. The numbers are plausible and stable, not those of any real model.
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3
TOOL_CALL_OVERHEAD = 4


def estimate_tokens(text: str | None) -> int:
    """Estimated tokens of ``text``: ceil(len / 4), 0 for empty text."""
    if not text:
        return 0
    return -(-len(text) // CHARS_PER_TOKEN)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _content_chars(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return _json(content)


def prompt_tokens(request: dict) -> int:
    """Estimated prompt tokens of a chat request (messages, tools, forced tool choice)."""
    total = REPLY_PRIMING
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        total += MESSAGE_OVERHEAD + estimate_tokens(_content_chars(message.get("content")))
        if message.get("name"):
            total += estimate_tokens(str(message["name"]))
        for call in message.get("tool_calls") or []:
            function = (call or {}).get("function") or {}
            total += TOOL_CALL_OVERHEAD + estimate_tokens(str(function.get("name", "")))
            total += estimate_tokens(_content_chars(function.get("arguments")))
    if request.get("tools"):
        total += estimate_tokens(_json(request["tools"]))
    if isinstance(request.get("tool_choice"), dict):
        total += estimate_tokens(_json(request["tool_choice"]))
    return total


def call_tokens(name: str, arguments: str) -> int:
    """Estimated completion tokens of one tool call."""
    return TOOL_CALL_OVERHEAD + estimate_tokens(name) + estimate_tokens(arguments)
