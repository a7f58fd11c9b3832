"""Tamper resistance and evidence (issue 19): REPLACE cannot rewrite history, and ``verify`` sees edits.

``INSERT OR REPLACE`` deletes the old row without firing DELETE triggers, so it walked past
the append-only rules; migration ``forbid_replace`` closes that. What triggers cannot stop
(someone dropping them, or bytes changed on disk) the journal's hash chain, the facts'
content hashes and SQLite's own checks make visible through ``memlens verify``.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from engine import Memory
from engine.store.migrations import LATEST_VERSION
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

TEXTS = [f"Fact number {k} about the deploy pipeline, the staging cluster and the nightly job {k * 7}."
         for k in range(60)]


@pytest.fixture
def filled(memory: Memory, db_path: Path) -> Path:
    memory.absorb(TEXTS[:30])
    plan = memory.absorb(TEXTS[30:], dry_run=True)
    memory.apply_plan(plan.id)
    memory.close()
    return db_path


def raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 shell on the file: no MemLens code, default pragmas (recursive_triggers off)."""
    return sqlite3.connect(path, isolation_level=None)


REPLACEMENTS = [
    ("facts", "INSERT OR REPLACE INTO facts (id, text, scope, kind, confidence, created_at, last_reinforced, "
              "content_hash) VALUES (1, 'rewritten', 'agent', 'explicit', 0.5, 0, 0, 'x')",
     "SELECT text FROM facts WHERE id = 1"),
    ("journal", "INSERT OR REPLACE INTO journal (id, at, actor, action) VALUES (1, 0, 'x', 'rewritten')",
     "SELECT action FROM journal WHERE id = 1"),
    ("plans", "INSERT OR REPLACE INTO plans (id, kind, created_at, actor, status, items, summary) "
              "VALUES (1, 'absorb', 0, 'x', 'draft', '[]', '{}')", "SELECT items FROM plans WHERE id = 1"),
    ("plans", "REPLACE INTO plans (id, kind, created_at, actor, status, items, summary) "
              "VALUES (1, 'absorb', 0, 'x', 'draft', '[]', '{}')", "SELECT items FROM plans WHERE id = 1"),
    ("edges", "INSERT OR REPLACE INTO edges (id, src_id, dst_id, type, created_at) "
              "SELECT id, src_id, dst_id, type, 0 FROM edges LIMIT 1", "SELECT group_concat(created_at) FROM edges"),
]


@pytest.mark.parametrize(("table", "statement", "probe"), REPLACEMENTS, ids=[r[0] for r in REPLACEMENTS])
def test_insert_or_replace_cannot_rewrite_a_row(filled: Path, table: str, statement: str, probe: str) -> None:
    db = raw(filled)
    if table == "edges" and not db.execute("SELECT count(*) FROM edges").fetchone()[0]:
        db.execute("INSERT INTO edges (src_id, dst_id, type, created_at) VALUES (1, 2, 'related', 5)")
    before = db.execute(probe).fetchone()
    try:
        db.execute(statement)
    except sqlite3.DatabaseError as err:
        assert "never replaced" in str(err)
    assert db.execute(probe).fetchone() == before
    assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0


def test_update_or_replace_cannot_delete_an_entity_by_colliding_with_it(memory: Memory, db_path: Path) -> None:
    memory.absorb([{"text": "Maya works at Acme on the billing project since last spring.",
                    "entities": [{"name": "Maya", "type": "person"}, {"name": "Acme", "type": "company"}]}])
    db = raw(db_path)
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        db.execute("UPDATE OR REPLACE entities SET norm_name = 'acme', type = 'company' WHERE norm_name = 'maya'")
    assert db.execute("SELECT count(*) FROM entities").fetchone()[0] == 2


def test_the_engine_still_writes_through_its_own_insert_or_ignore(memory: Memory) -> None:
    """The new triggers IGNORE rather than ABORT where MemLens itself relies on INSERT OR IGNORE."""
    plan = memory.absorb([TEXTS[0], TEXTS[0] + " Again.", TEXTS[0]])
    assert all(it.outcome != "rejected" for it in plan.items)
    first = memory.snapshot("s1")
    assert memory.snapshot("s1").text == first.text


# -- verify ----------------------------------------------------------------------------------------
def test_a_clean_store_verifies(run: Run, filled: Path) -> None:
    code, out, err = run("verify")
    assert code == 0 and out.startswith("ok:"), err
    code, out, _ = run("verify", "--json")
    result = json.loads(out)
    assert code == 0 and result["ok"] and len(result["journal_head"]) == 64


def test_random_bytes_over_a_page_are_found(run: Run, filled: Path, tmp_path: Path) -> None:
    db = raw(filled)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    # Pages holding rows or indexes (a free page's bytes are nobody's): the first, middle and last.
    used = [r[0] for r in db.execute("SELECT DISTINCT pageno FROM dbstat WHERE pageno > 1 ORDER BY pageno")]
    db.close()
    rng = random.Random(19)
    for page in sorted({used[0], used[len(used) // 2], used[-1]}):
        copy = tmp_path / f"copy-{page}.sqlite"
        shutil.copyfile(filled, copy)
        with copy.open("r+b") as handle:
            handle.seek((page - 1) * page_size)
            handle.write(rng.randbytes(page_size))
        code, out, err = run("--db", str(copy), "verify")
        assert code == 1, f"page {page}: {out}{err}"
        assert "Traceback" not in err


def test_a_journal_row_edited_with_the_triggers_dropped_breaks_the_chain(run: Run, filled: Path) -> None:
    db = raw(filled)
    db.execute("DROP TRIGGER journal_immutable")
    db.execute("UPDATE journal SET action = 'discard' WHERE id = 3")
    code, out, _ = run("verify")
    # Since issue 26 verify also names the dropped trigger and what the replay finds; the journal
    # check's own finding is unchanged.
    assert code == 1 and [line for line in out.splitlines() if line.startswith("journal:")] == [
        "journal: journal 3: does not match its chain hash: it, its fact's text, or the entry before it was "
        "changed, removed or inserted"]
    assert "triggers: journal_immutable: a protecting trigger is missing" in out


def test_a_journal_row_removed_or_added_is_found(run: Run, filled: Path) -> None:
    db = raw(filled)
    db.execute("DROP TRIGGER journal_never_deleted")
    db.execute("DELETE FROM journal WHERE id = 5")
    db.execute("INSERT INTO journal (at, actor, action) VALUES (0, 'shell', 'forged')")
    code, out, _ = run("verify", "--json")
    where = [p["where"] for p in json.loads(out)["problems"] if p["check"] == "journal"]
    last = db.execute("SELECT max(id) FROM journal").fetchone()[0]
    assert code == 1 and where == ["journal 6", f"journal {last}"]
    assert ("triggers", "journal_never_deleted") in {(p["check"], p["where"]) for p in json.loads(out)["problems"]}


def test_a_fact_text_edited_with_the_triggers_dropped_is_found(run: Run, filled: Path) -> None:
    db = raw(filled)
    db.execute("DROP TRIGGER facts_immutable")
    db.execute("UPDATE facts SET text = 'The deploy key is in the vault.' WHERE id = 2")
    code, out, _ = run("verify", "--json")
    checks = {(p["check"], p["where"]) for p in json.loads(out)["problems"]}
    assert code == 1 and ("facts", "fact 2") in checks and ("fts", None) in checks
    assert "vault" not in out  # a problem names the place, never the text


def test_an_older_file_gets_its_chain_at_migration(run: Run, filled: Path) -> None:
    db = raw(filled)  # back to schema 2: no chain, no replace triggers, no import chunks
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                              "AND (name LIKE '%never_replaced' OR name IN ('text_aliases_immutable', "
                              "'entities_immutable', 'entity_mentions_immutable', 'relations_immutable'))").fetchall():
        db.execute(f"DROP TRIGGER {name}")
    db.execute("ALTER TABLE journal DROP COLUMN chain")
    db.execute("DROP TABLE import_chunks")  # version 5
    db.execute("DROP INDEX edges_by_plan")  # version 6
    db.execute("ALTER TABLE facts ADD COLUMN embedding BLOB")  # version 7: the vectors back in the facts rows
    db.execute("UPDATE facts SET embedding = (SELECT vector FROM fact_vectors WHERE fact_id = facts.id)")
    db.execute("DROP TABLE fact_vectors")
    db.execute("PRAGMA user_version = 2")
    db.close()
    code, out, err = run("verify")
    assert code == 0, out + err
    db = raw(filled)
    assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert db.execute("SELECT count(*) FROM journal WHERE chain IS NULL").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM fact_vectors").fetchone()[0] == db.execute(
        "SELECT count(*) FROM facts").fetchone()[0]
    with pytest.raises(sqlite3.DatabaseError):
        db.execute("UPDATE journal SET chain = 'x' WHERE id = 1")


def test_import_chunks_that_overlap_or_name_no_plan_are_found(run: Run, memory: Memory, db_path: Path,
                                                               tmp_path: Path) -> None:
    source = tmp_path / "bulk.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS[:20]), encoding="utf-8")
    memory.import_file(source, chunk_items=10)
    other = memory.absorb([TEXTS[40]])
    memory.close()
    assert run("verify")[0] == 0
    db = raw(db_path)
    # A second applied plan claiming lines 5-12 of the same file, and a chunk whose plan is missing.
    db.execute("INSERT INTO import_chunks (plan_id, source, size, sha256, first_line, last_line, items) "
               "SELECT ?, source, size, sha256, 5, 12, 8 FROM import_chunks LIMIT 1", (other.id,))
    db.execute("INSERT INTO import_chunks (plan_id, source, size, sha256, first_line, last_line, items) "
               "SELECT 999, source, size, sha256, 30, 31, 2 FROM import_chunks LIMIT 1")
    code, out, _ = run("verify", "--json")
    problems = [(p["check"], p["where"]) for p in json.loads(out)["problems"]]
    second = db.execute("SELECT plan_id FROM import_chunks WHERE first_line = 11").fetchone()[0]
    # In line order: 1-10, the forged 5-12 (overlaps 1-10), then 11-20 (overlaps 5-12).
    assert code == 1 and problems == [("imports", "plan 999"), ("imports", f"plan {min(second, other.id)}"),
                                      ("imports", f"plan {max(second, other.id)}")]
