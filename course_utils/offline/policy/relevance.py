"""Does a sentence answer the question? Word overlap, plus what the question *type* asks for.

Research (``research``) reads pages and must decide which sentences answer the task. Two rules:

* **open questions** (« Quels concurrents ont ajouté un tableau Kanban en 2025 ? »): a sentence
  answers when it holds every precise term of the question (numbers, proper nouns) and at least
  half of its other words — strict on purpose, so that a 2024 page never answers a 2025 question;
* **typed questions** ask for one kind of fact, which the sentence must carry (its *cue*):
  « pourquoi » → a cause (« afin de », « parce que », « car », « en raison de », « pour » +
  infinitive…); « combien » → a number, next to the unit asked (« combien de salariés » → « 40
  salariés »); « quand », « en quelle année » → a date. The page must name every proper noun and
  number of the question (often in its title: « Le Kanban d'Ostraka repoussé à 2026 »), and the
  sentence is scored: cue 3, each proper noun 2, each other word of the question 1; the best
  sentence answers when it carries the cue and scores at least ``THRESHOLD``;
* **yes/no questions** (« Lumenio propose-t-il un tableau Kanban ? ») are typed too: the cue is a
  stated status (« pas encore », a plan, a negation, an availability: ``polarity``), and a
  sentence holding every term of the question also answers; the answer leads with the verdict
  (« Oui », « Non », « Pas encore ») when the page says it clearly.

A sentence that is itself a question never answers (an FAQ repeats the question it answers).

It matches words; it does not understand them. The trace shows what was read, so a student can
judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text import fold, prefix_key, words
from ..understanding import lexicon, polarity
from ..understanding.nlu import is_request_verb

THRESHOLD = 4.0
CUE_WEIGHT = 3.0
PROPER_WEIGHT = 2.0

_CAUSES = re.compile(
    r"(?<![a-z])(afin de|afin d'|afin que|parce que|parce qu'|car|en raison d[eu']|a cause d[eu']|"
    r"grace a|puisque|faute d[e']|pour cause d[e']|dans le but d[e']|c'est pourquoi|raison|"
    r"because|due to|in order to|so that)(?![a-z])"
    r"|(?<![a-z])pour\s+(?:l'|d'|s'|se\s+|en\s+)?[a-z]+(?:er|ir|re|oir)(?![a-z'])"
)
_MONTHS = ("janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout", "septembre",
           "octobre", "novembre", "decembre")
_DATE = re.compile(
    r"(?<![\d])(?:1[89]|20)\d\d(?![\d])|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|(?<![a-z])(?:"
    + "|".join(_MONTHS) + r")(?![a-z])|(?<![a-z])(?:hier|aujourd'hui|demain|printemps|"
    r"automne|hiver|rentree)(?![a-z])"
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\d])")
_HOW_MANY = re.compile(r"(?<![a-z])combien\s+(?:de\s+|d')([a-z]+)")


@dataclass(frozen=True)
class Terms:
    """What a question asks about: precise terms, other words, and its type."""

    hard: tuple[str, ...]  # folded numbers and proper nouns: all must appear
    soft: tuple[str, ...]  # stems of the other meaningful words
    kind: str | None = None  # "cause", "quantity", "date", "yesno" or None (open question)
    unit: str | None = None  # stem of the unit a « combien » question asks for
    verbs: tuple[str, ...] = ()  # stems of a yes/no question's verb (a page may use another)

    @property
    def proper(self) -> tuple[str, ...]:
        return tuple(t for t in self.hard if not t.isdigit())

    @property
    def numbers(self) -> tuple[str, ...]:
        return tuple(t for t in self.hard if t.isdigit())


def question_kind(task: str) -> str | None:
    """« pourquoi » → cause, « combien » → quantity, « quand »/« en quelle année » → date."""
    folded = fold(task)
    if re.search(r"(?<![a-z])(pourquoi|pour quelle raison|why)(?![a-z])", folded):
        return "cause"
    if re.search(r"(?<![a-z])(combien|how many|how much|quel nombre|nombre de)(?![a-z])",
                 folded):
        return "quantity"
    if re.search(r"(?<![a-z])(quand|depuis quand|en quelle annee|a quelle date|quelle date|"
                 r"en quel mois|when)(?![a-z])", folded):
        return "date"
    if polarity.is_yes_no(task):
        return "yesno"
    return None


def asked_unit(task: str) -> str | None:
    """The stem of what « combien de X » counts (``salar`` for « combien de salariés »)."""
    match = _HOW_MANY.search(fold(task))
    if match is None or match.group(1) in lexicon.STOPWORDS:
        return None
    word = match.group(1)
    if word in ("temps",):
        return None
    return prefix_key(word)


def task_terms(task: str) -> Terms:
    hard, soft = [], []
    subject = polarity.inverted_subject(task)  # « Lumenio propose-t-il … ? »: a name
    for match in re.finditer(r"[\w-]+", task):
        word = polarity.INVERSION_SUFFIX.sub("", match.group(0))  # « propose-t-il » → « propose »
        folded = fold(word)
        if folded in lexicon.STOPWORDS or len(folded) < 2 or is_request_verb(
                task, match.start(), match.start() + len(word)):
            continue
        before = task[: match.start()].rstrip()
        starts_sentence = not before or before[-1] in ".?!"
        if starts_sentence and folded == subject and folded not in lexicon.REQUEST_VERBS:
            starts_sentence = False
        if word.isdigit() or (word[0].isupper() and not starts_sentence):
            hard.append(folded)
        else:
            soft.append(prefix_key(folded))
    kind = question_kind(task)
    verbs = tuple(prefix_key(v) for v in polarity.question_verbs(task)) if kind == "yesno" else ()
    return Terms(tuple(dict.fromkeys(hard)), tuple(dict.fromkeys(soft)), kind, asked_unit(task),
                 verbs)


def _present(text: str) -> set[str]:
    found = words(text)
    return set(found) | {prefix_key(w) for w in found}


def overlap(terms: Terms, text: str) -> int:
    present = _present(text)
    return sum(1 for t in terms.hard if t in present) + sum(1 for t in terms.soft if t in present)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def strict_answer(terms: Terms, sentence: str) -> bool:
    """Every precise term in the sentence, and at least half of the other words."""
    present = _present(sentence)
    if not all(t in present for t in terms.hard):
        return False
    if not terms.soft:
        return True
    return sum(1 for t in terms.soft if t in present) / len(terms.soft) >= 0.5


def has_cue(terms: Terms, sentence: str) -> bool:
    """The sentence carries the kind of fact the question asks for."""
    folded = fold(sentence)
    if terms.kind == "yesno":
        return polarity.states_status(sentence)
    if terms.kind == "cause":
        return bool(_CAUSES.search(folded))
    if terms.kind == "date":
        return any(m.group(0) not in terms.numbers for m in _DATE.finditer(folded))
    if terms.kind == "quantity":
        for match in _NUMBER.finditer(folded):
            if match.group(0) in terms.numbers:
                continue
            if terms.unit is None:
                return True
            around = words(folded[max(0, match.start() - 30): match.end() + 30])
            if any(prefix_key(w) == terms.unit or w == terms.unit for w in around):
                return True
        return False
    return False


def score(terms: Terms, sentence: str) -> float:
    """Cue 3, each proper noun or number of the question 2, each other word 1."""
    present = _present(sentence)
    total = CUE_WEIGHT if has_cue(terms, sentence) else 0.0
    total += PROPER_WEIGHT * sum(1 for t in terms.hard if t in present)
    total += sum(1 for t in terms.soft if t in present)
    return total


def answering_sentences(terms: Terms, text: str, title: str = "") -> list[str]:
    """The sentences of a page that answer the task (see the module docstring), best first for a
    typed question, in page order for an open one. ``title`` (as the search listed the page)
    counts for the proper nouns a typed question needs on the page."""
    stated = statements(text)
    if terms.kind is None:
        return [s for s in stated if strict_answer(terms, s)]
    page = _present(f"{title}\n{text}")
    if not all(t in page for t in terms.hard):
        return []
    if terms.kind == "yesno":  # a page never speaking of a « mode sombre » cannot say if there is one
        things = [t for t in terms.soft if t not in terms.verbs]
        if sum(1 for t in things if t not in page) > len(things) // 3:
            return []
    if terms.kind == "yesno":  # a status about the thing asked, or the question's own words
        typed = [s for s in stated if strict_answer(terms, s) or (
            has_cue(terms, s) and score(terms, s) >= THRESHOLD and _soft_share(terms, s) >= 0.5)]
    else:
        typed = [s for s in stated if has_cue(terms, s) and score(terms, s) >= THRESHOLD]
    return sorted(typed, key=lambda s: (-score(terms, s), is_heading(s)))


def _soft_share(terms: Terms, sentence: str) -> float:
    if not terms.soft:
        return 1.0
    present = _present(sentence)
    return sum(1 for t in terms.soft if t in present) / len(terms.soft)


def is_heading(sentence: str) -> bool:
    """« [p05] Tessel ajoute une vue Kanban »: a page's title line, not one of its statements."""
    return bool(re.match(r"\[[^\]]{1,40}\]\s", sentence))


def statements(text: str) -> list[str]:
    """The sentences of a text that state something: a question never answers one."""
    return [s for s in sentences(text) if not polarity.is_question(s)]


def best_sentence(terms: Terms, text: str, title: str = "") -> str:
    found = answering_sentences(terms, text, title)
    if found and terms.kind is not None:
        return found[0]
    pool = found or statements(text) or sentences(text)
    ranked = sorted(pool, key=lambda s: (-overlap(terms, s), is_heading(s), pool.index(s)))
    return ranked[0] if ranked else text.strip()


def verdict(terms: Terms, text: str, sentence: str) -> str | None:
    """For a yes/no question: « Oui », « Non » or « Pas encore » when the page clearly says so
    (``polarity``), else ``None``."""
    if terms.kind != "yesno":
        return None
    wanted = len(terms.hard) + len(terms.soft)
    about = polarity.focus(sentence, lambda part: overlap(terms, part))
    return polarity.verdict(sentences(text), lambda q: 2 * overlap(terms, q) >= wanted, about,
                            strict_answer(terms, sentence))


def names_subject(terms: Terms, sentence: str) -> bool:
    """Whether a quoted sentence names the question's proper nouns itself (else the page title
    is shown with it: « L'entreprise compte 40 salariés » says nothing without it)."""
    present = _present(sentence)
    return all(t in present for t in terms.proper)
