"""The full-text index (``facts_fts``): the FTS5 queries search runs, and nothing else.

The match expression is built by ``engine.search.fts`` (pure string work); these
functions only run it. The query texts are tuned: keep them as they are.
"""

from __future__ import annotations

import sqlite3
from typing import Any


def content_mark(db: sqlite3.Connection) -> int:
    """The largest fact id: facts are never deleted nor their text changed, so it identifies the index's content."""
    return db.execute("SELECT coalesce(max(id), 0) FROM facts").fetchone()[0]


def match_count(db: sqlite3.Connection, expression: str, cap: int) -> int:
    """Documents matching ``expression``, counted up to ``cap``."""
    return db.execute("SELECT count(*) FROM (SELECT 1 FROM facts_fts WHERE facts_fts MATCH ? LIMIT ?)",
                      (expression, cap)).fetchone()[0]


def ranked_matches(db: sqlite3.Connection, expression: str, limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25) of every fact matching, best first; FTS5 orders by rank itself, no join."""
    return db.execute("SELECT rowid, bm25(facts_fts) AS rank FROM facts_fts WHERE facts_fts MATCH ? "
                      "ORDER BY rank LIMIT ?", (expression, limit)).fetchall()


def ranked_matches_where(db: sqlite3.Connection, expression: str, where: str, params: list[Any],
                         limit: int) -> list[tuple[int, float]]:
    """(rowid, bm25) of the matching facts that also pass ``where`` (a clause over ``facts`` built
    by the caller from constants, its values in ``params``), best first."""
    return db.execute(
        f"SELECT facts_fts.rowid, bm25(facts_fts) AS rank FROM facts_fts JOIN facts ON facts.id = facts_fts.rowid "
        f"WHERE facts_fts MATCH ? AND {where} ORDER BY rank LIMIT ?",
        [expression, *params, limit]).fetchall()


def fact_texts_after(db: sqlite3.Connection, mark: int, limit: int = -1) -> list[tuple[int, str]]:
    """(id, text) of the facts with an id above ``mark``, by id (the first ``limit``; -1: all): what the
    in-memory text index adds. Every fact, whatever its status: ``facts_fts`` holds them all."""
    return db.execute("SELECT id, text FROM facts WHERE id > ? ORDER BY id LIMIT ?", (mark, limit)).fetchall()
