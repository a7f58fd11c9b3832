"""Which lines of which input file each import plan came from (table ``import_chunks``, migration 5).

A row is written in the transaction that stores its plan, so a plan and its chunk record exist
together or not at all; whether the chunk is in the memory is the plan's status (applied or not),
which the applying transaction sets together with the writes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceFile:
    """An input file's identity: its resolved path (or a label such as ``<stdin>``), size and SHA-256."""
    source: str
    size: int
    sha256: str


def record_chunk(db: sqlite3.Connection, plan_id: int, source: SourceFile, first_line: int, last_line: int,
                 items: int) -> None:
    db.execute("INSERT INTO import_chunks (plan_id, source, size, sha256, first_line, last_line, items) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)",
               (plan_id, source.source, source.size, source.sha256, first_line, last_line, items))


def applied_chunks(db: sqlite3.Connection, source: SourceFile) -> list[tuple[int, int, int, int]]:
    """(plan id, first line, last line, items) of the applied chunk plans of ``source``, by first line."""
    return [tuple(row) for row in db.execute(
        "SELECT c.plan_id, c.first_line, c.last_line, c.items FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
        "WHERE c.sha256 = ? AND c.size = ? AND c.source = ? AND p.status = 'applied' ORDER BY c.first_line, c.plan_id",
        (source.sha256, source.size, source.source)).fetchall()]


def applied_overlapping(db: sqlite3.Connection, source: SourceFile, first_line: int, last_line: int) -> list[int]:
    """Plan ids of applied chunks of ``source`` sharing a line with ``first_line``..``last_line``:
    another run of the same import got there first."""
    return [row[0] for row in db.execute(
        "SELECT c.plan_id FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
        "WHERE c.sha256 = ? AND c.size = ? AND c.source = ? AND p.status = 'applied' "
        "AND c.first_line <= ? AND c.last_line >= ? ORDER BY c.plan_id",
        (source.sha256, source.size, source.source, last_line, first_line)).fetchall()]
