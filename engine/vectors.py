"""The in-memory vector index of active facts: one contiguous float32 matrix.

Search multiplies the whole matrix by the query once; writes add or drop rows
in place (amortised growth, swap-with-last removal), so nothing is rebuilt
per query.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
from threadpoolctl import threadpool_limits

# A query is one matrix-vector product: memory-bound, so a second BLAS thread buys little
# and, on a 2-core machine shared with the embedder and the GUI, costs ~5x in contention
# (measured: 10k x 384 product 0.5 ms on one thread, 3.8 ms on two under load).
_ONE_THREAD = threadpool_limits(limits=1, user_api="blas")


class VectorIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        # Per row: last_reinforced, confidence, decay rate: what ranking needs besides the vector.
        self._meta = np.zeros((0, 3), dtype=np.float64)
        self._row_of: dict[int, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __contains__(self, fact_id: int) -> bool:
        return fact_id in self._row_of

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: self._size]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self._size]

    @property
    def meta(self) -> np.ndarray:
        return self._meta[: self._size]

    def fill(self, total: int, chunks: Iterable[tuple[list[int], bytes, list[tuple]]]) -> None:
        """Load many rows at once: (ids, their vectors' bytes joined, meta rows) per chunk.

        The matrix is allocated once with room to grow and filled chunk by chunk,
        so opening a large memory neither loops per row nor holds two copies.
        """
        self._reserve(total + max(256, total // 8))
        for ids, blob, meta in chunks:
            n = len(ids)
            if self._size + n > len(self._matrix):
                self._reserve(n)
            rows = slice(self._size, self._size + n)
            self._matrix[rows] = np.frombuffer(blob, dtype=np.float32).reshape(n, self.dim)
            self._ids[rows] = ids
            self._meta[rows] = meta
            self._row_of.update(zip(ids, range(self._size, self._size + n)))
            self._size += n

    def rows_of(self, fact_ids: list[int]) -> list[int]:
        """Index rows of those ids that are indexed (active, with a current vector)."""
        return [r for r in map(self._row_of.get, fact_ids) if r is not None]

    def _reserve(self, extra: int) -> None:
        needed = self._size + extra
        if needed <= len(self._matrix):
            return
        capacity = max(needed, 2 * len(self._matrix), 256)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        ids = np.zeros(capacity, dtype=np.int64)
        meta = np.zeros((capacity, 3), dtype=np.float64)
        matrix[: self._size] = self._matrix[: self._size]
        ids[: self._size] = self._ids[: self._size]
        meta[: self._size] = self._meta[: self._size]
        self._matrix, self._ids, self._meta = matrix, ids, meta

    def add(self, fact_ids: list[int], vectors: np.ndarray, meta: np.ndarray | None = None) -> None:
        """Add or replace rows; ``vectors`` has one unit-length row per id, ``meta`` (last, confidence, rate)."""
        if len(fact_ids) == 0:
            return
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(fact_ids), self.dim)
        meta = np.zeros((len(fact_ids), 3)) if meta is None else np.asarray(meta, np.float64).reshape(-1, 3)
        self._reserve(len(fact_ids))
        for fact_id, vector, row_meta in zip(fact_ids, vectors, meta):
            row = self._row_of.get(fact_id)
            if row is None:
                row = self._size
                self._row_of[fact_id] = row
                self._ids[row] = fact_id
                self._size += 1
            self._matrix[row] = vector
            self._meta[row] = row_meta

    def remove(self, fact_ids: list[int]) -> None:
        for fact_id in fact_ids:
            row = self._row_of.pop(fact_id, None)
            if row is None:
                continue
            last = self._size - 1
            if row != last:
                moved = int(self._ids[last])
                self._matrix[row] = self._matrix[last]
                self._meta[row] = self._meta[last]
                self._ids[row] = moved
                self._row_of[moved] = row
            self._size = last

    def vector(self, fact_id: int) -> np.ndarray | None:
        row = self._row_of.get(fact_id)
        return None if row is None else self._matrix[row]

    def cosine(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every indexed fact with a unit-length query, aligned with ``ids``."""
        return self.matrix @ np.asarray(query, dtype=np.float32)

    def nearest_many(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """``nearest`` for a batch of queries with one matrix product (what makes batch absorb cheap)."""
        if self._size == 0 or k <= 0 or len(queries) == 0:
            return [[] for _ in range(len(queries))]
        scores = np.asarray(queries, dtype=np.float32) @ self.matrix.T
        k = min(k, self._size)
        top = np.argpartition(scores, self._size - k, axis=1)[:, self._size - k:]
        result = []
        for row, cols in enumerate(top):
            cols = cols[np.argsort(-scores[row, cols], kind="stable")]
            result.append([(int(self._ids[c]), float(scores[row, c])) for c in cols])
        return result
