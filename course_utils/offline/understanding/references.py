"""Values a request describes instead of giving them: « la ville de ma prochaine réunion ».

A *reference* names a value by what holds it: a place (« la ville de ma prochaine réunion »,
« depuis le lieu de mon dernier rendez-vous », « où se termine ma dernière réunion », « depuis ma
dernière réunion »), a time (« à l'heure de ma réunion », « après mon dernier rendez-vous »), or an
arrival time (« à l'heure où je peux arriver », « pour l'heure d'arrivée »). The value is not in
the request: it will be in a tool result (``deferral`` finds the tool and reads the value).

Pure functions of a text, like ``nlu``; positions refer to the text given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text import fold

_DET = r"(?:(?:mon|ma|mes|notre|nos|votre|vos|son|sa|ses|leur|leurs|le|la|les|ce|cette|cet)\s+|l')"
_NP = r"(?P<np>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3})"
_PLACE_NOUNS = r"(?:ville|lieu|endroit|adresse|pays|salle|localisation|emplacement|quartier)"
_NP_STOP = frozenset("""
    et puis pour a au aux avec dans je j qui que qu quand ou ensuite alors mais car donc sur en
    reserve cree trouve donne dis calcule cherche demain aujourd hui ce soir matin
""".split())
_PATTERNS = (
    ("place", re.compile(
        r"(?:(?:(?P<prep>depuis|de|d'|du|vers|jusqu'a|a|au|dans|pour)\s+)?(?:la|le|l')\s*"
        r"|(?P<contracted>du|au|jusqu'au)\s+)" + _PLACE_NOUNS + r"\s+(?:de\s+|du\s+|d')" + _DET + "?" + _NP)),
    ("place", re.compile(r"(?P<prep>)(?P<there>(?:la|la-bas)\s+)?(?P<where>ou)\s+(?:a lieu|aura lieu|"
                         r"se tient|se trouve|se passe|se termine|se terminera|se finit|finit|"
                         r"termine|s'acheve)\s+" + _DET + _NP)),
    ("place", re.compile(r"(?P<prep>depuis|en partant de|en partant d'|au depart de|au depart d')"
                         r"\s*(?P<selected>)" + _DET + _NP)),
    ("time", re.compile(r"(?:a\s+)?l'heure\s+(?:de\s+|du\s+|d')" + _DET + "?" + _NP)),
    ("end", re.compile(r"(?:a|des|apres)\s+la\s+fin\s+(?:de\s+|du\s+|d')" + _DET + "?" + _NP)),
    ("end", re.compile(r"(?<![a-z])(?:apres|en sortant de|en sortant d')\s*" + _DET + _NP)),
)
_ARRIVAL = re.compile(
    r"(?:a\s+)?l'heure\s+(?:ou|a laquelle)\s+(?:je|j'|on|nous)\s*(?:[a-z']+\s+){0,2}?"
    r"(?:arriver|arrive|arriverai|arrivera|arrivons|y etre|etre la|etre sur place)"
    r"|des\s+(?:que\s+(?:j'|je\s+|nous\s+|on\s+)(?:arrive|arriverai|arrivons|serai la)|mon arrivee)"
    r"|a\s+mon\s+arrivee"
    r"|(?:a\s+|pour\s+)?(?:l'|mon\s+|notre\s+)heure\s+d'arrivee"
)
_SELECTORS = (("last", ("dernier", "derniere", "last", "final")),
              ("next", ("prochain", "prochaine", "next", "suivant", "suivante")),
              ("first", ("premier", "premiere", "first")))


@dataclass(frozen=True)
class Reference:
    """« la ville de ma prochaine réunion »: kind ``place``, subject « prochaine réunion »."""

    kind: str  # "place", "time" (start), "end" (end time) or "arrival"
    start: int
    end: int
    subject: str = ""  # the thing holding the value, in the user's words
    selector: str | None = None  # "last", "next", "first" (which item of a list)
    role: str | None = None  # places: "origin" (« depuis le lieu de… »), "destination"

    def compatible(self, kind: str) -> bool:
        """Whether this reference can give a value to a parameter of ``kind``."""
        if self.kind == "place":
            if kind == "origin":
                return self.role in ("origin", None)
            if kind == "destination":
                return self.role in ("destination", None)
            return kind == "location" and self.role != "origin"
        return kind == "time"


def _subject(text: str, start: int, raw: str) -> tuple[str, int]:
    kept = []
    for word in raw.split():
        if word.strip("'") in _NP_STOP:
            break
        kept.append(word)
    while kept and kept[-1] in ("de", "du", "des", "d'"):  # « ma dernière réunion de demain »
        kept.pop()
    phrase = " ".join(kept)
    return text[start: start + len(phrase)], start + len(phrase)


def _selector(subject: str) -> str | None:
    folded = fold(subject)
    for name, cues in _SELECTORS:
        if any(re.search(r"(?<![a-z])" + cue + r"(?![a-z])", folded) for cue in cues):
            return name
    return None


def find(text: str) -> list[Reference]:
    """The references of a request, in order (overlapping matches keep the first found)."""
    folded = fold(text)
    found: list[Reference] = []

    def free(start: int, end: int) -> bool:
        return not any(r.start < end and start < r.end for r in found)

    for match in _ARRIVAL.finditer(folded):
        if free(match.start(), match.end()):
            found.append(Reference("arrival", match.start(), match.end()))
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(folded):
            subject, end = _subject(text, match.start("np"), match.group("np"))
            if not subject or not free(match.start(), end):
                continue
            if "where" in pattern.groupindex and not match.group("there") and not text[
                    match.start("where"): match.end("where")].lower().endswith("ù"):
                continue  # a bare « ou » (or) is not « où » (where)
            if "selected" in pattern.groupindex and _selector(subject) is None:
                continue  # « depuis ma dernière réunion » is a place, « depuis ce matin » is not
            groups = match.groupdict()
            prep = (groups.get("prep") or groups.get("contracted") or "").strip()
            origin = prep in ("depuis", "de", "d'", "du") or prep.startswith(("en partant", "au dep"))
            role = ("origin" if origin else
                    "destination" if prep in ("vers", "jusqu'a", "jusqu'au") else None)
            found.append(Reference(kind, match.start(), end, subject, _selector(subject), role))
    return sorted(found, key=lambda r: r.start)


def masked(text: str, refs: list[Reference]) -> str:
    """The text with its references blanked (same length), to choose and fill the tool that
    *uses* the value without mistaking the reference's words for arguments."""
    chars = list(text)
    for ref in refs:
        chars[ref.start: ref.end] = " " * (ref.end - ref.start)
    return "".join(chars)
