"""A chunked import killed part way (issue 18): SIGKILL the importing process once its first chunk
plan is applied, import the same file again, and every line is there exactly once, nothing was
reinforced by the second run, every plan is applied wholly or not at all and ``verify`` passes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path

from engine import Memory

from tests.engine.io.test_stream_import import fact, stored
from tests.reliability.workers import run_and_kill

WORKER = Path(__file__).with_name("import_worker.py")
LINES, CHUNK = 480, 30


def _applied_chunks(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return db.execute("SELECT count(*) FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
                          "WHERE p.status = 'applied'").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is still being made
        return 0
    finally:
        db.close()


def test_a_killed_import_resumes_without_duplicates(tmp_path: Path, embedder, report: dict) -> None:
    db_path, path = tmp_path / "memory.sqlite", tmp_path / "bulk.jsonl"
    texts = [fact(n) for n in range(LINES)]
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    with Memory(db_path, embedder=embedder):
        pass  # the file and its schema exist before the child starts
    def first_chunk_applied(child: subprocess.Popen) -> None:
        while _applied_chunks(db_path) < 1:
            assert child.poll() is None, f"the worker ended before it was killed: {child.stderr.read()}"
            time.sleep(0.02)

    run_and_kill(WORKER, [str(db_path), str(path), str(CHUNK)], first_chunk_applied)
    report["kills"] += 1

    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    applied = db.execute("SELECT c.items FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
                         "WHERE p.status = 'applied'").fetchall()
    before = db.execute("SELECT count(*) FROM facts").fetchone()[0]
    db.close()
    assert 1 <= len(applied) < LINES // CHUNK and before == sum(n for (n,) in applied)  # whole chunks only

    with Memory(db_path, embedder=embedder) as memory:
        run = memory.import_file(path, chunk_items=CHUNK)
        assert run.resumed == before and run.items == LINES - before and run.written == LINES - before
        assert f"resumed: {before:,} items from an earlier run were already applied" in run.summary()
        assert not memory.verify().problems
    facts = stored(db_path)
    assert len(facts) == LINES and all(facts.get(t) == (1, 0) for t in texts)  # once each, never reinforced
    report["survived"] += 1
