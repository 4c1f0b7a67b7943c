"""Dependent calls: an argument the request describes (« la ville de ma prochaine réunion »)
comes from another tool's result, so its call waits for that result.

When an intent lacks a required argument, ``attach`` looks for a way to get it from a tool:

* a *reference* of the request (``references``) of a compatible kind: a place for a location,
  origin or destination parameter, a time for a time parameter; the tool that holds it is the one
  whose vocabulary best matches the reference's subject (« prochaine réunion » →
  ``get_next_meeting``);
* an *arrival time* (« à l'heure où je peux arriver ») is the end of the event the trip starts
  from plus the travel duration: it needs a travel tool (origin and destination parameters);
* an *identifier* (``ref``, ``id``…) the user cannot know comes from a search tool queried with
  the request's other words (« café » for « Combien reste-t-il de café en stock ? »).

The intent is then *deferred*: ``resolve`` (called by ``planning`` at every turn) reads the value
from the conversation's tool results — a field of the right kind (``city``, ``lieu``, ``fin``,
``duration_min``…) of the right item (« dernier » → the latest) — and the call is made once the
value is known. The source tool is called first, as its own intent.
"""

from __future__ import annotations

from dataclasses import replace

from ...text import fold, words
from ..understanding import lexicon, nlu, references
from ..understanding.arguments import date_only, extract
from ..understanding.schemas import ToolInfo, score_tool, tool_keys
from .history import Episode, Observation
from .intents import Deferred, Intent
from .records import ID_KEYS, clock, duration_minutes, end, items_of, matching_item, place, select, start

THRESHOLD = 1.0


# --------------------------------------------------------------------------- attaching


def fits(ref: references.Reference, param) -> bool:
    """Whether a reference can give ``param`` its value (an hour is not a day)."""
    if ref.kind in ("time", "end", "arrival"):
        return param.kind == "time" and not date_only(param)
    return ref.compatible(param.kind)


def usable_references(text: str) -> list[references.Reference]:
    """References whose subject is not itself a value (« la ville de Lyon » names Lyon)."""
    kept = []
    for ref in references.find(text):
        subject = ref.subject.strip()
        if subject and (subject[0].isupper() or fold(subject) in lexicon.PLACES):
            continue
        kept.append(ref)
    return kept


def _best_source(subject: str, tools: list[ToolInfo], exclude: set[str]) -> ToolInfo | None:
    ranked = sorted(((score_tool(t, subject), -i, t) for i, t in enumerate(tools)
                     if t.name not in exclude and not t.is_finish), key=lambda x: x[:2],
                    reverse=True)
    if ranked and ranked[0][0] >= THRESHOLD:
        return ranked[0][2]
    return None


def _travel_tool(tools: list[ToolInfo], exclude: set[str]) -> ToolInfo | None:
    for tool in tools:
        kinds = {p.kind for p in tool.params}
        if tool.name not in exclude and {"origin", "destination"} <= kinds:
            return tool
    return None


def _search_tool(tools: list[ToolInfo], clause: str, exclude: set[str]) -> ToolInfo | None:
    found = [t for t in tools if t.name not in exclude and not t.is_finish
             and tool_keys(t).get("#search", 0) >= 1 and any(p.type == "string" for p in t.params)]
    return max(found, key=lambda t: score_tool(t, clause), default=None)


def _query_words(clause: str, tool: ToolInfo) -> str:
    """The words of a clause that do not name the tool (« café » in « Combien reste-t-il de
    café en stock ? » for a stock tool)."""
    vocabulary = set(tool_keys(tool))
    kept = [w for w in nlu.key_terms(clause) if not (nlu.keys(w) & vocabulary)
            and not fold(w).isdigit()]
    return " ".join(kept)


def _source_intent(tool: ToolInfo, text: str, query: str = ""):
    if query:
        param = next((p for p in tool.params if p.kind == "query"),
                     next(p for p in tool.params if p.type == "string"))
        arguments = {param.name: query}
    else:
        arguments = dict(extract(tool, text, [], enum_defaults=False, weak=False).arguments)
    missing = tuple(p.name for p in tool.required if p.name not in arguments)
    return Intent(text, tool.name, arguments, missing)


def _destination(text: str, refs: list[references.Reference], intent) -> str | None:
    spans = [nlu.Span("", r.start, r.end) for r in refs] + nlu.quoted(text)
    for found in nlu.places(text, spans):
        before = words(text[: found.start])[-2:]
        if not before or before[-1] not in ("de", "depuis", "du", "d"):
            return found.text
    titled = [v for v in intent.arguments.values() if isinstance(v, str)]
    return titled[0] if titled else None


def _travel_intent(travel: ToolInfo, text: str, refs: list[references.Reference], intent):
    """The trip an arrival time needs, to the place of the thing booked (its origin is deferred
    like any other missing value)."""
    source = _source_intent(travel, text)
    arguments = dict(source.arguments)
    destination_param = next(p for p in travel.params if p.kind == "destination")
    destination = _destination(text, refs, intent)
    if destination and destination_param.name not in arguments:
        arguments[destination_param.name] = destination
    arguments = {p.name: arguments[p.name] for p in travel.params if p.name in arguments}
    missing = tuple(p.name for p in travel.required if p.name not in arguments)
    return replace(source, arguments=arguments, missing=missing)


def attach(intents: list, text: str, tools: list[ToolInfo]) -> list:
    """Defer the missing arguments that a tool result can give (see the module docstring);
    source intents are added before the first intent that needs them."""
    by_name = {t.name: t for t in tools}
    floating = usable_references(text)
    result = list(intents)
    index = 0
    while index < len(result):
        intent = result[index]
        if not intent.tool or not intent.missing:
            index += 1
            continue
        tool = by_name[intent.tool]
        own = usable_references(intent.clause)
        deferred, missing, added = list(intent.deferred), [], []
        arguments = dict(intent.arguments)
        for name in intent.missing:
            param = tool.param(name)
            entry = None
            for ref in own + floating:
                if not fits(ref, param):
                    continue
                if ref.kind == "arrival":
                    travel = _travel_tool(tools, {tool.name})
                    if travel is None:
                        continue
                    if not any(i.tool == travel.name for i in result + added):
                        added.append(_travel_intent(travel, text, floating, intent))
                    entry = Deferred(name, "arrival", travel.name)
                    break
                source = _best_source(ref.subject, tools, {tool.name})
                if source is None:
                    continue
                entry = Deferred(name, ref.kind, source.name, ref.subject, ref.selector)
                if not any(i.tool == source.name for i in result + added):
                    added.append(_source_intent(source, text))
                break
            if entry is None and param.kind == "origin":
                # « … après mon dernier rendez-vous »: the trip starts where that event is
                for ref in (r for r in own + floating if r.kind in ("end", "time")):
                    source = _best_source(ref.subject, tools, {tool.name})
                    if source is not None:
                        entry = Deferred(name, "place", source.name, ref.subject, ref.selector)
                        if not any(i.tool == source.name for i in result + added):
                            added.append(_source_intent(source, text))
                        break
            if entry is None and param.kind == "destination" and any(
                    r.kind == "arrival" for r in floating):
                destination = _destination(text, floating, intent)
                if destination:
                    arguments[name] = destination
                    continue
            if entry is None and param.kind == "id":
                search = _search_tool(tools, intent.clause, {tool.name})
                query = _query_words(intent.clause, tool) if search else ""
                if search is not None and query:
                    entry = Deferred(name, "id", search.name, query)
                    if not any(i.tool == search.name for i in result + added):
                        added.append(_source_intent(search, text, query))
            if entry is None:
                missing.append(name)
            else:
                deferred.append(entry)
        intent = replace(intent, arguments={p.name: arguments[p.name] for p in tool.params
                                            if p.name in arguments})
        result[index] = replace(intent, missing=tuple(missing), deferred=tuple(deferred))
        if added:  # the sources go first, and are visited next (they may need values too)
            result[index:index] = added
        else:
            index += 1
    return result


# --------------------------------------------------------------------------- resolving


def _latest(episode: Episode, tool: str) -> tuple[str, Observation | None]:
    seen = [o for o in episode.observations if o.name == tool]
    if not seen:
        return "wait", None
    ok = [o for o in seen if o.ok]
    return ("ok", ok[-1]) if ok else ("failed", seen[-1])


def _item_for(entry: Deferred, episode: Episode):
    state, observation = _latest(episode, entry.source)
    if state != "ok":
        return state, observation
    return "ok", select(items_of(observation.data), entry.selector)


def _value(entry: Deferred, tool: ToolInfo, intents: list, episode: Episode):
    """("ok", value) | ("wait", None) | ("failed", reason)."""
    if entry.kind == "arrival":
        state, travel = _latest(episode, entry.source)
        if state != "ok":
            return state, f"{entry.source} a échoué" if travel else None
        minutes = duration_minutes(travel.data)
        origin_entry = next((d for i in intents if i.tool == entry.source
                             for d in i.deferred if d.kind == "place"), None)
        departure = None
        if origin_entry is not None:
            _, item = _item_for(origin_entry, episode)
            departure = clock(end(item)) if isinstance(item, dict) else None
        if minutes is None or departure is None:
            return "failed", f"je ne trouve pas l'heure de départ et la durée du trajet ({entry.source})"
        total = int(round(departure + minutes)) % (24 * 60)
        return "ok", f"{total // 60:02d}:{total % 60:02d}"
    state, found = _item_for(entry, episode)
    if state == "wait":
        return "wait", None
    if state == "failed":
        return "failed", f"{entry.source} a échoué ({found.error})"
    if entry.kind == "id":
        _, observation = _latest(episode, entry.source)
        item = matching_item(items_of(observation.data), entry.subject)
        value = None
        if item is not None:
            value = item.get(entry.param)
            if value is None:
                value = next((item[k] for k in item if fold(str(k)) in ID_KEYS), None)
    elif not isinstance(found, dict):
        value = None
    elif entry.kind == "place":
        value = place(found)
    elif entry.kind == "end":
        value = end(found)
    else:
        value = start(found)
    if value is None:
        return "failed", f"le résultat de {entry.source} ne donne pas « {entry.param} »"
    param = tool.param(entry.param)
    if param is not None and param.type == "string" and not isinstance(value, str):
        value = str(value)
    return "ok", value


def resolve(intent, intents: list, tools: dict[str, ToolInfo], episode: Episode):
    """("ready", arguments) once every deferred value is in the results, ("wait", None) while a
    source has not answered, ("failed", reason) when a source failed or lacks the value."""
    tool = tools[intent.tool]
    arguments = dict(intent.arguments)
    for entry in intent.deferred:
        state, value = _value(entry, tool, intents, episode)
        if state != "ok":
            return state, value
        arguments[entry.param] = value
    return "ready", {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
