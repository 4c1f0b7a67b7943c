"""Retrieval quality: how often the right family is among the top-k lessons retrieved."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .embedders import Embedder, normalise_rows


def _embed(embedder: Embedder | Callable[[Sequence[str]], np.ndarray], texts: Sequence[str]) -> np.ndarray:
    matrix = embedder.embed(texts) if hasattr(embedder, "embed") else embedder(texts)
    return normalise_rows(np.asarray(matrix, dtype=np.float32))


def hits_at_k(
    embedder: Embedder | Callable[[Sequence[str]], np.ndarray],
    stored: Sequence[tuple[str, str]],
    queries: Sequence[tuple[str, str]],
    k: int = 3,
) -> float:
    """Share of ``queries`` (text, family) whose ``k`` most similar ``stored`` (text, family)
    include at least one of the query's family. ``embedder`` is an embedder or a function
    ``texts -> matrix``. Ties are broken by the stored order (the first stored wins)."""
    if not queries:
        raise ValueError("hits_at_k : aucune requête")
    if not stored:
        return 0.0
    stored_vectors = _embed(embedder, [text for text, _ in stored])
    query_vectors = _embed(embedder, [text for text, _ in queries])
    families = np.array([family for _, family in stored], dtype=object)
    scores = query_vectors @ stored_vectors.T
    k = min(k, len(stored))
    # Stable sort on -score: equal scores keep the stored order.
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    hits = [family in set(families[row]) for row, (_, family) in zip(top, queries)]
    return float(np.mean(hits))
