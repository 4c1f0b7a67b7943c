"""Deciding the next tool calls from the intents and the conversation so far.

Independent intents are called together, in one turn. Dependent calls (an arithmetic expression)
are called as soon as their operands are known, in an order that respects operator precedence:
« (10 - 3) * 2 + 5**2 » gives ``subtract(10, 3)`` and ``power(5, 2)`` in the first turn,
``multiply(7, 2)`` in the second (7 read from the first result), ``add(14, 25)`` in the third.
Values the request describes (« la ville de ma prochaine réunion ») are read from the results
the same way (``deferral``): the dependent call waits for the call that gives its value.

Errors: a failed call is corrected once when the error names the fix (a missing argument is
added, an unexpected one removed); the same failing call is never sent twice; an intent that
still fails is reported honestly in the final answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ...text import fold
from ..understanding import expressions
from ..understanding.arguments import default_value
from ..understanding.schemas import ToolInfo
from . import deferral
from .history import Episode, Observation, number_in, same_arguments, same_value
from .selection import Intent

_LEFT = ("a", "x", "first", "base", "n1", "num1", "number1", "left", "minuend", "dividend",
         "numerator", "x1", "value1", "nombre1", "premier", "operand1")
_RIGHT = ("b", "y", "second", "exponent", "n2", "num2", "number2", "right", "subtrahend",
          "divisor", "denominator", "x2", "value2", "nombre2", "second", "operand2", "exposant")
_OP_NAMES = {"add": "l'addition", "subtract": "la soustraction", "multiply": "la multiplication",
             "divide": "la division", "power": "la puissance"}


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict

    def step(self) -> dict:
        return {"name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class Failure:
    intent: Intent
    call: Call | None
    error: str


@dataclass(frozen=True)
class Computation:
    """An arithmetic intent fully computed by the tools: its value and the calls that led to it."""

    intent: Intent
    value: float
    steps: tuple[tuple[Call, float], ...]


@dataclass(frozen=True)
class Plan:
    calls: tuple[Call, ...] = ()
    failures: tuple[Failure, ...] = ()
    questions: tuple[tuple[Intent, tuple[str, ...]], ...] = ()
    computations: tuple[Computation, ...] = ()
    done: tuple[Intent, ...] = field(default=())
    waiting: tuple[Intent, ...] = ()  # dependent intents whose values are not in the results yet
    resolved: tuple[Intent, ...] = ()  # dependent intents made callable by the results

    @property
    def finished(self) -> bool:
        return not self.calls


def operands(tool: ToolInfo, left: float, right: float) -> dict:
    """Arguments of a binary arithmetic tool: left operand to ``a``/``x``/``base``…"""
    numeric = [p for p in tool.params if p.kind in ("number", "integer")]
    listed = [p for p in tool.params if p.kind == "numbers"]
    if len(numeric) < 2 and listed:
        return {listed[0].name: [_json_number(left), _json_number(right)]}
    names = [p.name for p in numeric]
    first = next((n for n in names if fold(n) in _LEFT), None)
    second = next((n for n in names if fold(n) in _RIGHT and n != first), None)
    if first is None or second is None:
        first, second = names[0], names[1]
    return {first: _json_number(left), second: _json_number(right)}


def _json_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _related(observation: Observation, call: Call, siblings: int) -> bool:
    if observation.name != call.name:
        return False
    if observation.arguments is None or siblings <= 1:
        return True
    shared = set(observation.arguments) & set(call.arguments)
    return bool(shared) and all(same_value(observation.arguments[k], call.arguments[k])
                                for k in shared)


def _named_params(message: str, tool: ToolInfo) -> list[str]:
    """Parameters the error message is about (a trailing list of all parameters is ignored)."""
    text = re.split(r"\b(?:parametres|parameters|signature|schema)\s*:", fold(message))[0]
    return [p.name for p in tool.params
            if re.search(r"(?<![\w])" + re.escape(fold(p.name)) + r"(?![\w])", text)]


def correct(call: Call, failure: Observation, tool: ToolInfo, clause: str) -> Call:
    """The call corrected as the error message says, or the same call when it names no fix."""
    arguments = dict(call.arguments)
    named = _named_params(failure.error or "", tool)
    if failure.error_type == "missing_argument":
        for name in named:
            if name not in arguments:
                arguments[name] = default_value(tool.param(name), clause, tool)
    elif failure.error_type == "unexpected_argument":
        for name in named:
            arguments.pop(name, None)
    elif failure.error_type == "wrong_type":
        for name in named:
            param, value = tool.param(name), arguments.get(name)
            if param and param.kind in ("number", "integer") and isinstance(value, str):
                try:
                    arguments[name] = _json_number(float(value.replace(",", ".")))
                except ValueError:
                    pass
            elif param and param.type == "string" and isinstance(value, (int, float)):
                arguments[name] = str(value)
    ordered = {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
    return Call(call.name, ordered)


def _tool_intent(intent: Intent, tool: ToolInfo, episode: Episode, siblings: int):
    call = Call(intent.tool, dict(intent.arguments))
    related = [o for o in episode.observations if _related(o, call, siblings)]
    if any(o.ok for o in related):
        return "done", None
    errors = [o for o in related if not o.ok]
    if not errors:
        return "call", call
    corrected = correct(call, errors[-1], tool, intent.clause)
    tried = any(same_arguments(o.arguments, corrected.arguments) for o in errors)
    if tried or len(errors) >= 2:
        return "failed", Failure(intent, call, errors[-1].error or "erreur")
    return "call", corrected


def _expression_intent(intent: Intent, tools: dict[str, ToolInfo], episode: Episode):
    mapping = dict(intent.operators)
    lacking = expressions.operations(intent.expression) - set(mapping)
    if lacking:
        names = ", ".join(_OP_NAMES[op] for op in sorted(lacking))
        return [], Failure(intent, None, f"aucun outil disponible pour {names}"), None
    ready: list[Call] = []
    steps: list[tuple[Call, float]] = []
    failures: list[Failure] = []

    def resolve(node: expressions.Expr) -> float | None:
        if isinstance(node, expressions.Num):
            return node.value
        left, right = resolve(node.left), resolve(node.right)
        if left is None or right is None:
            return None
        tool = tools[mapping[node.op]]
        call = Call(tool.name, operands(tool, left, right))
        seen = [o for o in episode.observations if o.name == call.name
                and same_arguments(o.arguments, call.arguments)]
        for observation in reversed(seen):
            value = number_in(observation) if observation.ok else None
            if value is not None:
                if (call, value) not in steps:
                    steps.append((call, value))
                return value
        if seen:
            error = seen[-1].error or "résultat sans nombre lisible"
            failures.append(Failure(intent, call, error))
        elif call not in ready:
            ready.append(call)
        return None

    value = resolve(intent.expression)
    if failures:
        return [], failures[0], None
    if value is not None:
        return [], None, Computation(intent, value, tuple(steps))
    return ready, None, None


def decide(intents: list[Intent], tools: list[ToolInfo], episode: Episode, *,
           parallel: bool = True) -> Plan:
    """The calls to make now (all independent ones, or one when ``parallel`` is false), or a
    finished plan listing what succeeded, failed or needs the user's input."""
    by_name = {t.name: t for t in tools}
    calls: list[Call] = []
    failures: list[Failure] = []
    questions: list[tuple[Intent, tuple[str, ...]]] = []
    computations: list[Computation] = []
    done: list[Intent] = []
    waiting: list[Intent] = []
    resolved: list[Intent] = []
    for intent in intents:
        if intent.deferred:
            state, payload = deferral.resolve(intent, intents, by_name, episode)
            if state == "wait":
                waiting.append(intent)
                continue
            if state == "failed":
                failures.append(Failure(intent, None, payload or "erreur"))
                continue
            intent = replace(intent, arguments=payload, deferred=())
            resolved.append(intent)
        if intent.expression is not None:
            ready, failure, computation = _expression_intent(intent, by_name, episode)
            calls.extend(c for c in ready if c not in calls)
            if failure:
                failures.append(failure)
            if computation:
                computations.append(computation)
            continue
        if intent.missing:
            questions.append((intent, intent.missing))
            continue
        siblings = sum(1 for i in intents if i.tool == intent.tool)
        state, payload = _tool_intent(intent, by_name[intent.tool], episode, siblings)
        if state == "call" and payload not in calls:
            calls.append(payload)
        elif state == "failed":
            failures.append(payload)
        elif state == "done":
            done.append(intent)
    if not calls and waiting:  # blocked: what they wait for will never come
        questions.extend((i, tuple(d.param for d in i.deferred)) for i in waiting)
        waiting = []
    if not parallel:
        calls = calls[:1]
    return Plan(tuple(calls), tuple(failures), tuple(questions), tuple(computations), tuple(done),
                tuple(waiting), tuple(resolved))
