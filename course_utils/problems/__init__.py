"""Problem banks for lessons 04–06: code problems, the Game of 24, word problems.

Public names (stable, see the course's DESIGN §4)::

    from course_utils.problems import (CodeProblem, code_problems, humaneval_problems,
        reference_solution, game24_puzzles, solve24, check24, WordProblem, word_problems)

Modules, one concept each: ``code`` (the French code bank and HumanEval; references and mutants
are package data, reached by :func:`reference_solution` / :func:`mutants`, never fields),
``game24`` (exact solver, safe checker, the 1,362 puzzles easiest first), ``words`` (French
word problems with their typical mistakes). Importing this package reads no file: the banks
load on first use.
"""

from __future__ import annotations

from .code import (
    CodeProblem,
    code_problems,
    failure_kind,
    families,
    find_problem,
    humaneval_problems,
    mutants,
    reference_solution,
)
from .game24 import check24, game24_puzzles, puzzle_hardness, solve24
from .words import WordProblem, systematic_mistake, typical_mistakes, word_problems

__all__ = [
    "CodeProblem",
    "WordProblem",
    "check24",
    "code_problems",
    "failure_kind",
    "families",
    "find_problem",
    "game24_puzzles",
    "humaneval_problems",
    "mutants",
    "puzzle_hardness",
    "reference_solution",
    "solve24",
    "systematic_mistake",
    "typical_mistakes",
    "word_problems",
]
