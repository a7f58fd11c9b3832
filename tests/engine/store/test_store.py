"""The store: schema, append-only triggers, and refusing files it cannot use."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from engine import Memory, StoreError
from engine.store.migrations import LATEST_VERSION


def _raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def test_new_memory_has_schema_wal_and_busy_timeout(memory: Memory, db_path: Path) -> None:
    memory.absorb(["Maya keeps her dotfiles in a private Git repository on her home server."])
    raw = _raw(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert memory.store.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_another_processs_edges_are_found_through_the_plan_index(memory: Memory, db_path: Path) -> None:
    from engine.store.journal import changes_between
    memory.absorb(["The staging cluster runs 3 replicas of the ingest service."])
    mark = memory.store.db.execute("SELECT max(id) FROM journal").fetchone()[0]
    plan = memory.absorb(["The staging cluster runs 5 replicas of the ingest service."])
    record = changes_between(memory.store.db, mark)
    assert record.edges_added and record.plans == [plan.id]
    query_plan = _raw(db_path).execute("EXPLAIN QUERY PLAN SELECT id FROM edges WHERE plan_id IN (?) ORDER BY id",
                                       (plan.id,)).fetchall()
    assert any("edges_by_plan" in row[-1] for row in query_plan)


@pytest.mark.parametrize("statement", [
    "DELETE FROM facts",
    "DELETE FROM edges",
    "DELETE FROM journal",
    "DELETE FROM plans",
    "DELETE FROM entities",
    "UPDATE facts SET text = 'rewritten history'",
    "UPDATE facts SET scope = 'user'",
    "UPDATE facts SET created_at = 0",
    "UPDATE facts SET content_hash = 'x'",
    "UPDATE facts SET id = id + 1000",
    "UPDATE journal SET action = 'nothing happened'",
    "UPDATE plans SET items = '[]'",
    "UPDATE edges SET type = 'related'",
])
def test_raw_sql_cannot_delete_or_rewrite_history(memory: Memory, db_path: Path, statement: str) -> None:
    memory.absorb([
        {"text": "Maya's preferred editor is VS Code for all of her backend work.",
         "subject": "Maya", "predicate": "preferred_editor", "object": "VS Code",
         "entities": [{"name": "Maya", "type": "person"}]},
        {"text": "Maya's preferred editor is Neovim for all of her backend work now.",
         "subject": "Maya", "predicate": "preferred_editor", "object": "Neovim"},
    ])
    raw = _raw(db_path)
    before = raw.execute("SELECT count(*), group_concat(text) FROM facts").fetchone()
    with pytest.raises(sqlite3.IntegrityError, match="memlens"):
        raw.execute(statement)
    assert raw.execute("SELECT count(*), group_concat(text) FROM facts").fetchone() == before


def test_status_and_counters_may_change(memory: Memory, db_path: Path) -> None:
    memory.absorb(["The ingest service writes to PostgreSQL through COPY batches."])
    raw = _raw(db_path)
    raw.execute("UPDATE facts SET status = 'archived', access_count = 3")
    assert raw.execute("SELECT status, access_count FROM facts").fetchone() == ("archived", 3)


def test_not_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("just some notes, not a database\n")
    with pytest.raises(StoreError, match="not a SQLite file"):
        Memory(path)
    assert path.read_text() == "just some notes, not a database\n"


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    raw = _raw(path)
    raw.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    raw.close()
    with pytest.raises(StoreError, match="another program"):
        Memory(path)
    tables = {r[0] for r in _raw(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"customers"}


def test_newer_schema_is_refused(tmp_path: Path, memory: Memory, db_path: Path) -> None:
    memory.close()
    _raw(db_path).execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(StoreError, match="newer MemLens"):
        Memory(db_path)


def test_missing_file_when_not_creating(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no memory at"):
        Memory(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        Memory(tmp_path / "nowhere" / "m.sqlite")


def test_folder_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="folder"):
        Memory(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    Memory(path).close()
    path.chmod(0)
    with pytest.raises(StoreError, match="cannot be read"):
        Memory(path)


def test_truncated_database_is_reported(memory: Memory, db_path: Path) -> None:
    memory.absorb([f"Fact number {i} about the Ferrite ingest service and its batching." for i in range(30)])
    memory.close()
    for suffix in ("-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    data = db_path.read_bytes()
    db_path.write_bytes(data[: len(data) // 3])
    with pytest.raises(StoreError):
        with Memory(db_path) as damaged:
            damaged.stats()


def test_locked_file_is_a_clear_error_and_nothing_is_half_written(memory: Memory, db_path: Path) -> None:
    memory.absorb(["Sofia Marques designs the fleet map screens of Atlas Console."])
    memory.store.db.execute("PRAGMA busy_timeout = 100")  # keep the test short
    holder = _raw(db_path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked by another program"):
            memory.absorb(["Jonas Becker founded Spreeline Data in Berlin in 2019."])
    finally:
        holder.execute("ROLLBACK")
    assert memory.stats()["facts"] == 1
    assert memory.absorb(["Jonas Becker founded Spreeline Data in Berlin in 2019."]).applied
