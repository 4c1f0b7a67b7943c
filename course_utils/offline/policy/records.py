"""Reading values out of tool results: records, and the field of a given kind in a record.

A tool result is JSON of any shape. ``items_of`` finds its records (a list, a list under a usual
key, or the result itself); ``place``, ``start``, ``end`` find a field by its key's words
(``city``/``lieu``, ``heure``/``start``, ``fin``/``end``); ``select`` picks « le dernier », « le
prochain »; ``duration_minutes`` reads ``duration_min: 14`` or ``"temps": "1 h"``. Used by
``deferral`` to give a dependent call the value it waits for.
"""

from __future__ import annotations

import re

from ...text import fold, prefix_key, words
from ..understanding.schemas import split_name

_PLACE_KEYS = frozenset("""
    city ville lieu location place address adresse endroit salle localisation site venue
    destination where ou
""".split())
_START_KEYS = frozenset("heure time start debut starts begin when date datetime horaire".split())
_END_KEYS = frozenset("fin end ends until heure_fin end_time ends_at termine jusqu".split())
_DURATION_KEYS = frozenset("duration duree temps minutes min mins trajet travel eta".split())
ID_KEYS = ("id", "ref", "reference", "sku", "code", "identifiant", "uid", "key")
_LIST_KEYS = ("results", "resultats", "items", "events", "evenements", "data", "rows", "lignes")
_CLOCK = re.compile(r"(?<!\d)([01]?\d|2[0-3])\s*[:h]\s*([0-5]\d)(?!\d)")


def items_of(data) -> list[dict]:
    """The records of a tool result: a list, a list under a usual key, or one record."""
    if isinstance(data, list):
        return [d for d in data if isinstance(d, dict)]
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return [d for d in data[key] if isinstance(d, dict)]
        lists = [v for v in data.values() if isinstance(v, list) and v
                 and all(isinstance(d, dict) for d in v)]
        if len(lists) == 1:
            return lists[0]
        return [data]
    return []


def _key_words(key: str) -> set[str]:
    return set(split_name(str(key))) | {fold(str(key))}


def field(item: dict, vocabulary: frozenset[str], kinds=(str,)):
    """The first value of ``item`` whose key's words meet ``vocabulary``."""
    for key, value in item.items():
        if _key_words(key) & vocabulary and isinstance(value, kinds) and not isinstance(
                value, bool) and value not in ("", None):
            return value
    return None


def clock(value) -> int | None:
    """Minutes since midnight of « 18:30 », « 2025-03-14 10:00 », « 9h05 »; else ``None``."""
    match = _CLOCK.search(str(value)) if value is not None else None
    return int(match.group(1)) * 60 + int(match.group(2)) if match else None


def start(item: dict):
    """When a record starts (a value with a clock time preferred)."""
    for key, value in item.items():
        if _key_words(key) & _START_KEYS and clock(value) is not None:
            return value
    return field(item, _START_KEYS)


def end(item: dict):
    """When a record ends (« fin », « end »), else when it starts."""
    for key, value in item.items():
        if _key_words(key) & _END_KEYS and clock(value) is not None:
            return value
    return start(item)


def select(items: list[dict], selector: str | None) -> dict | None:
    """« dernier » → the latest item (by its start time, else the last one), « prochain »,
    « premier » → the earliest; no selector → the first."""
    if not items:
        return None
    timed = [(clock(start(i)), n, i) for n, i in enumerate(items)]
    if selector == "last":
        if all(t is not None for t, _, _ in timed):
            return max(timed, key=lambda x: (x[0], x[1]))[2]
        return items[-1]
    if selector in ("next", "first") and all(t is not None for t, _, _ in timed):
        return min(timed, key=lambda x: (x[0], x[1]))[2]
    return items[0]


def duration_minutes(data) -> float | None:
    """A duration field of a result, in minutes (``duration_min``, ``duree_h``, ``"14 min"``)."""
    for item in items_of(data) or []:
        for key, value in item.items():
            names = _key_words(key)
            if not names & _DURATION_KEYS:
                continue
            number = value if isinstance(value, (int, float)) and not isinstance(value, bool) \
                else None
            if number is None and isinstance(value, str):
                match = re.search(r"\d+(?:[.,]\d+)?", value)
                number = float(match.group(0).replace(",", ".")) if match else None
            if number is None:
                continue
            if names & {"h", "hours", "heures", "hour"}:
                return float(number) * 60
            if names & {"s", "sec", "seconds", "secondes"}:
                return float(number) / 60
            return float(number)
    return None


def matching_item(items: list[dict], query: str) -> dict | None:
    """The record sharing most words with ``query`` (the first one on a tie)."""
    wanted = {prefix_key(w) for w in words(query)}

    def overlap(item: dict) -> int:
        text = " ".join(str(v) for v in item.values() if isinstance(v, str))
        return len(wanted & {prefix_key(w) for w in words(text)})

    ranked = sorted(enumerate(items), key=lambda x: (-overlap(x[1]), x[0]))
    return ranked[0][1] if ranked else None


def place(item: dict):
    """The place a record names (« lieu », « city », « address »…)."""
    return field(item, _PLACE_KEYS)
