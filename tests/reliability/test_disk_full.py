"""Disk full, I/O errors and a file turning read-only in the middle of a session.

A full disk is simulated with ``PRAGMA max_page_count`` on the memory's own connection
(a per-connection limit: the test reaches into ``memory.store.db``, as tests may); a real
write error from the operating system with ``RLIMIT_FSIZE`` in a child process; a file
that turns read-only under an open session with ``PRAGMA query_only`` (chmod does not stop
root, and an open connection keeps its write handle anyway), and a read-only file opened
afresh with chmod, which MemLens honours even for root. Each time: a clear ``StoreError``,
nothing half written, reads keep working, and the same write succeeds once the cause is gone.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Memory, StoreError

from tests.conftest import DAY

BIG = [f"Long note {i}: the replica in Lisbon lags behind the primary whenever the batch queue of the "
       f"Ferrite ingest service overflows during the nightly reindex of the Atlas fleet map." for i in range(80)]
SEED = [f"Fact {i}: Maya deploys the Atlas console from the Kazan office every {i + 2} days." for i in range(8)]


def _state(db_path: Path) -> tuple:
    db = sqlite3.connect(db_path)
    try:
        return (db.execute("SELECT id, status, confidence, access_count FROM facts ORDER BY id").fetchall(),
                db.execute("SELECT count(*) FROM journal").fetchone()[0],
                db.execute("SELECT count(*) FROM edges").fetchone()[0],
                db.execute("SELECT id, status FROM plans ORDER BY id").fetchall(),
                db.execute("PRAGMA integrity_check").fetchall())
    finally:
        db.close()


def _fill_disk(memory: Memory) -> None:
    db = memory.store.db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")


def _free_disk(memory: Memory) -> None:
    memory.store.db.execute("PRAGMA max_page_count = 1073741823")


def _clear(err: pytest.ExceptionInfo, *words: str) -> None:
    text = str(err.value)
    assert all(w in text for w in words), text
    assert "Traceback" not in text and "sqlite3." not in text and "\n" not in text
    assert err.value.__cause__ is None  # no raw sqlite3 exception chained for a front end to print


def test_full_disk_on_absorb_writes_nothing_and_the_retry_works(memory: Memory, db_path: Path, report: dict) -> None:
    memory.absorb(SEED)
    before = _state(db_path)
    _fill_disk(memory)
    with pytest.raises(StoreError) as err:
        memory.absorb(BIG)
    _clear(err, "full", "nothing was written")
    assert _state(db_path) == before
    assert memory.search("Atlas console deploys", top_k=3)  # the session goes on
    assert memory.get(1).facts
    _free_disk(memory)
    assert memory.absorb(BIG).applied
    assert memory.stats()["facts"] == len(SEED) + len(BIG)
    report["faults"].append(("disk full on absorb: clear error, retry applies", "ok"))


def test_full_disk_on_apply_keeps_the_plan_a_draft(memory: Memory, db_path: Path, report: dict) -> None:
    memory.absorb(SEED)
    draft = memory.absorb(BIG, dry_run=True)
    before = _state(db_path)
    _fill_disk(memory)
    with pytest.raises(StoreError) as err:
        memory.apply_plan(draft.id)
    _clear(err, "full")
    assert _state(db_path) == before
    assert memory.plan(draft.id).status == "draft"
    raw = sqlite3.connect(db_path)
    for table in ("facts", "journal", "edges"):
        assert raw.execute(f"SELECT count(*) FROM {table} WHERE plan_id = ?", (draft.id,)).fetchone()[0] == 0
    raw.close()
    _free_disk(memory)
    assert memory.apply_plan(draft.id).applied  # the same plan, not a new one
    assert memory.stats()["facts"] == len(SEED) + len(BIG)
    assert len(memory.search("replica in Lisbon lags", top_k=5)) == 5
    report["faults"].append(("disk full on apply: plan stays draft, applies later", "ok"))


def test_full_disk_during_gc_changes_no_status(memory: Memory, db_path: Path, clock, report: dict) -> None:
    memory.absorb([{"text": t, "scope": "run", "session_id": "s1"} for t in BIG])
    clock.advance(60)  # every run fact is now stale and never read: gc archives them
    draft = memory.gc(dry_run=True)
    assert draft.items
    before = _state(db_path)
    _fill_disk(memory)
    with pytest.raises(StoreError, match="full"):
        memory.apply_plan(draft.id)
    assert _state(db_path) == before
    _free_disk(memory)
    assert memory.apply_plan(draft.id).applied
    assert memory.stats()["by_status"].get("active", 0) < len(BIG)
    report["faults"].append(("disk full during gc: no status changed", "ok"))


def test_os_write_error_is_clear_and_the_store_stays_usable(memory: Memory, db_path: Path, report: dict) -> None:
    memory.absorb(SEED)
    memory.close()
    worker = Path(__file__).with_name("io_error_worker.py")
    done = subprocess.run([sys.executable, str(worker), str(db_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    kind, message = result["error"]
    assert kind == "StoreError", result
    assert "nothing was written" in message and "I/O error" in message, message
    # Facts and journal unchanged; the absorb's plan may have been stored as a draft before the
    # write failed (a draft has no effects and can be applied later).
    assert result["before"] == [len(SEED), 1, len(SEED)]
    assert result["after_failure"][0::2] == result["before"][0::2]
    assert result["search"] == 3
    assert result["retry"] == "applied"
    assert result["after_retry"][0] == len(SEED) + len(BIG)
    with Memory(db_path) as reopened:
        assert reopened.stats()["facts"] == len(SEED) + len(BIG)
    facts, _, _, plans, integrity = _state(db_path)
    assert integrity == [("ok",)]
    raw = sqlite3.connect(db_path)
    for plan_id, status in plans:
        if status != "applied":
            assert raw.execute("SELECT count(*) FROM journal WHERE plan_id = ?", (plan_id,)).fetchone()[0] == 0
    raw.close()
    report["faults"].append(("OS write error (EFBIG): clear error, retry applies", "ok"))


def test_file_turning_read_only_mid_session(memory: Memory, db_path: Path, report: dict) -> None:
    memory.absorb(SEED)
    draft = memory.absorb(["Jonas Becker founded Spreeline Data in Berlin in 2019."], dry_run=True)
    before = _state(db_path)
    memory.store.db.execute("PRAGMA query_only = ON")  # what a remount read-only looks like to SQLite
    for write in (lambda: memory.absorb(BIG[:3]), lambda: memory.apply_plan(draft.id),
                  lambda: memory.propose([{"action": "archive", "fact_id": 1, "reason": "test"}])):
        with pytest.raises(StoreError) as err:
            write()
        _clear(err, "read-only", "nothing was written")
    # Reads keep working (search skips its access counters rather than failing).
    assert len(memory.search("Atlas console", top_k=3)) == 3
    assert memory.get(1).facts and memory.journal() and memory.stats()["facts"] == len(SEED)
    assert _state(db_path) == before
    memory.store.db.execute("PRAGMA query_only = OFF")
    assert memory.apply_plan(draft.id).applied
    report["faults"].append(("read-only mid-session: clear error, reads work", "ok"))


def test_read_only_file_opens_read_only_even_for_root(memory: Memory, db_path: Path, embedder,
                                                      report: dict) -> None:
    memory.absorb(SEED)
    memory.close()
    db_path.chmod(0o444)
    try:
        with Memory(db_path, embedder=embedder) as frozen:
            assert frozen.read_only
            with pytest.raises(StoreError) as err:
                frozen.absorb(BIG[:2])
            _clear(err, "read-only", "nothing was written")
            assert frozen.absorb(BIG[:2], dry_run=True).items  # a dry run still works
            assert len(frozen.search("Atlas console", top_k=3)) == 3
            assert frozen.stats()["facts"] == len(SEED)
    finally:
        db_path.chmod(0o644)
    with Memory(db_path, embedder=embedder) as thawed:
        assert thawed.absorb(BIG[:2]).applied
    report["faults"].append(("read-only file: opens read-only (even as root)", "ok"))
