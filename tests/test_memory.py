"""VectorMemory and the embedders as a lesson uses them: add, search, persist, evict, export."""

from __future__ import annotations

import json

import numpy as np
import pytest

from course_utils.memory import (
    EmbeddingError,
    HashingEmbedder,
    Hit,
    MemoryFileError,
    OpenAIEmbedder,
    VectorMemory,
    hits_at_k,
)
from course_utils.memory.synthetic import FAMILIES, synthetic_lessons
from course_utils.offline import OfflineModel
from course_utils.offline.embeddings import embed as simulator_embed

BOUNDS = ("Écris `somme_bornes(a, b)` : la somme des entiers de a à b inclus.",
          "range(a, b) exclut b : pour une borne incluse, écrire range(a, b + 1).")
ORDER = ("Écris `fizzbuzz_etendu(n)` avec les règles 3, 5 et 7.",
         "Les étiquettes se concatènent dans l'ordre 3, 5, 7 : « FizzBuzz », pas « BuzzFizz ».")
EMPTY = ("Écris `moyenne(valeurs)` : 0 pour une liste vide.",
         "Une liste vide fait lever ZeroDivisionError : tester le cas vide avant de diviser.")


@pytest.fixture
def memory(tmp_path):
    with VectorMemory(tmp_path / "memoire.db", HashingEmbedder()) as store:
        yield store


def test_hashing_embedder_is_deterministic_unit_norm_float32_and_matches_the_simulator():
    embedder = HashingEmbedder()
    vectors = embedder.embed(["bornes incluses", "Bornes INCLUSES !", ""])
    assert vectors.dtype == np.float32 and vectors.shape == (3, embedder.dim == 256 and 256)
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-6)
    assert np.allclose(vectors[0], vectors[1])  # case and punctuation folded
    assert not vectors[2].any()  # no word: zeros, which match nothing
    assert np.allclose(vectors[0], simulator_embed("bornes incluses"), atol=1e-7)
    assert HashingEmbedder(64).embed("x").shape == (1, 64) and HashingEmbedder(64).name == "hashing-64"
    with pytest.raises(ValueError):
        HashingEmbedder(0)


def test_search_returns_the_lesson_of_the_same_pitfall_first(memory):
    ids = [memory.add(*pair, domain="code") for pair in (BOUNDS, ORDER, EMPTY)]
    assert ids == sorted(ids) and len(memory) == 3
    hits = memory.search("Écris `compte_pairs(n)` : les nombres pairs de 1 à n inclus (borne comprise).", k=2)
    assert isinstance(hits[0], Hit) and hits[0].lesson == BOUNDS[1]
    assert hits[0].id == ids[0] and hits[0].domain == "code" and hits[0].text == BOUNDS[0]
    assert len(hits) == 2 and hits[0].score >= hits[1].score


def test_threshold_k_and_domain_filter(memory):
    memory.add(*BOUNDS, domain="code", metadata={"probleme": "somme_bornes"})
    memory.add(*EMPTY, domain="maths")
    query = "entiers de a à b inclus, liste vide"
    assert len(memory.search(query, k=5)) == 2
    assert memory.search(query, k=0) == []
    assert [h.domain for h in memory.search(query, k=5, domain="maths")] == ["maths"]
    assert memory.search(query, domain="histoire") == []
    assert memory.search(query, threshold=0.99) == []
    assert memory.search("?!", k=3) == []  # a query without any word scores 0: no hit above 0
    assert memory.search(query, domain="code")[0].metadata == {"probleme": "somme_bornes"}


def test_lessons_persist_across_reopening(tmp_path):
    path = tmp_path / "memoire.db"
    with VectorMemory(path, HashingEmbedder()) as first:
        first.add(*BOUNDS)
    with VectorMemory(path, HashingEmbedder()) as second:
        assert len(second) == 1
        assert second.search("borne incluse range")[0].lesson == BOUNDS[1]


def test_a_second_handle_sees_rows_added_by_the_first(tmp_path):
    path = tmp_path / "memoire.db"
    with VectorMemory(path) as writer, VectorMemory(path) as reader:
        writer.add(*BOUNDS)
        assert [h.lesson for h in reader.search("range borne")] == [BOUNDS[1]]
        writer.add(*EMPTY)  # appended: the reader's matrix grows
        assert len(reader.search("liste vide ZeroDivisionError range borne", k=5)) == 2
        writer.clear()  # removed: the reader reloads
        assert reader.search("range borne") == [] and len(reader) == 0


def test_lru_eviction_keeps_the_recently_used_lessons(tmp_path):
    with VectorMemory(tmp_path / "m.db", max_entries=2) as memory:
        bounds = memory.add(*BOUNDS)
        order = memory.add(*ORDER)
        memory.search("borne incluse range", k=1)  # uses BOUNDS: ORDER is now the least recent
        memory.add(*EMPTY)
        entries = {e.id: e for e in memory.entries()}
        assert len(memory) == 2 and set(entries) == {bounds, order + 1}
        assert entries[bounds].access_count == 1 and entries[order + 1].access_count == 0
    with pytest.raises(ValueError):
        VectorMemory(":memory:", max_entries=0)


def test_export_then_import_round_trip_with_another_embedder(tmp_path, memory):
    memory.add(*BOUNDS, domain="code", metadata={"famille": "bornes_inclusives"})
    memory.add(*ORDER, domain="code")
    memory.search("range borne", k=1)
    assert memory.export_json(tmp_path / "export.json") == 2
    data = json.loads((tmp_path / "export.json").read_text(encoding="utf-8"))
    assert data["format"] == "course_utils.memory" and data["embedder"]["name"] == "hashing-256"
    with VectorMemory(tmp_path / "autre.db", HashingEmbedder(64)) as other:
        assert other.import_json(tmp_path / "export.json") == 2
        entries = other.entries()
        assert [e.lesson for e in entries] == [BOUNDS[1], ORDER[1]]
        assert entries[0].metadata == {"famille": "bornes_inclusives"} and entries[0].access_count == 1
        assert other.search("range borne")[0].lesson == BOUNDS[1]
    with pytest.raises(MemoryFileError, match="écraser"):
        memory.export_json(memory.path)


def test_import_reads_the_original_course_json_and_is_all_or_nothing(tmp_path, memory):
    original = [{"task": BOUNDS[0], "lesson": BOUNDS[1], "embedding": [0.1] * 8, "score": 1.0},
                {"task": ORDER[0], "reflection": ORDER[1]}]
    (tmp_path / "memory.json").write_text(json.dumps(original), encoding="utf-8")
    assert memory.import_json(tmp_path / "memory.json") == 2
    assert memory.entries()[0].metadata == {"score": 1.0}
    (tmp_path / "bad.json").write_text(json.dumps([{"task": "x", "lesson": "y"}, 42]), encoding="utf-8")
    with pytest.raises(MemoryFileError, match="n° 2"):
        memory.import_json(tmp_path / "bad.json")
    (tmp_path / "cut.json").write_text('[{"task": "x", "less', encoding="utf-8")
    with pytest.raises(MemoryFileError, match="pas un JSON lisible"):
        memory.import_json(tmp_path / "cut.json")
    assert len(memory) == 2


def test_closed_memory_says_so(tmp_path):
    memory = VectorMemory(tmp_path / "m.db")
    memory.close()
    with pytest.raises(MemoryFileError, match="fermée"):
        memory.add("a", "b")


def test_openai_embedder_through_the_simulator_endpoint_is_batched():
    client = OfflineModel(seed=0).client()
    embedder = OpenAIEmbedder(client, "offline-embed", batch_size=2)
    texts = ["bornes incluses", "ordre des règles", "liste vide", "arrondi"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (4, 256) and embedder.dim == 256 and embedder.requests == 2
    assert np.allclose(vectors, HashingEmbedder().embed(texts), atol=1e-6)
    assert embedder.name == "openai:offline-embed" and embedder.prompt_tokens > 0
    with VectorMemory(":memory:", embedder) as memory:
        memory.add(*BOUNDS)
        assert memory.search("range borne")[0].lesson == BOUNDS[1]


def test_openai_embedder_explains_a_backend_without_embeddings():
    client = OfflineModel(seed=0).client()
    with pytest.raises(EmbeddingError, match="COURSE_EMBEDDING_MODEL") as info:
        OpenAIEmbedder(client, "offline-fast").embed(["x"])
    assert "ne fournit pas d'embeddings" in str(info.value) and "HashingEmbedder" in str(info.value)


def test_hits_at_k_on_synthetic_families():
    stored = [(s.text + "\n" + s.lesson, s.family) for s in synthetic_lessons(70, seed=1)]
    queries = [(s.text, s.family) for s in synthetic_lessons(35, seed=2)]
    at_1 = hits_at_k(HashingEmbedder(), stored, queries, k=1)
    at_5 = hits_at_k(HashingEmbedder(), stored, queries, k=5)
    assert 1 / len(FAMILIES) < at_1 <= at_5 <= 1.0  # better than chance, monotone in k
    assert hits_at_k(HashingEmbedder(), [], queries) == 0.0


def test_openai_embedder_explains_a_server_without_the_endpoint_and_other_failures():
    missing = OpenAIEmbedder(OfflineModel(seed=0, faults=[404]).client(), "offline-embed")
    with pytest.raises(EmbeddingError, match="ne fournit pas d'embeddings") as info:
        missing.embed(["x"])
    assert "(404)" in str(info.value)
    refused = OpenAIEmbedder(OfflineModel(seed=0, faults=[401]).client(), "offline-embed")
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        refused.embed(["x"])
