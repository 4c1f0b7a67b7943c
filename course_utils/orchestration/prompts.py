"""The planner's system prompt (the original course's choice rules, short) and the task texts."""

from __future__ import annotations

from typing import Any

PLANNER_SYSTEM = (
    "Tu es un planificateur. Tu ne résous pas la tâche toi-même : tu choisis le moteur de calcul "
    "qui la résout, parmi les outils fournis, en lisant leur description. Règles : un jeu de 24 "
    "→ tree_of_thoughts ; un problème de code simple, aux erreurs variées → best_of_n ; un "
    "problème de code dont l'énoncé cache un piège (bornes, ordre, liste vide, négatifs, "
    "arrondi) → reflexion. Si un résultat montre un échec partiel (tests_reussis < tests_total), "
    "tu peux appeler un second moteur sur le même problème. Quand un moteur a résolu la tâche, "
    "appelle finish avec sa réponse."
)


def is_puzzle24(problem: Any) -> bool:
    return (isinstance(problem, (tuple, list)) and len(problem) == 4
            and all(isinstance(x, int) for x in problem))


def kind_of(problem: Any) -> str:
    """``"jeu24"``, ``"code"`` or ``"mots"``."""
    if is_puzzle24(problem):
        return "jeu24"
    if hasattr(problem, "function") and hasattr(problem, "tests"):
        return "code"
    if hasattr(problem, "question") and hasattr(problem, "answer"):
        return "mots"
    raise TypeError(f"tâche non reconnue : {problem!r}")


def problem_id(problem: Any) -> str:
    if is_puzzle24(problem):
        return " ".join(str(x) for x in problem)
    return str(problem.id)


def task_text(problem: Any) -> str:
    """The user message the planner receives for ``problem``."""
    kind = kind_of(problem)
    if kind == "jeu24":
        numbers = " ".join(str(x) for x in problem)
        return (f"Jeu de 24 avec les nombres {numbers} : trouve une expression qui vaut 24, "
                "chaque nombre utilisé une fois.")
    if kind == "code":
        return f"Problème de code `{problem.id}` : {problem.spec}"
    return f"Problème en mots `{problem.id}` : {problem.question}"


__all__ = ["PLANNER_SYSTEM", "is_puzzle24", "kind_of", "problem_id", "task_text"]
