"""What a store must survive: a writer killed mid-stream, two writers at once, files that are not
memories (each refused in French, byte for byte unchanged)."""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from course_utils.memory import HashingEmbedder, MemoryFileError, VectorMemory

WRITER = textwrap.dedent("""
    import sys
    from course_utils.memory import VectorMemory, HashingEmbedder
    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    memory = VectorMemory(path, HashingEmbedder())
    for n in range(count):
        new_id = memory.add(f"tâche {tag} {n} : somme de a à b inclus", f"leçon {tag} {n}",
                            domain=tag)
        print(new_id, flush=True)  # acknowledged: add() has returned
""")


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def writer(path, tag, count):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_writer_killed_mid_stream_loses_no_acknowledged_write(tmp_path):
    path = tmp_path / "memoire.db"
    VectorMemory(path).close()
    process = writer(path, "k", 1_000_000)
    acknowledged = []
    for line in process.stdout:
        acknowledged.append(int(line))
        if len(acknowledged) == 300:
            process.send_signal(signal.SIGKILL)  # in the middle of the stream of writes
            break
    process.wait()
    assert process.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with VectorMemory(path) as memory:
        stored = {entry.id for entry in memory.entries()}
        assert set(acknowledged) <= stored
        assert len(memory) >= 300
        assert memory.search("leçon k 299", k=1)


def test_two_processes_adding_1000_lessons_each_give_2000_rows(tmp_path):
    path = tmp_path / "memoire.db"
    processes = [writer(path, tag, 1000) for tag in ("a", "b")]
    results = [process.communicate(timeout=600) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], [err for _, err in results]
    with VectorMemory(path) as memory:
        assert len(memory) == 2000
        domains = [entry.domain for entry in memory.entries()]
        assert domains.count("a") == domains.count("b") == 1000
        assert len({entry.id for entry in memory.entries()}) == 2000


def make_store(path, embedder=None):
    with VectorMemory(path, embedder or HashingEmbedder()) as memory:
        for n in range(200):
            memory.add(f"tâche {n} avec un texte assez long pour remplir des pages " * 3, f"leçon {n}")


def truncated(tmp_path):
    path = tmp_path / "tronque.db"
    make_store(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def random_bytes(tmp_path):
    path = tmp_path / "aleatoire.db"
    path.write_bytes(hashlib.sha512(b"seed").digest() * 64)
    return path


def original_json(tmp_path):
    path = tmp_path / "memory.json"
    path.write_text(json.dumps([{"task": "fizzbuzz", "lesson": "Résolu en 1 itération. Pitfall maîtrisé.",
                                 "embedding": [0.0, 1.0]}], indent=2), encoding="utf-8")
    return path


def other_dimension(tmp_path):
    path = tmp_path / "dim64.db"
    make_store(path, HashingEmbedder(64))
    return path


def foreign_sqlite(tmp_path):
    path = tmp_path / "autre_programme.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE clients (nom TEXT)")
        raw.execute("INSERT INTO clients VALUES ('Ada')")
    return path


def empty_file(tmp_path):
    path = tmp_path / "vide.db"
    path.touch()
    return path


@pytest.mark.parametrize(("make", "message"), [
    (truncated, "endommagée ou tronquée"),
    (random_bytes, "n'est pas un fichier de mémoire"),
    (original_json, "import_json"),
    (other_dimension, "dimension 64"),
    (foreign_sqlite, "autre programme"),
    (empty_file, "fichier vide"),
])
def test_a_file_that_is_not_this_memory_is_refused_in_french_and_left_unchanged(tmp_path, make, message):
    path = make(tmp_path)
    before = digest(path)
    with pytest.raises(MemoryFileError, match=message) as info:
        VectorMemory(path, HashingEmbedder())
    assert "n'a pas été modifié" in str(info.value)
    assert digest(path) == before
    with pytest.raises(MemoryFileError):  # and again: the refusal did not "repair" anything
        VectorMemory(path, HashingEmbedder())
    assert digest(path) == before
