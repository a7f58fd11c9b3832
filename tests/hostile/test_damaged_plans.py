"""Damaged plan rows read with a ``damaged`` note, like facts (issue 26).

``UPDATE plans SET summary = 'oops'`` or a plan's items overwritten made ``plan list`` and
``plan show`` traceback, HTTP ``/plans`` answer 500; ``fact tag`` on a fact whose tags column is
damaged tracebacked too. Each now reads, names what is damaged, and refuses only what cannot be done.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engine import Memory
from tests.api.conftest import app, client  # noqa: F401  (fixtures)
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

FACTS = ["The deploy pipeline runs on the staging cluster every night at two.",
         "Maya prefers tea to coffee in the morning before standup."]


def _raw(db_path: Path, *statements: str) -> None:
    with sqlite3.connect(db_path) as db:
        for name, in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            if name.startswith("plans_"):
                db.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            db.execute(statement)


@pytest.mark.parametrize("damage", [
    "UPDATE plans SET summary = 'oops'", "UPDATE plans SET summary = '[1, 2]'",
    "UPDATE plans SET items = 'oops'", "UPDATE plans SET items = '[{\"nope\": 1}]'",
    "UPDATE plans SET items = zeroblob(40)", "UPDATE plans SET applied_items = '{\"a\": \"b\"}'",
    "UPDATE plans SET applied_items = 'oops'",
])
def test_plan_list_and_show_name_the_damage(run: Run, db_path: Path, damage: str) -> None:
    run("absorb", *FACTS)
    _raw(db_path, damage)
    # The listing reads the summary, the page the items and what went in: each names what it read.
    reading = "list" if "summary" in damage else "show"
    for args in (("plan", "list"), ("plan", "show", "1"), ("plan", "list", "--json"), ("plan", "show", "1", "--json")):
        code, out, err = run(*args)
        assert code == 0 and "Traceback" not in err, (args, err)
        assert "damaged" in out or args[1] != reading, (args, out)
    code, out, err = run("plan", "revert", "1")
    if "summary" not in damage:  # the items or what went in cannot be read: nothing to undo by
        assert code == 1 and "damaged" in err and err.count("\n") == 1


def test_a_damaged_draft_cannot_be_applied(run: Run, db_path: Path) -> None:
    code, out, _ = run("absorb", *FACTS, "--dry-run", "--json")
    plan_id = json.loads(out)["plan_id"]
    _raw(db_path, "UPDATE plans SET items = 'oops'")
    code, out, err = run("plan", "apply", str(plan_id))
    assert code == 1 and "damaged" in err and err.count("\n") == 1


def test_http_plans_answer_with_the_note(client: TestClient, memory: Memory, db_path: Path) -> None:
    assert client.post("/absorb", json={"items": FACTS}).status_code == 200
    _raw(db_path, "UPDATE plans SET summary = 'oops', items = 'oops'")
    listing = client.get("/plans")
    assert listing.status_code == 200 and listing.json()[0]["damaged"]
    shown = client.get("/plans/1")
    assert shown.status_code == 200 and shown.json()["damaged"] and shown.json()["items"] == []


def test_fact_tag_over_damaged_tags_replaces_them(run: Run, client: TestClient, memory: Memory,
                                                   db_path: Path) -> None:
    run("absorb", *FACTS)
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE facts SET tags = 'not json' WHERE id = 1")
        db.execute("UPDATE facts SET tags = '{\"a\": 1}' WHERE id = 2")
    code, out, err = run("fact", "tag", "1", "--add", "ops", "--json")
    assert code == 0 and "Traceback" not in err, err
    assert json.loads(out)["items"][0]["tags"] == ["ops"]
    response = client.post("/facts/2/tags", json={"add": ["ops"]})
    assert response.status_code == 200, response.text
    code, out, err = run("gc", "--dry-run")
    assert code == 0 and "Traceback" not in err
