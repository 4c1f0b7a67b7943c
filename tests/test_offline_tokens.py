"""One token estimator: the agent's budget estimates a prompt exactly as the simulator counts it."""

from __future__ import annotations

from course_utils import llm
from course_utils.agent import estimate_tokens, run_agent
from course_utils.corpus import research_tools
from course_utils.offline import OfflineModel
from course_utils.offline.tokens import prompt_tokens


def test_the_agent_estimate_is_the_prompt_tokens_the_simulator_reports():
    model = OfflineModel(seed=0)
    run = run_agent("Quels concurrents ont ajouté un tableau Kanban en 2025 ?", research_tools(),
                    client=llm.make_client(offline=model), model="offline-fast", max_steps=4)
    bodies = model.chat_requests
    assert len(bodies) == len(run.steps) >= 3
    for body, step in zip(bodies, run.steps):
        estimate = estimate_tokens(body["messages"], body.get("tools"), body.get("tool_choice"))
        assert estimate == prompt_tokens(body) == step.usage.prompt_tokens


def test_a_forced_tool_choice_counts_in_the_estimate():
    messages = [{"role": "user", "content": "Réponds uniquement par : OK"}]
    tools = [tool.schema for tool in research_tools()]
    forced = {"type": "function", "function": {"name": "search"}}
    client = llm.make_client(offline=OfflineModel(seed=0))
    usage = client.chat.completions.create(model="offline-fast", messages=messages, tools=tools,
                                           tool_choice=forced).usage
    assert estimate_tokens(messages, tools, forced) == usage.prompt_tokens
    assert estimate_tokens(messages, tools, forced) > estimate_tokens(messages, tools)
    assert estimate_tokens(messages) == client.chat.completions.create(
        model="offline-fast", messages=messages).usage.prompt_tokens
