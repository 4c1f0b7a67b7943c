"""Game of 24: exact solver, safe checker, the 1,362 puzzles ordered by hardness."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest

from course_utils.problems import check24, game24_puzzles, puzzle_hardness, solve24
from course_utils.problems.game24 import hardness


def test_there_are_1362_solvable_puzzles_and_the_solver_solves_each():
    puzzles = game24_puzzles()
    assert len(puzzles) == 1362 == len(set(puzzles))
    assert all(list(p) == sorted(p) and all(1 <= n <= 13 for n in p) for p in puzzles)
    solvable = {n for n in combinations_with_replacement(range(1, 14), 4) if solve24(n)}
    assert solvable == set(puzzles)
    for numbers in puzzles:
        assert check24(numbers, solve24(numbers)), numbers


def test_unsolvable_puzzles_and_classic_fraction_ones():
    assert solve24([1, 1, 1, 1]) is None
    assert solve24([1, 1, 2, 2]) is None  # (1 - 1) / (2 - 2) is not an answer
    for numbers in ([3, 3, 8, 8], [1, 5, 5, 5], [3, 3, 7, 7]):
        expression = solve24(numbers)
        assert expression is not None and check24(numbers, expression)


def test_order_is_easiest_first_by_the_documented_measure():
    puzzles = game24_puzzles()
    table = puzzle_hardness()
    shares = [table[p][0] for p in puzzles]
    assert shares == sorted(shares, reverse=True)
    rank = {p: i for i, p in enumerate(puzzles)}
    assert rank[(3, 3, 8, 8)] > 1100 and rank[(1, 5, 5, 5)] > 800 and rank[(2, 2, 2, 12)] < 10
    assert table[(3, 3, 8, 8)][1] is True and table[(4, 4, 6, 8)][1] is False
    for numbers in random.Random(0).sample(puzzles, 25):  # the shipped table is recomputable
        share, fraction = hardness(numbers)
        assert share == pytest.approx(table[numbers][0], abs=1e-9)
        assert fraction == table[numbers][1]


@pytest.mark.parametrize("expression", [
    "(4 + 8) * (6 - 4)", "((4 + 8) * (6 - 4))", "(4+8)*(6-4)", "(4 + 8) × (6 − 4)",
    "(4 + 8) * (6 - 4) = 24",
])
def test_check24_accepts(expression):
    assert check24([4, 4, 6, 8], expression)


def test_check24_exact_fractions():
    assert check24([3, 3, 8, 8], "8 / (3 - 8 / 3)")
    assert check24([1, 5, 5, 5], "(5 - 1 / 5) * 5")
    assert not check24([3, 3, 8, 8], "8 / (3 - 8 / 3) + 0")


@pytest.mark.parametrize("expression", [
    "(4 + 8) * (6 - 4) + 0",        # a number not in the puzzle
    "(4 + 8) * (6 - 4) * 4 / 4",    # 4 used three times
    "(4 + 8) * 2",                  # numbers missing
    "4 * 6",                        # numbers missing
    "(4 + 8) * (6 - 4) = 25",       # wrong claim
    "4 + 4 + 6 + 8",                # 22
    "(8 - 6) ** 4 + 4 + 4",         # power
    "8 // 4 * 6 * 4",               # floor division
    "-4 + 4 * 6 * 8 / 8",           # unary minus
    "__import__('os').system('ls') or 24",
    "eval('24')",
    "(4).__class__",
    "4 + 4 + 6 + 8 + 2; 24",
    "24",
    "",
    "4 4 6 8",
    "(4 + 8 * (6 - 4)",
    "4 + 8) * (6 - 4)",
    "(4 + 8) / (6 - 6) * 4",
    "1" * 300,
])
def test_check24_rejects(expression):
    assert check24([4, 4, 6, 8], expression) is False


def test_check24_rejects_non_strings():
    assert check24([4, 4, 6, 8], None) is False
    assert check24([4, 4, 6, 8], 24) is False
