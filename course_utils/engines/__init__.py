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
Several modules share their function's name (``best_of_n.best_of_n``, ``reflexion.reflexion``).
Python binds a submodule on its package when it is first imported, which would hide the function
behind the module; so this package imports its modules once, then binds every public name to its
function (importing it loads the engines, and still opens no file, starts no process and makes no
network call). Import a module itself with ``from course_utils.engines.best_of_n import ...``.
"""

from __future__ import annotations

from .best_of_n import best_of_n, one_shot
from .extract import extract_answer, extract_code
from .game24 import answer24, tree_of_thoughts
from .reflexion import reflexion
from .result import EngineResult, TraceEntry
from .router import estimate_difficulty, route
from .sampling import Samples, sample
from .self_consistency import majority_vote, self_consistency
from .stats import pass_at_k, wilson_interval
from .sweep import sweep
from .tree import SearchResult, bfs
from .verify import Verdict, evaluate

__all__ = [
    "EngineResult", "TraceEntry", "best_of_n", "one_shot", "self_consistency", "majority_vote",
    "reflexion", "bfs", "SearchResult", "tree_of_thoughts", "answer24", "route",
    "estimate_difficulty", "pass_at_k", "wilson_interval", "sweep", "sample", "Samples",
    "evaluate", "Verdict", "extract_code", "extract_answer",
]
