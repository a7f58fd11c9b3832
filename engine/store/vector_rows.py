"""Stored vectors (``fact_vectors``, one per fact) of active facts, as the search index loads them.

The index reads every active vector of the current model once, in chunks
straight from the cursor; afterwards it follows the journal (store/journal.py)
and reads changed facts by id (records.fact_columns).
"""

from __future__ import annotations

import sqlite3
from typing import Iterator


def sample_lengths(db: sqlite3.Connection, model_id: str) -> Iterator[int]:
    """Byte lengths of a few active vectors of ``model_id`` (at most 64)."""
    return (r[0] for r in db.execute(
        "SELECT length(v.vector) FROM facts f JOIN fact_vectors v ON v.fact_id = f.id "
        "WHERE f.status = 'active' AND f.embedding_model = ? LIMIT 64", (model_id,)))


def active_count(db: sqlite3.Connection) -> int:
    """Active facts, counted on the status index (cheap; an upper bound of the vectors to load)."""
    return db.execute("SELECT count(*) FROM facts WHERE status = 'active'").fetchone()[0]


def active_vectors(db: sqlite3.Connection, model_id: str, vector_bytes: int) -> sqlite3.Cursor:
    """A cursor over (id, embedding, last_reinforced, confidence, kind, batch, text length) of every active fact
    with a ``vector_bytes``-long vector of ``model_id``; the caller reads it with ``fetchmany``."""
    query = ("SELECT f.id, v.vector, f.last_reinforced, f.confidence, f.kind, coalesce(f.plan_id, -f.id), "
             "length(f.text) FROM facts f JOIN fact_vectors v ON v.fact_id = f.id "
             "WHERE f.status = 'active' AND f.embedding_model = ? AND length(v.vector) = ?")
    return db.execute(query, (model_id, vector_bytes))


def active_ids_with_vectors(db: sqlite3.Connection, model_id: str, vector_bytes: int) -> Iterator[int]:
    """Ids of the active facts the index holds: those with a ``vector_bytes``-long vector of ``model_id``."""
    return (r[0] for r in db.execute("SELECT f.id FROM facts f JOIN fact_vectors v ON v.fact_id = f.id "
                                     "WHERE f.status = 'active' AND f.embedding_model = ? AND length(v.vector) = ?",
                                     (model_id, vector_bytes)))
