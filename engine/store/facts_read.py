"""Selections of fact rows by condition (records.py loads them by id): the SQL that reads them.

``where`` arguments are clauses over ``facts`` that callers build from constants
(e.g. ``SearchFilters.sql()`` in engine/search/hybrid.py), never from user text;
their values always travel as bound parameters.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable, Iterator

from engine.store.records import FACT_COLUMNS


def ids_where(db: sqlite3.Connection, where: str, params: list[Any]) -> Iterator[int]:
    """Ids of the facts passing ``where``, streamed from the cursor."""
    return (r[0] for r in db.execute(f"SELECT id FROM facts WHERE {where}", params))


# What a listing can be ordered by, and the SQL sort key of each; ties go by id, in the same direction.
LISTING_ORDERS = {"id": "id", "created_at": "created_at", "confidence": "confidence", "scope": "scope",
                  "kind": "kind", "status": "status", "text": "lower(text)"}


def decay_inputs_where(db: sqlite3.Connection, where: str, params: list[Any], order_by: str = "id",
                       descending: bool = True) -> list[tuple[int, float, str, float]]:
    """(id, confidence, kind, last_reinforced) of the facts passing ``where``, in the order SQLite sorts them
    by ``order_by`` (a key of ``LISTING_ORDERS``; KeyError otherwise), newest first by default."""
    key, direction = LISTING_ORDERS[order_by], "DESC" if descending else "ASC"
    order = f"{key} {direction}" + (f", id {direction}" if key != "id" else "")
    return db.execute(f"SELECT id, confidence, kind, last_reinforced FROM facts WHERE {where} ORDER BY {order}",
                      params).fetchall()


def ids_in_order(db: sqlite3.Connection, where: str, params: list[Any], order_by: str = "id",
                 descending: bool = True) -> list[int]:
    """Ids alone of the facts passing ``where``, in ``decay_inputs_where``'s order: by id, SQLite reads
    them from the status index without touching the rows (a 1M-fact listing in about a second)."""
    key, direction = LISTING_ORDERS[order_by], "DESC" if descending else "ASC"
    order = f"{key} {direction}" + (f", id {direction}" if key != "id" else "")
    cursor = db.cursor()
    cursor.row_factory = None  # plain tuples: a sqlite3.Row per id doubles the time of a million of them
    return [r[0] for r in cursor.execute(f"SELECT id FROM facts WHERE {where} ORDER BY {order}", params)]


def fact_exists(db: sqlite3.Connection, fact_id: int) -> bool:
    return db.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is not None


def statuses(db: sqlite3.Connection, fact_ids: list[int]) -> Iterable[tuple[int, str]]:
    """(id, status) of these facts (at most a few hundred ids)."""
    return db.execute(f"SELECT id, status FROM facts WHERE id IN ({','.join('?' * len(fact_ids))})", fact_ids)


def active_rows(db: sqlite3.Connection, columns: str, where: str = "", params: Iterable[Any] = ()) -> list[sqlite3.Row]:
    """Some columns of the active facts, by id (``columns`` and ``where`` are constants of the caller)."""
    extra = f" AND ({where})" if where else ""
    return db.execute(f"SELECT id, {columns} FROM facts WHERE status = 'active'{extra} ORDER BY id",
                      list(params)).fetchall()


def run_sessions(db: sqlite3.Connection) -> list[tuple[str, float]]:
    """(session id, last created or reinforced) of each session with active run-scope facts, least recent first."""
    return db.execute("SELECT session_id, max(max(created_at, last_reinforced)) AS last FROM facts "
                      "WHERE scope = 'run' AND session_id IS NOT NULL GROUP BY session_id "
                      "HAVING sum(status = 'active') > 0 ORDER BY last, session_id").fetchall()


def status_of(db: sqlite3.Connection, fact_id: int) -> str:
    """One fact's status (the fact must exist)."""
    return db.execute("SELECT status FROM facts WHERE id = ?", (fact_id,)).fetchone()[0]


def tags_column(db: sqlite3.Connection, fact_id: int) -> Any:
    """One fact's stored ``tags`` column, unparsed (the fact must exist)."""
    return db.execute("SELECT tags FROM facts WHERE id = ?", (fact_id,)).fetchone()[0]


def all_facts(db: sqlite3.Connection) -> Iterator[sqlite3.Row]:
    """Every fact's row (``FACT_COLUMNS``, for ``fact_from_row``) by id, streamed from the cursor."""
    return db.execute(f"SELECT {FACT_COLUMNS} FROM facts ORDER BY id")
