"""How VectorMemory stores its vectors: float32, exact, without the zeros when that is shorter."""

from __future__ import annotations

import hashlib
import sqlite3

import numpy as np
import pytest

from course_utils.memory import HashingEmbedder, MemoryFileError, VectorMemory
from course_utils.memory.synthetic import synthetic_lessons
from course_utils.memory.vectors import VectorBlobError, decode, encode


@pytest.mark.parametrize("dim", [1, 7, 8, 9, 256, 1536])
@pytest.mark.parametrize("density", [0.0, 0.05, 0.35, 0.9, 1.0])
def test_every_vector_comes_back_bit_for_bit_and_never_longer_than_dense(dim, density):
    rng = np.random.default_rng(dim)
    vectors = rng.standard_normal((40, dim)).astype(np.float32)
    vectors *= rng.random((40, dim)) < density  # zeros, some of them negative zeros
    blobs = [encode(vector) for vector in vectors]
    back = decode(blobs, dim)
    assert back.dtype == np.float32
    assert np.array_equal(back.view(np.uint32), vectors.view(np.uint32))
    assert all(len(blob) <= 4 * dim for blob in blobs)


def test_hashing_vectors_take_less_than_half_their_dense_size_and_dense_ones_stay_dense():
    embedder = HashingEmbedder()
    texts = [f"{item.text}\n{item.lesson}" for item in synthetic_lessons(200, seed=3)]
    sizes = [len(encode(vector)) for vector in embedder.embed(texts)]
    assert max(sizes) < 2 * embedder.dim  # < half of 4 bytes × 256
    dense = np.ones(1536, dtype=np.float32) / np.sqrt(1536)
    assert len(encode(dense)) == 4 * 1536


@pytest.mark.parametrize(("blob", "dim"), [
    (b"\x01" * 5, 256),  # shorter than the bitmap
    (b"\xff" * 32, 256),  # 256 components announced, none given
    (b"\x01" + b"\0" * 31 + b"abcdabcd", 256),  # one announced, two given
    (b"\x01" + b"\0" * 31 + b"abcdab", 256),  # not whole float32 values
    (b"\0" * 31 + b"\x80" + b"abcd", 250),  # a component beyond the dimension
])
def test_a_blob_that_fits_neither_layout_is_refused(blob, dim):
    with pytest.raises(VectorBlobError):
        decode([encode(np.ones(dim, dtype=np.float32)), blob], dim)


def test_a_store_with_dense_blobs_still_reads_and_mixes_with_new_lessons(tmp_path):
    """Files written before vectors were stored without zeros hold dense blobs only."""
    path = tmp_path / "ancienne.db"
    embedder = HashingEmbedder()
    texts = ["range(a, b) exclut b : écrire range(a, b + 1).", "tester la liste vide avant de diviser."]
    with VectorMemory(path, embedder) as memory:
        memory.add("bornes", texts[0])
    with sqlite3.connect(path) as raw:  # rewrite that row as an older version stored it
        vector = embedder.embed([f"bornes\n{texts[0]}"])[0]
        raw.execute("UPDATE entries SET vector = ?", (vector.astype("<f4").tobytes(),))
    query = "range(a, b) exclut b"
    with VectorMemory(path, embedder) as memory:
        memory.add("moyenne", texts[1])
        hits = memory.search(query, k=2)
    assert [hit.text for hit in hits] == ["bornes", "moyenne"]
    assert hits[0].score == pytest.approx(float(vector @ embedder.embed([query])[0]), abs=1e-6)


def test_a_corrupted_vector_is_refused_in_french_and_the_file_left_unchanged(tmp_path):
    path = tmp_path / "abimee.db"
    with VectorMemory(path, HashingEmbedder()) as memory:
        memory.add("bornes", "range(a, b) exclut b.")
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE entries SET vector = ?", (b"\x07" * 33,))
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with VectorMemory(path, HashingEmbedder()) as memory:
        with pytest.raises(MemoryFileError, match="corrompue.*n'a pas été modifié"):
            memory.search("bornes incluses")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
