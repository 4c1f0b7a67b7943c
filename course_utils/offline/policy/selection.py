"""From a request to *intents*: which tool serves each part of it, with which arguments.

The request is cut into clauses (``nlu.split_clauses``). Each clause goes to the tool whose name,
description and parameters best match its words (bilingual concepts: « météo » ↔ ``weather``).
A clause that names no tool but brings a value refines the previous intent (« …, niveau
débutant ») or repeats its tool with another value (« … en dollars et en yen »). Values a clause
leaves implicit come from its neighbours (« Quelle heure est-il à Paris et quel temps fait-il ? »).
An arithmetic expression becomes one intent computed through the arithmetic tools (``planning``).
A clause naming the same tool again without contradicting it completes the earlier intent (one
call per thing asked). A value the request describes instead of giving it (« la ville de ma
prochaine réunion ») is deferred to the tool whose result will hold it (``deferral``).
"""

from __future__ import annotations

from dataclasses import replace

from ..understanding import expressions, nlu, references
from ..understanding.arguments import enum_default, extract, value_fits
from ..understanding.schemas import ToolInfo, score_tool, tool_keys
from . import deferral
from .history import same_value
from .intents import Intent

THRESHOLD = 1.0


def best_tool(tools: list[ToolInfo], clause: str) -> tuple[ToolInfo | None, float]:
    best, best_score = None, 0.0
    for tool in tools:
        score = score_tool(tool, clause)
        if score > best_score:
            best, best_score = tool, score
    return best, best_score


def operator_tools(tools: list[ToolInfo]) -> dict[str, str]:
    """Map each arithmetic operation to the tool computing it (two numbers in, one out)."""
    mapping: dict[str, str] = {}
    for op in expressions.OPS:
        best, best_weight = None, 0.0
        for tool in tools:
            numeric = [p for p in tool.params if p.kind in ("number", "integer")]
            listed = [p for p in tool.params if p.kind == "numbers"]
            if len(numeric) < 2 and not listed:
                continue
            weight = tool_keys(tool).get("#" + op, 0.0)  # op names are concept names
            if weight > best_weight:
                best, best_weight = tool.name, weight
        if best is not None and best_weight >= 1.0:
            mapping[op] = best
    return mapping


def _expression_param(tool: ToolInfo):
    """The parameter taking a whole expression: ``expression``-like, or the only required
    string of a calculator tool."""
    explicit = next((p for p in tool.params if p.kind == "expression"), None)
    if explicit is not None:
        return explicit
    strings = [p for p in tool.required if p.type == "string" and p.kind != "enum"]
    if len(strings) == 1 and tool_keys(tool).get("#calculate", 0) >= 3:
        return strings[0]
    return None


def _arithmetic_intent(clause: str, tools: list[ToolInfo]) -> Intent | None:
    """Operation tools compute an expression step by step; a calculator takes it whole."""
    tree = expressions.find_expression(clause)
    if tree is None:
        return None
    mapping = operator_tools(tools)
    if mapping:
        return Intent(clause, None, {}, (), tree, tuple(sorted(mapping.items())))
    for tool in tools:
        param = _expression_param(tool)
        if param is not None:
            return Intent(clause, tool.name, {param.name: tree.render()})
    return None


def _neighbours(clauses: list[str], index: int) -> list[str]:
    before = clauses[:index][::-1]
    after = clauses[index + 1:]
    return before + after


def _target(clause: str, usable: list[ToolInfo], others: list[str]):
    """The tool a clause asks for, its extraction and the text it was read from. A reference to
    a value held elsewhere (« … dans la ville de ma prochaine réunion ») is set aside first when
    that reveals a tool needing such a value (the weather, not the meeting)."""
    refs = deferral.usable_references(clause)
    if refs:
        masked = references.masked(clause, refs)
        tool, score = best_tool(usable, masked)
        if tool is not None and score >= THRESHOLD:
            found = extract(tool, masked, others, enum_defaults=False)
            if any(deferral.fits(ref, tool.param(name)) for name in found.missing for ref in refs):
                return tool, found, masked
    tool, score = best_tool(usable, clause)
    if tool is None or score < THRESHOLD:
        return None, None, clause
    return tool, extract(tool, clause, others, enum_defaults=False), clause


def _merge(intents: list[Intent], tool: ToolInfo, clause: str, read: str,
           arguments: dict) -> bool:
    """One intent per thing asked: a clause that names the same tool again without
    contradicting it (« … au restaurant X » then « réserve une table pour 4 ») completes it.
    A value guessed from leftover words never contradicts one the user quoted."""
    same = [i for i in intents if i.tool == tool.name and i.expression is None]
    if not same:
        return False
    target = same[-1]
    explicit_new = extract(tool, read, [], enum_defaults=False, weak=False).arguments
    explicit_old = extract(tool, target.clause, [], enum_defaults=False, weak=False).arguments
    arguments = {k: v for k, v in arguments.items()
                 if k in explicit_new or k not in explicit_old}
    if any(k in target.arguments and not same_value(target.arguments[k], v)
           for k, v in arguments.items()):
        return False
    merged = {**target.arguments, **arguments}
    merged = {p.name: merged[p.name] for p in tool.params if p.name in merged}
    missing = tuple(p.name for p in tool.required if p.name not in merged)
    intents[intents.index(target)] = Intent(f"{target.clause} … {clause}", tool.name, merged,
                                            missing)
    return True


def plan_intents(text: str, tools: list[ToolInfo]) -> list[Intent]:
    """The intents of a request, in the order the user stated them."""
    usable = [t for t in tools if not t.is_finish]
    by_name = {t.name: t for t in usable}
    clauses = nlu.split_clauses(text)
    intents: list[Intent] = []
    for index, clause in enumerate(clauses):
        expression_intent = _arithmetic_intent(clause, usable)
        if expression_intent is not None:
            intents.append(expression_intent)
            continue
        others = _neighbours(clauses, index)
        tool, found, read = _target(clause, usable, others)
        previous = next((i for i in reversed(intents) if i.tool is not None), None)
        if tool is not None:
            if _merge(intents, tool, clause, read, dict(found.arguments)):
                continue
            arguments, missing = dict(found.arguments), list(found.missing)
            if previous is not None and previous.tool == tool.name:
                for name in list(missing):
                    if name in previous.arguments:
                        arguments[name] = previous.arguments[name]
                        missing.remove(name)
                arguments = {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
            intents.append(Intent(clause, tool.name, arguments, tuple(missing)))
            continue
        if previous is None:
            continue
        prev_tool = by_name[previous.tool]
        found = extract(prev_tool, clause, [], enum_defaults=False, weak=False)
        if not found.arguments:
            continue
        clash = any(name in previous.arguments and previous.arguments[name] != value
                    for name, value in found.arguments.items())
        merged = {**previous.arguments, **found.arguments}
        merged = {p.name: merged[p.name] for p in prev_tool.params if p.name in merged}
        missing = tuple(p.name for p in prev_tool.required if p.name not in merged)
        updated = Intent(previous.clause + ", " + clause if not clash else clause,
                         previous.tool, merged, missing)
        if clash:
            intents.append(updated)
        else:
            intents[intents.index(previous)] = updated
    intents = deferral.attach(intents, text, usable)
    intents = [_enum_defaults(i, by_name) for i in _borrow_missing(intents, by_name)]
    unique: list[Intent] = []
    for intent in intents:
        if not any(i.tool == intent.tool and i.arguments == intent.arguments
                   and i.expression == intent.expression and i.deferred == intent.deferred
                   for i in unique):
            unique.append(intent)
    return unique


def _borrow_missing(intents: list[Intent], by_name: dict[str, ToolInfo]) -> list[Intent]:
    """Fill a required value a clause leaves implicit (« … et donne son prix ») from the nearest
    other intent holding a parameter of the same name or the same specific kind."""
    result = list(intents)
    for index, intent in enumerate(result):
        if not intent.missing:
            continue
        tool = by_name[intent.tool]
        arguments, missing = dict(intent.arguments), []
        others = result[:index][::-1] + result[index + 1:]
        for name in intent.missing:
            kind = tool.param(name).kind
            value = None
            for other in (o for o in others if o.tool):
                other_tool = by_name[other.tool]
                for key, candidate in other.arguments.items():
                    other_kind = other_tool.param(key).kind
                    if (key == name or (kind == other_kind and kind not in _GENERIC_KINDS)) \
                            and value_fits(tool.param(name), candidate):
                        value = candidate
                        break
                if value is not None:
                    break
            if value is None:
                missing.append(name)
            else:
                arguments[name] = value
        ordered = {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
        result[index] = replace(intent, arguments=ordered, missing=tuple(missing))
    return result


def _enum_defaults(intent: Intent, by_name: dict[str, ToolInfo]) -> Intent:
    """A required enum nobody named takes its default value: the set of values is closed."""
    if not intent.missing:
        return intent
    tool = by_name[intent.tool]
    arguments = dict(intent.arguments)
    for name in intent.missing:
        if tool.param(name).kind == "enum":
            arguments[name] = enum_default(tool.param(name))
    ordered = {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
    missing = tuple(n for n in intent.missing if n not in ordered)
    return replace(intent, arguments=ordered, missing=missing)


_GENERIC_KINDS = ("string", "number", "integer", "boolean", "enum", "numbers", "strings", "text",
                  "answer")


def forced_intent(text: str, tool: ToolInfo) -> Intent:
    """The call to ``tool`` the request supports best, every required argument filled."""
    clauses = nlu.split_clauses(text) or [text]
    ranked = sorted(range(len(clauses)), key=lambda i: -score_tool(tool, clauses[i]))
    index = ranked[0]
    found = extract(tool, clauses[index], _neighbours(clauses, index), fill_required=True)
    return Intent(clauses[index], tool.name, found.arguments, ())


def fallback_intent(text: str, tools: list[ToolInfo]) -> Intent | None:
    """The most plausible call when one is mandatory but nothing in the request asks for one:
    the tool whose required parameters the request fills best (fewest to invent)."""
    usable = [t for t in tools if not t.is_finish]
    if not usable:
        return None

    def plausibility(tool: ToolInfo) -> tuple[float, int, int]:
        found = extract(tool, text, [])
        return (score_tool(tool, text), -len(found.missing), -len(tool.required))

    best = max(usable, key=plausibility)
    return forced_intent(text, best)
