"""Helper package of the French course on LLM agents.

Importing it does no work: no file is opened, no process started, no network call made.
The names below are loaded lazily, on first access, from the module named after their concept.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "setup": "session",
    "load_settings": "settings",
    "Settings": "settings",
    "make_client": "llm",
    "chat": "llm",
    "ChatResult": "llm",
    "UsageLedger": "llm",
    "OfflineModel": "offline",
    "tool": "tools",
    "Toolbox": "tools",
    "run_agent": "agent",
    "AgentRun": "agent",
    "show_trace": "display",
    "run_tests": "sandbox",
    "Sandbox": "sandbox",
    "SandboxResult": "sandbox",
    "TestFailure": "sandbox",
    "static_check": "sandbox",
    "check": "grading",
    "CodeProblem": "problems",
    "code_problems": "problems",
    "game24_puzzles": "problems",
    "solve24": "problems",
    "check24": "problems",
    "word_problems": "problems",
    "EngineResult": "engines",
    "best_of_n": "engines",
    "self_consistency": "engines",
    "reflexion": "engines",
    "tree_of_thoughts": "engines",
    "route": "engines",
    "VectorMemory": "memory",
    "HashingEmbedder": "memory",
    "OpenAIEmbedder": "memory",
}

__all__ = list(_LAZY)  # noqa: PLE0605


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"course_utils.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
