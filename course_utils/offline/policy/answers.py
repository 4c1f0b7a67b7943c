"""French answers of the offline model, built only from what the tools returned.

Every number and name in an answer comes from a tool result, from the arguments of the call
that produced it, or from the tools' own descriptions: the simulator never adds a fact. A failed
call is reported as failed, with the tool's own error message.
"""

from __future__ import annotations

import json
from typing import Any

from ...text import fold
from ..understanding import lexicon
from ..understanding.arguments import describe_param
from ..understanding.expressions import format_number
from ..understanding.nlu import concepts_of
from ..understanding.schemas import ToolInfo, split_name
from . import phrasing
from .history import Episode, Observation
from .planning import Call, Plan
from .relevance import question_kind
from .selection import Intent

_LABELS = (  # first concept found wins: a travel *time* is a route, not a clock
    ("weather", "Météo"), ("route", "Itinéraire"), ("time", "Heure"), ("reminder", "Rappel"),
    ("tip", "Pourboire"), ("convert", "Conversion"), ("news", "Actualités"),
    ("log", "Analyse du journal"), ("course", "Cours"), ("search", "Recherche"),
    ("calculate", "Calcul"),
)
_BARE_KEYS = {"condition", "conditions", "description", "weather", "ciel", "sky", "summary"}
_TITLE_KEYS = ("title", "titre", "name", "nom", "label", "headline")
_UNITS = {"min": "min", "mins": "min", "minutes": "min", "km": "km", "m": "m", "h": "h",
          "hours": "h", "heures": "h", "kg": "kg", "g": "g", "eur": "€", "euros": "€",
          "usd": "$", "pct": "%", "percent": "%", "s": "s", "sec": "s", "seconds": "s"}
MAX_TEXT = 300


def _key_label(key: str) -> tuple[str, str]:
    """A French label for a result key, and the unit its name carries: ``duration_min`` →
    (« durée », « min »), ``distance_km`` → (« distance », « km »)."""
    folded = fold(str(key))
    parts = split_name(str(key))
    if len(parts) > 1 and parts[-1] in _UNITS:
        stem_key = "_".join(parts[:-1])
        label = lexicon.KEY_LABELS.get(stem_key, " ".join(parts[:-1]))
        return label, _UNITS[parts[-1]]
    return lexicon.KEY_LABELS.get(folded, str(key).replace("_", " ")), ""


def value_text(value: Any) -> str:
    """A tool value as text: numbers as the tool gave them, long texts cut."""
    if isinstance(value, bool):
        return "oui" if value else "non"
    if isinstance(value, (int, float)):
        return format_number(value)
    if value is None:
        return "—"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _label(name: str, arguments: dict | None, tool: ToolInfo | None) -> str:
    concepts = concepts_of(" ".join(name.split("_")))
    base = next((label for concept, label in _LABELS if concept in concepts), None)
    arguments = arguments or {}
    kinds = {p.name: p.kind for p in tool.params} if tool else {}
    by_kind = {kinds.get(k): v for k, v in arguments.items()}
    if base is None:
        inside = ", ".join(f"{k}={value_text(v)}" for k, v in arguments.items())
        return f"{name}({inside})"
    if "origin" in by_kind and "destination" in by_kind:
        return f"{base} de {by_kind['origin']} à {by_kind['destination']}"
    if "location" in by_kind:
        return f"{base} à {by_kind['location']}"
    if "timezone" in by_kind:
        return f"{base} ({by_kind['timezone']})"
    if "currency" in by_kind:
        numbers = [value_text(v) for k, v in arguments.items() if kinds.get(k) in ("number",
                                                                                  "integer")]
        codes = [str(v) for k, v in arguments.items() if kinds.get(k) == "currency"]
        return f"{base} {' '.join(numbers)} {' → '.join(codes)}".replace("  ", " ")
    if "query" in by_kind:
        return f"{base} « {by_kind['query']} »"
    if "title" in by_kind:
        return f"{base} « {by_kind['title']} »"
    shown = {k: v for k, v in arguments.items() if kinds.get(k) not in ("text",)}
    if shown:
        return f"{base} ({', '.join(f'{k}={value_text(v)}' for k, v in shown.items())})"
    return base


def _dict_facts(data: dict, echoed: set[str], arguments: dict | None = None,
                label: str = "") -> str:
    facts = []
    arguments = arguments or {}
    unit = str(data.get("unit") or data.get("unite") or "")
    for key, value in data.items():
        folded = fold(str(key))
        if folded in ("unit", "unite") and any(k.startswith("temp") for k in data):
            continue
        if isinstance(value, str) and fold(value) in echoed:
            continue
        if key in arguments and isinstance(value, (int, float)) and value == arguments[key]:
            continue
        if folded.startswith("temp") and isinstance(value, (int, float)):
            symbol = {"celsius": "°C", "fahrenheit": "°F"}.get(fold(unit), unit)
            facts.append(f"température {value_text(value)} {symbol}".rstrip())
        elif folded in _BARE_KEYS:
            facts.append(value_text(value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            facts.append(f"{lexicon.KEY_LABELS.get(folded, key)} : {_list_facts(value)}")
        else:
            name, unit = _key_label(key)
            shown = value_text(value)
            if unit and isinstance(value, (int, float)):
                facts.append(f"{name} : {shown} {unit}")
            else:
                facts.append(shown if fold(name) == fold(label) else f"{name} {shown}")
    return ", ".join(facts) if facts else "résultat vide"


def _list_facts(items: list) -> str:
    if not items:
        return "aucun résultat"
    shown = []
    for item in items[:5]:
        if isinstance(item, dict):
            title = next((item[k] for k in _TITLE_KEYS if item.get(k)), None)
            shown.append(value_text(title) if title is not None else _dict_facts(item, set()))
        else:
            shown.append(value_text(item))
    more = f" (et {len(items) - 5} autres)" if len(items) > 5 else ""
    count = f"{len(items)} résultat{'s' if len(items) > 1 else ''}"
    return f"{count} : " + " ; ".join(shown) + more


def observation_line(observation: Observation, tool: ToolInfo | None) -> str:
    """« Météo à Lyon : température 18 °C, nuageux. »"""
    label = _label(observation.name, observation.arguments, tool)
    if not observation.ok:
        return f"{label} : échec — {value_text(observation.error)}"
    data = observation.data
    echoed = {fold(str(v)) for v in (observation.arguments or {}).values() if isinstance(v, str)}
    if isinstance(data, dict):
        facts = _dict_facts(data, echoed, observation.arguments, label.split(" ")[0])
    elif isinstance(data, list):
        facts = _list_facts(data)
    elif data is not None:
        facts = value_text(data)
    else:
        facts = value_text(observation.content)
    return f"{label} : {facts}"


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…", "»")) else text + "."


def tools_overview(tools: list[ToolInfo]) -> str:
    described = [f"{t.name} ({t.description.strip().rstrip('.')})" if t.description.strip()
                 else t.name for t in tools if not t.is_finish]
    return " ; ".join(described)


def cannot_do(tools: list[ToolInfo], task: str = "") -> str:
    """Honest refusal naming what the available tools can do."""
    overview = tools_overview(tools)
    if not overview:
        return "Je ne peux pas faire cela : aucun outil n'est disponible."
    return ("Je ne peux pas faire cela avec les outils dont je dispose. "
            f"Voici ce que je peux faire : {overview}.")


def greeting(tools: list[ToolInfo]) -> str:
    overview = tools_overview(tools)
    return f"Bonjour ! Je peux vous aider avec ces outils : {overview}." if overview else (
        "Bonjour !")


def call_text(call: Call) -> str:
    inside = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    return f"{call.name}({inside})"


def intent_text(intent: Intent) -> str:
    """``get_weather(location=<prochaine réunion, d'après get_next_meeting>)`` for a deferred
    intent, ``call_text`` otherwise."""
    text = call_text(Call(intent.tool, intent.arguments))
    if not intent.deferred:
        return text
    later = ", ".join(f"{d.param}=<{d.describe()}>" for d in intent.deferred)
    return text[:-1] + (", " if intent.arguments else "") + later + ")"


def without_tools(intents: list[Intent], tools: list[ToolInfo]) -> str:
    """Answer under ``tool_choice="none"`` before any result: say which call would be needed."""
    calls = [intent_text(i) for i in intents if i.tool]
    if any(i.expression is not None for i in intents):
        calls.append("les outils de calcul")
    if not calls:
        return cannot_do(tools)
    return ("Sans appeler d'outil, je ne peux pas répondre de façon fiable : il faudrait "
            f"appeler {' et '.join(calls)}.")


_SINGLE = ("{line}", "{line} (d'après l'outil)", "Résultat de l'outil — {line}",
           "Voici le résultat. {line}", "J'ai obtenu ceci. {line}")


def _numbers(observation: Observation) -> list[tuple[str, float]]:
    data = observation.data
    if not isinstance(data, dict) or not observation.ok:
        return []
    arguments = observation.arguments or {}
    return [(k, v) for k, v in data.items() if isinstance(v, (int, float))
            and not isinstance(v, bool) and not (k in arguments and v == arguments[k])]


def direct(episode: Episode, plan: Plan, tools: list[ToolInfo]) -> str | None:
    """The asked quantity, first, when a chain of calls led to it (« Combien reste-t-il de café
    en stock ? » → « 42 (réf. CAF-001) »): the one number of the dependent call's result."""
    if not plan.resolved or question_kind(episode.task) != "quantity":
        return None
    names = {i.tool for i in plan.resolved}
    last = next((o for o in reversed(episode.observations) if o.name in names and o.ok), None)
    if last is None or len(_numbers(last)) != 1:
        return None
    key, value = _numbers(last)[0]
    by_name = {t.name: t for t in tools}
    tool = by_name.get(last.name)
    ids = [f"réf. {v}" for k, v in (last.arguments or {}).items()
           if tool and tool.param(k) and tool.param(k).kind == "id"]
    label, unit = _key_label(key)
    shown = f"{value_text(value)} {unit}".strip()
    context = ", ".join([label] + ids)
    return f"{shown} ({context})"


def final(episode: Episode, plan: Plan, tools: list[ToolInfo],
          voice: phrasing.Voice = phrasing.STEADY) -> str:
    """The French answer once every intent is resolved (or cannot be)."""
    by_name = {t.name: t for t in tools}
    lines: list[str] = []
    used = {(c.name, json.dumps(c.arguments, sort_keys=True)) for comp in plan.computations
            for c, _ in comp.steps}
    order = [(o.name, json.dumps(o.arguments, sort_keys=True)) for o in episode.observations]

    def position(step: tuple[Call, float]) -> int:
        key = (step[0].name, json.dumps(step[0].arguments, sort_keys=True))
        return order.index(key) if key in order else len(order)

    for computation in plan.computations:
        done = sorted(computation.steps, key=position)
        steps = " ; ".join(
            f"{call.name}({', '.join(value_text(v) for v in call.arguments.values())})"
            f" = {format_number(value)}" for call, value in done)
        lines.append(f"Résultat : {computation.intent.expression.render()} = "
                     f"{format_number(computation.value)} (étapes : {steps})")
    last_error_by_tool = {}
    for observation in episode.observations:
        key = (observation.name, json.dumps(observation.arguments, sort_keys=True))
        if key in used:
            continue
        if observation.ok:
            lines.append(observation_line(observation, by_name.get(observation.name)))
        else:
            last_error_by_tool[observation.name] = observation
    for failure in plan.failures:
        if failure.call is None and failure.intent.expression is None:
            lines.append(f"Je n'ai pas pu appeler {failure.intent.tool} : {failure.error}")
            continue
        if failure.call is None:
            lines.append(f"Je ne peux pas calculer « {failure.intent.clause} » : {failure.error}")
            continue
        label = _label(failure.call.name, failure.call.arguments, by_name.get(failure.call.name))
        lines.append(f"{label} : l'appel a échoué ({value_text(failure.error)}) ; je ne le "
                     "relance pas à l'identique")
    if not lines and last_error_by_tool:
        for observation in last_error_by_tool.values():
            lines.append(observation_line(observation, by_name.get(observation.name)))
    for intent, missing in plan.questions:
        tool = by_name[intent.tool]
        described = ", ".join(describe_param(tool.param(m)) for m in missing)
        lines.append(f"Pour utiliser {tool.name}, il me manque : {described}. Pouvez-vous "
                     "préciser ?")
    if not lines:
        return cannot_do(tools)
    lines = list(dict.fromkeys(lines))
    lead = direct(episode, plan, tools)
    if len(lines) == 1 and lead is None:
        if not voice.varies:
            return _sentence(lines[0])
        return _sentence(voice.say(_SINGLE, line=lines[0].strip().rstrip(".")))
    body = f"{voice.say(phrasing.RESULTS_OPENING)}\n" + "\n".join(
        f"- {_sentence(line)}" for line in lines)
    return f"Réponse : {lead}.\n{body}" if lead else body
