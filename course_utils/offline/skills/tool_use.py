"""The *tool use* skill: function calling as a careful model does it.

Recognises a request that carries ``tools`` (without a ``finish`` tool, which is ReAct's). It
reads the tools' JSON Schemas (names, descriptions, parameter names, types, enums), splits the
user's request into intents and, in one turn, calls a tool for every independent intent with the
arguments the request gives (``selection``, ``arguments``); dependent calls come in later turns
(``planning``). Once the results are back it answers in French from those results only
(``answers``). ``tool_choice`` is honoured (``"none"``, ``"auto"``, ``"required"``, a forced
function) and so is ``parallel_tool_calls=False`` (one call per turn).

An argument the request describes instead of giving it (« la ville de ma prochaine réunion »)
is read from another tool's result: that tool is called first (``deferral``).

A closing message after tool results (an agent loop's best-effort request once its step limit
is reached, « Réponds maintenant avec ce que tu as ») does not start a new task: the answer is
built from the results obtained for the earlier one, and says what is missing.

It is a rule-based stand-in, not a language model: it understands the phrasings described in
``nlu`` and nothing more. Its state is the conversation the client sends; it remembers nothing.
"""

from __future__ import annotations

from . import answers, nlu, phrasing
from .history import Episode, episode
from .planning import Call, Plan, decide
from .schemas import ToolInfo, tool_infos
from .selection import Intent, fallback_intent, forced_intent, plan_intents


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


def respond(request: dict, ctx) -> str | dict | None:
    """Skill entry point (see ``skills.__init__`` for the contract)."""
    voice = phrasing.Voice(ctx, request)
    tools = tool_infos(request.get("tools"))
    conversation = episode(request)
    if not tools:
        if conversation.observations:
            return answers.final(conversation, Plan(), [], voice)
        return None
    if any(t.is_finish for t in tools):
        return None
    choice = request.get("tool_choice") or "auto"
    parallel = request.get("parallel_tool_calls") is not False
    intents = plan_intents(conversation.task, tools)
    plan = decide(intents, tools, conversation, parallel=parallel)
    name = forced_name(choice)
    if choice == "none" or (conversation.wrap_up and name is None and choice != "required"):
        return text_answer(conversation, plan, intents, tools, voice)
    if name is not None or choice == "required":
        if plan.calls and name is None:
            return calls_step(plan.calls, _thought(plan.calls, voice))
        call = mandatory_call(conversation.task, tools, intents, plan, name)
        if call is not None:
            return calls_step([call], _thought((call,), voice))
    if plan.calls:
        return calls_step(plan.calls, _thought(plan.calls, voice))
    return text_answer(conversation, plan, intents, tools, voice)


def _thought(calls, voice: phrasing.Voice) -> str | None:
    """No thought at temperature 0; above, sometimes a one-line one (wording only)."""
    if not voice.varies:
        return None
    return voice.say_or_none(phrasing.CALLS_SILENT,
                             calls=listing([answers.call_text(c) for c in calls]))
