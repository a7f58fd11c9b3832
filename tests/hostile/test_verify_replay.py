"""``memlens verify`` reads the journal as the truth (issue 26).

Plain-SQL edits that need no trigger dropped (a status, tags, confidence, kind or triple changed,
an embedding swapped, a draft plan marked applied, a fact or a supersedes edge inserted), edits
after DROP TRIGGER (plan items or kind rewritten, edges deleted), a case-only edit of a fact's
bytes, and the dropped trigger itself all passed verify. Each is now a problem; ordinary curation
(absorb, contradictions, resolve, revert, tags, archive, gc, restore) leaves verify clean.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Callable

import pytest

from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

THREE = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."
FIVE = "The staging cluster runs 5 replicas of the Ferrite ingest service behind nginx."
OTHERS = ["Maya prefers tea to coffee in the morning before standup.",
          "Ivan Petrov works at Northwind Robotics as a robotics engineer in the Kazan office."]


@pytest.fixture
def curated(run: Run, tmp_path: Path) -> Path:
    """A file after the ordinary flows, verified clean."""
    assert run("absorb", THREE, *OTHERS, "--tags", "ops")[0] == 0
    code, out, _ = run("--now", "2026-12-01T12:00:00Z", "absorb", FIVE, "--json")
    five = json.loads(out)["items"][0]["fact_id"]
    code, out, err = run("contradictions", "resolve", "1", str(five), "--keep", str(five), "--json")
    assert code == 0, err
    run("plan", "revert", str(json.loads(out)["plan_id"]))
    run("contradictions", "resolve", "1", str(five), "--keep", "both")
    run("fact", "tag", "2", "--add", "drinks", "--remove", "ops")
    run("absorb", OTHERS[0])  # a reinforcement
    run("fact", "archive", "3")
    assert run("fact", "version", str(five), FIVE.replace("5 replicas", "6 replicas"))[0] == 0
    code, out, _ = run("absorb", "The release train leaves on Tuesdays.", "--dry-run", "--json")
    run("plan", "discard", str(json.loads(out)["plan_id"]))
    run("gc")
    code, out, err = run("verify")
    assert code == 0, out + err
    return tmp_path


def _sql(db_path: Path, *statements: str, drop: tuple[str, ...] = ()) -> None:
    with sqlite3.connect(db_path) as db:
        for name in drop:
            db.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            db.execute(statement)


def _problems(run: Run) -> list[dict]:
    code, out, err = run("verify", "--json")
    assert "Traceback" not in err
    problems = json.loads(out)["problems"]
    assert (code == 1) == bool(problems)
    return problems


EDITS: list[tuple[str, Callable[[Path], None], str]] = [
    ("active to archived", lambda p: _sql(p, "UPDATE facts SET status = 'archived' WHERE id = 2"), "fact 2"),
    ("archived to active", lambda p: _sql(p, "UPDATE facts SET status = 'active' WHERE id = 3"), "fact 3"),
    ("superseded to active", lambda p: _sql(p, "UPDATE facts SET status = 'active' WHERE status = 'superseded'"),
     None),
    ("tags", lambda p: _sql(p, """UPDATE facts SET tags = '["pwned"]' WHERE id = 1"""), "fact 1"),
    ("confidence", lambda p: _sql(p, "UPDATE facts SET confidence = 0.99 WHERE id = 1"), "fact 1"),
    ("kind", lambda p: _sql(p, "UPDATE facts SET kind = 'user_preference' WHERE id = 1"), "fact 1"),
    ("triple", lambda p: _sql(p, "UPDATE facts SET subject = 'x', predicate = 'y', object = 'z' WHERE id = 1"),
     "fact 1"),
    ("embedding swapped", lambda p: _sql(
        p, "UPDATE fact_vectors SET vector = (SELECT vector FROM fact_vectors WHERE fact_id = 2) WHERE fact_id = 1"), "fact 1"),
    ("draft marked applied", lambda p: _sql(
        p, "UPDATE plans SET status = 'applied', applied_items = '{\"0\": 99}' WHERE status = 'discarded'"), None),
    ("fact inserted with a correct hash", lambda p: _insert_fact(p), None),
    ("supersedes edge inserted", lambda p: _sql(
        p, "INSERT INTO edges (src_id, dst_id, type, created_at) VALUES (2, 1, 'supersedes', 1.8e9)"), None),
    ("case-only edit", lambda p: _sql(p, "UPDATE facts SET text = upper(text) WHERE id = 2",
                                      drop=("facts_immutable",)), "fact 2"),
    ("plan items rewritten", lambda p: _sql(
        p, "UPDATE plans SET items = replace(items, 'Maya prefers tea', 'Maya prefers gin') WHERE id = 1",
        drop=("plans_immutable",)), "plan 1"),
    ("edges deleted", lambda p: _sql(p, "DELETE FROM edges", drop=("edges_never_deleted",)), None),
]


def _insert_fact(db_path: Path) -> None:
    from engine.store.records import content_hash
    text = "A fact nobody absorbed, written with a raw SQL shell."
    _sql(db_path, f"INSERT INTO facts (text, scope, kind, status, created_at, last_reinforced, content_hash, tags, "
                  f"evidence, metadata, confidence, importance) VALUES ('{text}', 'agent', 'explicit', 'active', "
                  f"1.8e9, 1.8e9, '{content_hash(text)}', '[]', '[]', '{{}}', 0.4, 0.5)")


@pytest.mark.parametrize("name, edit, where", EDITS, ids=[e[0] for e in EDITS])
def test_each_edit_outside_memlens_is_found(curated: Path, run: Run, db_path: Path, name: str,
                                           edit: Callable[[Path], None], where: str | None) -> None:
    edit(db_path)
    problems = _problems(run)
    replayed = [p for p in problems if p["check"] in ("replay", "facts")]
    assert replayed, (name, problems)
    if where is not None:
        assert where in {p["where"] for p in replayed}, (name, problems)


def test_a_dropped_trigger_is_reported(curated: Path, run: Run, db_path: Path) -> None:
    _sql(db_path, drop=("facts_never_deleted",))
    problems = _problems(run)
    assert [(p["check"], p["where"]) for p in problems] == [("triggers", "facts_never_deleted")]


def test_a_damaged_plan_row_is_reported(curated: Path, run: Run, db_path: Path) -> None:
    _sql(db_path, "UPDATE plans SET items = 'oops' WHERE id = 1", drop=("plans_immutable",))
    problems = _problems(run)
    assert ("replay", "plan 1") in {(p["check"], p["where"]) for p in problems}


def test_a_restore_verifies_clean(curated: Path, run: Run, db_path: Path, tmp_path: Path) -> None:
    export = tmp_path / "export.jsonl"
    assert run("export", str(export))[0] == 0
    copy = tmp_path / "restored.sqlite"
    code, out, err = run("--db", str(copy), "import", str(export))
    assert code == 0, err
    code, out, err = run("--db", str(copy), "verify")
    assert code == 0, out + err
