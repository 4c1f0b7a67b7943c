"""Documentary research, ReAct style: search, read the relevant pages, stop, answer from them.

Policy (generic, from the tools and the conversation):

1. search with a query made of the task's key terms (never the same query twice);
2. read the unread results whose title or snippet shares words with the task, in rank order;
   other search-like sources (an internal base…) are queried when the task mentions what they
   cover, or when the first search brought nothing relevant;
3. stop once the pages read answer the task (``relevance``: for an open question, a sentence
   holding every precise term of the task — numbers, proper nouns — and half of its other
   words; for « pourquoi / combien / quand », the best sentence carrying a cause, a count or a
   date; for a yes/no question, the sentence stating the status of the thing asked, never the
   question an FAQ repeats; a question in the plural — « quels… », « tous les… », not « pour
   tous » — reads every relevant page), once the quantitative stop rule of the system prompt or
   the task is met (« trois sources concordantes », « huit pages lues », « au plus 4 pages »;
   a rule asking for more sources than one keeps a singular question reading), or when nothing
   new can be read; then ``finish`` with an answer quoting the sentences of the pages read that
   answer, and only those (led by « Oui », « Non » or « Pas encore » when a yes/no question's
   pages say so clearly).

A best-effort answer (the run must stop early) gives what the pages read say, and the search
results' own snippets of the pages not read, labelled as not verified, whether or not a page was
read.

The policy applies to a *document corpus* only: a reader whose name or description speaks of
pages, documents, articles or texts, and a search whose results carry titles or text. A product
search and a stock lookup are ordinary tools (``planning`` chains them).

It is a heuristic reader: it matches words, it does not understand that « prévoit » is not
« a ajouté ». The trace shows what it read, so a student can judge its answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text import fold, words
from ..understanding import lexicon
from ..understanding.nlu import key_terms, keys
from ..understanding.schemas import ToolInfo, score_tool, split_name, tool_keys
from . import phrasing
from .history import Episode, Observation
from .planning import Call
from .relevance import Terms, answering_sentences, best_sentence, names_subject, overlap, task_terms, verdict

_ID_KEYS = ("id", "page_id", "doc_id", "document_id", "url", "slug", "ref", "reference")
_TITLE_KEYS = ("title", "titre", "name", "nom", "headline")
_SNIPPET_KEYS = ("snippet", "extrait", "summary", "resume", "description", "text", "content")
_LIST_KEYS = ("results", "resultats", "items", "hits", "documents", "pages", "data")
_TEXT_KEYS = ("text", "texte", "content", "contenu", "body", "page")
_DOCUMENT_WORDS = frozenset("""
    page pages document documents doc docs article articles texte textes text corpus url web wiki
    fichier file source sources paragraphe chapitre livre rapport report publication contenu
""".split())
_PLURAL = re.compile(r"\b(quels|quelles|lesquels|lesquelles|liste|lister|les \w+ qui|"
                     r"(?:tous|toutes)\s+(?:les|ceux|celles|ses|leurs|ces|nos|vos|mes))\b")


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


def _documentary(tool: ToolInfo) -> bool:
    """A reader of documents: its name, description or parameters speak of pages, texts…"""
    vocabulary = set(split_name(tool.name)) | set(words(tool.description))
    for param in tool.params:
        vocabulary |= set(param.name_words) | set(words(param.description))
    return bool(vocabulary & _DOCUMENT_WORDS)


def _text_like(item) -> bool:
    if not isinstance(item, dict):
        return False
    if any(item.get(k) for k in _TITLE_KEYS + _SNIPPET_KEYS):
        return True
    return any(isinstance(v, str) and len(v.split()) >= 6 for v in item.values())


def research_tools(tools: list[ToolInfo], episode: Episode | None = None) -> Tools | None:
    """The search tools and the page reader of a toolbox, or ``None`` if it has no such pair or
    if it does not look like a document corpus (see the module docstring)."""
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
    if not searches or reader is None or not _documentary(reader):
        return None
    if episode is not None:  # results that are neither documents nor records with an id
        names = {t.name for t in searches}
        found = [item for o in episode.observations if o.name in names and o.ok
                 for item in _items(o.data)]
        if found and not any(_text_like(item) or any(item.get(k) for k in _ID_KEYS)
                             for item in found if isinstance(item, dict)):
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
        if not title:  # items that name things under other keys (« produit », « label »…)
            others = [str(v) for k, v in item.items() if isinstance(v, str) and v
                      and k not in _ID_KEYS and k not in _SNIPPET_KEYS]
            title = others[0] if others else ""
        found.append(Candidate(str(ident), title, snippet, rank))
    return found


def page_text(observation: Observation) -> str:
    """A page as text; a structured record as « key : value » lines, so that an observed
    quantity (« quantite : 42 ») can answer a « combien » question."""
    data = observation.data
    if isinstance(data, dict):
        parts = [str(data[k]) for k in _TITLE_KEYS + _TEXT_KEYS if isinstance(data.get(k), str)]
        if parts:
            return "\n".join(parts)
        return "\n".join(f"{k} : {v}." for k, v in data.items()
                         if isinstance(v, (str, int, float)) and not isinstance(v, bool))
    return observation.content


def answers_task(terms: Terms, text: str, title: str = "") -> bool:
    return bool(answering_sentences(terms, text, title))


def observed_quantity(terms: Terms, observation: Observation) -> str | None:
    """A record read for a « combien » question that holds one number answers it, whatever its
    words (« {"ref": "CAF-001", "quantite": 42} » → « quantite : 42 »)."""
    data = observation.data
    if terms.kind != "quantity" or not observation.ok or not isinstance(data, dict):
        return None
    if any(isinstance(data.get(k), str) for k in _TITLE_KEYS + _TEXT_KEYS):
        return None
    numbers = [(k, v) for k, v in data.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return f"{numbers[0][0]} : {numbers[0][1]}" if len(numbers) == 1 else None


def _answers(terms: Terms, observation: Observation, title: str = "") -> bool:
    return observation.ok and (answers_task(terms, page_text(observation), title)
                               or observed_quantity(terms, observation) is not None)


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


def _query(task: str, terms: Terms, voice: phrasing.Voice) -> str:
    """The task's key terms; at temperature > 0, sometimes reworded (precise terms first)."""
    found = key_terms(task)
    if voice.varies and voice.pick((False, True)):
        found = sorted(found, key=lambda w: fold(w) not in terms.hard)
    return " ".join(found) or task


def next_move(task: str, system: str, tools: Tools, episode: Episode,
              voice: phrasing.Voice = phrasing.STEADY) -> Move:
    """The next research step: a search, a page to read, or ``finish`` (``call=None``)."""
    terms = task_terms(task)
    rule = stop_rule(f"{system}\n{task}")
    state = state_of(episode, tools)
    read_ids = {page for page, _ in state.read}
    titles = {c.id: c.title for c in state.results}
    answering = [page for page, obs in state.read if _answers(terms, obs, titles.get(page, ""))]
    query = " ".join(key_terms(task)) or task
    primary = tools.searches[0]
    if not state.queried:
        first = _query(task, terms, voice)
        return Move(voice.say(phrasing.SEARCH_FIRST, query=first), _search(primary, first))
    if rule.sources and len(answering) >= rule.sources:
        reached = (f"{rule.sources} sources concordantes" if rule.sources > 1
                   else "1 source qui répond")
        return Move(voice.say(phrasing.STOP_RULE, reached=reached), None, reached)
    if rule.pages and len(state.read) >= rule.pages:
        reached = f"{rule.pages} pages lues" if rule.pages > 1 else "1 page lue"
        return Move(voice.say(phrasing.STOP_RULE, reached=reached), None, reached)
    more = rule.sources is not None and len(answering) < rule.sources  # the rule asks for more
    if answering and not more and not _PLURAL.search(fold(task)):
        return Move(voice.say(phrasing.PAGE_ANSWERS), None)
    queried = {(name, fold(text)) for name, text in state.queried}
    for tool in tools.searches[1:]:
        relevant = score_tool(tool, task) - tool_keys(tool).get("#search", 0) * _search_words(task)
        if (tool.name, fold(query)) not in queried and relevant >= 1:
            return Move(f"La question concerne aussi {tool.name} : je l'interroge.",
                        _search(tool, query))
    unread = [c for c in state.results if c.id not in read_ids]
    relevant = [c for c in unread if overlap(terms, f"{c.title} {c.snippet}") > 0]
    if terms.kind == "yesno":  # a verdict on a named thing: the pages that name it first
        relevant.sort(key=lambda c: not names_subject(terms, f"{c.title} {c.snippet}"))
    if relevant:
        best = overlap(terms, f"{relevant[0].title} {relevant[0].snippet}")
        near = [c for c in relevant[:3] if overlap(terms, f"{c.title} {c.snippet}") >= best - 1]
        page = voice.pick(near)
        return Move(voice.say(phrasing.READ_NEXT, page=page.id, title=page.title),
                    _read(tools.reader, page.id))
    for tool in tools.searches[1:]:
        if (tool.name, fold(query)) not in queried and not answering:
            return Move(f"Rien de pertinent à lire : j'interroge aussi {tool.name}.",
                        _search(tool, query))
    narrower = " ".join(w for w in key_terms(task) if fold(w) in terms.hard)
    if (not answering or more) and narrower and (primary.name, fold(narrower)) not in queried:
        return Move(voice.say(phrasing.REWORD, query=narrower), _search(primary, narrower))
    if answering:
        return Move(voice.say(phrasing.ALL_READ), None)
    return Move(voice.say(phrasing.NOTHING_NEW), None)


def _search_words(task: str) -> int:
    return sum(1 for w in set(words(task)) if "#search" in keys(w))


def _search(tool: ToolInfo, query: str) -> Call:
    param = next((p for p in tool.params if p.kind == "query"),
                 next(p for p in tool.params if p.type == "string"))
    return Call(tool.name, {param.name: query})


def _read(tool: ToolInfo, page_id: str) -> Call:
    param = next(p for p in tool.params if p.kind in ("id", "url"))
    return Call(tool.name, {param.name: page_id})


def _quote(terms: Terms, page: str, text: str, titles: dict[str, str]) -> tuple[str, str | None]:
    """The quoted sentence with its source, and the page's verdict for a yes/no question."""
    title = titles.get(page, "")
    sentence = best_sentence(terms, text, title)
    said = verdict(terms, text, sentence)
    sentence = re.sub(r"^\[" + re.escape(page) + r"\]\s+", "", sentence)  # its title line
    if terms.kind is not None and title and not names_subject(terms, sentence):
        return f"{sentence} [{page} : « {title} »]", said
    return f"{sentence} [{page}]", said


def _lead(verdicts: list[str | None]) -> str:
    """« Pas encore. » when the pages that say something all say the same, else nothing."""
    said = {v for v in verdicts if v}
    return f"{said.pop()}. " if len(said) == 1 else ""


def _listing(pages: list[str]) -> str:
    return ", ".join(pages) if pages else "aucune"


def _hints(terms: Terms, candidates: list[Candidate]) -> list[str]:
    """What the search results' own snippets say (pages not read: not verified)."""
    return [f"« {c.title} » — {c.snippet} [{c.id}]" if c.snippet else f"« {c.title} » [{c.id}]"
            for c in candidates if answering_sentences(terms, f"{c.title}. {c.snippet}")]


def _partial(terms: Terms, state: State, quotes: list[str], lead: str,
             voice: phrasing.Voice) -> str:
    """The best-effort answer when the run must stop: what the pages read say, what the search
    results' snippets of the pages not read say (labelled as not verified), and what is left to
    read."""
    read = [page for page, _ in state.read]
    unread = [c for c in state.results if c.id not in read
              and overlap(terms, f"{c.title} {c.snippet}") > 0]
    hints = _hints(terms, unread)[:4]
    unverified = ("d'après les seuls extraits de la recherche (non vérifiés) : "
                  f"{' ; '.join(hints)}.")
    opening = voice.say(phrasing.PARTIAL_OPENING)
    if quotes:
        text = f"{opening} {lead}{voice.say(phrasing.PAGES_SAY)}{' ; '.join(quotes)}"
        if hints:
            text += f". En outre, {unverified}"
    elif read:
        text = f"{opening} aucune des pages lues ({_listing(read)}) ne répond à la question"
        text += f" ; {unverified}" if hints else "."
    elif hints:
        text = f"{opening} je n'ai lu aucune page ; {unverified}"
    elif state.results:
        text = (f"{opening} je n'ai lu aucune page ; la recherche a renvoyé "
                f"{_listing([c.id for c in state.results])}, sans extrait qui réponde.")
    else:
        return (f"{opening} la recherche n'a renvoyé aucun résultat pertinent ; je ne peux pas "
                "répondre.")
    if unread:
        text += f" Il resterait à lire : {_listing([c.id for c in unread[:5]])}."
    return text


def answer(task: str, tools: Tools, episode: Episode, rule: str = "",
           voice: phrasing.Voice = phrasing.STEADY) -> str:
    """The final answer: quotes from the pages read that answer the task, with their ids, led by
    the verdict of a yes/no question (a partial answer, saying what is missing, when the
    conversation asks to conclude early)."""
    terms = task_terms(task)
    state = state_of(episode, tools)
    titles = {c.id: c.title for c in state.results}
    quotes, verdicts = [], []
    for page, observation in state.read:
        text = page_text(observation)
        if observation.ok and answers_task(terms, text, titles.get(page, "")):
            quote, said = _quote(terms, page, text, titles)
            quotes.append(quote)
            verdicts.append(said)
        elif observed_quantity(terms, observation):
            quotes.append(f"{observed_quantity(terms, observation)} [{page}]")
    lead = _lead(verdicts)
    read = _listing([page for page, _ in state.read])
    if episode.wrap_up:
        return _partial(terms, state, quotes, lead, voice)
    if quotes:
        text = lead + voice.say(phrasing.PAGES_SAY) + " ; ".join(quotes)
    elif state.read:
        text = f"Aucune des pages lues ({read}) ne répond à la question."
    else:
        text = "La recherche n'a renvoyé aucun résultat pertinent ; je ne peux pas répondre."
    if rule:
        text += f" (Arrêt : règle atteinte, {rule} ; pages lues : {read}.)"
    return text
