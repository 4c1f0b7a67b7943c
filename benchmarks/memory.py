"""Benchmark: ``VectorMemory`` (SQLite + numpy) against the original course's JSON memory.

Both hold the same synthetic lessons (``course_utils.memory.synthetic``: task texts and
instructive lessons of seven pitfall families), in the same run of this script:

* **baseline**, written like the original course: a list of records ``{"task", "lesson",
  "embedding"}`` in one JSON file, **rewritten whole on every save** (``json.dump(indent=2)``); the
  embedding is a bag-of-words vector (word counts hashed into a dense list of 1,536 floats, the
  size of ``text-embedding-3-small`` the original's format was made for); a query computes its own
  bag of words and scores every record with a cosine **in a Python loop**. The original itself is
  not shipped with this repository; this reconstruction follows the issue's description and is
  calibrated on its measurements (10,000 lessons: a query ~0.56 s, a save ~9 s, a 166 MB file) —
  the script prints the baseline's own numbers so the calibration can be checked;
* **memory**: ``VectorMemory`` with the default ``HashingEmbedder`` (256 float32 components per
  lesson, of which the ~90 non-zero ones are stored with a bitmap: ``course_utils.memory.vectors``;
  one SQLite transaction per write with ``synchronous=FULL``, the search one matrix–vector product).

Usage: ``python benchmarks/memory.py [--lessons 10000] [--large 100000] [--queries 20]``.
Prints per-operation times, the three ratios (query, add, file size) against the issue's bars
(≥100×, ≥50×, ≥20×), and the query time of ``VectorMemory`` at ``--large`` lessons.
A query of ``VectorMemory`` includes embedding the query text and recording the access counts of
its hits (a write transaction); an add includes embedding and the durable commit.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import statistics
import sys
import tempfile
import time
import unicodedata
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_utils.memory import HashingEmbedder, VectorMemory  # noqa: E402
from course_utils.memory.synthetic import synthetic_lessons  # noqa: E402

BARS = {"query": 100, "add": 50, "file": 20}
BASELINE_DIM = 1536


# --------------------------------------------------------------------------- the original's store


def bag_of_words(text: str, dim: int = BASELINE_DIM) -> list[float]:
    """Word counts of ``text``, each word hashed (CRC32, stable) into one of ``dim`` slots."""
    folded = unicodedata.normalize("NFKD", text.lower())
    vector = [0.0] * dim
    for word in re.findall(r"\w+", folded):
        vector[zlib.crc32(word.encode("utf-8")) % dim] += 1.0
    return vector


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class OriginalJsonMemory:
    """The original course's memory: a JSON list rewritten on every save, a Python-loop search."""

    def __init__(self, path: Path):
        self.path = path
        self.records: list[dict] = []
        if path.exists():
            self.records = json.loads(path.read_text(encoding="utf-8"))

    def add(self, task: str, lesson: str, *, save: bool = True) -> None:
        self.records.append({"task": task, "lesson": lesson, "embedding": bag_of_words(task + " " + lesson)})
        if save:
            self.save()

    def save(self) -> None:
        with open(self.path, "w", encoding="utf-8") as handle:
            json.dump(self.records, handle, indent=2, ensure_ascii=False)

    def search(self, query: str, k: int = 3) -> list[tuple[float, str]]:
        vector = bag_of_words(query)
        scored = [(cosine(vector, record["embedding"]), record["lesson"]) for record in self.records]
        scored.sort(key=lambda pair: -pair[0])
        return scored[:k]


# --------------------------------------------------------------------------- measuring


def timed(function, repeat: int) -> float:
    """Median seconds of ``repeat`` calls of ``function(i)``."""
    times = []
    for number in range(repeat):
        start = time.perf_counter()
        function(number)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def fill_memory(path: Path, lessons) -> VectorMemory:
    """A store holding ``lessons``, filled through ``import_json`` (one transaction)."""
    source = path.with_suffix(".source.json")
    source.write_text(json.dumps([{"task": item.text, "lesson": item.lesson, "domain": item.family}
                                  for item in lessons], ensure_ascii=False), encoding="utf-8")
    memory = VectorMemory(path, HashingEmbedder())
    memory.import_json(source)
    source.unlink()
    return memory


def verdict(ratio: float, bar: int) -> str:
    return f"≥{bar}× : {'atteint' if ratio >= bar else 'NON atteint'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000, help="0 to skip")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--saves", type=int, default=3, help="baseline adds timed (each rewrites the file)")
    args = parser.parse_args()

    lessons = synthetic_lessons(args.lessons, seed=0)
    probes = synthetic_lessons(max(args.queries, args.saves) + 50, seed=1)
    queries = [probe.text for probe in probes]
    folder = Path(tempfile.mkdtemp(prefix="bench_memory_"))

    print(f"{args.lessons} leçons synthétiques ({len({item.family for item in lessons})} familles), "
          f"{args.queries} requêtes, dossier {folder}")

    baseline = OriginalJsonMemory(folder / "memory.json")
    for lesson in lessons:
        baseline.add(lesson.text, lesson.lesson, save=False)
    baseline.save()
    memory = fill_memory(folder / "memoire.db", lessons)
    assert len(memory) == len(baseline.records) == args.lessons

    # Queries alternate baseline and memory, so a change of machine load affects both.
    base_query, ours_query = [], []
    for number in range(args.queries):
        base_query.append(timed(lambda i: baseline.search(queries[number], k=3), 1))
        ours_query.append(timed(lambda i: memory.search(queries[number], k=3), 1))
    base_query, ours_query = statistics.median(base_query), statistics.median(ours_query)

    base_add = timed(lambda i: baseline.add(probes[i].text, probes[i].lesson), args.saves)
    ours_add = timed(lambda i: memory.add(probes[i].text, probes[i].lesson), max(args.queries, 20))
    memory.close()  # checkpoints the write-ahead log into the database file
    base_size, ours_size = size_of(baseline.path), size_of(Path(memory.path))

    ratios = {"query": base_query / ours_query, "add": base_add / ours_add, "file": base_size / ours_size}
    print()
    print(f"{'':22}{'JSON (original)':>18}{'VectorMemory':>16}{'rapport':>10}")
    print(f"{'requête (k=3)':22}{base_query * 1000:>15.1f} ms{ours_query * 1000:>13.3f} ms"
          f"{ratios['query']:>9.0f}×  {verdict(ratios['query'], BARS['query'])}")
    print(f"{'ajout d une leçon':22}{base_add * 1000:>15.1f} ms{ours_add * 1000:>13.3f} ms"
          f"{ratios['add']:>9.0f}×  {verdict(ratios['add'], BARS['add'])}")
    print(f"{'taille du fichier':22}{base_size / 1e6:>15.1f} Mo{ours_size / 1e6:>13.2f} Mo"
          f"{ratios['file']:>9.1f}×  {verdict(ratios['file'], BARS['file'])}")
    per_lesson = ours_size / args.lessons
    with sqlite3.connect(memory.path) as conn:  # what the vectors take (zeros left out)
        vector_bytes = conn.execute("SELECT avg(length(vector)) FROM entries").fetchone()[0]
    print(f"  VectorMemory : {per_lesson:.0f} octets par leçon, dont {vector_bytes:.0f} pour le "
          f"vecteur (float32 non nuls et leur masque ; {4 * HashingEmbedder().dim} en dense) ; "
          f"JSON : {base_size / args.lessons:.0f} octets par leçon.")

    if args.large:
        big = synthetic_lessons(args.large, seed=2)
        start = time.perf_counter()
        large = fill_memory(folder / "grande.db", big)
        fill_s = time.perf_counter() - start
        first = timed(lambda i: large.search(queries[0], k=3), 1)  # loads the matrix
        large_query = statistics.median(timed(lambda i: large.search(queries[n], k=3), 1)
                                        for n in range(args.queries))
        large.close()
        size = size_of(Path(large.path)) / 1e6
        print(f"\n{args.large} leçons (remplies en {fill_s:.0f} s, {size:.0f} Mo) : "
              f"requête {large_query * 1000:.2f} ms (médiane de {args.queries}) ; "
              f"première requête, qui charge la matrice : {first * 1000:.0f} ms")


if __name__ == "__main__":
    main()
