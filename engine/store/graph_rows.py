"""Reads of the entity graph's tables (entities, entity_mentions, relations); store/entities.py writes them.

``fact_ids`` None means every fact; otherwise the caller passes at most a few
hundred ids (under SQLite's bound-parameter limit).
"""

from __future__ import annotations

import sqlite3
from typing import Iterable


def _of_facts(column: str, fact_ids: list[int] | None) -> tuple[str, list[int]]:
    if fact_ids is None:
        return "", []
    return f"WHERE {column} IN ({','.join('?' * len(fact_ids))})", list(fact_ids)


def mentions(db: sqlite3.Connection, fact_ids: list[int] | None) -> Iterable[tuple[int, str, int, str, str, str]]:
    """(fact id, fact status, entity id, name, normalised name, type) of each mention by these facts."""
    where, params = _of_facts("m.fact_id", fact_ids)
    return db.execute(
        f"SELECT m.fact_id, f.status, e.id, e.name, e.norm_name, e.type FROM entity_mentions m "
        f"JOIN facts f ON f.id = m.fact_id JOIN entities e ON e.id = m.entity_id {where}", params)


def relations(db: sqlite3.Connection, fact_ids: list[int] | None) -> Iterable[tuple[int, str, int, int]]:
    """(source entity, type, destination entity, fact id) of each relation these facts declare."""
    where, params = _of_facts("r.fact_id", fact_ids)
    return db.execute(f"SELECT r.src_entity, r.type, r.dst_entity, r.fact_id FROM relations r {where}", params)


def entities_mentioned_by(db: sqlite3.Connection, fact_id: int) -> list[int]:
    """Ids of the entities one fact mentions, ascending."""
    rows = db.execute("SELECT entity_id FROM entity_mentions WHERE fact_id = ? ORDER BY entity_id",
                      (fact_id,)).fetchall()
    return [r[0] for r in rows]
