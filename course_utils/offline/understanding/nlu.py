"""French request understanding for the offline model: words, numbers, times, places, enums.

Everything here is a pure function of a text. Positions (``start``/``end``) always refer to the
text given, and ``fold`` (``course_utils.text``) keeps positions unchanged, so spans found in the
folded text can be cut from the original one (to keep the user's spelling: « Lyon », « Réunion
équipe »). Words are compared through ``course_utils.text.prefix_key``.

It is a small rule-based reader, not a language model: it knows the words in ``lexicon`` and the
shapes below (« 42,50 € », « 18 % », « demain 9h », « de Paris à Lyon », quoted strings).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...text import fold, prefix_key, words
from . import lexicon

_QUOTES = re.compile(
    r"«\s*(?P<g>[^»]+?)\s*»|“(?P<c>[^”]+)”|\"(?P<d>[^\"]+)\"|(?<![\w])'(?P<s>[^\n]+?)'(?![\w])"
)
_NUMBER = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,])|\d+)(?:[.,](\d+))?"
    r"(?:(?![\w]|[.,]\d)|(?=(?:h|mn|min|km|kg|j)\b))"
)
_CAPITALISED = re.compile(
    r"(?<![\w'’-])[A-ZÀ-ÖØ-Ý][\w-]*(?:(?:\s+(?:de|du|des|la|le|sur|en)\s+|\s+|-)[A-ZÀ-ÖØ-Ý][\w-]*)*"
)
_SPLIT = re.compile(
    r"[?!;…]+|\n+|\.(?=\s|$)|,\s+|\s+(?:et puis|et aussi|mais aussi|ainsi que|et|puis|"
    r"ensuite|and|then)\s+",
    re.IGNORECASE,
)
_PLACE_PREPOSITIONS = ("a", "au", "aux", "en", "vers", "pour", "sur", "dans", "at", "in", "to")
_ARTICLES = ("le", "la", "les")


@dataclass(frozen=True)
class Span:
    """A piece of the text: ``value`` is what it means (a number, a code, a rendering)."""

    text: str
    start: int
    end: int
    value: object = None


@dataclass(frozen=True)
class Number:
    """A number of the request with the cues around it (« plus de 20 heures » → min, duration)."""

    value: float
    start: int
    end: int
    cues: frozenset[str]
    context: tuple[str, ...]  # stems and concepts of the words right before and after it

    @property
    def as_json(self) -> int | float:
        return int(self.value) if float(self.value).is_integer() else self.value


# --------------------------------------------------------------------------- words


@functools.lru_cache(maxsize=1)
def _concept_index() -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for concept, members in lexicon.CONCEPTS.items():
        for member in members:
            index.setdefault(member, set()).add(concept)
            index.setdefault(prefix_key(member), set()).add(concept)
    return {key: frozenset(value) for key, value in index.items()}


def keys(word: str) -> frozenset[str]:
    """What a word can match: its stem and the concepts it evokes (prefixed ``#``)."""
    word = fold(word)
    index = _concept_index()
    concepts = index.get(word, frozenset()) | index.get(prefix_key(word), frozenset())
    return frozenset({prefix_key(word)} | {"#" + c for c in concepts})


def concepts_of(text: str) -> set[str]:
    """Concept names evoked by a text (without the ``#``)."""
    found: set[str] = set()
    for word in words(text):
        found |= {k[1:] for k in keys(word) if k.startswith("#")}
    return found


def content_words(text: str) -> list[str]:
    """Folded words that carry meaning for a request (``lexicon.STOPWORDS`` removed), in order."""
    return [w for w in words(text) if w not in lexicon.STOPWORDS and len(w) > 1 or w.isdigit()]


def key_terms(text: str) -> list[str]:
    """The meaningful words of a request in their original spelling, without repeats."""
    seen, terms = set(), []
    for match in re.finditer(r"\w+", text):
        word = match.group(0)
        folded = fold(word)
        if folded in lexicon.STOPWORDS or is_request_verb(text, match.start(), match.end()):
            continue
        if len(folded) < 2 and not word.isdigit():
            continue
        if folded in ("l", "d", "qu") or folded in seen:
            continue
        seen.add(folded)
        terms.append(word)
    return terms


def is_request_verb(text: str, start: int, end: int) -> bool:
    """An imperative opening the request (« Trouve-moi… », « Calcule … »), not a participle
    inside it (« ont ajouté »)."""
    if fold(text[start:end]) not in lexicon.REQUEST_VERBS:
        return False
    before = text[:start].rstrip()
    return (not before or before[-1] in ".?!:;,\n") or bool(
        re.match(r"-(moi|nous|le|la|les|lui)\b", text[end:], re.IGNORECASE))


def is_greeting(text: str) -> bool:
    return bool(re.search(r"\b(bonjour|salut|hello|bonsoir|coucou|hi)\b", fold(text)))


# --------------------------------------------------------------------------- spans


def quoted(text: str) -> list[Span]:
    """Quoted strings: « … », “…”, "…" and '…' (an apostrophe inside a word is not a quote)."""
    spans = []
    for match in _QUOTES.finditer(text):
        group = next(g for g in ("g", "c", "d", "s") if match.group(g) is not None)
        spans.append(Span(match.group(group), match.start(), match.end(), match.group(group)))
    return spans


def block(text: str) -> Span | None:
    """Data given after a colon (« Analyse ce log : … »), else the first quoted string, else any
    text of two words or more after a colon."""
    match = re.search(r":\s*(\S.*)$", text, re.DOTALL)
    after = None
    if match:
        value = match.group(1).strip()
        after = Span(value, match.start(1), match.start(1) + len(value), value)
        if _looks_like_data(value) and not (value[0] in "«\"“'" and quoted(value)):
            return after
    spans = quoted(text)
    if spans:
        return spans[0]
    if after is not None and len(after.text.split()) >= 2:
        return after
    return None


def numbers(text: str, exclude: list[Span] = ()) -> list[Number]:
    """Numbers with decimal commas (« 42,50 »), thousands spaces, and the words around them."""
    folded = fold(text)
    found = []
    for match in _NUMBER.finditer(text):
        if any(s.start <= match.start() < s.end for s in exclude):
            continue
        digits = re.sub(r"\D", "", match.group(1))
        value = float(digits + ("." + match.group(2) if match.group(2) else ""))
        before, after = folded[max(0, match.start() - 40): match.start()], folded[match.end():][:40]
        cues = set()
        for phrase, cue in lexicon.NUMBER_CUES_AFTER.items():
            if re.match(r"\s*" + re.escape(phrase) + (r"(?![a-z])" if phrase[-1].isalpha() else ""),
                        after):
                cues.add(cue)
        for phrase, cue in lexicon.NUMBER_CUES_BEFORE.items():
            if re.search(("(?<![a-z])" if phrase[0].isalpha() else "") + re.escape(phrase) + r"\s*$",
                         before):
                cues.add(cue)
        near = [w for w in words(before)[-3:] + words(after)[:3] if w not in lexicon.STOPWORDS]
        context = tuple(sorted({k for w in near for k in keys(w)}))
        found.append(Number(value, match.start(), match.end(), frozenset(cues), context))
    for match in re.finditer(r"\b(" + "|".join(lexicon.NUMBER_WORDS) + r")\b", folded):
        if any(s.start <= match.start() < s.end for s in exclude):
            continue
        after = folded[match.end():][:40]
        cues = {c for p, c in lexicon.NUMBER_CUES_AFTER.items() if re.match(r"\s*" + re.escape(p), after)}
        found.append(Number(float(lexicon.NUMBER_WORDS[match.group(1)]), match.start(),
                            match.end(), frozenset(cues), ()))
    return sorted(found, key=lambda n: n.start)


def time_expression(text: str) -> Span | None:
    """« demain 9h » → ``"demain 09:00"``; « à 14h30 » → ``"14:30"``; « lundi » → ``"lundi"``."""
    folded = fold(text)
    day = None
    for word in lexicon.DAY_WORDS:
        match = re.search(r"(?<![\w-])" + re.escape(word) + r"(?:\s+prochain)?(?![\w-])", folded)
        if match and (day is None or match.start() < day.start):
            day = Span(text[match.start(): match.end()], match.start(), match.end(), match.group(0))
    clock = None
    compact = re.compile(r"(?<![\w.,])(\d{1,2})\s*(?:h|:)(?:\s*(\d{2}))?(?![\w])")
    spelled = re.compile(r"(?<![\w.,])(\d{1,2})\s*heures?(?:\s+(\d{2}))?(?![\w])")
    for pattern, needs_anchor in ((compact, False), (spelled, True)):
        for match in pattern.finditer(folded):
            before = folded[: match.start()]
            if re.search(r"(plus de|moins de|pendant|durant|au moins|au plus)\s*$", before):
                continue
            anchored = re.search(r"(?<![a-z])(a|vers|pour|des|avant|apres)\s*$", before)
            if needs_anchor and not (anchored or day):
                continue
            hour, minute = int(match.group(1)), int(match.group(2) or 0)
            if hour < 24 and minute < 60:
                clock = Span(text[match.start(): match.end()], match.start(), match.end(),
                             f"{hour:02d}:{minute:02d}")
                break
        if clock:
            break
    if clock is None:
        match = re.search(r"\b(midi|minuit)\b", folded)
        if match:
            rendering = "12:00" if match.group(1) == "midi" else "00:00"
            clock = Span(match.group(0), match.start(), match.end(), rendering)
    parts = [s for s in (day, clock) if s is not None]
    if not parts:
        return None
    start, end = min(s.start for s in parts), max(s.end for s in parts)
    rendering = " ".join(str(s.value) for s in sorted(parts, key=lambda s: s is clock))
    return Span(text[start:end], start, end, rendering)


@functools.lru_cache(maxsize=1)
def _place_pattern() -> re.Pattern:
    names = sorted(lexicon.PLACES, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")


def places(text: str, exclude: list[Span] = ()) -> list[Span]:
    """Place names: known cities and countries, and capitalised names after « à », « en », …
    (an article may come between: « dans le Vieux Lyon »). A longer capitalised name holding a
    known one (« Vieux Lyon », « Lyon Part-Dieu ») is kept whole."""
    folded = fold(text)
    found: list[Span] = []

    def free(start: int, end: int) -> bool:
        spans = list(exclude) + found
        return not any(s.start < end and start < s.end for s in spans)

    named: list[Span] = []
    for match in _CAPITALISED.finditer(text):
        name = match.group(0)
        if fold(name.split()[0]) in lexicon.NOT_PLACES or name.isupper():
            continue
        previous = words(text[: match.start()])[-2:] or [""]
        after = previous[-1] in _PLACE_PREPOSITIONS or (
            len(previous) == 2 and previous[-1] in _ARTICLES and previous[0] in _PLACE_PREPOSITIONS)
        if after:
            named.append(Span(name, match.start(), match.end(), lexicon.PLACES.get(fold(name))))
    for match in _place_pattern().finditer(folded):
        holder = next((n for n in named if n.start <= match.start() and match.end() <= n.end
                       and n.end - n.start > match.end() - match.start()), None)
        if holder is not None and free(holder.start, holder.end):
            found.append(Span(holder.text, holder.start, holder.end,
                              holder.value or lexicon.PLACES[match.group(1)]))
        elif holder is None and free(match.start(), match.end()):
            found.append(Span(text[match.start(): match.end()], match.start(), match.end(),
                              lexicon.PLACES[match.group(1)]))
    for span in named:
        if free(span.start, span.end):
            found.append(span)
    return sorted(found, key=lambda s: s.start)


def endpoint(text: str, kind: str, exclude: list[Span] = ()) -> Span | None:
    """One end of a trip given alone: « depuis Confluence » (origin), « vers / dans le Vieux
    Lyon » (destination)."""
    for place in places(text, exclude):
        before = words(text[: place.start])[-2:] or [""]
        previous = before[-1]
        if previous in _ARTICLES and len(before) == 2:
            previous = before[0]
        if kind == "origin" and previous in ("depuis", "de", "du", "d", "from"):
            return place
        if kind == "destination" and previous in ("a", "au", "aux", "vers", "dans", "jusqu",
                                                  "pour", "en", "to"):
            return place
    return None


def route(text: str, exclude: list[Span] = ()) -> tuple[Span, Span] | None:
    """« de Paris à Lyon » / « from Paris to Lyon » → (origin, destination)."""
    candidates = places(text, exclude)
    for match in _CAPITALISED.finditer(text):
        if fold(match.group(0)) not in lexicon.NOT_PLACES and not any(
            c.start <= match.start() < c.end for c in candidates
        ):
            candidates.append(Span(match.group(0), match.start(), match.end(), None))
    candidates.sort(key=lambda s: s.start)
    folded = fold(text)
    for first, second in zip(candidates, candidates[1:]):
        between = folded[first.end: second.start].strip()
        before = folded[: first.start].rstrip()
        if between in ("a", "au", "jusqu'a", "vers", "to") and re.search(
            r"(?<![a-z])(de|d'|du|depuis|from)$", before
        ):
            return first, second
    return None


def currencies(text: str) -> list[Span]:
    """Currency mentions → ISO codes; ``value`` is ``(code, role)`` with role source/target/None."""
    folded = fold(text)
    names = sorted(lexicon.CURRENCIES, key=len, reverse=True)
    pattern = "|".join(re.escape(n) if not n[0].isalpha() else r"(?<![a-z])" + re.escape(n)
                       + r"(?![a-z])" for n in names)
    found: list[Span] = []
    for match in re.finditer(pattern, folded):
        if any(s.start <= match.start() < s.end for s in found):
            continue
        code = lexicon.CURRENCIES[match.group(0)]
        before, after = folded[max(0, match.start() - 40): match.start()], folded[match.end():][:40]
        if re.search(r"\d\s*$", before) or re.match(r"\s*\d", after):
            role = "source"
        elif re.search(r"(?<![a-z])(en|vers|in|into|to|contre)\s+(des\s+|du\s+)?$", before):
            role = "target"
        elif re.search(r"(?<![a-z])(de|d'|des|du|from)\s*$", before):
            role = "source"
        else:
            role = None
        found.append(Span(text[match.start(): match.end()], match.start(), match.end(),
                          (code, role)))
    return found


_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:[A-Z]{2,3} \d{1,5}(?![\w,.]\d)"  # « AF 1234 »
    r"|#\d+"  # « #42 »
    r"|(?=[\w./-]*\d)(?=[\w./-]*[A-Za-z])[A-Za-z0-9][\w./-]*[A-Za-z0-9]"  # letters and digits
    r"|[A-Z][A-Z0-9]+(?:[.-][A-Z0-9]+)*)(?![\w-])"  # capitals: « MSFT », « BRK.B »
)
_MEASURE = re.compile(r"\d+[a-z]{1,3}\d*")  # « 20h », « 9h30 », « 10km », « 1er »: not codes


def identifiers(text: str, exclude: list[Span] = ()) -> list[Span]:
    """Codes, tickers and references the user wrote (« MSFT », « AF1234 », « CMD-2025-0042 »,
    « #42 », « 1Z999AA1012 », « AF 1234 »), in order: words mixing letters and digits, or written
    in capitals (two letters or more). Currency codes and everyday acronyms (« IA », « PDF », « OK ») are not
    identifiers."""
    found = []
    for match in _IDENTIFIER.finditer(text):
        if any(s.start <= match.start() < s.end for s in exclude):
            continue
        word = match.group(0).rstrip(".")
        if _MEASURE.fullmatch(word):
            continue
        if word.isalpha() and (fold(word) in lexicon.CURRENCIES or fold(word) in lexicon.ACRONYMS):
            continue
        found.append(Span(word, match.start(), match.start() + len(word), word))
    return found


def topic(text: str) -> str | None:
    """The subject after « sur », « à propos de », « concernant », « about » (articles removed)."""
    folded = fold(text)
    match = re.search(
        r"(?<![a-z])(sur|a propos d[eu']|au sujet d[eu']|concernant|about|regarding|"
        r"relatifs? a|lies? a)\s*", folded
    )
    if not match:
        return None
    subject = text[match.end():]
    subject = re.sub(r"^(les|le|la|l'|l’|des|du|un|une|the)\s*", "", subject, flags=re.IGNORECASE)
    subject = subject.strip(" .?!,;:")
    return subject or None


# --------------------------------------------------------------------------- enums, clauses


def _initials(sequence: list[str]) -> str:
    return "".join(w[0] for w in sequence)


def match_enum(values: list, text: str) -> object | None:
    """The enum value a text designates: exact word, acronym (« Machine Learning » → ``ML``),
    French synonym (« débutant » → ``beginner``) or shared stem. ``None`` when nothing fits."""
    folded = fold(text)
    text_words = words(text)
    text_stems = {prefix_key(w) for w in text_words if w not in lexicon.STOPWORDS}
    capitalised = [m.group(0).split() for m in _CAPITALISED.finditer(text)]
    best, best_score = None, 0
    for value in values:
        if not isinstance(value, str):
            if isinstance(value, (int, float)) and re.search(rf"(?<![\d.,]){value}(?![\d])", text):
                return value
            continue
        v = fold(value)
        score = 0
        if re.search(r"(?<![\w])" + re.escape(v) + r"(?![\w])", folded):
            score = 4
        elif value.isupper() and 2 <= len(value) <= 5 and any(
            _initials(seq[i:i + len(value)]).upper() == value
            for seq in capitalised for i in range(len(seq) - len(value) + 1)
        ):
            score = 4
        elif " " in value and re.search(r"\b" + _initials(value.split()).upper() + r"\b", text):
            score = 3
        elif any(re.search(r"(?<![\w])" + re.escape(s) + r"(?![\w])", folded)
                 for s in lexicon.ENUM_SYNONYMS.get(v, ())):
            score = 3
        elif len(v) >= 4 and prefix_key(v) in text_stems:
            score = 2
        if score > best_score:
            best, best_score = value, score
    return best


def _looks_like_data(text: str) -> bool:
    """Text after a colon that is data to pass on (a log, a listing), not more requests."""
    return bool(
        "\n" in text.strip()
        or re.search(r"[;|\[\]{}=<>]|\d{1,2}:\d{2}:\d{2}", text)
        or len(re.findall(r"\b[A-Z]{3,}\b", text)) >= 2
    )


def split_clauses(text: str) -> list[str]:
    """Split a request into intents: sentences, commas, « et », « puis »… Quoted strings, data
    given after a colon (a log) and « entre X et Y » are never cut."""
    protected = list(quoted(text))
    colon = re.search(r":\s*", text)
    if colon and _looks_like_data(text[colon.end():]):
        protected.append(Span(text[colon.end():], colon.end(), len(text)))
    masked = list(text)
    for span in protected:
        masked[span.start: span.end] = "\x00" * (span.end - span.start)
    masked_text = "".join(masked)
    clauses, start = [], 0
    cuts = list(_SPLIT.finditer(masked_text))
    for colon_match in re.finditer(r"\s*:\s+", masked_text):  # « … : réserve une table … »
        following = words(masked_text[colon_match.end():])[:1]
        if following and following[0] in lexicon.IMPERATIVES:
            cuts.append(colon_match)
    cuts.sort(key=lambda m: m.start())
    for match in cuts:
        if match.start() < start:
            continue
        piece_before = fold(masked_text[start: match.start()])
        if match.group(0).strip().lower() == "et" and (
            re.search(r"\bentre\b[^,]*$", piece_before)
            or (re.search(r"\d\s*$", piece_before) and re.match(r"\s*\d", masked_text[match.end():]))
        ):
            continue
        clauses.append(text[start: match.start()])
        start = match.end()
    clauses.append(text[start:])
    return [c.strip(" ,") for c in clauses if c.strip(" ,.?!\n")]
