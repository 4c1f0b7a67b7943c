"""The ReAct *text* format (Yao et al., 2022): no ``tools``, a system prompt that asks for
« Pensée : … / Action : outil[argument] / Observation : … » and lists the actions.

The prompt's actions become pseudo-tools, the conversation (actions in the assistant's text,
observations in the following messages) becomes tool calls and results, the function-calling
ReAct policy decides, and the step is written back in the prompt's own format, one per turn:
``Action : finish[…]`` when the prompt offers ``finish``, else « Réponse finale : … ».
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...text import fold
from ..skills import content_text
from .schemas import tool_infos

_ACTION_LINE = re.compile(
    r"^\s*(?:[-*•]|\d+[.)])?\s*`?(?P<name>[A-Za-z_][\w-]*)\s*(?P<open>[\[(])\s*(?P<arg>[^\])]*?)"
    r"\s*[\])]`?\s*(?:[:\-–—]+\s*(?P<desc>.*))?$",
    re.MULTILINE,
)
_RESERVED = {"action", "thought", "pensee", "observation", "reponse", "final", "answer"}
_FINISH = ("finish", "terminer", "final_answer", "repondre", "reponse_finale")


@dataclass(frozen=True)
class TextFormat:
    thought_label: str
    separator: str  # " : " (French typography) or ": "
    brackets: str  # "[]" or "()"
    actions: tuple[tuple[str, str, str], ...]  # (name, argument name, description)
    final_label: str | None  # « Réponse finale » when no finish action is listed

    @property
    def finish_action(self) -> str | None:
        return next((n for n, _, _ in self.actions if fold(n) in _FINISH), None)


def detect(request: dict) -> TextFormat | None:
    """The ReAct text format described by the request's system prompt, or ``None``."""
    messages = request.get("messages") or []
    prompt = "\n".join(content_text(m.get("content")) for m in messages
                       if m.get("role") in ("system", "developer"))
    folded = fold(prompt)
    if "action" not in folded or "observation" not in folded or not re.search(
            r"pensee|thought", folded):
        return None
    actions = []
    brackets = "[]"
    for match in _ACTION_LINE.finditer(prompt):
        name = match.group("name")
        if fold(name) in _RESERVED or any(a[0] == name for a in actions):
            continue
        argument = re.sub(r"\W+", "_", fold(match.group("arg") or "")).strip("_") or "input"
        actions.append((name, argument, (match.group("desc") or "").strip()))
        brackets = "[]" if match.group("open") == "[" else "()"
    if not actions:
        return None
    label = "Pensée" if "pensee" in folded else "Thought"
    shown = re.search(r"(?:Pensée|Thought|Action)(\s*):", prompt)
    if shown:
        separator = " : " if shown.group(1) else ": "
    else:
        separator = " : " if label == "Pensée" else ": "
    final_label = None
    match = re.search(r"(Réponse finale|Final Answer)", prompt)
    if match:
        final_label = match.group(1)
    return TextFormat(label, separator, brackets, tuple(actions), final_label)


def _tools(fmt: TextFormat) -> list[dict]:
    tools = []
    for name, argument, description in fmt.actions:
        tools.append({"type": "function", "function": {
            "name": name, "description": description,
            "parameters": {"type": "object", "required": [argument], "properties": {
                argument: {"type": "string", "description": description}}}}})
    if fmt.finish_action is None:
        tools.append({"type": "function", "function": {
            "name": "finish", "description": "Réponse finale",
            "parameters": {"type": "object", "required": ["answer"],
                           "properties": {"answer": {"type": "string"}}}}})
    return tools


def _parse_action(text: str, fmt: TextFormat) -> tuple[str, str] | None:
    names = "|".join(re.escape(n) for n, _, _ in fmt.actions)
    found = re.findall(r"Action\s*:\s*(" + names + r")\s*[\[(](.*?)[\])]\s*$", text,
                       re.MULTILINE | re.DOTALL)
    return found[-1] if found else None


def as_function_calling(request: dict, fmt: TextFormat) -> dict:
    """The same conversation with actions as tool calls and observations as tool results."""
    messages = request.get("messages") or []
    converted: list[dict] = []
    pending: tuple[str, str] | None = None
    arguments = {name: argument for name, argument, _ in fmt.actions}
    for index, message in enumerate(messages):
        role, text = message.get("role"), content_text(message.get("content"))
        if role in ("system", "developer"):
            converted.append({"role": role, "content": text})
        elif role == "assistant":
            action = _parse_action(text, fmt)
            if action is not None:
                pending = (f"text_{index}", action[0])
                converted.append({"role": "assistant", "content": None, "tool_calls": [{
                    "id": pending[0], "type": "function", "function": {
                        "name": action[0],
                        "arguments": json.dumps({arguments[action[0]]: action[1].strip()},
                                                ensure_ascii=False)}}]})
            else:
                converted.append({"role": "assistant", "content": text})
        elif pending is not None and (role == "tool" or re.match(r"\s*Observation", text)):
            observation = re.sub(r"^\s*Observation\s*\d*\s*:\s*", "", text)
            converted.append({"role": "tool", "tool_call_id": pending[0], "content": observation})
            pending = None
        elif role == "user":
            converted.append({"role": "user", "content": text})
    return {**request, "messages": converted, "tools": _tools(fmt)}


def render(step, fmt: TextFormat) -> str:
    """A function-calling step written in the prompt's text format."""
    sep = fmt.separator
    if isinstance(step, str):
        label = fmt.final_label or "Réponse finale"
        return f"{fmt.thought_label}{sep}Je réponds directement.\n{label}{sep}{step}"
    thought = step.get("content") or "Je continue."
    call = step["tool_calls"][0]
    value = next(iter(call["arguments"].values()), "") if call["arguments"] else ""
    if call["name"] == "finish" and fmt.finish_action is None:
        label = fmt.final_label or "Réponse finale"
        return f"{fmt.thought_label}{sep}{thought}\n{label}{sep}{value}"
    opening, closing = fmt.brackets
    return f"{fmt.thought_label}{sep}{thought}\nAction{sep}{call['name']}{opening}{value}{closing}"


def answer(request: dict, act) -> str | None:
    """Answer a tool-less ReAct text request through ``act`` (the function-calling policy)."""
    fmt = detect(request)
    if fmt is None:
        return None
    converted = as_function_calling(request, fmt)
    tools = tool_infos(converted["tools"])
    finish = next(t for t in tools if t.is_finish)
    step = act(converted, tools, finish, parallel=False)
    return render(step, fmt) if step is not None else None
