"""Curation from the command line: fact version|archive|tag|link, contradictions [resolve], timeline,
plan revert; exit codes; one plan shape for absorb, plan show and the curation acts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli.conftest import Run

THREE = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."
FIVE = "The staging cluster runs 5 replicas of the Ferrite ingest service behind nginx."
IVAN = "Ivan Petrov works at Northwind Robotics as a robotics engineer in the Kazan office."
TOKEN = "ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"


@pytest.fixture
def pair(run: Run, db_path: Path) -> tuple[int, int, int]:
    code, out, _ = run("absorb", THREE, IVAN, "--json")
    three, ivan = (it["fact_id"] for it in json.loads(out)["items"])
    code, out, _ = run("--now", "2026-12-01T12:00:00Z", "absorb", FIVE, "--json")
    five = json.loads(out)["items"]
    assert code == 0 and five[0]["outcome"] == "contradict"
    return three, five[0]["fact_id"], ivan


def _rows(db_path: Path, table: str) -> int:
    return sqlite3.connect(db_path).execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_every_plan_has_one_shape(run: Run, pair) -> None:
    three, five, ivan = pair
    shapes = []
    for args in (("absorb", "Jonas Becker founded Spreeline Data in Berlin in 2019.", "--json"),
                 ("fact", "archive", str(ivan), "--dry-run", "--json"),
                 ("gc", "--dry-run", "--json")):
        code, out, _ = run(*args)
        plan = json.loads(out)
        shapes.append(set(plan))
        if plan["plan_id"] is not None:
            code, shown, _ = run("plan", "show", str(plan["plan_id"]), "--json")
            assert set(json.loads(shown)) == set(plan) and json.loads(shown)["items"] == plan["items"]
    assert shapes[0] == shapes[1] == shapes[2]
    assert {"plan_id", "status", "partly_applied", "applied_items", "items", "changes"} <= shapes[0]


def test_version_archive_tag_link_through_the_cli(run: Run, pair, db_path: Path) -> None:
    three, five, ivan = pair
    code, out, _ = run("fact", "version", str(ivan), IVAN.replace("a robotics engineer", "the lead engineer"),
                       "--json")
    plan = json.loads(out)
    assert code == 0 and plan["status"] == "applied" and plan["changes"]["facts_status_changed"] == [ivan]
    new = plan["changes"]["facts_added"][0]
    code, out, _ = run("fact", "tag", str(new), "--add", "team", "--add", "kazan", "--json")
    assert code == 0 and json.loads(out)["items"][0]["tags"] == ["team", "kazan"]
    code, out, _ = run("fact", "link", str(new), str(three), "--type", "related", "--dry-run")
    assert code == 0 and "dry run, nothing written" in out
    code, out, _ = run("fact", "archive", str(new), "--reason", "moved on")
    assert code == 0 and "applied" in out
    code, out, _ = run("history", str(new), "--json")
    assert [f["status"] for f in json.loads(out)["facts"]] == ["superseded", "archived"]


def test_contradictions_resolve_and_timeline_as_of(run: Run, pair) -> None:
    three, five, _ = pair
    code, out, _ = run("contradictions", "--json")
    pairs = json.loads(out)["contradictions"]
    assert code == 0 and [(p["left"]["id"], p["right"]["id"]) for p in pairs] == [(three, five)]
    code, out, _ = run("--now", "2026-12-02T12:00:00Z", "contradictions", "resolve", str(three), str(five),
                       "--keep", str(five), "--json")
    assert code == 0 and json.loads(out)["changes"]["facts_status_changed"] == [three]
    code, out, _ = run("contradictions")
    assert "no open contradictions" in out
    code, out, _ = run("--now", "2026-12-03T00:00:00Z", "timeline", str(five), "--as-of", "2026-12-01T18:00:00Z",
                       "--json")
    before = json.loads(out)
    assert before["open_contradictions"] == [[three, five]] and before["current"] == five
    assert [v["id"] for v in before["versions"]] == [five]
    code, out, _ = run("--now", "2026-12-03T00:00:00Z", "timeline", str(five), "--json")
    after = json.loads(out)
    assert after["open_contradictions"] == [] and [v["id"] for v in after["versions"]] == [three, five]
    code, out, _ = run("--now", "2026-12-03T00:00:00Z", "timeline", str(five))
    assert f"current {five}" in out and "open contradictions then: none" in out


def test_plan_revert_through_the_cli(run: Run, pair, db_path: Path) -> None:
    three, five, _ = pair
    code, out, _ = run("fact", "archive", str(three), "--json")
    archived = json.loads(out)["plan_id"]
    code, out, _ = run("plan", "revert", str(archived), "--dry-run", "--json")
    draft = json.loads(out)
    assert code == 0 and draft["kind"] == "revert" and draft["items"][0]["outcome"] == "reactivate"
    assert run("plan", "apply", str(draft["plan_id"]))[0] == 0
    code, out, _ = run("plan", "show", str(archived))  # the undone plan says so, on every face
    assert code == 0 and f"reverted by plan {draft['plan_id']}" in out.splitlines()[0]
    code, out, _ = run("plan", "list")
    assert f"(reverted by plan {draft['plan_id']})" in next(line for line in out.splitlines()
                                                            if line.split()[0] == str(archived))
    shown = json.loads(run("plan", "show", str(archived), "--json")[1])
    listed = {p["plan_id"]: p for p in json.loads(run("plan", "list", "--json")[1])}
    assert shown["reverted_by"] == listed[archived]["reverted_by"] == draft["plan_id"]
    assert listed[draft["plan_id"]]["reverted_by"] is None
    code, _, err = run("plan", "revert", str(archived))
    assert code == 1 and "already reverted" in err and err.count("\n") == 1
    code, _, err = run("plan", "revert", str(draft["plan_id"] + 100))
    assert code == 1 and "no plan" in err


@pytest.mark.parametrize("args, message", [
    (("fact", "archive", "999"), "no fact 999"),
    (("fact", "archive", str(2 ** 63)), "whole number"),
    (("fact", "link", "1", "1", "--type", "related"), "itself"),
    (("fact", "version", "1", f"The deploy token is {TOKEN} for staging."), "secret"),
    (("fact", "tag", "1"), "tags to add or to remove"),
    (("contradictions", "resolve", "1", "2", "--keep", "both"), "not an open contradiction"),
    (("timeline", "999"), "no fact 999"),
])
def test_bad_input_is_one_line_exit_1_and_nothing_written(run: Run, pair, db_path: Path, args, message) -> None:
    journal, plans = _rows(db_path, "journal"), _rows(db_path, "plans")
    code, out, err = run(*args)
    assert code == 1 and message in err and err.count("\n") == 1 and TOKEN not in out + err
    assert _rows(db_path, "journal") == journal and _rows(db_path, "plans") == plans


@pytest.mark.parametrize("args", [("fact", "link", "1", "2", "--type", "supersedes"),
                                  ("contradictions", "resolve", "1", "2", "--keep", "neither"),
                                  ("timeline", "1", "--as-of", "yesterday"), ("fact", "version", "x", "text")])
def test_usage_errors_exit_2(run: Run, pair, args) -> None:
    assert run(*args)[0] == 2


def test_exit_codes_tell_outcomes_apart(run: Run, tmp_path: Path, db_path: Path) -> None:
    good, secret = {"text": "Sofia Marques designs the fleet map screens."}, {"text": f"token {TOKEN} here ok"}
    mixed, refused = tmp_path / "mixed.jsonl", tmp_path / "refused.jsonl"
    mixed.write_text("\n".join(json.dumps(x) for x in (good, secret)) + "\n", encoding="utf-8")
    refused.write_text(json.dumps(secret) + "\n", encoding="utf-8")
    assert run("absorb", "--file", str(mixed), "--dry-run")[0] == 0  # a dry run that made its plan is done
    code, _, err = run("absorb", "--file", str(mixed))
    assert code == 3 and "item 1 refused" in err and TOKEN not in err
    journal = _rows(db_path, "journal")
    assert run("absorb", "--file", str(refused))[0] == 1 and _rows(db_path, "journal") == journal


def test_absorb_file_restores_a_memlens_export(run: Run, pair, tmp_path: Path) -> None:
    export = tmp_path / "export.jsonl"
    assert run("export", str(export))[0] == 0
    target = tmp_path / "copy.sqlite"
    from engine.faces.cli.main import main
    assert main(["--db", str(target), "absorb", "--file", str(export)]) == 0
    copy = sqlite3.connect(target)
    assert copy.execute("SELECT count(*) FROM facts").fetchone()[0] == 3
    assert copy.execute("SELECT count(*) FROM edges WHERE type = 'contradicts'").fetchone()[0] == 1


def test_a_pair_absorb_linked_related_then_marked_contradicting_is_in_the_queue(run: Run) -> None:
    code, out, _ = run("absorb", "The staging cluster runs the Ferrite ingest service behind nginx.", "--json")
    first = json.loads(out)["items"][0]["fact_id"]
    code, out, _ = run("--now", "2026-12-01T12:00:00Z", "absorb",
                       "The staging cluster runs the Ferrite ingest service behind nginx on port 8080.", "--json")
    second = json.loads(out)["items"][0]
    assert second["outcome"] == "related" and second["target_id"] == first
    code, out, _ = run("--now", "2026-12-02T12:00:00Z", "fact", "link", str(first), str(second["fact_id"]),
                       "--type", "contradicts", "--json")
    item = json.loads(out)["items"][0]
    assert code == 0 and (item["fact_id"], item["target_id"]) == (first, second["fact_id"])
    assert item["edges"] == [{"type": "contradicts", "to_id": second["fact_id"], "to_status": "active"}]
    code, out, _ = run("contradictions", "--json")
    assert [(p["left"]["id"], p["right"]["id"]) for p in json.loads(out)["contradictions"]] == [(first, second["fact_id"])]
    code, out, _ = run("--now", "2026-12-03T12:00:00Z", "contradictions", "resolve", str(first),
                       str(second["fact_id"]), "--keep", "both", "--json")
    assert code == 0
    code, out, _ = run("contradictions", "--json")
    assert json.loads(out)["contradictions"] == []
