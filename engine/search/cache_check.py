"""Whether a loaded vector cache says what the file says, row by row.

The cache's checksums catch damage, not an edit: someone who changes a row and recomputes the
CRC (the format is documented) changed what search ranks, and nothing noticed. So rows of the
cache are compared with the facts they stand for: the fact is active, its stored vector is the
row's within the rounding its storage type allows (worked out from the file's vector, not from
anything the cache says), and the ranking columns equal the file's. An open compares a random
sample (a swapped or rebuilt-elsewhere cache fails at once; one edited row is caught in time),
``memlens verify`` compares every row.
"""

from __future__ import annotations

import sqlite3
from typing import Iterable

import numpy as np

from engine.search.vectors import HALF_ERROR, VectorIndex
from engine.store.decay import decay_rate
from engine.store.records import vector_columns

SAMPLE_ROWS = 256
_CHUNK = 2048
_FLOAT32_SLACK = 1e-6


def disagreeing(index: VectorIndex, db: sqlite3.Connection, model_id: str, positions: np.ndarray,
                skip: Iterable[int] = ()) -> list[int]:
    """Fact ids of the index rows at ``positions`` (``skip``: facts changed since the cache was made)
    that the file does not back: a fact missing or not active, another vector, other ranking columns."""
    skipped = set(skip)
    bad: list[int] = []
    for start in range(0, len(positions), _CHUNK):
        rows = np.asarray(positions[start:start + _CHUNK])
        ids = index.ids[rows].tolist()
        stored = vector_columns(db, ids, "status, embedding_model, last_reinforced, confidence, kind")
        cached, meta = index.vectors_at(rows), index.meta[rows]
        for k, fact_id in enumerate(ids):
            if fact_id in skipped:
                continue
            row = stored.get(fact_id)
            if (row is None or row["status"] != "active" or row["embedding_model"] != model_id
                    or not isinstance(row["embedding"], bytes) or len(row["embedding"]) != 4 * index.dim):
                bad.append(fact_id)
                continue
            vector = np.frombuffer(row["embedding"], dtype=np.float32)
            if (np.linalg.norm(cached[k] - vector) > _allowed(index, vector)
                    or (meta[k, 0], meta[k, 1], meta[k, 2]) != (row["last_reinforced"], row["confidence"],
                                                               decay_rate(row["kind"]))):
                bad.append(fact_id)
    return bad


def _allowed(index: VectorIndex, vector: np.ndarray) -> float:
    """How far a stored row may be from its vector: the rounding of the storage type."""
    dtype = index.matrix.dtype
    if dtype == np.int8:  # each component within half a step of max|v|/127
        return float(np.abs(vector).max()) / 127 * 0.5 * np.sqrt(index.dim) * 1.01 + _FLOAT32_SLACK
    if dtype == np.float16:
        return HALF_ERROR * float(np.linalg.norm(vector)) * 1.01 + _FLOAT32_SLACK
    return _FLOAT32_SLACK


def sample(size: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """Random row positions to compare at an open."""
    rng = rng or np.random.default_rng()
    return rng.choice(size, SAMPLE_ROWS, replace=False) if size > SAMPLE_ROWS else np.arange(size)
