"""Documentary research, ReAct style: search, read the relevant pages, stop, answer from them.

Policy (generic, from the tools and the conversation):

1. search with a query made of the task's key terms (never the same query twice);
2. read the unread results whose title or snippet shares words with the task, in rank order;
   other search-like sources (an internal base…) are queried when the task mentions what they
   cover, or when the first search brought nothing relevant;
3. stop once the pages read answer the task (a page *answers* when one of its sentences holds
   every precise term of the task — numbers, proper nouns — and at least half of its other
   words; a question in the plural reads every relevant page), once the quantitative stop rule
   of the system prompt or the task is met (« trois sources concordantes », « huit pages lues »,
   « au plus 4 pages »), or when nothing new can be read; then ``finish`` with an answer quoting
   the sentences of the pages read that answer, and only those.

It is a heuristic reader: it matches words, it does not understand that « prévoit » is not
« a ajouté ». The trace shows what it read, so a student can judge its answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import lexicon
from .history import Episode, Observation
from .nlu import fold, is_request_verb, key_terms, keys, stem, words
from .planning import Call
from .schemas import ToolInfo, tool_keys
from .selection import score_tool

_ID_KEYS = ("id", "page_id", "doc_id", "document_id", "url", "slug", "ref", "reference")
_TITLE_KEYS = ("title", "titre", "name", "nom", "headline")
_SNIPPET_KEYS = ("snippet", "extrait", "summary", "resume", "description", "text", "content")
_LIST_KEYS = ("results", "resultats", "items", "hits", "documents", "pages", "data")
_TEXT_KEYS = ("text", "texte", "content", "contenu", "body", "page")
_PLURAL = re.compile(r"\b(quels|quelles|lesquels|lesquelles|tous|toutes|liste|lister|les \w+ qui)\b")


@dataclass(frozen=True)
class Tools:
    searches: tuple[ToolInfo, ...]
    reader: ToolInfo | None
    finish: ToolInfo | None


@dataclass(frozen=True)
class Candidate:
    id: str
    title: str
    snippet: str
    rank: int


@dataclass(frozen=True)
class StopRule:
    sources: int | None = None  # stop once this many pages answer the task
    pages: int | None = None  # stop once this many pages have been read


def research_tools(tools: list[ToolInfo]) -> Tools | None:
    """The search tools and the page reader of a toolbox, or ``None`` if it has no such pair."""
    finish = next((t for t in tools if t.is_finish), None)
    searches, reader = [], None
    for tool in tools:
        if tool.is_finish:
            continue
        weights = tool_keys(tool)
        strings = [p for p in tool.params if p.type == "string"]
        if reader is None and weights.get("#read", 0) >= 3 and any(
                p.kind in ("id", "url") for p in tool.params):
            reader = tool
        elif weights.get("#search", 0) >= 1 and strings:
            searches.append(tool)
    if not searches or reader is None:
        return None
    return Tools(tuple(searches), reader, finish)


def _number(word: str) -> int | None:
    word = fold(word)
    if word.isdigit():
        return int(word)
    if word in ("un", "une", "premier", "premiere", "seule"):
        return 1
    return lexicon.NUMBER_WORDS.get(word)


def stop_rule(text: str) -> StopRule:
    """Simple numeric stop rules of a French system prompt."""
    folded = fold(text)
    sources = pages = None
    n = r"(\d+|[a-z]+)"
    for match in re.finditer(n + r"\s+sources?\b", folded):
        sources = sources or _number(match.group(1))
    for match in re.finditer(r"(?:au plus|maximum|pas plus de|au maximum|jusqu'a)\s+" + n +
                             r"\s+pages?|" + n + r"\s+pages?\s+(?:lues|consultees|ouvertes|"
                             r"au maximum|au plus|maximum)", folded):
        pages = pages or _number(match.group(1) or match.group(2))
    return StopRule(sources, pages)


def _items(data) -> list:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
    return []


def candidates(observation: Observation) -> list[Candidate]:
    found = []
    for rank, item in enumerate(_items(observation.data)):
        if not isinstance(item, dict):
            continue
        ident = next((item[k] for k in _ID_KEYS if item.get(k) not in (None, "")), None)
        if ident is None:
            continue
        title = next((str(item[k]) for k in _TITLE_KEYS if item.get(k)), "")
        snippet = next((str(item[k]) for k in _SNIPPET_KEYS if item.get(k)), "")
        found.append(Candidate(str(ident), title, snippet, rank))
    return found


def page_text(observation: Observation) -> str:
    data = observation.data
    if isinstance(data, dict):
        parts = [str(data[k]) for k in _TITLE_KEYS + _TEXT_KEYS if isinstance(data.get(k), str)]
        if parts:
            return "\n".join(parts)
    return observation.content


@dataclass(frozen=True)
class Terms:
    hard: tuple[str, ...]  # folded numbers and proper nouns: all must appear
    soft: tuple[str, ...]  # stems of the other meaningful words


def task_terms(task: str) -> Terms:
    hard, soft = [], []
    for match in re.finditer(r"[\w-]+", task):
        word = match.group(0)
        folded = fold(word)
        if folded in lexicon.STOPWORDS or len(folded) < 2 or is_request_verb(
                task, match.start(), match.end()):
            continue
        starts_sentence = not task[: match.start()].strip() or task[: match.start()].rstrip()[-1] in ".?!"
        if word.isdigit() or (word[0].isupper() and not starts_sentence):
            hard.append(folded)
        else:
            soft.append(stem(folded))
    return Terms(tuple(dict.fromkeys(hard)), tuple(dict.fromkeys(soft)))


def overlap(terms: Terms, text: str) -> int:
    present = {stem(w) for w in words(text)} | set(words(text))
    return sum(1 for t in terms.hard if t in present) + sum(1 for t in terms.soft if t in present)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _answers(terms: Terms, sentence: str) -> bool:
    present = set(words(sentence)) | {stem(w) for w in words(sentence)}
    if not all(t in present for t in terms.hard):
        return False
    if not terms.soft:
        return True
    return sum(1 for t in terms.soft if t in present) / len(terms.soft) >= 0.5


def answering_sentences(terms: Terms, text: str) -> list[str]:
    """The sentences of a page that answer the task: every precise term (numbers, proper nouns)
    and at least half of the other words of the task in the same sentence."""
    return [s for s in _sentences(text) if _answers(terms, s)]


def answers_task(terms: Terms, text: str) -> bool:
    return bool(answering_sentences(terms, text))


def best_sentence(terms: Terms, text: str) -> str:
    sentences = answering_sentences(terms, text) or _sentences(text)
    scored = sorted(sentences, key=lambda s: (-overlap(terms, s), sentences.index(s)))
    return scored[0] if scored else text.strip()


@dataclass(frozen=True)
class State:
    queried: tuple[tuple[str, str], ...]  # (tool, query) already sent
    results: tuple[Candidate, ...]
    read: tuple[tuple[str, Observation], ...]  # (page id, observation) in reading order


def state_of(episode: Episode, tools: Tools) -> State:
    queried, results, read = [], [], []
    search_names = {t.name for t in tools.searches}
    id_param = next(p.name for p in tools.reader.params if p.kind in ("id", "url"))
    for observation in episode.observations:
        arguments = observation.arguments or {}
        if observation.name in search_names:
            queried.append((observation.name, fold(" ".join(str(v) for v in arguments.values()))))
            for candidate in candidates(observation) if observation.ok else []:
                if all(c.id != candidate.id for c in results):
                    results.append(candidate)
        elif observation.name == tools.reader.name:
            read.append((str(arguments.get(id_param, "")), observation))
    return State(tuple(queried), tuple(results), tuple(read))


@dataclass(frozen=True)
class Move:
    thought: str
    call: Call | None  # None: finish
    rule: str = ""  # the stop rule reached, if that is why it finishes


def next_move(task: str, system: str, tools: Tools, episode: Episode) -> Move:
    """The next research step: a search, a page to read, or ``finish`` (``call=None``)."""
    terms = task_terms(task)
    rule = stop_rule(f"{system}\n{task}")
    state = state_of(episode, tools)
    read_ids = {page for page, _ in state.read}
    answering = [page for page, obs in state.read if obs.ok and answers_task(terms, page_text(obs))]
    query = " ".join(key_terms(task)) or task
    primary = tools.searches[0]
    if not state.queried:
        return Move(f"Je cherche des sources sur : {query}.", _search(primary, query))
    if rule.sources and len(answering) >= rule.sources:
        reached = (f"{rule.sources} sources concordantes" if rule.sources > 1
                   else "1 source qui répond")
        return Move(f"Règle d'arrêt atteinte ({reached}) : je termine.", None, reached)
    if rule.pages and len(state.read) >= rule.pages:
        reached = f"{rule.pages} pages lues" if rule.pages > 1 else "1 page lue"
        return Move(f"Règle d'arrêt atteinte ({reached}) : je termine.", None, reached)
    if answering and not _PLURAL.search(fold(task)):
        return Move("La page lue répond à la question : je termine.", None)
    queried = set(state.queried)
    for tool in tools.searches[1:]:
        relevant = score_tool(tool, task) - tool_keys(tool).get("#search", 0) * _search_words(task)
        if (tool.name, fold(query)) not in queried and relevant >= 1:
            return Move(f"La question concerne aussi {tool.name} : je l'interroge.",
                        _search(tool, query))
    unread = [c for c in state.results if c.id not in read_ids]
    relevant = [c for c in unread if overlap(terms, f"{c.title} {c.snippet}") > 0]
    if relevant:
        page = relevant[0]
        return Move(f"Je lis {page.id} (« {page.title} »), le résultat pertinent suivant.",
                    _read(tools.reader, page.id))
    for tool in tools.searches[1:]:
        if (tool.name, fold(query)) not in queried and not answering:
            return Move(f"Rien de pertinent à lire : j'interroge aussi {tool.name}.",
                        _search(tool, query))
    narrower = " ".join(w for w in key_terms(task) if fold(w) in terms.hard)
    short = rule.sources is not None and len(answering) < rule.sources
    if (not answering or short) and narrower and (primary.name, fold(narrower)) not in queried:
        return Move(f"Je reformule la recherche : {narrower}.", _search(primary, narrower))
    if answering:
        return Move("J'ai lu toutes les pages pertinentes : je termine.", None)
    return Move("Plus rien de nouveau à lire : je termine avec ce que j'ai.", None)


def _search_words(task: str) -> int:
    return sum(1 for w in set(words(task)) if "#search" in keys(w))


def _search(tool: ToolInfo, query: str) -> Call:
    param = next((p for p in tool.params if p.kind == "query"),
                 next(p for p in tool.params if p.type == "string"))
    return Call(tool.name, {param.name: query})


def _read(tool: ToolInfo, page_id: str) -> Call:
    param = next(p for p in tool.params if p.kind in ("id", "url"))
    return Call(tool.name, {param.name: page_id})


def answer(task: str, tools: Tools, episode: Episode, rule: str = "") -> str:
    """The final answer: quotes from the pages read that answer the task, with their ids."""
    terms = task_terms(task)
    state = state_of(episode, tools)
    quotes = []
    for page, observation in state.read:
        text = page_text(observation)
        if observation.ok and answers_task(terms, text):
            quotes.append(f"{best_sentence(terms, text)} [{page}]")
    read = ", ".join(page for page, _ in state.read) or "aucune"
    if quotes:
        text = "D'après les pages lues : " + " ; ".join(quotes)
    elif state.read:
        text = f"Aucune des pages lues ({read}) ne répond à la question."
    else:
        text = "La recherche n'a renvoyé aucun résultat pertinent ; je ne peux pas répondre."
    if rule:
        text += f" (Arrêt : règle atteinte, {rule} ; pages lues : {read}.)"
    return text
