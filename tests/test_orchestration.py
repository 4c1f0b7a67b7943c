"""Lesson 05's safeguards through the public API: budget, fallback, chaining, timeout."""

from __future__ import annotations

import json

import pytest

from course_utils import llm
from course_utils.agent import STATUSES, estimate_tokens, run_agent
from course_utils.engines.prompts import code_prompt, user
from course_utils.offline import OfflineModel
from course_utils.orchestration import (
    PLANNER_SYSTEM,
    Guard,
    engine_tools,
    EngineContext,
    orchestrate,
    planner_client,
    task_text,
)
from course_utils.problems import find_problem, word_problems
from course_utils.testing import ScriptedModel, finish, text, tool_call, turn

PROBLEM = "somme_intervalle"


def engine_model(**competence):
    model = OfflineModel(seed=0, competence=competence or None)
    return model, llm.make_client(offline=model)


def chat_requests(model: OfflineModel) -> int:
    return len(model.chat_requests)


def test_schemas_enum_from_bank_and_four_numbers():
    ctx = EngineContext(client=engine_model()[1])
    schemas = {t.name: t.schema["function"] for t in engine_tools(ctx)}
    enum = schemas["best_of_n"]["parameters"]["properties"]["problem_id"]["enum"]
    assert PROBLEM in enum and "fizzbuzz" in enum
    numbers = schemas["tree_of_thoughts"]["parameters"]["properties"]["numbers"]
    assert numbers["type"] == "array" and numbers["items"]["type"] == "integer"
    assert "jeu de 24" in schemas["tree_of_thoughts"]["description"].lower()


def test_budget_smaller_than_one_engine_call_stops_before_the_engine_runs():
    problem = find_problem(PROBLEM)
    script = [turn(tool_call("best_of_n", problem_id=PROBLEM, n=4)), finish("fini")]
    # First, without a budget: the planner's first call costs `first` tokens.
    engines, engine_client = engine_model()
    with ScriptedModel(script) as planner:
        free = orchestrate(problem, client=planner.client, engine_client=engine_client)
    first = free.run.steps[0].usage.total_tokens
    engine_prompt = estimate_tokens([user(code_prompt(problem))])
    assert chat_requests(engines) == 1 and free.engines
    # Then a budget that allows the planner's first call but not the engine's first request.
    budget = first + engine_prompt - 1
    engines, engine_client = engine_model()
    planner = ScriptedModel(script)
    run = orchestrate(problem, client=planner.client, engine_client=engine_client,
                      token_budget=budget)
    assert run.status == "budget_exhausted"
    assert chat_requests(engines) == 0  # the engine never sent a request
    assert run.engines == ()
    assert "budget_epuise" in run.run.steps[0].observations[0]
    assert any("budget_epuise" in line for line in run.events)
    assert run.tokens <= budget
    assert len(planner.requests) == 1  # the planner's second call was refused too


def test_budget_counts_tokens_spent_inside_the_engines():
    problem = find_problem(PROBLEM)
    engines, engine_client = engine_model()
    script = [turn(tool_call("best_of_n", problem_id=PROBLEM, n=4)), finish("fini")]
    with ScriptedModel(script) as planner:
        run = orchestrate(problem, client=planner.client, engine_client=engine_client)
    engine_tokens = sum(r.tokens for r in run.engines)
    assert engine_tokens > 0
    assert run.engine_usage.total_tokens == engine_tokens
    assert run.tokens == run.planner_usage.total_tokens + engine_tokens
    assert run.planner_usage.total_tokens == run.run.usage.total_tokens


def test_fallback_runs_when_the_scripted_planner_calls_no_tool():
    problem = find_problem(PROBLEM)
    engines, engine_client = engine_model()
    with ScriptedModel([text("Je pense pouvoir répondre seul : voici le code.")]) as planner:
        run = orchestrate(problem, client=planner.client, engine_client=engine_client)
    assert run.fallback is True
    assert run.chain == ("best_of_n(n=4)",)
    assert chat_requests(engines) >= 1
    assert run.status == "finished"
    assert any(line.startswith("repli") for line in run.events)


def test_no_fallback_when_disabled_or_when_an_engine_ran():
    problem = find_problem(PROBLEM)
    engines, engine_client = engine_model()
    with ScriptedModel([text("Rien.")]) as planner:
        run = orchestrate(problem, client=planner.client, engine_client=engine_client,
                          fallback=None)
    assert run.fallback is False and run.engines == () and not run.solved
    assert chat_requests(engines) == 0


def test_chaining_on_partial_failure_is_seen_in_the_trace():
    problem = find_problem(PROBLEM)
    # First attempts always wrong, repairs always right: Best-of-N fails, Reflexion succeeds.
    engines, engine_client = engine_model(code_p_easy=0.0, code_p_hard=0.0, repair_q=1.0)
    script = [turn(tool_call("best_of_n", problem_id=PROBLEM, n=2)),
              turn(tool_call("reflexion", problem_id=PROBLEM, iterations=3)),
              finish("Résolu par reflexion.")]
    with ScriptedModel(script) as planner:
        run = orchestrate(problem, client=planner.client, engine_client=engine_client)
    first, second = run.engines
    assert first.engine.startswith("best_of_n") and not first.solved
    assert first.passed < first.total
    assert second.engine.startswith("reflexion") and second.solved
    observation = json.loads(run.run.steps[0].observations[0])
    assert observation["tests_reussis"] < observation["tests_total"]
    assert "Échec partiel" in observation["conseil"]
    assert run.solved and run.answer == second.answer
    assert [line.split(" ")[0] for line in run.events] == ["best_of_n", "reflexion"]


def test_offline_planner_chains_by_itself_after_a_partial_failure():
    problem = find_problem("fibonacci")  # its spec names no trap: Best-of-N first
    model = OfflineModel(seed=0, competence={"code_p_easy": 0.0, "code_p_hard": 0.0,
                                             "repair_q": 1.0})
    client = planner_client(llm.make_client(offline=model))
    run = orchestrate(problem, client=client, model="offline-fast")
    assert [c.name for c in run.run.tool_calls] == ["best_of_n", "reflexion", "finish"]
    assert not run.engines[0].solved and run.engines[1].solved and run.solved
    assert run.run.status == "finished"


def test_offline_planner_picks_tree_of_thoughts_for_a_24_puzzle_and_falls_back_on_words():
    client = planner_client(llm.make_client(offline=OfflineModel(seed=0)))
    puzzle = orchestrate((4, 4, 6, 8), client=client, model="offline-fast")
    assert puzzle.run.tool_calls[0].name == "tree_of_thoughts"
    assert puzzle.run.tool_calls[0].arguments == {"numbers": [4, 4, 6, 8]}
    words = orchestrate(word_problems()[0], client=client, model="offline-fast")
    assert words.fallback and words.chain[0].startswith("self_consistency")


def test_global_timeout_stops_before_the_next_call_with_a_fake_clock():
    problem = find_problem(PROBLEM)
    now = [0.0]
    engines, engine_client = engine_model()
    script = [turn(tool_call("best_of_n", problem_id=PROBLEM, n=4)), finish("fini")]
    planner = ScriptedModel(script)

    def clock():  # each look at the clock moves time on by 10 s
        now[0] += 10.0
        return now[0]

    run = orchestrate(problem, client=planner.client, engine_client=engine_client,
                      timeout_s=15.0, clock=clock)
    assert "timeout" in STATUSES
    assert run.status == "timeout"
    assert chat_requests(engines) == 0
    assert "delai_depasse" in run.run.steps[0].observations[0]


def test_run_agent_guard_hook_stops_before_the_call():
    seen = []

    def guard(usage, next_tokens):
        seen.append((usage.calls, next_tokens))
        return ("budget_exhausted", "Stop.") if usage.calls >= 1 else None

    def lookup(city: str) -> str:
        """Cherche une ville.

        Args:
            city: La ville.
        """
        return "ok"

    script = [turn(tool_call("lookup", city="Lyon"))]
    with ScriptedModel(script) as planner:
        run = run_agent("Lyon ?", [lookup], client=planner.client, guard=guard)
    assert run.status == "budget_exhausted" and run.answer == "Stop."
    assert len(seen) == 2 and seen[0][0] == 0 and seen[0][1] > 0


def test_guard_counts_and_refuses():
    guard = Guard(token_budget=100)
    assert guard.check(100) is None
    assert guard.check(101)[0] == "budget_exhausted"
    assert guard.stopped and guard.check(1)[0] == "budget_exhausted"  # stays stopped


def test_planner_prompt_and_task_texts():
    assert "planificateur" in PLANNER_SYSTEM and "échec partiel" in PLANNER_SYSTEM
    assert "4 4 6 8" in task_text((4, 4, 6, 8))
    assert f"`{PROBLEM}`" in task_text(find_problem(PROBLEM))
    with pytest.raises(TypeError):
        task_text("bonjour")


def test_study_tasks_are_heterogeneous_and_the_summary_has_every_strategy():
    from course_utils.orchestration import kind_of, study_tasks, summarize
    from course_utils.orchestration.study import STRATEGIES, StudyRow

    tasks = study_tasks()
    kinds = {kind_of(task) for task in tasks}
    assert len(tasks) >= 30 and kinds == {"code", "jeu24", "mots"}
    rows = [StudyRow(s, "t", "code", s == "oracle", 10, 1) for s in STRATEGIES]
    table = summarize(rows)
    assert [line["stratégie"] for line in table] == list(STRATEGIES)
    assert table[-1]["réussites"] == "1/1" and table[0]["réussites"] == "0/1"


def test_the_study_summary_prices_the_tokens_each_strategy_spent():
    from course_utils.orchestration import summarize
    from course_utils.orchestration.study import StudyRow
    from course_utils.usage import Usage

    spent = Usage(prompt_tokens=1_000_000, completion_tokens=0, total_tokens=1_000_000, calls=1)
    rows = [StudyRow("routeur", "t", "code", True, spent.total_tokens, 1, usage=spent),
            StudyRow("oracle", "t", "code", True, 0, 0)]
    priced = {line["stratégie"]: line["coût estimé"]
              for line in summarize(rows, model="offline-fast")}
    # offline-fast is priced at its reference model (gpt-4.1-mini: 0.40 $ per million input tokens)
    assert priced == {"routeur": "0,40 $", "oracle": "0,0000 $"}
    assert "coût estimé" not in summarize(rows)[0]


def test_guard_reserves_the_longest_answer_seen_for_the_next_call():
    from course_utils.usage import Usage

    guard = Guard(token_budget=200)
    guard.record_engine(Usage(prompt_tokens=40, completion_tokens=60, total_tokens=100, calls=1),
                        choices=2)  # two answers of 30 tokens each
    assert guard.longest_answer == 30
    assert guard.check(40) is None  # 100 spent + 40 prompt + 30 reserve <= 200
    assert guard.check(40, choices=3)[0] == "budget_exhausted"  # + 90 for three answers
