"""Yes/no questions: recognising them, and reading whether a page says yes, no or not yet.

« Lumenio propose-t-il un tableau Kanban ? » asks for a verdict, not for a sentence that repeats
the question. A page answers it with a *declarative* sentence that states the status of the
thing asked (« Un tableau Kanban figure dans notre feuille de route pour 2026. ») and, on an FAQ,
often with a short reply right after the question (« Pas encore. »). This module says:

* whether a question is a yes/no one (an inversion « propose-t-il », « est-ce que », or a bare
  question without any interrogative word);
* whether a sentence states a status (its *cue*: a reply word, a negation, a plan, an
  availability);
* which verdict a page gives (« Oui », « Non », « Pas encore »), only when it says so clearly:
  a short reply right after the question, a plan or « pas encore » (not yet), a negation (no),
  or an unhedged sentence holding every term of the question (yes).

Pure functions of texts, matching words: it does not understand them.
"""

from __future__ import annotations

import re

from ...text import fold

_INTERROGATIVES = re.compile(
    r"(?<![a-z'])(qui|quoi|quel|quelle|quels|quelles|lequel|laquelle|lesquels|lesquelles|comment|"
    r"pourquoi|combien|quand|what|who|which|how|where|why|when)(?![a-z])")
_OPENING_QUE = re.compile(r"\s*(?:que|qu')(?![a-z])")
_EST_CE_QUE = re.compile(r"(?<![a-z])est-ce\s+qu(?:e|')")
_INVERSION = re.compile(r"(?<![\w-])[a-z]+-(?:t-)?(?:il|elle|ils|elles|on)(?![\w-])")
_ENGLISH = re.compile(r"\s*(is|are|does|do|did|can|has|have|was|were)\s")
INVERSION_SUFFIX = re.compile(r"-(?:t-)?(?:il|elle|ils|elles|on|ce|je|tu|nous|vous)$")

_REPLIES = (
    ("Pas encore", r"pas encore|toujours pas|pas pour l'instant|pas pour le moment|not yet"),
    ("Non", r"non|pas du tout|jamais|aucunement|no"),
    ("Oui", r"oui|absolument|bien sur|tout a fait|yes"),
)
_NOT_YET = re.compile(r"(?<![a-z])(?:pas encore|toujours pas|pas pour l'instant|pas pour le moment|"
                      r"not yet)(?![a-z])")
_PLANNED = re.compile(
    r"(?<![a-z])(?:feuille de route|roadmap|a venir|prochainement|repousse|repoussee|repousser|"
    r"reporte|reportee|reporter|"
    r"prevue?s?\s+(?:pour|en|d'ici|au|a|fin)|planifiee?s?\s+(?:pour|en)|"
    r"d'ici\s+(?:a\s+)?(?:la fin|l'an|\d{4}))(?![a-z])")
_NEGATION = re.compile(
    r"(?<![a-z])(?:ne\s+|n')(?:[a-z'-]+\s+){0,2}?(?:pas|plus|jamais|aucun|aucune|rien)(?![a-z])"
    r"|(?<![a-z])(?:aucun|aucune|jamais|pas\s+de|pas\s+d')(?![a-z])")
_AFFIRM = re.compile(r"(?<![a-z])(?:oui|desormais|deja|disponible|disponibles|est sorti|"
                     r"est sortie|sortie? en|sortis en|a lance|ont lance|a ajoute|ont ajoute|"
                     r"propose desormais)(?![a-z])")
_HEDGE = re.compile(r"(?<![a-z])(?:pourrait|pourraient|devrait|devraient|envisage|envisagent|"
                    r"rumeur|rumeurs|maquette|maquettes|peut-etre|si|aurait|auraient|beta)(?![a-z])")


_REPORTED = re.compile(r"(?<![a-z])(?:demande|demandent|demandait|se demande|se demandent|"
                       r"s'interroge|s'interrogent|asks|wonders)\s+(?:si|s'|whether|if)(?![a-z])")


def is_question(sentence: str) -> bool:
    """A sentence that asks rather than states, directly or reported (« Un utilisateur demande
    si … »): it never answers anything."""
    return sentence.rstrip(" »\"'").endswith("?") or bool(_REPORTED.search(fold(sentence)))


def is_yes_no(task: str) -> bool:
    """« Lumenio propose-t-il un tableau Kanban ? », « Est-ce que … ? », « Lumenio a un Kanban ? »"""
    folded = fold(task)
    if "où" in task.lower() or _OPENING_QUE.match(folded):
        return False
    rest = _EST_CE_QUE.sub(" ", folded)
    if _INTERROGATIVES.search(rest):
        return False
    return bool(_EST_CE_QUE.search(folded) or _INVERSION.search(folded)
                or _ENGLISH.match(folded) or folded.rstrip().endswith("?"))


def inverted_subject(task: str) -> str | None:
    """The capitalised first word of « Lumenio propose-t-il … ? »: a name, not an ordinary word
    that happens to open the sentence (a bare common noun would need an article)."""
    match = re.match(r"\s*([A-ZÀ-ÖØ-Ý][\w]*)\s+(?:[\w]+\s+)?[\w]+-(?:t-)?(?:il|elle|ils|elles|on)"
                     r"(?![\w-])", task)
    return fold(match.group(1)) if match else None


_SPEECH = re.compile(r"(?<![a-z])(?:repond|repondent|explique|expliquent|declare|declarent|indique|"
                     r"indiquent|precise|precisent|annonce|annoncent|affirme|affirment|ecrit|"
                     r"ecrivent|dit|disent|says|writes)\s*$")


def focus(sentence: str, weight) -> str:
    """The part of a sentence about the thing asked (``weight(part)``: how much of the question
    it holds): « aucun Gantt n'est prévu : la priorité reste le Kanban sorti en mars » → the
    Kanban part. A part introducing speech (« X répond : « … » ») stays with what is said."""
    parts = re.split(r"\s*[:;]\s+|\s+(?:mais|but)\s+", sentence)
    merged: list[str] = []
    for part in parts:
        if merged and _SPEECH.search(fold(merged[-1])):
            merged[-1] = f"{merged[-1]} : {part}"
        else:
            merged.append(part)
    return max(merged, key=weight)


_AUXILIARIES = frozenset("a ont est sont avait avaient etait etaient va vont peut peuvent doit "
                         "doivent sera seront aura auront".split())


def question_verbs(task: str) -> set[str]:
    """The verb of an inverted question, folded: « propose » in « Lumenio propose-t-il … »,
    « ajoute » in « Quadrille a-t-il ajouté … » (a page may say it with other words)."""
    found = set()
    tokens = re.findall(r"[\w'-]+", fold(task))
    for index, token in enumerate(tokens):
        if _INVERSION.fullmatch(token):
            verb = INVERSION_SUFFIX.sub("", token)
            found.add(verb)
            if verb in _AUXILIARIES and index + 1 < len(tokens):
                found.add(tokens[index + 1])
    return found


def _reply(sentence: str) -> str | None:
    folded = fold(sentence).strip(" .!,;:")
    for verdict, pattern in _REPLIES:
        if re.match(r"(?:" + pattern + r")(?![a-z])", folded):
            return verdict
    return None


def states_status(sentence: str) -> bool:
    """The sentence carries a verdict: a reply word, a plan, a negation or an availability."""
    folded = fold(sentence)
    return any(p.search(folded) for p in (_NOT_YET, _PLANNED, _NEGATION, _AFFIRM)) or bool(
        _reply(sentence))


def _first(pattern: re.Pattern, text: str) -> int | None:
    match = pattern.search(text)
    return match.start() if match else None


def _unless_affirmed_before(pattern: re.Pattern, folded: str) -> bool:
    """The marker is there and no availability is stated before it (« propose désormais un
    Kanban, qui n'a pas de couloirs » is not a « non »)."""
    at = _first(pattern, folded)
    if at is None:
        return False
    affirmed = _first(_AFFIRM, folded)
    return affirmed is None or affirmed > at


def verdict(sentences: list[str], asked, sentence: str, complete: bool) -> str | None:
    """« Oui », « Non » or « Pas encore » when the page says so clearly, else ``None``.

    ``sentences`` are the page's, ``asked(s)`` tells whether a question sentence of the page is
    the one asked, ``sentence`` is the one quoted and ``complete`` whether it holds every term of
    the question."""
    for previous, current in zip(sentences, sentences[1:]):
        if is_question(previous) and asked(previous):
            found = _reply(current)
            if found:
                return found
    folded = fold(sentence)
    if _NOT_YET.search(folded) or _unless_affirmed_before(_PLANNED, folded):
        return "Pas encore"
    if _unless_affirmed_before(_NEGATION, folded):
        return "Non"
    if complete and not _HEDGE.search(folded) and not _PLANNED.search(folded) \
            and not _NEGATION.search(folded):
        return "Oui"
    return None
