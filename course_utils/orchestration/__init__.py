"""Agentic orchestration (lesson 05): a planner chooses the engine through function calling.

==================  ==================================================================
``tools``           the engines of lesson 04 as tools (``best_of_n_tool``...), ``EngineContext``
``prompts``         ``PLANNER_SYSTEM`` (the choice rules) and ``task_text(problem)``
``guard``           ``Guard``: token budget over planner + engines, global timeout
``planner``         ``orchestrate(problem)``: ``run_agent`` + fallback + chaining → ``Orchestration``
``offline_planner`` the offline model's planner skill and ``planner_client(client)``
``study``           the measured comparison: planner, router, single engines, oracle
==================  ==================================================================

Names are loaded lazily: importing this package does no work.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "PLANNER_SYSTEM": "prompts",
    "task_text": "prompts",
    "kind_of": "prompts",
    "Guard": "guard",
    "GuardStop": "guard",
    "GuardedClient": "guard",
    "EngineContext": "tools",
    "DEFAULT_TOOLS": "tools",
    "best_of_n_tool": "tools",
    "reflexion_tool": "tools",
    "tree_of_thoughts_tool": "tools",
    "engine_tools": "tools",
    "code_ids": "tools",
    "word_ids": "tools",
    "find_code": "tools",
    "find_word": "tools",
    "summary": "tools",
    "orchestrate": "planner",
    "Orchestration": "planner",
    "default_engine": "planner",
    "best_result": "planner",
    "planner_client": "offline_planner",
    "study_tasks": "study",
    "run_study": "study",
    "StudyRow": "study",
    "summarize": "study",
}

__all__ = list(_LAZY)  # noqa: PLE0605


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'course_utils.orchestration' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
