"""Saved texts of the profile files (table ``profile_versions``); the files themselves live on disk.

engine/agents/profile.py writes the files and journals each edit; these functions are its SQL.
"""

from __future__ import annotations

import sqlite3


def add_version(db: sqlite3.Connection, file: str, at: float, actor: str, content_hash: str, text: str) -> int:
    """Keep one saved text of ``file``; returns its revision (how many texts of the file are kept now)."""
    db.execute("INSERT INTO profile_versions (file, at, actor, content_hash, text) VALUES (?, ?, ?, ?, ?)",
               (file, at, actor, content_hash, text))
    return db.execute("SELECT count(*) FROM profile_versions WHERE file = ?", (file,)).fetchone()[0]


def versions(db: sqlite3.Connection, file: str) -> list[tuple[str, float, str, str, str]]:
    """(file, at, actor, content_hash, text) of every saved text of ``file``, oldest first."""
    return db.execute("SELECT file, at, actor, content_hash, text FROM profile_versions WHERE file = ? ORDER BY id",
                      (file,)).fetchall()
