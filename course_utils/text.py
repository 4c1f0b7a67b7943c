"""Text normalisation shared by the whole package: folding, words, stems, stop words.

Written once here and used by the research corpus (``corpus``: BM25 search), the offline model's
language understanding (``offline.understanding``, ``offline.policy``, the chat skill) and the
offline embeddings (``offline.embeddings``), so that « Réunions », « réunion » and « REUNION »
mean the same thing everywhere.

``fold(text)``
    Lower case, accents removed, typographic apostrophes (’) and non-breaking spaces unified.
    It keeps the length of the text (one character in, one out), so a span found in the folded
    text can be cut from the original one, keeping the user's spelling.
``words(text)``
    The folded alphanumeric words, in order (« l'IA » → ``["l", "ia"]``).
``content_words(text)``
    ``words`` without ``STOP_WORDS`` and one-character words.
``stem(word)``
    A light inflectional stem (« ajoutent » → ``ajout``), for retrieval: the corpus's BM25 and the
    offline embeddings.
``prefix_key(word)``
    A coarser key (the first five letters of a long word), for the offline model's fuzzy matching
    of requests against tools and sentences. Two functions because the two uses need different
    grain (measured: one rule for both changes what lessons 01 and 02 show — the search ranking
    with the coarse key, the arguments the model extracts with the fine stem).
``STOP_WORDS``
    French and English grammatical words (articles, pronouns, prepositions, conjunctions,
    auxiliaries, question words), folded. Words that carry meaning in a request stay out of it:
    « plus » and « moins » (arithmetic, comparisons), verbs of request (the offline model's
    ``lexicon`` adds those for tool selection).

It is a small rule-based normaliser, not a linguistic one: no lemmatisation, no synonyms.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+")

STOP_WORDS = frozenset(
    """
    a au aux avec ce ces cet cette d dans de des du elle en est et etre il ils je j l la le les
    leur lui m ma mais me meme mes moi mon n ne ni nos notre nous on ou par pas pour qu que qui
    quoi s sa se ses si son sur t ta te tes toi ton tu un une vos votre vous y c ca ceci cela
    quel quelle quels quelles lequel laquelle lesquels lesquelles combien comment quand pourquoi
    est-ce a-t-il il-y donc alors aussi tres puis ensuite tout tous toute toutes sont ont avez
    as ai eu sera
    the of and to in for on is are an as at be by from it its or that this with you your i my
    has have was were will what which how when where who
    """.split()
)


def fold(text: str) -> str:
    """Lower-case, accent-free text of the same length (``"Été’s"`` → ``"ete's"``)."""
    return "".join(map(_fold_char, text))


@functools.lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    if char in "’`´":
        return "'"
    if char in "\u00a0\u202f":
        return " "
    base = unicodedata.normalize("NFKD", char)
    base = "".join(c for c in base if not unicodedata.combining(c)) or char
    lower = base[0].lower() if base else char
    return lower if len(lower) == 1 else char


def words(text: str) -> list[str]:
    """Folded alphanumeric words of ``text``, in order (« l'IA » → ``l``, ``ia``)."""
    return _WORD.findall(fold(text))


# Inflectional endings ``stem`` strips, longest first; the stem keeps at least four letters.
_SUFFIXES = ("ements", "ement", "ents", "ent", "ees", "ee", "es", "e", "s", "x")


def stem(word: str) -> str:
    """A light French stemmer for retrieval: inflectional endings stripped, the stem keeping at
    least four letters (« ajouté », « ajoute », « ajoutent » → ``ajout``; « tableaux » →
    ``tableau``); numbers unchanged. Distinct words stay apart (« entre », « entreprise »)."""
    word = fold(word)
    if not word.isdigit():
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                return word[: -len(suffix)]
    return word


def prefix_key(word: str) -> str:
    """A coarse matching key: the first five letters of a long word, a plural ``s``/``x`` dropped
    from a short one (« réservation », « réserver » → ``reser``; « prix » → ``pri``); numbers
    unchanged.

    Coarser than ``stem`` on purpose: the offline model matches a request against tool
    descriptions and page sentences across derivations (« transports » ~ ``transit``), where a
    search engine's ranking needs ``stem`` to keep « entre » and « entreprise » apart.
    """
    word = fold(word)
    if word.isdigit() or len(word) <= 3:
        return word
    if len(word) >= 6:
        return word[:5]
    return word[:-1] if word.endswith(("s", "x")) else word


def content_words(text: str) -> list[str]:
    """Folded words that carry meaning: ``STOP_WORDS`` and one-character words dropped."""
    return [w for w in words(text) if w not in STOP_WORDS and len(w) > 1]


__all__ = ["STOP_WORDS", "content_words", "fold", "prefix_key", "stem", "words"]
