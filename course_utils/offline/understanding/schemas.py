"""Reading the tools of a request: names, descriptions, parameters and what each parameter is for.

A parameter's *kind* (``location``, ``timezone``, ``time``, ``query``, ``title``, ``currency`` …)
is guessed from its name first, then from its description, in English or French; that kind tells
``arguments`` where to look in the request. Nothing here knows the course's tools by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text import fold, words
from . import lexicon
from .nlu import content_words, keys, quoted

FINISH_NAMES = ("finish", "final_answer", "terminer", "repondre", "done")

_KINDS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (kind, frozenset(members.split()))
    for kind, members in (
        ("timezone", "timezone tz fuseau zone"),
        ("currency", "currency currencies devise devises monnaie"),
        ("time", "time date datetime when heure moment deadline due echeance horaire quand hour day "
                 "jour"),
        ("origin", "origin from start depart departure source origine"),
        ("destination", "destination to dest end arrival arrivee"),
        ("location", "location city ville lieu place address adresse where region country pays "
                     "localisation localite"),
        ("expression", "expression expr formula formule equation calcul"),
        ("query", "query q search keywords keyword topic sujet terms question requete recherche "
                  "theme"),
        ("id", "id ids identifier identifiant ref reference ticker symbol symbole sku isbn iata "
               "icao tracking suivi immatriculation plaque"),
        ("answer", "answer reponse final"),
        ("title", "title titre name nom label libelle subject objet"),
        ("text", "text texte content contenu message body log logs note corps extrait"),
        ("language", "language lang langue locale"),
        ("email", "email mail courriel recipient destinataire"),
        ("url", "url link lien uri"),
    )
)
_SOURCE = frozenset("from source base de depuis origin origine".split())
_TARGET = frozenset("to target cible vers dest destination".split())


def split_name(name: str) -> list[str]:
    """``get_weather`` → ``["get", "weather"]``; ``minDuration`` → ``["min", "duration"]``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", fold(spaced)) if w]


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    description: str
    enum: tuple | None
    required: bool
    kind: str  # enum, number, integer, boolean, numbers, strings, or a string kind (see _KINDS)
    role: str | None = None  # currency params: "source" or "target"
    default: object = None
    items_type: str | None = None

    @property
    def name_words(self) -> list[str]:
        return split_name(self.name)


@dataclass(frozen=True)
class ToolInfo:
    name: str
    description: str
    params: tuple[Param, ...]

    @property
    def required(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.required)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def is_finish(self) -> bool:
        return fold(self.name) in FINISH_NAMES

    def summary(self) -> str:
        """« obtenir la météo d'une ville (get_weather) » — for answers listing what it can do."""
        text = re.split(r"(?<=[.!?])\s|\n", self.description.strip())[0].rstrip(".") if (
            self.description.strip()) else ""
        if not text:
            return self.name
        return f"{text[0].lower() + text[1:]} ({self.name})"


def _type_of(spec: dict) -> str:
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        for option in spec.get("anyOf") or spec.get("oneOf") or ():
            if isinstance(option, dict) and option.get("type") not in (None, "null"):
                return _type_of(option)
        return "string"
    return str(kind)


def _string_kind(name: str, description: str) -> str:
    for source in (split_name(name), words(description)[:12]):
        tokens = set(source)
        for kind, members in _KINDS:
            if tokens & members:
                return kind
    return "string"


def _currency_role(name: str, description: str) -> str | None:
    tokens = set(split_name(name))
    if tokens & _SOURCE:
        return "source"
    if tokens & _TARGET:
        return "target"
    described = set(words(description))
    if described & (_SOURCE | {"depart"}):
        return "source"
    if described & (_TARGET | {"cible", "convertir"}):
        return "target"
    return None


def _param(name: str, spec: dict, required: bool) -> Param:
    spec = spec if isinstance(spec, dict) else {}
    description = str(spec.get("description") or spec.get("title") or "")
    kind_type = _type_of(spec)
    enum = tuple(spec["enum"]) if isinstance(spec.get("enum"), list) and spec["enum"] else None
    items_type = None
    role = None
    if enum is not None:
        kind = "enum"
    elif kind_type in ("number", "integer", "boolean"):
        kind = kind_type
    elif kind_type == "array":
        items_type = _type_of(spec.get("items") or {})
        kind = "numbers" if items_type in ("number", "integer") else "strings"
    else:
        kind = _string_kind(name, description)
        if kind == "currency" or (kind in ("origin", "destination") and "currenc" in fold(
                description + name)):
            kind, role = "currency", _currency_role(name, description)
    return Param(name, kind_type, description, enum, required, kind, role, spec.get("default"),
                 items_type)


def tool_infos(tools: list | None) -> list[ToolInfo]:
    """The request's ``tools`` as ``ToolInfo`` objects (function tools only)."""
    infos = []
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not function.get("name"):
            continue
        schema = function.get("parameters") or {}
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        params = tuple(_param(n, s, n in required) for n, s in properties.items())
        infos.append(ToolInfo(function["name"], str(function.get("description") or ""), params))
    return infos


def tool_keys(tool: ToolInfo) -> dict[str, float]:
    """What a tool can be matched on, with weights: name 3, description 1, parameters 0.5."""
    weights: dict[str, float] = {}

    def add(word: str, weight: float) -> None:
        if word in lexicon.STOPWORDS or word in lexicon.GENERIC_TOOL_WORDS or len(word) < 2:
            return
        for key in keys(word):
            weights[key] = max(weights.get(key, 0.0), weight)

    for word in split_name(tool.name):
        add(word, 3.0)
    for word in words(tool.description):
        add(word, 1.0)
    for param in tool.params:
        for word in param.name_words + words(param.description):
            add(word, 0.5)
        for value in param.enum or ():
            for word in words(str(value)):
                add(word, 1.0)
    return weights


def score_tool(tool: ToolInfo, clause: str) -> float:
    """How well a clause's words (quoted data excluded) match a tool's vocabulary."""
    text = clause
    for span in quoted(clause):
        text = text.replace(span.text, " ")
    weights = tool_keys(tool)
    total = 0.0
    for word in set(content_words(text)):
        total += max((weights.get(k, 0.0) for k in keys(word)), default=0.0)
    return total
