"""What happened since the user's last message: tool calls, their results, and errors.

The offline model keeps no memory between requests: every decision is derived from the
conversation the client sends back, as a real model's would be.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...text import fold
from ..skills import content_text
from ..understanding.schemas import FINISH_NAMES

_ERROR_TYPES = (
    ("unknown_tool", ("outil inconnu", "unknown tool", "outil_inconnu", "n'existe pas",
                      "not found", "introuvable", "unknown function")),
    ("invalid_json", ("json",)),
    ("tool_error", ("exception", "a leve", "raised", "traceback", "dans_outil", "erreur interne",
                    "internal error")),
    ("missing_argument", ("manquant", "missing", "requis", "required", "obligatoire")),
    ("unexpected_argument", ("inattendu", "unexpected", "inconnu", "not allowed")),
    ("wrong_type", ("type", "doit etre un", "must be", "invalide", "invalid")),
)


@dataclass(frozen=True)
class Observation:
    """One tool call of the conversation and the result the client sent back for it."""

    call_id: str
    name: str
    arguments: dict | None  # None when the arguments were not a JSON object
    raw_arguments: str
    content: str
    data: Any  # the result parsed as JSON, else None
    error: str | None  # the error message when the result reports a failure
    error_type: str | None
    turn: int  # index of the assistant turn that made the call (0 = first since the task)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Episode:
    """The task (last user message) and the tool calls made for it since."""

    task: str
    system: str
    observations: tuple[Observation, ...]
    turns: int
    wrap_up: bool = False  # the last user message asks to answer now with what was obtained

    @property
    def last_turn(self) -> tuple[Observation, ...]:
        return tuple(o for o in self.observations if o.turn == self.turns - 1)


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _error_of(content: str, data: Any) -> tuple[str | None, str | None]:
    message, declared = None, None
    if isinstance(data, dict):
        error = data.get("error") or data.get("erreur")
        if isinstance(error, dict):
            message = str(error.get("message") or error.get("detail") or error)
            declared = error.get("type") or error.get("code")
        elif error:
            message = str(error)
        elif str(data.get("status", "")).lower() in ("error", "erreur", "failed"):
            message = str(data.get("message") or data.get("detail") or content)
    elif re.match(r"\s*(erreur|error|exception|traceback)\b", fold(content)):
        message = content.strip()
    if message is None:
        return None, None
    for text in (fold(str(declared or "")), fold(message)):
        for kind, cues in _ERROR_TYPES:
            if any(cue in text for cue in cues):
                return message, kind
    return message, "tool_error"


def _arguments(raw: Any) -> tuple[dict | None, str]:
    if isinstance(raw, dict):
        return raw, json.dumps(raw, ensure_ascii=False)
    text = raw if isinstance(raw, str) else ""
    parsed = parse_json(text)
    return (parsed if isinstance(parsed, dict) else None), text


_WRAP_UP = re.compile(
    r"(?<![a-z])(reponds|repondez|repondre|reponse|conclus|concluez|conclure|termine|terminez|"
    r"resume|resumez|synthese|bilan|mieux possible|deja obtenu|answer now|respond now|"
    r"wrap up|best effort)"
)


def _wrap_up_of(messages: list[dict], last_user: int) -> int | None:
    """The index of the task a closing message (« Réponds maintenant avec ce que tu as ») wraps
    up: the previous user message, when tool results came since and nothing answered it yet."""
    if last_user < 0 or not _WRAP_UP.search(fold(content_text(messages[last_user].get("content")))):
        return None
    previous = max((i for i in range(last_user) if messages[i].get("role") == "user"),
                   default=-1)
    if previous < 0:
        return None
    between = messages[previous + 1: last_user]
    if not between or between[-1].get("role") != "tool":
        return None
    for message in between:
        for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
            if fold(str((call.get("function") or {}).get("name", ""))) in FINISH_NAMES:
                return None
    return previous


def episode(request: dict) -> Episode:
    """Read the conversation of a chat request (messages after the last ``user`` message).

    A last user message that only asks to conclude (an agent loop's best-effort request once its
    step limit is reached) does not start a new task: the episode is then the earlier task, with
    every tool result since, and ``wrap_up`` is set."""
    messages = request.get("messages") or []
    system = "\n".join(content_text(m.get("content")) for m in messages
                       if m.get("role") in ("system", "developer"))
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    wrapped = _wrap_up_of(messages, last_user)
    if wrapped is not None:
        last_user = wrapped
    task = content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    calls: dict[str, tuple[str, dict | None, str, int]] = {}
    order: list[str] = []
    results: dict[str, str] = {}
    turn = 0
    for message in messages[last_user + 1:]:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                arguments, raw = _arguments(function.get("arguments"))
                calls[call.get("id", "")] = (str(function.get("name", "")), arguments, raw, turn)
                order.append(call.get("id", ""))
            turn += 1
        elif role == "tool":
            results[message.get("tool_call_id", "")] = content_text(message.get("content"))
    observations = []
    for call_id in order:
        if call_id not in results:
            continue
        name, arguments, raw, call_turn = calls[call_id]
        content = results[call_id]
        data = parse_json(content)
        error, error_type = _error_of(content, data)
        observations.append(Observation(call_id, name, arguments, raw, content, data, error,
                                        error_type, call_turn))
    return Episode(task, system, tuple(observations), turn, wrapped is not None)


def number_in(observation: Observation) -> float | None:
    """The numeric result of a tool (``7``, ``{"result": 7}``, ``"7"``), or ``None``."""
    data = observation.data
    if isinstance(data, bool):
        return None
    if isinstance(data, (int, float)):
        return float(data)
    if isinstance(data, dict):
        for key in ("result", "resultat", "résultat", "value", "valeur", "answer", "total"):
            if isinstance(data.get(key), (int, float)) and not isinstance(data.get(key), bool):
                return float(data[key])
        numeric = [v for v in data.values() if isinstance(v, (int, float))
                   and not isinstance(v, bool)]
        if len(numeric) == 1:
            return float(numeric[0])
        return None
    match = re.search(r"-?\d+(?:[.,]\d+)?", observation.content)
    if match and data is None:
        return float(match.group(0).replace(",", "."))
    return None


def same_value(a: Any, b: Any) -> bool:
    """Argument values compared the way a model reads them: case, accents and 7 vs 7.0 ignored."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9
    if isinstance(a, str) and isinstance(b, str):
        return fold(a).strip() == fold(b).strip()
    if isinstance(a, (int, float)) and isinstance(b, str) or isinstance(a, str) and isinstance(
            b, (int, float)):
        try:
            return abs(float(str(a).replace(",", ".")) - float(str(b).replace(",", "."))) < 1e-9
        except ValueError:
            return False
    return a == b


def same_arguments(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return a is b
    return set(a) == set(b) and all(same_value(a[k], b[k]) for k in a)
