"""Which offline embedder finds the lesson of the right family? hits@k, measured.

Compares, on the same data in the same run:

* ``bag-of-words`` — the original course's retrieval (word counts, cosine), the function of
  ``benchmarks/memory.py`` with 4,096 slots;
* ``hashing-256`` — ``course_utils.memory.HashingEmbedder`` (words + character trigrams hashed);
* ``wordllama`` — the static embedding model shipped inside the ``wordllama`` wheel (MIT, 16 MB,
  256 dimensions), **if it is installed**: loaded from its own package folder with downloads
  disabled and ``HF_HUB_OFFLINE=1`` (nothing is fetched). It is not a course dependency: install
  it by hand (``pip install wordllama``) to reproduce this comparison.

Data: (1) synthetic lessons of seven pitfall families (``course_utils.memory.synthetic``), stored
lessons drawn from half of each family's task templates and queries from the other half, so that a
query never repeats a stored sentence; (2) the course's problem bank when ``course_utils.problems``
is present (its pitfall families; not « original » nor « general »): each problem's spec with
its pitfall sentence is stored, and every problem's spec is a query against the others
(leave-one-out). A hit at k: one of the k most similar stored lessons is
of the query's family. What is embedded for a stored lesson is what ``VectorMemory`` embeds
(task text and lesson together; the task alone is shown too).

Usage: ``python benchmarks/memory_embedders.py [--stored 140] [--queries 1400]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_utils.memory import HashingEmbedder, hits_at_k  # noqa: E402
from course_utils.memory.store import searchable  # noqa: E402
from course_utils.memory.synthetic import synthetic_lessons  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import bag_of_words as original_bag_of_words  # noqa: E402  (benchmarks/memory.py)

KS = (1, 3, 5)


def bag_of_words(texts):
    """The original's bag of words (``benchmarks/memory.py``), 4,096 slots, as a matrix."""
    return np.asarray([original_bag_of_words(text, 4096) for text in texts], dtype=np.float32)


class WordLlamaEmbedder:
    """wordllama's bundled model, loaded without network (its package folder, no downloads)."""

    def __init__(self):
        os.environ["HF_HUB_OFFLINE"] = "1"
        import wordllama

        folder = Path(wordllama.__file__).parent
        self.model = wordllama.WordLlama.load(config="l2_supercat", dim=256, cache_dir=folder,
                                              disable_download=True)
        self.name, self.dim = "wordllama-l2_supercat-256", 256

    def embed(self, texts):
        return np.asarray(self.model.embed(list(texts), norm=True), dtype=np.float32)


def embedders():
    found = [("bag-of-words", bag_of_words), ("hashing-256", HashingEmbedder())]
    try:
        found.append(("wordllama", WordLlamaEmbedder()))
    except ImportError:
        print("(wordllama n'est pas installé : comparaison sans lui)")
    return found


def table(title, rows):
    print(f"\n{title}")
    print(f"{'embedder':16}{'texte stocké':16}" + "".join(f"{f'hits@{k}':>9}" for k in KS))
    for name, stored_kind, values in rows:
        print(f"{name:16}{stored_kind:16}" + "".join(f"{value:>9.3f}" for value in values))


def synthetic(args, found):
    stored = synthetic_lessons(args.stored, seed=1, task_templates=slice(0, None, 2))
    queries = synthetic_lessons(args.queries, seed=2, task_templates=slice(1, None, 2))
    query_pairs = [(q.text, q.family) for q in queries]
    rows = []
    for kind in ("tâche seule", "tâche + leçon"):
        pairs = [(s.text if kind == "tâche seule" else searchable(s.text, s.lesson), s.family)
                 for s in stored]
        for name, embedder in found:
            rows.append((name, kind, [hits_at_k(embedder, pairs, query_pairs, k) for k in KS]))
    table(f"Leçons synthétiques : {len(stored)} stockées, {len(queries)} requêtes "
          f"({len({s.family for s in stored})} familles ; hasard à k=1 : {1 / 7:.3f})", rows)


def bank(found):
    try:
        from course_utils.problems import code_problems
    except ImportError:
        print("\n(course_utils.problems absent : pas de mesure sur la banque de problèmes)")
        return
    problems = [p for p in code_problems() if p.family not in ("original", "general")]
    families = {p.family for p in problems}
    rows = []
    for name, embedder in found:
        values = []
        for k in KS:
            hits = []
            for query in problems:
                stored = [(searchable(p.spec, p.pitfall), p.family) for p in problems if p.id != query.id]
                hits.append(hits_at_k(embedder, stored, [(query.spec, query.family)], k))
            values.append(float(np.mean(hits)))
        rows.append((name, "énoncé + piège", values))
    table(f"Banque du cours : {len(problems)} problèmes de {len(families)} familles, un contre tous", rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stored", type=int, default=140)
    parser.add_argument("--queries", type=int, default=1400)
    args = parser.parse_args()
    found = embedders()
    synthetic(args, found)
    bank(found)


if __name__ == "__main__":
    main()
