"""The offline model: a deterministic chat-model simulator served under the real ``openai`` SDK.

>>> from course_utils.offline import OfflineModel, OFFLINE_MODEL_FAST
>>> model = OfflineModel(seed=0)
>>> client = model.client()            # a genuine openai.OpenAI client, no network
>>> client.chat.completions.create(model=OFFLINE_MODEL_FAST,
...     messages=[{"role": "user", "content": "Réponds uniquement par : OK"}]
... ).choices[0].message.content
'OK'

It is a stand-in for teaching and tests, and says so (``model`` is always an ``offline-*`` name).
Modules, one concept each: ``server`` (``OfflineModel``: routing, faults, scripts, determinism),
``validation`` (400s like the real API), ``faults``, ``steps``, ``responses`` (spec-shaped
completions and SSE chunks), ``tokens`` (usage estimates), ``embeddings``, ``errors``, and
``skills/`` (one module per skill: what the model says), ``understanding/`` (reading requests and
tools) and ``policy/`` (deciding calls and answers).

The model names are plain constants; ``OfflineModel`` and the error classes are imported on first
access, so importing this package (e.g. for the names) does no work.
"""

from __future__ import annotations

import importlib

OFFLINE_MODEL_FAST = "offline-fast"
OFFLINE_MODEL_BIG = "offline-big"
OFFLINE_EMBEDDING_MODEL = "offline-embed"
OFFLINE_MODELS = (OFFLINE_MODEL_FAST, OFFLINE_MODEL_BIG, OFFLINE_EMBEDDING_MODEL)

_LAZY = {
    "OfflineModel": "server",
    "ScriptExhausted": "errors",
    "InvalidStep": "errors",
    "SkillContractError": "errors",
    "OfflineModelError": "errors",
    "FAULT_NAMES": "faults",
    "Competence": "competence_params",
    "competence": "competence_params",
}

__all__ = [
    "OFFLINE_EMBEDDING_MODEL",
    "OFFLINE_MODELS",
    "OFFLINE_MODEL_BIG",
    "OFFLINE_MODEL_FAST",
    *sorted(_LAZY),
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'course_utils.offline' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
