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

from ..policy import answers, phrasing
from ..policy.history import episode
from ..policy.planning import Plan, decide
from ..policy.selection import plan_intents
from ..policy.turns import calls_step, forced_name, listing, mandatory_call, text_answer
from ..understanding.schemas import tool_infos


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
