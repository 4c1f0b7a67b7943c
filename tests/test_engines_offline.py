"""Engines against the offline model's own skills (code, game24, arithmetic), through the public
API: the measures of issue 11. Seeds are fixed, so each assertion is a reproducible fact about
the simulator with these settings, not a statistical bet that may flake.
"""

from __future__ import annotations

import re

import pytest

from course_utils.engines import (
    best_of_n,
    one_shot,
    reflexion,
    route,
    self_consistency,
    tree_of_thoughts,
)
from course_utils.llm import make_client
from course_utils.offline import OfflineModel
from course_utils.problems import check24, code_problems, game24_puzzles, word_problems
from course_utils.usage import session_ledger

MEDIUM = [p for p in code_problems() if 0.35 <= p.difficulty <= 0.5][:12]


@pytest.fixture
def offline():
    model = OfflineModel(seed=0)
    return model, make_client(offline=model)


class CountingSandbox:
    def __init__(self):
        self.runs = 0

    def run(self, code, tests):
        from course_utils.sandbox import run_tests

        self.runs += 1
        return run_tests(code, tests)


def test_best_of_8_solves_strictly_more_of_a_medium_slice_than_best_of_1(offline):
    _, client = offline
    one = [best_of_n(p, 1, client=client, temperature=0.8) for p in MEDIUM]
    eight = [best_of_n(p, 8, client=client, temperature=0.8) for p in MEDIUM]
    assert sum(r.solved for r in eight) > sum(r.solved for r in one)
    assert all(r.calls == 1 for r in eight)  # n=8 in one request


def test_temperature_zero_gives_identical_samples_and_no_gain(offline):
    _, client = offline
    for problem in MEDIUM[:4]:
        result = best_of_n(problem, 8, client=client, temperature=0)
        assert len({entry.text for entry in result.trace}) == 1
        assert result.solved == bool(result.trace[0].ok)


def test_usage_comes_from_the_responses(offline):
    _, client = offline
    before = session_ledger().total
    results = [best_of_n(MEDIUM[0], 8, client=client), reflexion(MEDIUM[1], 3, client=client),
               tree_of_thoughts(game24_puzzles()[900], 1, client=client)]
    spent = session_ledger().total
    assert sum(r.usage.total_tokens for r in results) == spent.total_tokens - before.total_tokens
    assert sum(r.calls for r in results) == spent.calls - before.calls
    assert all(r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0 for r in results)


def test_reflexion_runs_the_sandbox_once_per_attempt(offline):
    _, client = offline
    for problem in MEDIUM[:6]:
        sandbox = CountingSandbox()
        result = reflexion(problem, 3, client=client, sandbox=sandbox)
        attempts = [e for e in result.trace if e.kind == "attempt"]
        assert sandbox.runs == len(attempts) >= 1
        assert result.solved == bool(attempts[-1].ok)


def test_reflexion_feeds_back_the_failing_tests_and_a_reflection(offline):
    model, client = offline
    problem = next(p for p in MEDIUM if not one_shot(p, client=client).solved)
    start = len(model.calls)
    result = reflexion(problem, 3, client=client)
    skills = [call.get("skill") for call in model.calls[start:]]
    assert set(skills) == {"code"} and len(skills) == result.calls >= 3
    assert any(e.kind == "reflection" and e.text for e in result.trace)


def test_tree_of_thoughts_calls_propose_and_value_and_its_answers_pass_check24(offline):
    model, client = offline
    solved = 0
    for puzzle in game24_puzzles()[900:906]:
        start = len(model.calls)
        result = tree_of_thoughts(puzzle, 5, client=client)
        prompts = [call["body"]["messages"][-1]["content"] for call in model.calls[start:]]
        assert {call.get("skill") for call in model.calls[start:]} == {"game24"}
        assert any("Propose les étapes" in p for p in prompts)
        assert any("Peut-on encore atteindre 24" in p for p in prompts)
        if result.solved:
            solved += 1
            assert check24(puzzle, result.answer)
            assert sorted(map(int, re.findall(r"\d+", result.answer))) == sorted(puzzle)
    assert solved >= 1


def test_self_consistency_votes_on_word_problems_with_the_arithmetic_skill(offline):
    model, client = offline
    problems = [w for w in word_problems() if not w.family.startswith("piege_")][:6]
    results = [self_consistency(w, 9, client=client) for w in problems]
    assert all(r.calls == 2 for r in results)  # 9 samples = 8 + 1 (the offline model's n ≤ 8)
    assert sum(r.solved for r in results) >= sum(one_shot(w, client=client).solved for w in problems)


def test_route_on_a_puzzle_uses_tree_of_thoughts(offline):
    _, client = offline
    result = route(game24_puzzles()[0], client=client)
    assert result.engine == "route→tree_of_thoughts(beam=5)" and result.calls > 1
