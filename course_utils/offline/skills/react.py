"""The *ReAct* skill: thought, action, observation, until ``finish``.

Recognises a request whose tools include ``finish`` (as ``course_utils.agent.run_agent`` always
adds), or, without tools, a system prompt describing the ReAct text format
(see ``understanding.react_format``).
Each turn carries a one-line French thought as ``content`` and the next action:

* with a search tool and a page reader: documentary research (``research``);
* with any other tools: the tool-use logic (``selection``, ``planning``): independent intents
  in parallel when allowed, dependent calls over several turns (arithmetic chains, and values a
  request describes — « la ville de ma prochaine réunion » — read from an earlier result), one
  correction of a failed call when the error names the fix;
* ``finish`` alone in its turn, with a French answer built only from the observations, once every
  intent has one (or honestly says what failed).

It never sends the same call (same name and arguments) twice in a row. ``tool_choice`` is
honoured as in tool use: ``"none"`` gives text, a forced function is called. A closing message
(« Réponds maintenant… », an agent loop's best-effort request) is answered from what was
observed for the original task, saying what is missing. Wording varies above temperature 0
(``phrasing``).
"""

from __future__ import annotations

from functools import partial

from ..policy import answers, phrasing, research
from ..policy.history import Episode, episode
from ..policy.planning import Call, Plan, decide
from ..policy.selection import plan_intents
from ..policy.turns import forced_name, listing, mandatory_call, text_answer
from ..understanding import nlu, react_format
from ..understanding.schemas import ToolInfo, tool_infos


def _finish_call(finish: ToolInfo, text: str) -> Call:
    param = next((p for p in finish.params if p.type == "string"), None)
    if param is None and finish.params:
        param = finish.params[0]
    return Call(finish.name, {param.name: text} if param else {})


def _step(thought: str, calls: list[Call]) -> dict:
    return {"content": thought, "tool_calls": [c.step() for c in calls]}


def _calls_thought(plan: Plan, conversation: Episode, voice: phrasing.Voice) -> str:
    listed = listing([answers.call_text(c) for c in plan.calls])
    if any(not o.ok for o in conversation.last_turn):
        return voice.say(phrasing.CALLS_AFTER_FAILURE, calls=listed)
    if conversation.observations:
        return voice.say(phrasing.CALLS_NEXT, calls=listed)
    if plan.waiting:
        return voice.say(phrasing.CALLS_DEFERRED, calls=listed)
    if len(plan.calls) > 1:
        return voice.say(phrasing.CALLS_PARALLEL, calls=listed)
    return voice.say(phrasing.CALLS_ONE, calls=listed)


def _finish_thought(plan: Plan, conversation: Episode, voice: phrasing.Voice) -> str:
    if plan.failures:
        return voice.say(phrasing.FINISH_FAILED)
    if plan.questions:
        return voice.say(phrasing.FINISH_QUESTION)
    if not conversation.observations:
        return voice.say(phrasing.FINISH_NOTHING)
    return voice.say(phrasing.FINISH_DONE)


def _ordinary_final(conversation: Episode, plan: Plan, intents, others,
                    voice: phrasing.Voice) -> str:
    """The answer ``finish`` carries (pending calls are not mentioned: there are none, unless
    the conversation asks to conclude early)."""
    if not intents and not conversation.observations and nlu.is_greeting(conversation.task):
        return answers.greeting(others)
    if conversation.wrap_up:
        return text_answer(conversation, plan, intents, others, voice)
    settled = Plan(failures=plan.failures, questions=plan.questions,
                   computations=plan.computations, resolved=plan.resolved)
    return text_answer(conversation, settled, intents, others, voice)


def act(request: dict, tools: list[ToolInfo], finish: ToolInfo, *, parallel: bool | None = None,
        voice: phrasing.Voice = phrasing.STEADY):
    """One ReAct turn for a function-calling request (also used by the text format)."""
    conversation = episode(request)
    choice = request.get("tool_choice") or "auto"
    if parallel is False:
        request = {**request, "parallel_tool_calls": False}
    name = forced_name(choice)
    kit = research.research_tools(tools, conversation)
    if kit is not None:
        move = research.next_move(conversation.task, conversation.system, kit, conversation, voice)
        final = research.answer(conversation.task, kit, conversation, move.rule, voice)
        if choice == "none":
            return final
        if conversation.wrap_up and name is None:
            return _step("On me demande de conclure : je réponds avec ce que j'ai.",
                         [_finish_call(finish, final)])
        if name == finish.name or (move.call is None and name is None):
            return _step(move.thought if move.call is None else "Je termine comme demandé.",
                         [_finish_call(finish, final)])
        if name is not None and (move.call is None or move.call.name != name):
            others = [t for t in tools if not t.is_finish]
            call = mandatory_call(conversation.task, others, [], Plan(), name)
            return _step(f"Je dois utiliser {name}.", [call]) if call else None
        return _step(move.thought, [move.call])
    others = [t for t in tools if not t.is_finish]
    intents = plan_intents(conversation.task, others)
    plan = decide(intents, others, conversation,
                  parallel=request.get("parallel_tool_calls") is not False)
    if choice == "none":
        return text_answer(conversation, plan, intents, others, voice)
    final = _ordinary_final(conversation, plan, intents, others, voice)
    if name == finish.name:
        return _step("Je termine comme demandé.", [_finish_call(finish, final)])
    if name is not None:
        call = mandatory_call(conversation.task, others, intents, plan, name)
        return _step(f"Je dois utiliser {name}.", [call]) if call else None
    if conversation.wrap_up:
        return _step("On me demande de conclure : je réponds avec ce que j'ai.",
                     [_finish_call(finish, final)])
    if plan.calls:
        return _step(_calls_thought(plan, conversation, voice), list(plan.calls))
    return _step(_finish_thought(plan, conversation, voice), [_finish_call(finish, final)])


def respond(request: dict, ctx) -> str | dict | None:
    """Skill entry point (see ``skills.__init__`` for the contract)."""
    voice = phrasing.Voice(ctx, request)
    tools = tool_infos(request.get("tools"))
    if not tools:
        return react_format.answer(request, partial(act, voice=voice))
    finish = next((t for t in tools if t.is_finish), None)
    if finish is None:
        return None
    return act(request, tools, finish, voice=voice)
