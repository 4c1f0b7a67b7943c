"""The engines of lesson 04 as tools a planner can call (``course_utils.tools.tool``).

Each tool is a typed function with a French docstring; ``tool`` derives its JSON Schema. The
problem ids are an ``enum`` taken from the bank (``code_ids()``, ``word_ids()``), the Game-of-24
tool takes the four numbers. The description says what the engine is good for: that text is
what a planner reads to choose (a real model, or the offline planner of ``offline_planner``).

Tools are built for one run by a *factory* ``factory(ctx) -> Tool`` where ``ctx`` is an
``EngineContext``: the engines then use ``ctx.client`` (the guarded client: their tokens count in
the budget) and every ``EngineResult`` lands in ``ctx.results``. ``ctx.run(engine, problem, ...)``
does both and returns what the planner reads: a small dict (solved, tests passed / total, calls,
tokens, the answer), with a French hint when the tests only partly pass; or, when the guard
refused a call, a tool error of type ``budget_epuise`` / ``delai_depasse``.

Note: this module evaluates annotations at definition time (no ``from __future__ import
annotations``) so that an enum built at run time can type a parameter.
"""

import functools
from typing import Any, Callable, Literal

from ..tools import Tool, error_content, tool
from .guard import Guard, GuardStop

STOP_TYPES = {"budget_exhausted": "budget_epuise", "timeout": "delai_depasse"}
ANSWER_CHARS = 600


@functools.lru_cache(maxsize=None)
def code_ids() -> Any:
    """``Literal[...]`` of the French code bank's ids (a JSON Schema ``enum``)."""
    from ..problems import code_problems

    return Literal[tuple(p.id for p in code_problems())]


@functools.lru_cache(maxsize=None)
def word_ids() -> Any:
    """``Literal[...]`` of the word problems' ids."""
    from ..problems import word_problems

    return Literal[tuple(p.id for p in word_problems())]


def find_code(problem_id: str) -> Any:
    from ..problems import find_problem

    problem = find_problem(problem_id)
    if problem is None:
        raise ValueError(f"problème de code inconnu : « {problem_id} »")
    return problem


def find_word(problem_id: str) -> Any:
    from ..problems import word_problems

    for problem in word_problems():
        if problem.id == problem_id:
            return problem
    raise ValueError(f"problème en mots inconnu : « {problem_id} »")


def summary(result: Any) -> dict:
    """What the planner reads of an ``EngineResult`` (small, in French)."""
    answer = result.answer if isinstance(result.answer, str) else result.answer
    if isinstance(answer, str) and len(answer) > ANSWER_CHARS:
        answer = answer[: ANSWER_CHARS - 1] + "…"
    data = {"moteur": result.engine, "probleme": result.problem, "resolu": bool(result.solved),
            "tests_reussis": result.passed, "tests_total": result.total,
            "appels_modele": result.calls, "jetons": result.tokens, "reponse": answer}
    if not result.solved:
        data["conseil"] = (f"Échec partiel : {result.passed}/{result.total} tests réussis. Un "
                           "autre moteur peut réussir là où celui-ci a échoué.")
    return data


class EngineContext:
    """What the tools of one orchestration run share: the guarded client, the model, the sandbox,
    and the list of engine results (in the order the engines ran)."""

    def __init__(self, client: Any = None, model: str | None = None, guard: Guard | None = None,
                 sandbox: Any = None):
        if client is None:
            from .. import llm

            client = llm.default_client()
        self.guard = guard if guard is not None else Guard()
        self.client = self.guard.client(client)
        self.model = model
        self.sandbox = sandbox
        self.results: list = []
        self.refusals: list[str] = []

    def run(self, engine: Callable, problem: Any, *args: Any, **kwargs: Any) -> dict | str:
        """Run ``engine(problem, *args, client=..., model=..., **kwargs)`` under the guard."""
        if self.sandbox is not None and hasattr(problem, "function"):
            kwargs.setdefault("sandbox", self.sandbox)
        before = self.guard.engines.calls
        try:
            result = engine(problem, *args, client=self.client, model=self.model, **kwargs)
        except GuardStop as stop:
            self.refusals.append(stop.status)
            kind = STOP_TYPES.get(stop.status, stop.status)
            made = self.guard.engines.calls - before
            what = ("Moteur non lancé" if made == 0 else
                    f"Moteur interrompu après {made} appel(s) au modèle (jetons comptés)")
            return error_content(kind, f"{what} : {stop.message}")
        self.results.append(result)
        return summary(result)


# ----------------------------------------------------------------------------- the tools


def best_of_n_tool(ctx: EngineContext) -> Tool:
    def best_of_n(problem_id: code_ids(), n: int = 4) -> dict:
        """Best-of-N pour un problème de code : tire n programmes et garde celui qui passe le plus de
        tests. Bon choix quand les erreurs possibles sont des étourderies variées : un des n essais
        a de bonnes chances d'être juste.

        Args:
            problem_id: L'identifiant du problème de code dans la banque.
            n: Le nombre de programmes tirés (1 à 8).
        """
        from ..engines import best_of_n as engine

        return ctx.run(engine, find_code(problem_id), max(1, min(8, n)))

    return tool(best_of_n)


def reflexion_tool(ctx: EngineContext) -> Tool:
    def reflexion(problem_id: code_ids(), iterations: int = 3) -> dict:
        """Reflexion pour un problème de code : écrit le code, lance les tests, réfléchit à l'échec
        puis corrige. Bon choix quand l'énoncé cache un piège (bornes incluses, ordre, liste vide,
        nombres négatifs, arrondi, valeur par défaut) que de nouveaux tirages répéteraient.

        Args:
            problem_id: L'identifiant du problème de code dans la banque.
            iterations: Le nombre maximal de tentatives (1 à 5).
        """
        from ..engines import reflexion as engine

        return ctx.run(engine, find_code(problem_id), max(1, min(5, iterations)))

    return tool(reflexion)


def tree_of_thoughts_tool(ctx: EngineContext) -> Tool:
    def tree_of_thoughts(numbers: list[int], beam: int = 5) -> dict:
        """Tree of Thoughts pour le jeu de 24 : recherche en arbre (le modèle propose des étapes et les
        évalue) pour combiner les quatre nombres en 24.

        Args:
            numbers: Les quatre nombres du puzzle, par exemple [4, 4, 6, 8].
            beam: Le nombre d'états gardés à chaque niveau (1 à 5).
        """
        from ..engines import tree_of_thoughts as engine

        if len(numbers) != 4:
            raise ValueError(f"il faut exactement quatre nombres, reçu {len(numbers)}")
        return ctx.run(engine, tuple(int(x) for x in numbers), max(1, min(5, beam)))

    return tool(tree_of_thoughts)


DEFAULT_TOOLS = (best_of_n_tool, reflexion_tool, tree_of_thoughts_tool)


def engine_tools(ctx: EngineContext, factories=DEFAULT_TOOLS) -> list[Tool]:
    """The tools of ``factories`` built for ``ctx`` (a factory may also be a ready ``Tool``)."""
    return [f if isinstance(f, Tool) else f(ctx) for f in factories]


__all__ = ["DEFAULT_TOOLS", "EngineContext", "best_of_n_tool", "code_ids", "engine_tools",
           "find_code", "find_word", "reflexion_tool", "summary", "tree_of_thoughts_tool",
           "word_ids"]
