"""Test-time engines: spend more inference compute, measure what it buys (lesson 04).

One concept per module, each a few dozen readable lines:

========================  ===============================================================
``result``                ``EngineResult`` (what every engine returns) and ``TraceEntry``
``prompts``               the prompt texts of the course (code, repair, reflection, 24, words)
``extract``               reading a model's answer: code block, ``Réponse : N``, 24 steps
``sampling``              model calls: ``n`` samples in one request, or a small bounded pool
``verify``                scoring a candidate: the sandbox for code, the answer for words
``best_of_n``             ``best_of_n`` (selection with tests) and ``one_shot``
``self_consistency``      ``self_consistency`` (majority vote, no verifier) and ``majority_vote``
``reflexion``             ``reflexion`` (attempt → tests → reflection → new attempt, memory hook)
``tree``                  ``bfs``: a generic breadth-first search with a beam
``game24``                ``tree_of_thoughts`` (propose/value model calls) and ``answer24``
``router``                ``route``: the hand-tuned router, written as readable rules
``stats``                 ``pass_at_k`` (Chen et al. 2021), ``wilson_interval``
``sweep``                 ``sweep``: a progress bar, interruptible without losing points
========================  ===============================================================

Every engine takes ``client``/``model`` like the rest of the package (defaults: those of
``setup()``), reads tokens from the API's ``usage`` and never raises on a bad sample (no code
block, empty answer, sandbox refusal): that attempt fails and its trace entry says why. Errors of
the provider itself (a refused key, a persistent 429) are raised as ``LLMError`` as everywhere.
Names are loaded lazily: importing this package does no work.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "EngineResult": "result",
    "TraceEntry": "result",
    "best_of_n": "best_of_n",
    "one_shot": "best_of_n",
    "self_consistency": "self_consistency",
    "majority_vote": "self_consistency",
    "reflexion": "reflexion",
    "bfs": "tree",
    "SearchResult": "tree",
    "tree_of_thoughts": "game24",
    "answer24": "game24",
    "route": "router",
    "estimate_difficulty": "router",
    "pass_at_k": "stats",
    "wilson_interval": "stats",
    "sweep": "sweep",
    "sample": "sampling",
    "Samples": "sampling",
    "evaluate": "verify",
    "Verdict": "verify",
    "extract_code": "extract",
    "extract_answer": "extract",
}

__all__ = list(_LAZY)  # noqa: PLE0605


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'course_utils.engines' has no attribute {name!r}")
    # Several modules share their function's name (``best_of_n.best_of_n``). Importing a
    # submodule binds the *module* on the package, so on first access every submodule is
    # imported, then every public name is bound to its function: later imports change nothing.
    # (Hence: import a module with ``from course_utils.engines.best_of_n import ...``.)
    modules = {module: importlib.import_module(f"course_utils.engines.{module}")
               for module in sorted(set(_LAZY.values()))}
    for public, module in _LAZY.items():
        globals()[public] = getattr(modules[module], public)
    return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
