"""Persistent memory of lessons (lesson 06): embedders and a vector store on SQLite.

>>> from course_utils.memory import VectorMemory, HashingEmbedder
>>> with VectorMemory(":memory:", HashingEmbedder()) as memory:
...     _ = memory.add("somme des entiers de a à b", "b est inclus : range(a, b + 1)", domain="code")
...     [hit.lesson for hit in memory.search("compter les entiers de a à b inclus", k=1)]
['b est inclus : range(a, b + 1)']

Modules, one concept each: ``embedders`` (``HashingEmbedder``, ``OpenAIEmbedder``), ``store``
(``VectorMemory``, ``Hit``, ``Entry``), ``files`` (what a path holds, French refusals, JSON
export/import formats), ``quality`` (hits@k of the right family), ``synthetic`` (generated
family/pitfall lessons for benchmarks and measurements).
"""

from __future__ import annotations

from .embedders import Embedder, EmbeddingError, HashingEmbedder, OpenAIEmbedder
from .files import MemoryFileError
from .quality import hits_at_k
from .store import Entry, Hit, VectorMemory

__all__ = [
    "Embedder",
    "EmbeddingError",
    "Entry",
    "HashingEmbedder",
    "Hit",
    "MemoryFileError",
    "OpenAIEmbedder",
    "VectorMemory",
    "hits_at_k",
]
