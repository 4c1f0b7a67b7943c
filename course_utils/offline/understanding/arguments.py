"""Filling a tool's arguments from one intent of the request, following its JSON Schema.

Each parameter is filled only from what the request says: an enum by fuzzy match, numbers by
the cues around them (« % » → a percent parameter, « € » → an amount, « plus de » → a minimum),
places, times, currencies, quoted strings, the subject after « sur ». Optional parameters the
request does not mention are left out (no unit invented); a required one that cannot be found is
reported as missing, or filled with a plausible default when a call is mandatory
(``tool_choice="required"`` or a forced function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import fold, words
from . import expressions, lexicon, nlu
from .nlu import Number, Span, keys
from .schemas import Param, ToolInfo, tool_keys

_LANGUAGES = {
    "francais": "fr", "anglais": "en", "espagnol": "es", "allemand": "de", "italien": "it",
    "portugais": "pt", "japonais": "ja", "chinois": "zh", "english": "en", "french": "fr",
}
_DEFAULTS = {
    "location": "Paris", "timezone": "Europe/Paris", "time": "maintenant", "origin": "Paris",
    "destination": "Lyon", "language": "fr",
}


@dataclass(frozen=True)
class Extraction:
    """The arguments found for one tool, and the required parameters left without a value."""

    arguments: dict = field(default_factory=dict)
    missing: tuple[str, ...] = ()


def _without(text: str, spans: list[Span]) -> str:
    chars = list(text)
    for span in spans:
        chars[span.start: span.end] = " " * (span.end - span.start)
    return "".join(chars)


def remainder(clause: str, tool: ToolInfo, exclude: list[Span]) -> str | None:
    """What the clause says besides naming the tool: « rappel pour appeler Paul » → « appeler
    Paul ». ``None`` when nothing is left."""
    tool_words = tool_keys(tool)
    kept = []
    for match in re.finditer(r"[\w'’-]+", clause):
        if any(s.start <= match.start() < s.end for s in exclude):
            continue
        folded = fold(match.group(0)).split("'")[-1]
        parts = [p for p in re.split(r"-", folded) if p]
        if not parts or all(p in lexicon.STOPWORDS or p in lexicon.REQUEST_VERBS for p in parts):
            continue
        if any(keys(p) & set(tool_words) for p in parts) or folded.isdigit():
            continue
        kept.append(match)
    if not kept:
        return None
    text = clause[kept[0].start(): kept[-1].end()]
    return re.sub(r"^(l|d|qu)['’]", "", text).strip(" ,.:;") or None


def _param_cues(param: Param) -> tuple[set[str], set[str]]:
    tokens = param.name_words + words(param.description)
    categories = {lexicon.PARAM_CUES[t] for t in tokens if t in lexicon.PARAM_CUES}
    name_keys = {k for t in param.name_words for k in keys(t)}
    return categories, name_keys


def _pair_score(number: Number, param: Param) -> float:
    categories, name_keys = _param_cues(param)
    directions = {"min", "max"}
    score = 2.0 * len((number.cues - directions) & (categories - directions))
    for direction in directions:
        if direction in categories:
            if direction in number.cues:
                score += 2
            elif (directions - {direction}) & number.cues:
                return -10
    kinds = number.cues - directions
    if kinds and (categories - directions) and not kinds & categories:
        score -= 3
    score += len(set(number.context) & name_keys)
    return score


def assign_numbers(params: list[Param], found: list[Number]) -> dict[str, float | int]:
    """Give each number to the parameter its cues point to; cue-less numbers go, in order, to
    parameters without a specific meaning (``a``, ``x``, ``limit``…)."""
    result: dict[str, float | int] = {}
    used: set[int] = set()
    pairs = sorted(
        ((_pair_score(n, p), -i, -j, i, j) for i, n in enumerate(found) for j, p in enumerate(params)),
        reverse=True,
    )
    for score, _, _, i, j in pairs:
        if score <= 0 or i in used or params[j].name in result:
            continue
        used.add(i)
        result[params[j].name] = found[i].as_json
    generic = [p for p in params if p.name not in result and not (_param_cues(p)[0])]
    leftovers = [n for i, n in enumerate(found) if i not in used and not n.cues
                 and not (n.value.is_integer() and 1900 <= n.value <= 2100)]
    for param, number in zip(generic, leftovers):
        result[param.name] = number.as_json
    for param in params:
        if param.name in result and param.type == "integer":
            value = result[param.name]
            if float(value).is_integer():
                result[param.name] = int(value)
            else:
                del result[param.name]
    return result


def _place(clause: str, exclude: list[Span], others: list[str]) -> Span | None:
    for text in [clause, *others]:
        found = nlu.places(text, exclude if text is clause else [])
        if found:
            return found[0]
    return None


def _string_value(param: Param, tool: ToolInfo, clause: str, others: list[str],
                  blocks: list[Span], exclude: list[Span], weak: bool = True):
    kind = param.kind
    if kind == "currency":
        mentions = nlu.currencies(clause)
        wanted = [m for m in mentions if m.value[1] == param.role] if param.role else mentions
        return wanted[0].value[0] if wanted else None
    if kind in ("location", "timezone"):
        place = _place(clause, exclude, others)
        if place is None:
            return None
        if kind == "location":
            return place.text
        return place.value or None
    if kind == "time":
        span = nlu.time_expression(_without(clause, blocks))
        if span is None and date_only(param):  # « demain » said in another clause
            spans = [nlu.time_expression(other) for other in others]
            span = next((s for s in spans if s is not None), None)
        if span is not None and clock_only(param):
            clock = re.search(r"\d{2}:\d{2}", str(span.value))
            # « demain » is not an hour: the request gives (or defers) it elsewhere; « demain
            # 20h » gives « 20:00 » to a parameter asking for « HH:MM »
            return clock.group(0) if clock else None
        return span.value if span else None
    if kind in ("origin", "destination"):
        pair = nlu.route(clause, blocks)
        if pair is None:
            lone = nlu.endpoint(clause, kind, blocks)
            return lone.text if lone else None
        return pair[0].text if kind == "origin" else pair[1].text
    if kind == "expression":
        return expressions.expression_text(clause)
    if kind == "language":
        found = [code for word, code in _LANGUAGES.items() if word in words(clause)]
        return found[0] if found else None
    if kind == "email":
        match = re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", clause)
        return match.group(0) if match else None
    if kind == "url":
        match = re.search(r"https?://\S+", clause)
        return match.group(0).rstrip(".,)") if match else None
    if kind == "id":
        ids = [b.value for b in blocks] or [s.value for s in nlu.identifiers(clause, exclude)]
        return ids[0] if ids else None
    if kind == "query":
        found = nlu.topic(clause) or (blocks[0].value if blocks else None)
        return found or (remainder(clause, tool, exclude) if weak else None)
    if kind == "title":
        quoted = nlu.quoted(clause)
        if quoted:
            return quoted[0].value
        return remainder(clause, tool, exclude) if weak else None
    if kind == "text":
        return blocks[0].value if blocks else None
    quoted = nlu.quoted(clause)
    if quoted:
        return quoted[0].value
    # a string of unknown kind (« ticker », « flight »): a code the user wrote, if any
    codes = nlu.identifiers(clause, exclude)
    return codes[0].value if codes else None


_CLOCK_WORDS = frozenset("heure heures hour hours hh horaire hhmm clock".split())
_DATE_WORDS = frozenset("date jour day days datetime jours journee".split())


def _param_words(param: Param) -> set[str]:
    return set(param.name_words) | set(words(param.description))


def clock_only(param: Param) -> bool:
    """A time parameter asking for an hour of the day (« Heure … au format HH:MM »)."""
    found = _param_words(param)
    return bool(found & _CLOCK_WORDS) and not found & _DATE_WORDS


def date_only(param: Param) -> bool:
    """A time parameter asking for a day (« date : le jour, par exemple demain »)."""
    found = _param_words(param)
    return bool(found & _DATE_WORDS) and not found & (_CLOCK_WORDS | {"time", "moment"})


_CLOCK_VALUE = re.compile(r"(?<!\d)(?:[01]?\d|2[0-3])\s*(?::|h)\s*(?:[0-5]\d)?(?![\d])|"
                          r"\d{4}-\d{2}-\d{2}[t ]\d{1,2}:\d{2}|maintenant|now|midi|minuit")


def value_fits(param: Param, value) -> bool:
    """Whether a value found elsewhere (another intent's argument) may fill ``param``: a day
    (« demain ») is never an hour for a parameter asking for a clock time (« HH:MM »)."""
    if param.kind == "time" and clock_only(param):
        return isinstance(value, str) and bool(_CLOCK_VALUE.search(fold(value)))
    return True


def enum_default(param: Param):
    """The schema's default when it is one of the values, else the first value."""
    return param.default if param.default in param.enum else param.enum[0]


def default_value(param: Param, clause: str, tool: ToolInfo):
    """A plausible value for a required parameter the request does not give."""
    if param.default is not None:
        return param.default
    if param.enum:
        return param.enum[0]
    if param.kind in ("number", "integer"):
        return 1
    if param.kind == "boolean":
        return False
    if param.kind in ("numbers", "strings"):
        return []
    if param.kind == "currency":
        return "EUR" if param.role != "target" else "USD"
    if param.kind in _DEFAULTS:
        return _DEFAULTS[param.kind]
    return remainder(clause, tool, []) or clause.strip(" ?!.") or "bonjour"


def extract(tool: ToolInfo, clause: str, others: list[str] = (), *,
            fill_required: bool = False, enum_defaults: bool = True,
            weak: bool = True) -> Extraction:
    """Arguments for ``tool`` from ``clause``; ``others`` (the request's other clauses, nearest
    first) may supply a place the clause leaves implicit (« … et quel temps fait-il ? »).

    A required enum the clause does not name gets its default (or first) value unless
    ``enum_defaults`` is false; other required parameters are filled only with ``fill_required``.
    ``weak=False`` keeps only explicit evidence (no title or query made of leftover words).
    """
    blocks = nlu.quoted(clause)
    block = nlu.block(clause)
    if block is not None and block not in blocks:
        blocks = [block] + [q for q in blocks if not block.start <= q.start < block.end]
    time_span = nlu.time_expression(_without(clause, blocks))
    exclude = list(blocks) + ([time_span] if time_span else [])
    arguments: dict = {}
    numeric = [p for p in tool.params if p.kind in ("number", "integer")]
    found_numbers = nlu.numbers(clause, exclude)
    outside_blocks = _without(clause, blocks)
    for param in tool.params:
        value = None
        if param.kind == "enum":
            value = nlu.match_enum(list(param.enum), outside_blocks)
            if value is None and blocks:
                value = nlu.match_enum(list(param.enum), " ".join(b.text for b in blocks))
            if value is None and param.required and enum_defaults:
                value = enum_default(param)
        elif param.kind == "numbers":
            value = [n.as_json for n in found_numbers] or None
        elif param.kind == "strings":
            quoted = [q.value for q in nlu.quoted(clause)]
            value = quoted or None
        elif param.kind == "boolean":
            value = None
        elif param.kind not in ("number", "integer"):
            value = _string_value(param, tool, clause, list(others), blocks, exclude, weak)
        if value is not None:
            arguments[param.name] = value
    arguments.update(assign_numbers(numeric, found_numbers))
    ordered = {p.name: arguments[p.name] for p in tool.params if p.name in arguments}
    missing = tuple(p.name for p in tool.params if p.required and p.name not in ordered)
    if fill_required:
        for name in missing:
            ordered[name] = default_value(tool.param(name), clause, tool)
        ordered = {p.name: ordered[p.name] for p in tool.params if p.name in ordered}
        missing = ()
    return Extraction(ordered, missing)


def describe_param(param: Param) -> str:
    """« location (Nom de la ville) » for a question asking the user for a missing value."""
    return f"{param.name} ({param.description})" if param.description else param.name

