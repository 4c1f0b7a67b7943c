"""The offline research corpus of lesson 02: a few dozen short FICTIONAL pages, and their tools.

The corpus (``data/corpus.json``) describes the competitors of a fictional project-management
product, *Planora*: which ones added a Kanban board in 2025, decoys from 2024, announcements that
were postponed, forum rumours contradicted by official pages, and a small internal product base
that is out of date (last updated at the end of 2024). Every company, product and page is invented.

Three tools work on it, the way a research agent would use a search engine:

``search(query, k=5)``
    Lexical ranking (BM25 over title and text, normalised by ``course_utils.text``: accents and
    case folded, stop words dropped, words stemmed); returns up to ``k`` results
    ``{"id", "title", "snippet"}``, best first, ties broken by page id. The snippet is the
    sentence that matches the query best (cut at ~160 characters). Pages matching no query word
    are not returned.
``read_page(page_id)``
    The page as text: id and title, source and publication date, then the body. An unknown id
    raises ``PageNotFoundError`` (a ``LookupError``) with a French message naming valid ids;
    ``Toolbox`` turns it into an error the model can read.
``query_internal_base(query)``
    The rows of the internal product table that share words with the query (all rows for an empty
    query), with the table's update date, so a reader can see the data is stale.

The module-level ``search``, ``read_page`` and ``query_internal_base`` are ready-made
``course_utils.tools.Tool`` objects on the shipped corpus (still plain callables);
``research_tools()`` lists them, ``Corpus.tools()`` builds the same tools over another corpus.
The data file is read on first use, never at import.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from .text import content_words, fold, stem
from .tools import Tool, tool

SNIPPET_CHARS = 160
_BM25_K1 = 1.5
_BM25_B = 0.75
_TITLE_WEIGHT = 2


class PageNotFoundError(LookupError):
    """``read_page`` was given an id that is not in the corpus (message in French)."""

    def __str__(self) -> str:  # LookupError would quote the message like a dict key
        return str(self.args[0]) if self.args else ""


def tokenize(text: str) -> list[str]:
    """Search terms of ``text``: ``course_utils.text`` content words, stemmed."""
    return [stem(w) for w in content_words(text)]


def _sentences(text: str) -> list[str]:
    # a sentence ends with . ! ? or », before a capital letter; « 1. Planora » is not an end
    parts = re.split(r"(?<=[.!?»])(?<!\s\d\.)(?<!\s\d\d\.)\s+(?=[A-ZÀ-ÖØ-Þ«])", text)
    return [part.strip() for part in parts if part.strip()]


def _cut(text: str, limit: int = SNIPPET_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


@dataclass(frozen=True)
class Page:
    """One page of the corpus."""

    id: str
    title: str
    source: str
    date: str
    text: str

    def render(self) -> str:
        """The page as ``read_page`` returns it."""
        return (f"[{self.id}] {self.title}\nSource : {self.source} — publié le {self.date}\n\n"
                f"{self.text}")


@dataclass(frozen=True)
class Corpus:
    """Pages plus the internal base; ``search``, ``read_page``, ``query_internal_base``."""

    pages: tuple[Page, ...]
    base_rows: tuple[dict, ...] = ()
    base_name: str = "base interne"
    base_updated: str = ""
    note: str = ""

    # ----------------------------------------------------------------- loading
    @classmethod
    def from_dict(cls, data: dict) -> Corpus:
        pages = tuple(Page(**{k: str(p[k]) for k in ("id", "title", "source", "date", "text")})
                      for p in data["pages"])
        ids = [p.id for p in pages]
        if len(set(ids)) != len(ids):
            raise ValueError("corpus : deux pages portent le même identifiant.")
        base = data.get("internal_base") or {}
        return cls(pages=pages, base_rows=tuple(dict(r) for r in base.get("rows", [])),
                   base_name=base.get("name", "base interne"), base_updated=base.get("updated", ""),
                   note=data.get("note", ""))

    @classmethod
    def load(cls, path: str | Path | None = None) -> Corpus:
        """The corpus in ``path`` (JSON), or the one shipped with the package."""
        if path is None:
            raw = resources.files("course_utils").joinpath("data", "corpus.json").read_text("utf-8")
        else:
            raw = Path(path).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(raw))

    # ----------------------------------------------------------------- lookup
    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.pages]

    def page(self, page_id: str) -> Page:
        """The ``Page`` with this id (case and surrounding spaces ignored)."""
        wanted = str(page_id).strip().lower()
        for p in self.pages:
            if p.id.lower() == wanted:
                return p
        shown = ", ".join(self.ids[:3])
        raise PageNotFoundError(
            f"page inconnue : « {page_id} ». Les identifiants valides viennent des résultats de "
            f"search (par exemple {shown}… ; {len(self.pages)} pages en tout).")

    def read_page(self, page_id: str) -> str:
        return self.page(page_id).render()

    # ----------------------------------------------------------------- search
    @functools.cached_property
    def _index(self) -> tuple[list[Counter], dict[str, float], float]:
        docs = []
        for p in self.pages:
            counts = Counter(tokenize(p.text))
            for term in tokenize(p.title):
                counts[term] += _TITLE_WEIGHT
            docs.append(counts)
        n = len(docs)
        df = Counter(term for counts in docs for term in counts)
        idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        avg = sum(sum(c.values()) for c in docs) / max(n, 1)
        return docs, idf, avg

    def scores(self, query: str) -> list[tuple[float, Page]]:
        """BM25 score of every page matching at least one query term, best first."""
        terms = list(dict.fromkeys(tokenize(query)))
        docs, idf, avg = self._index
        ranked = []
        for p, counts in zip(self.pages, docs):
            length = sum(counts.values())
            score = 0.0
            for t in terms:
                tf = counts.get(t, 0)
                if tf:
                    norm = tf + _BM25_K1 * (1 - _BM25_B + _BM25_B * length / avg)
                    score += idf[t] * tf * (_BM25_K1 + 1) / norm
            if score > 0:
                ranked.append((round(score, 9), p))
        ranked.sort(key=lambda item: (-item[0], item[1].id))
        return ranked

    def snippet(self, page: Page, query: str) -> str:
        terms = set(tokenize(query))
        best, best_hits = "", -1
        for sentence in _sentences(page.text):
            hits = len(terms & set(tokenize(sentence)))
            if hits > best_hits:
                best, best_hits = sentence, hits
        return _cut(best)

    def search(self, query: str, k: int = 5) -> list[dict]:
        k = max(0, int(k))
        return [{"id": p.id, "title": p.title, "snippet": self.snippet(p, query)}
                for _, p in self.scores(query)[:k]]

    # ----------------------------------------------------------------- internal base
    def query_internal_base(self, query: str = "") -> dict:
        terms = set(tokenize(query))
        rows = []
        for position, row in enumerate(self.base_rows):
            words = set(tokenize(" ".join(_flatten(v) for v in row.values())))
            hits = len(terms & words)
            if hits or not terms:
                rows.append((-hits, position, dict(row)))
        rows.sort(key=lambda item: item[:2])
        return {"base": self.base_name, "mise_a_jour": self.base_updated,
                "lignes": [row for _, _, row in rows]}

    # ----------------------------------------------------------------- tools
    def tools(self) -> list[Tool]:
        """``search``, ``read_page`` and ``query_internal_base`` as tools over this corpus."""
        return _make_tools(lambda: self)


def _flatten(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(_flatten(v) for v in value)
    return str(value)


@functools.lru_cache(maxsize=1)
def default_corpus() -> Corpus:
    """The corpus shipped with the package (read once, on first use)."""
    return Corpus.load()


def _make_tools(get: Callable[[], Corpus]) -> list[Tool]:
    def search(query: str, k: int = 5) -> list[dict]:
        """Cherche des pages dans le corpus documentaire et renvoie les plus pertinentes.

        Args:
            query: Les mots-clés à chercher, par exemple « Kanban 2025 concurrents ».
            k: Nombre maximal de résultats (5 par défaut).
        """
        return get().search(query, k)

    def read_page(page_id: str) -> str:
        """Lit une page du corpus : titre, source, date de publication et texte complet.

        Args:
            page_id: L'identifiant de la page, tel que renvoyé par search (par exemple « p01 »).
        """
        return get().read_page(page_id)

    def query_internal_base(query: str) -> dict:
        """Interroge la base produits interne (nos produits et nos concurrents suivis).

        Args:
            query: Les mots-clés à chercher dans la base, par exemple un nom de produit.
        """
        return get().query_internal_base(query)

    return [tool(search), tool(read_page), tool(query_internal_base)]


search, read_page, query_internal_base = _make_tools(default_corpus)


def research_tools() -> list[Tool]:
    """The three ready-made tools on the shipped corpus, for ``Toolbox(research_tools())``."""
    return [search, read_page, query_internal_base]


__all__ = [
    "Corpus",
    "Page",
    "PageNotFoundError",
    "default_corpus",
    "fold",
    "query_internal_base",
    "read_page",
    "research_tools",
    "search",
    "tokenize",
]
