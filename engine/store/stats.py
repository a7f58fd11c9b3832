"""Counts of what a memory file holds, and the facts search cannot use."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any


def counts(db: sqlite3.Connection, model_id: str, vector_bytes: int) -> dict[str, Any]:
    return {**record_counts(db, model_id), **vector_health(db, model_id, vector_bytes)}


def record_counts(db: sqlite3.Connection, model_id: str) -> dict[str, Any]:
    """Facts by status, edges, entities and plans: each counted from an index, without reading a row
    (1M facts: 0.15 s)."""
    statuses = Counter({s: n for s, n in db.execute("SELECT status, count(*) FROM facts GROUP BY status")})
    return {"facts": sum(statuses.values()), "by_status": dict(statuses),
            "edges": db.execute("SELECT count(*) FROM edges").fetchone()[0],
            "entities": db.execute("SELECT count(*) FROM entities").fetchone()[0],
            "plans": db.execute("SELECT count(*) FROM plans").fetchone()[0],
            "embedding_model": model_id}


def vector_health(db: sqlite3.Connection, model_id: str, vector_bytes: int) -> dict[str, int]:
    """Facts search cannot use: no vector or another model's (``needs_reembedding``), or one of the wrong
    length (``damaged_vectors``). No index holds a vector's model and length, so this reads every row
    (1M facts: 2 s, most of the file's pages)."""
    stale, damaged = db.execute(
        "SELECT coalesce(sum(f.embedding_model IS NOT ? OR v.vector IS NULL), 0), "
        "coalesce(sum(f.embedding_model = ? AND length(v.vector) != ?), 0) "
        "FROM facts f LEFT JOIN fact_vectors v ON v.fact_id = f.id",
        (model_id, model_id, vector_bytes)).fetchone()
    return {"needs_reembedding": stale, "damaged_vectors": damaged}


def vector_problems(db: sqlite3.Connection, model_id: str, vector_bytes: int, limit: int) -> list[tuple[int, str]]:
    """(fact id, what is wrong) for facts with no vector, another model's, or one of the wrong length."""
    rows = db.execute(
        "SELECT f.id, f.embedding_model, length(v.vector) FROM facts f LEFT JOIN fact_vectors v ON v.fact_id = f.id "
        "WHERE v.vector IS NULL OR f.embedding_model IS NOT ? OR length(v.vector) != ? ORDER BY f.id LIMIT ?",
        (model_id, vector_bytes, limit)).fetchall()
    found = []
    for fact_id, model, length in rows:
        if length is None:
            found.append((fact_id, "has no vector; it needs embedding"))
        elif model != model_id:
            found.append((fact_id, f"was embedded by {model or 'an unknown model'}, not {model_id}; "
                                   f"it needs re-embedding"))
        else:
            found.append((fact_id, f"its vector is damaged: {length} byte{'s' * (length != 1)}, "
                                   f"where {model_id} makes {vector_bytes}"))
    return found


def fact_and_edge_counts(db: sqlite3.Connection) -> tuple[int, int]:
    """(facts, edges) in one statement, as an export's header states them."""
    facts, edges = db.execute("SELECT (SELECT count(*) FROM facts), (SELECT count(*) FROM edges)").fetchone()
    return facts, edges


def fact_count(db: sqlite3.Connection) -> int:
    return db.execute("SELECT count(*) FROM facts").fetchone()[0]
