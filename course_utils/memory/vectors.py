"""How a vector is stored in a blob of ``VectorMemory``: float32 values, the zeros left out.

Two layouts, told apart by the blob's length (``dim`` is the embedder's dimension):

* **dense**: the ``dim`` values, float32 little-endian (``4 * dim`` bytes);
* **sparse**: a bitmap of ``ceil(dim / 8)`` bytes saying which components are not zero
  (bit ``j % 8`` of byte ``j // 8``), then those components' float32 values in order.

A vector is stored sparse only when that is strictly shorter than dense, so a sparse blob is
always shorter than ``4 * dim`` bytes and the two cannot be confused. Both are exact: decoding
gives back the float32 vector bit for bit. The hashing embedder's vectors fill about 90 of their
256 buckets, so a lesson's vector takes ~390 bytes instead of 1,024; an embeddings model's dense
vectors are stored dense. Decoding many blobs is vectorised (no Python loop over components).
"""

from __future__ import annotations

import numpy as np


class VectorBlobError(ValueError):
    """A blob that is neither layout for this dimension (a corrupted or foreign file)."""


def _bitmap_size(dim: int) -> int:
    return (dim + 7) // 8


def encode(vector: np.ndarray) -> bytes:
    """The blob of one vector (float32), in the shorter of the two layouts."""
    values = np.ascontiguousarray(vector, dtype="<f4").ravel()
    present = values.view("<u4") != 0  # a negative zero is kept: decoding is bit for bit
    count = int(present.sum())
    if _bitmap_size(len(values)) + 4 * count >= 4 * len(values):
        return values.tobytes()
    bitmap = np.packbits(present, bitorder="little").tobytes()
    return bitmap + values[present].tobytes()


def decode(blobs: list[bytes], dim: int) -> np.ndarray:
    """The float32 matrix (one row per blob) of ``blobs`` written by :func:`encode`.

    Raises :class:`VectorBlobError` when a blob fits neither layout for ``dim``.
    """
    matrix = np.zeros((len(blobs), dim), dtype=np.float32)
    if not blobs:
        return matrix
    lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    dense = lengths == 4 * dim
    if dense.all():
        return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(
            np.float32, copy=True)
    rows = np.flatnonzero(dense)
    if len(rows):
        matrix[rows] = np.frombuffer(b"".join(blobs[i] for i in rows), dtype="<f4").reshape(
            len(rows), dim)
    rows = np.flatnonzero(~dense)
    head = _bitmap_size(dim)
    sparse = [blobs[i] for i in rows]
    if (lengths[rows] < head).any() or ((lengths[rows] - head) % 4).any():
        raise VectorBlobError("vecteur illisible (taille inattendue)")
    bits = np.frombuffer(b"".join(blob[:head] for blob in sparse), dtype=np.uint8)
    present = np.unpackbits(bits.reshape(len(rows), head), axis=1, bitorder="little")
    if present[:, dim:].any():
        raise VectorBlobError("vecteur illisible (composante hors de la dimension)")
    present = present[:, :dim].astype(bool)
    if not np.array_equal(present.sum(axis=1), (lengths[rows] - head) // 4):
        raise VectorBlobError("vecteur illisible (valeurs et masque ne correspondent pas)")
    block = np.zeros((len(rows), dim), dtype=np.float32)
    block[present] = np.frombuffer(b"".join(blob[head:] for blob in sparse), dtype="<f4")
    matrix[rows] = block
    return matrix
