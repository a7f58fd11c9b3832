"""Session snapshots (table ``session_snapshots``, written once per session) and the fact lists they draw on.

engine/agents/snapshot.py composes and journals a snapshot; these functions are its SQL.
"""

from __future__ import annotations

import sqlite3

_LIVE = "status = 'active' AND (expires_at IS NULL OR expires_at > ?)"


def open_todo_ids(db: sqlite3.Connection, now: float, limit: int) -> list[int]:
    """Live facts tagged ``todo``, oldest first."""
    return [r[0] for r in db.execute(
        # json_each raises on one damaged row, which would fail the whole snapshot: read it as no tags
        f"SELECT id FROM facts WHERE {_LIVE} AND EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(facts.tags) "
        f"THEN facts.tags ELSE '[]' END) WHERE json_each.value = 'todo') ORDER BY id LIMIT ?", (now, limit))]


def recent_ids(db: sqlite3.Connection, now: float, limit: int) -> list[int]:
    """Live facts, most recently reinforced first."""
    return [r[0] for r in db.execute(
        f"SELECT id FROM facts WHERE {_LIVE} ORDER BY last_reinforced DESC, id DESC LIMIT ?", (now, limit))]


def frozen_row(db: sqlite3.Connection, session_id: str) -> tuple | None:
    """(session_id, text, cited JSON, created_at, query, max_chars) of the session's snapshot, if frozen."""
    return db.execute("SELECT session_id, text, cited, created_at, query, max_chars FROM session_snapshots "
                      "WHERE session_id = ?", (session_id,)).fetchone()


def insert_once(db: sqlite3.Connection, session_id: str, created_at: float, actor: str, query: str | None,
                max_chars: int, text: str, cited_json: str) -> bool:
    """Store the session's snapshot unless it has one already; True when this call stored it."""
    return db.execute(
        "INSERT OR IGNORE INTO session_snapshots (session_id, created_at, actor, query, max_chars, text, cited) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", (session_id, created_at, actor, query, max_chars,
                                         text, cited_json)).rowcount == 1
