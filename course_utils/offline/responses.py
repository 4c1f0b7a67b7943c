"""Spec-shaped ``chat.completion`` objects and their streamed (SSE) form.

Everything is derived from hashes of (seed, request fingerprint, sample index), never from the
clock or ``hash()`` (salted per process), so outputs are reproducible bit for bit:

* ``id`` = ``chatcmpl-`` + 29 alphanumerics; ``created`` = a fixed date shifted by the seed;
* tool-call ids = ``call_`` + 9 alphanumerics, unique within the conversation (an id already
  present in the request's messages is never reused);
* ``finish_reason`` = ``length`` when ``max_tokens`` / ``max_completion_tokens`` cut the answer
  (estimated tokens, see ``tokens``), ``tool_calls`` when the message calls tools, else ``stop``
  (a forced function in ``tool_choice`` gives ``stop``, as OpenAI does).

The streamed form is cut from the very same completion object, so reassembling the chunks gives
the non-streamed message exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from typing import Any

from .steps import Reply, ToolCall
from .tokens import TOOL_CALL_OVERHEAD, call_tokens, estimate_tokens, prompt_tokens

CREATED_BASE = 1_735_689_600  # 2025-01-01T00:00:00Z
SYSTEM_FINGERPRINT = "fp_offline"
_ALNUM = string.ascii_letters + string.digits
# Options that do not change *what* the model says, only how it is delivered or cut.
_DELIVERY_OPTIONS = ("stream", "stream_options", "n", "max_tokens", "max_completion_tokens")


def digest_token(*parts: Any, length: int) -> str:
    """``length`` alphanumerics derived from ``parts`` with SHA-256 (stable across processes)."""
    text = "\x1f".join(str(part) for part in parts)
    number = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")
    out = []
    for _ in range(length):
        number, rest = divmod(number, len(_ALNUM))
        out.append(_ALNUM[rest])
    return "".join(out)


def digest_int(*parts: Any) -> int:
    """A 64-bit integer derived from ``parts`` with SHA-256."""
    text = "\x1f".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def fingerprint(body: dict) -> str:
    """What identifies a request's *content* (delivery options excluded)."""
    kept = {key: value for key, value in body.items() if key not in _DELIVERY_OPTIONS}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def created_at(seed: int) -> int:
    return CREATED_BASE + seed % 86_400


def token_limit(body: dict) -> int | None:
    """``max_completion_tokens`` (preferred) or ``max_tokens``, if given."""
    for name in ("max_completion_tokens", "max_tokens"):
        if body.get(name) is not None:
            return int(body[name])
    return None


def truncate(reply: Reply, limit: int | None) -> tuple[Reply, bool]:
    """Cut ``reply`` to ``limit`` estimated tokens; return it and whether it was cut."""
    if limit is None:
        return reply, False
    budget = limit
    content = reply.content
    if content:
        cost = estimate_tokens(content)
        if cost > budget:
            return Reply(content=content[: budget * 4]), True
        budget -= cost
    calls: list[ToolCall] = []
    for call in reply.tool_calls:
        cost = call_tokens(call.name, call.arguments)
        if cost <= budget:
            calls.append(call)
            budget -= cost
            continue
        room = budget - TOOL_CALL_OVERHEAD - estimate_tokens(call.name)
        if room > 0:
            calls.append(ToolCall(name=call.name, arguments=call.arguments[: room * 4]))
        if content is None and not calls:
            content = ""
        return Reply(content=content, tool_calls=tuple(calls)), True
    return reply, False


def _ids_in(messages: list) -> set[str]:
    ids = set()
    for message in messages or []:
        if isinstance(message, dict):
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    ids.add(call["id"])
    return ids


def _message(reply: Reply, call_ids: list[str]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.content,
        "refusal": None,
        "annotations": [],
    }
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call_id, call in zip(call_ids, reply.tool_calls)
        ]
    return message


def completion(
    body: dict,
    replies: list[Reply],
    *,
    model: str,
    seed: int,
    sample_indices: list[int],
) -> dict[str, Any]:
    """The ``chat.completion`` object answering ``body`` with one choice per reply."""
    fp = fingerprint(body)
    taken = _ids_in(body.get("messages"))
    limit = token_limit(body)
    choices, completion_tokens = [], 0
    for index, (raw, sample) in enumerate(zip(replies, sample_indices)):
        reply, cut = truncate(raw, limit)
        call_ids = []
        for position, _call in enumerate(reply.tool_calls):
            salt = 0
            while True:
                call_id = "call_" + digest_token(seed, fp, sample, index, position, salt, length=9)
                if call_id not in taken:
                    break
                salt += 1
            taken.add(call_id)
            call_ids.append(call_id)
        completion_tokens += estimate_tokens(reply.content) + sum(
            call_tokens(call.name, call.arguments) for call in reply.tool_calls
        )
        # OpenAI answers a named (forced) tool_choice with finish_reason "stop", not "tool_calls"
        # (documented comparison table: https://github.com/vllm-project/vllm/pull/25054).
        named = isinstance(body.get("tool_choice"), dict)
        finish = "length" if cut else "tool_calls" if reply.tool_calls and not named else "stop"
        choices.append(
            {
                "index": index,
                "message": _message(reply, call_ids),
                "logprobs": None,
                "finish_reason": finish,
            }
        )
    prompt = prompt_tokens(body)
    return {
        "id": "chatcmpl-" + digest_token(seed, fp, sample_indices[0], length=29),
        "object": "chat.completion",
        "created": created_at(seed),
        "model": model,
        "choices": choices,
        "usage": usage(prompt, completion_tokens),
        "service_tier": "default",
        "system_fingerprint": SYSTEM_FINGERPRINT,
    }


def usage(prompt: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    }


def _text_pieces(text: str) -> list[str]:
    """Word-sized pieces (leading spaces kept) whose concatenation is ``text``."""
    return re.findall(r"\s*\S+|\s+", text)


def _argument_pieces(arguments: str, size: int = 12) -> list[str]:
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]


def stream_chunks(completion_obj: dict[str, Any], *, include_usage: bool) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects that stream ``completion_obj``."""
    head = {
        key: completion_obj[key] for key in ("id", "created", "model", "service_tier",
                                             "system_fingerprint")
    }
    chunks: list[dict[str, Any]] = []

    def emit(index: int, delta: dict[str, Any], finish: str | None = None) -> None:
        chunk = {**head, "object": "chat.completion.chunk"}
        chunk["choices"] = [
            {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
        ]
        if include_usage:
            chunk["usage"] = None
        chunks.append(chunk)

    for choice in completion_obj["choices"]:
        index, message = choice["index"], choice["message"]
        content = message["content"]
        emit(index, {"role": "assistant", "content": "" if content is not None else None,
                     "refusal": None})
        for piece in _text_pieces(content or ""):
            emit(index, {"content": piece})
        for position, call in enumerate(message.get("tool_calls") or []):
            first = {"index": position, "id": call["id"], "type": "function",
                     "function": {"name": call["function"]["name"], "arguments": ""}}
            emit(index, {"tool_calls": [first]})
            for piece in _argument_pieces(call["function"]["arguments"]):
                emit(index, {"tool_calls": [{"index": position, "function": {"arguments": piece}}]})
        emit(index, {}, choice["finish_reason"])
    if include_usage:
        last = {**head, "object": "chat.completion.chunk", "choices": [],
                "usage": completion_obj["usage"]}
        chunks.append(last)
    return chunks


def sse(events: list[dict[str, Any]]) -> bytes:
    """Server-sent events: one ``data:`` line per object, then ``data: [DONE]``."""
    lines = [f"data: {json.dumps(event, ensure_ascii=False)}\n\n" for event in events]
    lines.append("data: [DONE]\n\n")
    return "".join(lines).encode("utf-8")
