"""Steps: what the offline model says on one turn (see the skill contract in ``skills``).

A step is a fault (see ``faults``), a ``str`` (assistant text) or a dict
``{"content": str | None, "tool_calls": [{"name": str, "arguments": dict | str}]}``.
``to_reply`` turns a non-fault step into a ``Reply``; dict arguments are serialised to compact
JSON (as models emit them), ``str`` arguments are kept as is (so malformed JSON can be scripted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import InvalidStep

_STEP_HELP = (
    "une étape est une panne (int ou 'timeout', 'connection', 'choices_null', 'empty_message'), "
    "un str (texte de l'assistant) ou un dict {'content': str | None, 'tool_calls': "
    "[{'name': str, 'arguments': dict | str}]}"
)


@dataclass(frozen=True)
class ToolCall:
    """One function call of an assistant turn (id assigned later by the server)."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    """One assistant message: text and/or tool calls."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()


def dump_arguments(arguments: Any) -> str:
    """Arguments as the JSON text a model would emit (``str`` kept verbatim)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def to_reply(step: Any, *, where: str = "étape") -> Reply:
    """Validate a non-fault step and return it as a ``Reply`` (``InvalidStep`` otherwise)."""
    if isinstance(step, Reply):
        return step
    if isinstance(step, str):
        return Reply(content=step)
    if not isinstance(step, dict):
        raise InvalidStep(f"{where} invalide : {step!r} — {_STEP_HELP}")
    unknown = set(step) - {"content", "tool_calls"}
    if unknown:
        raise InvalidStep(f"{where} : clés inconnues {sorted(unknown)} — {_STEP_HELP}")
    content = step.get("content")
    if content is not None and not isinstance(content, str):
        raise InvalidStep(f"{where} : 'content' doit être un str ou None, reçu {content!r}")
    calls = []
    for position, call in enumerate(step.get("tool_calls") or []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            raise InvalidStep(
                f"{where} : appel d'outil n°{position} invalide : {call!r} "
                "(attendu {'name': str, 'arguments': dict | str})"
            )
        arguments = call.get("arguments", {})
        if not isinstance(arguments, (dict, str)):
            raise InvalidStep(
                f"{where} : les arguments de {call['name']!r} doivent être un dict ou un str, "
                f"reçu {arguments!r}"
            )
        calls.append(ToolCall(name=call["name"], arguments=dump_arguments(arguments)))
    if content is None and not calls:
        raise InvalidStep(f"{where} : ni texte ni appel d'outil — {_STEP_HELP}")
    return Reply(content=content, tool_calls=tuple(calls))
