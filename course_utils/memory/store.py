"""``VectorMemory``: lessons stored in SQLite, retrieved by cosine similarity with numpy.

What it guarantees:

* **Nothing acknowledged is lost.** Each write (``add``, ``clear``, ``import_json``, the access
  counts updated by ``search``) is one SQLite transaction in WAL mode. Lessons are committed with
  ``synchronous=FULL``: once ``add`` has returned its id, the lesson survives a killed process
  (and a power cut). Access counts are bookkeeping, committed without the flush: a power cut may
  lose the last ones, a killed process loses none. A process killed in the middle of a write
  leaves the file as it was before that write.
* **Several processes may share one file**: writes take SQLite's write lock (``BEGIN IMMEDIATE``
  with a busy timeout), readers see a consistent snapshot.
* **A file is read with the embedder that wrote it**: the embedder's name and dimension are stored
  at creation; another embedder is refused with a French message (vectors of two embedders do not
  compare). A file that is not a memory (random bytes, truncated, another program's database, a
  JSON file) is refused too, and never written to.
* **Search is vectorised**: vectors are kept as float32 blobs (without their zeros when that is
  shorter: ``vectors``) and loaded once into a numpy matrix (refreshed incrementally when rows
  are added, by this process or another); a query is one matrix–vector product over every row,
  then a top-k.
* **Bounded size** with ``max_entries``: adding beyond it evicts the least recently used lessons
  (used = added or returned by ``search``); ``entries()`` shows each one's access count.

What it does not do: approximate search (it scans every row — measured fine up to ~100,000
lessons, see ``benchmarks/memory.py``), or deduplicate lessons.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import files, vectors
from .embedders import Embedder, HashingEmbedder
from .files import MemoryFileError

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    text         TEXT NOT NULL,
    lesson       TEXT NOT NULL,
    domain       TEXT,
    metadata     TEXT,
    vector       BLOB NOT NULL,
    created_at   REAL NOT NULL,
    last_used    INTEGER NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_last_used ON entries (last_used);
"""


@dataclass(frozen=True)
class Hit:
    """One retrieved lesson: cosine ``score`` (−1..1) between the query and the stored text and
    lesson."""

    score: float
    id: int
    text: str
    lesson: str
    domain: str | None = None
    metadata: dict = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        return f"[{self.score:.3f}] {self.lesson}"


@dataclass(frozen=True)
class Entry:
    """One stored lesson with its bookkeeping (``last_used`` is a logical clock, not a time)."""

    id: int
    text: str
    lesson: str
    domain: str | None
    metadata: dict = field(compare=False)
    access_count: int
    last_used: int
    created_at: float = field(compare=False)


def searchable(text: str, lesson: str) -> str:
    """What is embedded for a stored lesson: the task text and the lesson together (measured: the
    lesson's words — the pitfall — find the right family far more often than the task alone; see
    ``benchmarks/memory_embedders.py``)."""
    return f"{text}\n{lesson}" if lesson else text


# Below this many rows the product runs in numpy's own single-threaded loop: waking a threaded
# BLAS costs more than the product on a busy machine (measured: 10,000 × 256 took ~16 ms through
# BLAS on two loaded cores, ~0.8 ms with einsum; at 100,000 rows BLAS wins again).
_BLAS_FROM_ROWS = 50_000


def _scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of ``query`` with every row (all unit norm): one matrix–vector product."""
    if len(matrix) < _BLAS_FROM_ROWS:
        return np.einsum("ij,j->i", matrix, query)
    return matrix @ query


def _blob(vector: np.ndarray) -> bytes:
    return vectors.encode(vector)


class VectorMemory:
    """A persistent memory of lessons.

    >>> with VectorMemory("memoire.db", HashingEmbedder()) as memory:   # doctest: +SKIP
    ...     memory.add("écrire somme_bornes(a, b)", "range(a, b) exclut b : écrire range(a, b + 1)",
    ...                domain="code")
    ...     memory.search("compter les entiers de a à b inclus", k=1)

    ``path`` — the SQLite file (created if missing; ``":memory:"`` for a throw-away store);
    ``embedder`` — default ``HashingEmbedder()``; ``max_entries`` — evict least recently used
    lessons beyond this many (``None``: no limit).
    """

    def __init__(self, path: str | Path, embedder: Embedder | None = None, *,
                 max_entries: int | None = None, timeout: float = 30.0):
        if max_entries is not None and (isinstance(max_entries, bool) or not isinstance(max_entries, int)
                                        or max_entries < 1):
            raise ValueError(f"max_entries doit être un entier ≥ 1 ou None, reçu {max_entries!r}")
        self.embedder = embedder if embedder is not None else HashingEmbedder()
        self.max_entries = max_entries
        self.path = path if path == ":memory:" else Path(path)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._cache_generation: int | None = None
        self._cache_removals: int | None = None
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._domains: list[str | None] = []
        self._conn = self._open(timeout)

    # ------------------------------------------------------------------ opening

    def _open(self, timeout: float) -> sqlite3.Connection:
        identity = (self.embedder.name, int(self.embedder.dim))
        if self.path == ":memory:":
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._create(conn, identity)
            return conn
        path = self.path
        kind = files.sniff(path)
        if kind not in ("missing", "sqlite"):
            raise files.refusal(path, kind)
        if kind == "missing" and not path.parent.exists():
            raise MemoryFileError(f"le dossier « {path.parent} » n'existe pas : créez-le d'abord.")
        if kind == "missing":
            self._create_file(path, identity)
        conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            self._check_existing(conn, path, identity)
            conn.execute("PRAGMA synchronous=FULL")
        except BaseException:
            conn.close()
            raise
        return conn

    def _create_file(self, path: Path, identity: tuple[str, int]) -> None:
        """Build the empty store beside ``path``, then link it into place atomically, so that
        ``path`` never holds a half-made store (another process may be creating it too: the
        first one wins, the others open what it made)."""
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            conn = sqlite3.connect(str(temporary), isolation_level=None)
            try:
                self._create(conn, identity)
            finally:
                conn.close()
            try:
                if os.name == "nt":
                    os.rename(temporary, path)  # refuses to replace an existing file on Windows
                else:
                    os.link(temporary, path)  # refuses to replace an existing file
            except FileExistsError:
                pass
        finally:
            for leftover in (temporary, *(temporary.with_name(temporary.name + s) for s in ("-wal", "-shm"))):
                leftover.unlink(missing_ok=True)

    def _create(self, conn: sqlite3.Connection, identity: tuple[str, int]) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        meta = {
            "format": files.FORMAT,
            "schema_version": str(files.SCHEMA_VERSION),
            "embedder": identity[0],
            "dim": str(identity[1]),
            "generation": "0",
            "removals": "0",
        }
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _check_existing(self, conn: sqlite3.Connection, path: Path, identity: tuple[str, int]) -> None:
        """Read-only checks: integrity, that it is a memory, the schema version and the embedder."""
        try:
            problem = conn.execute("PRAGMA quick_check").fetchone()[0]
            if problem != "ok":
                raise files.corrupted(path, problem)
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "entries"} <= tables:
                raise files.foreign(path)
            meta = dict(conn.execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as exc:
            raise files.corrupted(path, str(exc)) from None
        if meta.get("format") != files.FORMAT:
            raise files.foreign(path)
        version = int(meta.get("schema_version", "0"))
        if version > files.SCHEMA_VERSION:
            raise MemoryFileError(f"« {path} » a été écrite par une version plus récente de "
                                  f"course_utils (schéma {version}) : mettez le paquet à jour. "
                                  "Le fichier n'a pas été modifié.")
        stored = (meta.get("embedder", "?"), int(meta.get("dim", "0")))
        if stored != identity:
            raise files.embedder_mismatch(path, stored, identity)

    # ------------------------------------------------------------------ plumbing

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise MemoryFileError("cette mémoire est fermée : rouvrez-la avec "
                                  "VectorMemory(chemin, embedder).")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (SQLite's write lock, waiting up to the busy timeout)."""
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @staticmethod
    def _changed(conn: sqlite3.Connection, removed: int) -> None:
        """Bump the counters readers compare to refresh their matrix (``removals`` forces a full
        reload; otherwise only rows with a larger id are read)."""
        keys = ("generation", "removals") if removed else ("generation",)
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key IN "
                     f"({','.join('?' * len(keys))})", keys)

    @staticmethod
    def _tick(conn: sqlite3.Connection) -> int:
        return conn.execute("SELECT COALESCE(MAX(last_used), 0) + 1 FROM entries").fetchone()[0]

    def _refresh(self) -> None:
        """Bring the in-memory matrix up to date (appended rows only, unless rows were removed)."""
        conn = self.conn
        conn.execute("BEGIN")
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'removals')"))
            generation, removals = int(meta["generation"]), int(meta["removals"])
            if generation == self._cache_generation:
                return
            if removals != self._cache_removals or self._cache_generation is None:
                self._ids = np.zeros(0, dtype=np.int64)
                self._matrix = np.zeros((0, self.embedder.dim), dtype=np.float32)
                self._domains = []
            last = int(self._ids[-1]) if len(self._ids) else 0
            rows = conn.execute("SELECT id, domain, vector FROM entries WHERE id > ? ORDER BY id",
                                (last,)).fetchall()
        finally:
            conn.execute("COMMIT")
        if rows:
            ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
            try:
                block = vectors.decode([row[2] for row in rows], self.embedder.dim)
            except (vectors.VectorBlobError, TypeError) as exc:
                raise MemoryFileError(f"« {self.path} » est corrompue : {exc}. Le fichier n'a pas "
                                      "été modifié ; restaurez une sauvegarde ou un export JSON.") from None
            self._ids = np.concatenate([self._ids, ids])
            self._matrix = np.vstack([self._matrix, block]) if len(self._matrix) else block
            self._domains.extend(row[1] for row in rows)
        self._cache_generation, self._cache_removals = generation, removals

    # ------------------------------------------------------------------ public API

    def add(self, text: str, lesson: str, *, domain: str | None = None,
            metadata: dict | None = None) -> int:
        """Store ``lesson`` learnt on ``text``; returns its id once it is on disk. A later query is
        compared with the text and the lesson together."""
        if not isinstance(text, str) or not isinstance(lesson, str):
            raise TypeError("add(text, lesson) attend deux chaînes de caractères")
        meta_json = json.dumps(metadata, ensure_ascii=False) if metadata else None
        vector = _blob(self.embedder.embed([searchable(text, lesson)])[0])

        with self._transaction() as conn:
            new_id = conn.execute(
                "INSERT INTO entries (text, lesson, domain, metadata, vector, created_at, last_used) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (text, lesson, domain, meta_json, vector, time.time(), self._tick(conn)),
            ).lastrowid
            self._changed(conn, self._evict(conn, keep=new_id))
        return int(new_id)

    def _evict(self, conn: sqlite3.Connection, keep: int) -> int:
        if self.max_entries is None:
            return 0
        count = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        excess = count - self.max_entries
        if excess <= 0:
            return 0
        conn.execute(
            "DELETE FROM entries WHERE id IN (SELECT id FROM entries WHERE id != ? "
            "ORDER BY last_used, access_count, id LIMIT ?)", (keep, excess))
        return excess

    def search(self, query: str, k: int = 3, *, threshold: float = 0.0,
               domain: str | None = None) -> list[Hit]:
        """The ``k`` stored lessons most similar to ``query`` (score strictly above
        ``threshold``), best first, only from ``domain`` when given. Counts as a use of each hit."""
        if k < 1:
            return []
        query_vector = self.embedder.embed([query])[0]
        with self._lock:
            self._refresh()
            if not len(self._ids):
                return []
            scores = _scores(self._matrix, query_vector)
            if domain is not None:
                mask = np.fromiter((d == domain for d in self._domains), dtype=bool, count=len(self._domains))
                scores = np.where(mask, scores, -np.inf)
            candidates = np.flatnonzero(scores > threshold)
            if not len(candidates):
                return []
            if len(candidates) > k:
                top = np.argpartition(-scores[candidates], k - 1)[:k]
                candidates = candidates[top]
            # Best first; equal scores by id, so results are deterministic.
            order = np.lexsort((self._ids[candidates], -scores[candidates]))
            chosen = candidates[order]
            ids = [int(i) for i in self._ids[chosen]]
            best = {int(self._ids[i]): float(scores[i]) for i in chosen}
            rows = self._touch(ids)
        return [Hit(score=best[row[0]], id=row[0], text=row[1], lesson=row[2], domain=row[3],
                    metadata=json.loads(row[4]) if row[4] else {})
                for row in sorted(rows, key=lambda row: ids.index(row[0]))]

    def _touch(self, ids: list[int]) -> list[tuple]:
        """Count a use of each hit (the best one becomes the most recent) and read its fields.
        Access counts do not change vectors: readers need not refresh. They are bookkeeping, so
        this commit skips the disk flush (``synchronous=NORMAL``: after a power cut the last counts
        may be lost, never the lessons; a killed process loses nothing)."""
        self.conn.execute("PRAGMA synchronous=NORMAL")
        try:
            return self._touch_rows(ids)
        finally:
            self.conn.execute("PRAGMA synchronous=FULL")

    def _touch_rows(self, ids: list[int]) -> list[tuple]:
        with self._transaction() as conn:
            tick = self._tick(conn)
            conn.executemany(
                "UPDATE entries SET access_count = access_count + 1, last_used = ? WHERE id = ?",
                [(tick + rank, i) for rank, i in enumerate(reversed(ids))])
            return conn.execute(
                "SELECT id, text, lesson, domain, metadata FROM entries "
                f"WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall()

    def __len__(self) -> int:
        with self._lock:
            return self.conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]

    def entries(self) -> list[Entry]:
        """Every stored lesson, oldest first, with its access count."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT id, text, lesson, domain, metadata, access_count, last_used, created_at "
                "FROM entries ORDER BY id").fetchall()
        return [Entry(id=r[0], text=r[1], lesson=r[2], domain=r[3],
                      metadata=json.loads(r[4]) if r[4] else {}, access_count=r[5],
                      last_used=r[6], created_at=r[7]) for r in rows]

    def clear(self) -> None:
        """Remove every lesson (the file, its embedder and schema stay)."""
        with self._transaction() as conn:
            self._changed(conn, conn.execute("DELETE FROM entries").rowcount)

    def export_json(self, path: str | Path) -> int:
        """Write every lesson (no vectors) to a JSON file, atomically; the number written."""
        path = Path(path)
        if self.path != ":memory:" and path.resolve() == Path(self.path).resolve():
            raise MemoryFileError("export_json ne peut pas écraser la base elle-même : choisissez un "
                                  "autre chemin (par exemple memoire.json).")
        entries = self.entries()
        payload = {
            "format": files.FORMAT,
            "version": files.SCHEMA_VERSION,
            "embedder": {"name": self.embedder.name, "dim": int(self.embedder.dim)},
            "entries": [
                {"text": e.text, "lesson": e.lesson, "domain": e.domain, "metadata": e.metadata,
                 "access_count": e.access_count}
                for e in entries
            ],
        }
        files.write_json_atomically(path, payload)
        return len(entries)

    def import_json(self, path: str | Path) -> int:
        """Add the lessons of an exported memory or of the original course's JSON memory, in one
        transaction (all or nothing); texts are re-embedded with this memory's embedder."""
        records = files.read_records(path)
        if not records:
            return 0
        vectors = self.embedder.embed([searchable(record.text, record.lesson) for record in records])

        with self._transaction() as conn:
            tick = self._tick(conn)
            now = time.time()
            conn.executemany(
                "INSERT INTO entries (text, lesson, domain, metadata, vector, created_at, last_used, "
                "access_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.text, r.lesson, r.domain,
                  json.dumps(r.metadata, ensure_ascii=False) if r.metadata else None,
                  _blob(v), now, tick + n, r.access_count)
                 for n, (r, v) in enumerate(zip(records, vectors))],
            )
            self._changed(conn, self._evict(conn, keep=-1))
        return len(records)

    @property
    def size_bytes(self) -> int:
        """Bytes on disk (database plus its write-ahead log); 0 for an in-memory store."""
        if self.path == ":memory:":
            return 0
        base = Path(self.path)
        return sum(p.stat().st_size for p in (base, base.with_name(base.name + "-wal")) if p.exists())

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "VectorMemory":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "fermée" if self._conn is None else f"{len(self)} leçons"
        limit = f", max_entries={self.max_entries}" if self.max_entries else ""
        return f"VectorMemory({str(self.path)!r}, {self.embedder!r}{limit}) — {state}"
