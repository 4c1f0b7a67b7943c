"""The shape of one tool-use turn, shared by the tool-use and ReAct skills.

``forced_name`` reads a forced ``tool_choice``; ``mandatory_call`` picks the call to make when one
is required (``"required"`` or a forced function); ``text_answer`` builds a text turn (final
answer, question, refusal, greeting, or a partial answer saying what is missing);
``calls_step`` and ``listing`` put calls into a step and a French enumeration.
"""

from __future__ import annotations

from ..understanding import nlu
from ..understanding.schemas import ToolInfo
from . import answers, phrasing
from .history import Episode
from .planning import Call, Plan
from .selection import Intent, fallback_intent, forced_intent


def forced_name(tool_choice) -> str | None:
    """The function name of ``{"type": "function", "function": {"name": X}}``, else ``None``."""
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function") or {}
        return function.get("name") or tool_choice.get("name")
    return None


def calls_step(calls, thought: str | None = None) -> dict:
    return {"content": thought, "tool_calls": [c.step() for c in calls]}


def listing(texts: list[str]) -> str:
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " et " + texts[-1]


def mandatory_call(task: str, tools: list[ToolInfo], intents: list[Intent], plan: Plan,
                   name: str | None) -> Call | None:
    """The call to make when one is required (``"required"``, or the forced function ``name``)."""
    candidates = [c for c in plan.calls if name is None or c.name == name]
    if candidates:
        return candidates[0]
    wanted = [i for i in intents if i.tool and (name is None or i.tool == name)]
    by_name = {t.name: t for t in tools}
    if wanted:
        intent = wanted[0]
        if intent.missing or intent.deferred:
            intent = forced_intent(intent.clause, by_name[intent.tool])
        return Call(intent.tool, dict(intent.arguments))
    if name is not None:
        if name not in by_name:
            return None
        intent = forced_intent(task, by_name[name])
    else:
        intent = fallback_intent(task, tools)
        if intent is None:
            return None
    return Call(intent.tool, dict(intent.arguments))


def text_answer(conversation: Episode, plan: Plan, intents: list[Intent],
                tools: list[ToolInfo], voice: phrasing.Voice = phrasing.STEADY) -> str:
    """The text turn: final answer, question, refusal or greeting (partial, saying what is
    missing, when the conversation asks to conclude before every call was made)."""
    if not conversation.observations and not plan.failures and not plan.questions \
            and not plan.computations:
        if intents and (plan.calls or plan.waiting):
            return answers.without_tools(intents, tools)
        if nlu.is_greeting(conversation.task):
            return answers.greeting(tools)
        return answers.cannot_do(tools, conversation.task)
    text = answers.final(conversation, plan, tools, voice)
    pending = [answers.call_text(c) for c in plan.calls] + [
        answers.intent_text(i) for i in plan.waiting]
    if pending:
        text += (f"\nIl me faudrait encore appeler {' et '.join(pending)} pour répondre "
                 "entièrement.")
        if conversation.wrap_up:
            text = f"{voice.say(phrasing.PARTIAL_OPENING)}\n{text}"
    return text
