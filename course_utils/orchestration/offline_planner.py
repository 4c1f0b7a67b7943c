"""The offline planner: a skill of the offline model that plays the planner of lesson 05.

It is a rule-based stand-in for a model reading a planner prompt, not a language model. It
recognises a request with tools whose system prompt says « planificateur » (as
``prompts.PLANNER_SYSTEM`` does) and decides from what a real model would see — the task, the
tools' descriptions and schemas, the results so far — never from the bank's hidden fields
(difficulty, family):

1. **which tools fit**: a tool fits a code or word task when one of its parameters is an enum
   holding the task's id (in backticks), a 24 puzzle when it takes a list of integers and the
   task gives four numbers;
2. **which one first**: among the fitting tools, the one whose description shares the most words
   with the task (accents and case folded, short and common words ignored); ties → the order of
   the tools. So the words of a spec (« bornes incluses », « liste vide ») pull towards the tool
   whose description names such traps;
3. **chaining**: after a result that is not solved (``resolu`` false, e.g. ``tests_reussis <
   tests_total``), when the system prompt allows a second engine (« échec partiel »), the next
   fitting tool not yet called is called on the same task; otherwise ``finish``;
4. **no fitting tool** → a short text answer without any call (the fallback of ``orchestrate``
   then runs); a tool error (budget, timeout, bad call) → ``finish`` saying so honestly.

``planner_client(client)`` returns a client whose offline model has this skill first (same seed
and competence); with a real provider it returns ``client`` unchanged: the real model plans.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

STOP = frozenset(
    "a au aux avec ce ces cet cette d de des du elle en est et il ils la le les leur lui ma mais "
    "me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses si son sur ta "
    "te tes toi ton tu un une vos votre vous y l n s c j quand plus tres dont dans sans entre "
    "renvoie renvoient retourne doit chaque tout tous toutes fonction liste nombre nombres "
    "probleme code tests test moteur moteurs choix bon".split())

_ID = re.compile(r"`([^`\s]+)`")
_NUMBERS = re.compile(r"nombres\s+((?:-?\d+[\s,]*(?:et\s+)?){4})")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def _words(text: str) -> set[str]:
    return {w[:6] for w in re.findall(r"[a-z]+", _fold(text)) if len(w) > 2 and w not in STOP}


def _last_user(messages: list[dict]) -> int:
    return max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)


def _fits(schema: dict, task_id: str | None, numbers: list[int] | None) -> dict | None:
    """The arguments to call this tool with on this task, or ``None`` when it does not fit."""
    params = (schema.get("parameters") or {}).get("properties") or {}
    for name, spec in params.items():
        if task_id is not None and task_id in (spec.get("enum") or ()):
            return {name: task_id}
        if numbers is not None and spec.get("type") == "array" \
                and (spec.get("items") or {}).get("type") == "integer":
            return {name: numbers}
    return None


def _observations(messages: list[dict], start: int) -> list[tuple[str, dict | None, str]]:
    names: dict[str, str] = {}
    out = []
    for message in messages[start + 1:]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                names[call.get("id", "")] = (call.get("function") or {}).get("name", "")
        elif message.get("role") == "tool":
            content = message.get("content") or ""
            try:
                data = json.loads(content)
            except (TypeError, ValueError):
                data = None
            out.append((names.get(message.get("tool_call_id", ""), ""),
                        data if isinstance(data, dict) else None, content))
    return out


def _finish(text: str, thought: str) -> dict:
    return {"content": thought, "tool_calls": [{"name": "finish", "arguments": {"answer": text}}]}


def _report(name: str, data: dict) -> str:
    if data.get("resolu"):
        return (f"Résolu avec {name} ({data.get('tests_reussis')}/{data.get('tests_total')}). "
                f"Réponse :\n{data.get('reponse')}")
    return (f"Non résolu : le dernier moteur, {name}, a réussi {data.get('tests_reussis')}/"
            f"{data.get('tests_total')} tests. Meilleure réponse obtenue :\n{data.get('reponse')}")


def respond(request: dict, ctx: Any = None) -> dict | str | None:
    """Skill entry point (the offline skills' contract: a step, or ``None`` when not a planner)."""
    messages = request.get("messages") or []
    tools = [t.get("function") or {} for t in request.get("tools") or []]
    system = " ".join(str(m.get("content") or "") for m in messages
                      if m.get("role") in ("system", "developer"))
    if not tools or "planificateur" not in _fold(system):
        return None
    start = _last_user(messages)
    task = str(messages[start].get("content") or "") if start >= 0 else ""
    ids = _ID.findall(task)
    task_id = ids[0] if ids else None
    found = _NUMBERS.search(_fold(task))
    numbers = [int(x) for x in re.findall(r"-?\d+", found.group(1))][:4] if found else None
    fitting = []
    for order, schema in enumerate(tools):
        if schema.get("name") == "finish":
            continue
        arguments = _fits(schema, task_id, numbers)
        if arguments is not None:
            score = len(_words(task) & _words(schema.get("description") or ""))
            fitting.append((-score, order, schema["name"], arguments))
    fitting.sort()
    observations = _observations(messages, start)
    choice = request.get("tool_choice")
    if choice == "none":
        return "Je ne peux plus appeler de moteur ; voici ce que j'ai obtenu." if observations \
            else "Je ne peux pas appeler de moteur ici."
    if not observations:
        if not fitting:
            return ("Aucun des moteurs proposés ne correspond à cette tâche : je n'en appelle "
                    "aucun.")
        _, _, name, arguments = fitting[0]
        return {"content": f"Je choisis {name} d'après sa description.",
                "tool_calls": [{"name": name, "arguments": arguments}]}
    name, data, content = observations[-1]
    error = (data or {}).get("error")
    if error:
        kind = error.get("type") if isinstance(error, dict) else "erreur"
        return _finish(f"Je m'arrête : l'outil {name} a renvoyé une erreur ({kind}).",
                       "Le moteur n'a pas pu tourner.")
    if data is None:
        return _finish(content, "Je transmets le résultat.")
    if data.get("resolu"):
        return _finish(_report(name, data), "Le moteur a résolu la tâche.")
    tried = {n for n, _, _ in observations}
    chaining = "echec partiel" in _fold(system)
    untried = [item for item in fitting if item[2] not in tried]
    if chaining and untried:
        _, _, nxt, arguments = untried[0]
        return {"content": (f"Échec partiel de {name} ({data.get('tests_reussis')}/"
                            f"{data.get('tests_total')}) : j'essaie {nxt}."),
                "tool_calls": [{"name": nxt, "arguments": arguments}]}
    return _finish(_report(name, data), "Aucun autre moteur à essayer.")


respond.skill_name = "planificateur"  # type: ignore[attr-defined]


def planner_client(client: Any = None) -> Any:
    """A client whose offline model plays the planner (this skill first); a real provider's
    client is returned unchanged."""
    from .. import llm
    from ..offline import OfflineModel
    from ..offline.skills import default_skills

    client = client or llm.default_client()
    model = llm.offline_model_of(client)
    if model is None:
        return client
    planner = OfflineModel(seed=model.seed, competence=model.competence,
                           skills=[respond, *default_skills()])
    return llm.make_client(offline=planner)


__all__ = ["planner_client", "respond"]
