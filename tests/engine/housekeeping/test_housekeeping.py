"""consolidate, gc and distill: plans with a reason per item, dry runs, second runs, stale plans."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from engine import Memory, PlanError, Settings

RELEASES = [f"Release 4.{n} of the fleet console ships {what}." for n, what in enumerate([
    "the new fleet map and drops the legacy CSV exporter",
    "PostgreSQL 16 with logical replication for the ingest service",
    "per-tenant quotas and a rewritten rate limiter in the gateway",
    "the offline mode for the warehouse tablet application",
    "a queue-based notification worker running on NATS",
    "rotated service-to-service certificates as a security fix"], start=2)]


def _counts(db_path: Path) -> dict[str, int]:
    raw = sqlite3.connect(db_path)
    return {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("facts", "edges", "journal")}


def _status(memory: Memory, fact_id: int) -> str:
    return memory.facts([fact_id])[fact_id].status


def test_consolidate_archives_faded_facts_once(memory: Memory, clock, db_path: Path) -> None:
    ids = [it.fact_id for it in memory.absorb([
        {"text": "The build server restarts every night at two in the morning.", "kind": "explicit"},
        {"text": "Maya prefers short stand-up meetings that end within ten minutes.", "kind": "user_preference"},
        {"text": "Yesterday's deploy of the gateway was rolled back after ten minutes.", "kind": "episodic"},
    ]).items]
    clock.advance(10)
    memory.absorb(["Yesterday's deploy of the gateway was rolled back after ten minutes."])  # reinforced: fresh
    clock.advance(40)  # explicit: 0.4·e^(-0.05·50) = 0.033 < 0.05; preference 0.5·e^(-1) = 0.18
    before = _counts(db_path)
    plan = memory.consolidate(dry_run=True)
    assert [(it.outcome, it.target_id) for it in plan.items] == [("archive", ids[0]), ("archive", ids[2])]
    assert "effective confidence 0.033 < 0.05" in plan.items[0].reason
    assert _counts(db_path) == before and plan.status == "draft"
    memory.apply_plan(plan.id)
    assert [_status(memory, i) for i in ids] == ["archived", "active", "archived"]
    again = memory.consolidate()
    assert again.items == [] and again.id is None and again.note == "nothing to do"


def test_consolidate_plan_is_refused_when_its_fact_was_reinforced_since(memory: Memory, clock) -> None:
    text = "The build server restarts every night at two in the morning."
    fact_id = memory.absorb([text]).items[0].fact_id
    clock.advance(60)
    plan = memory.consolidate(dry_run=True)
    assert [it.target_id for it in plan.items] == [fact_id]
    memory.absorb([text])  # confirmed again: the reason no longer holds
    with pytest.raises(PlanError, match="changed since the plan was made"):
        memory.apply_plan(plan.id)
    assert _status(memory, fact_id) == "active" and memory.plan(plan.id).status == "refused"


@pytest.fixture
def small_gc(memory: Memory) -> Memory:
    memory.settings = replace(memory.settings, gc=replace(memory.settings.gc, group_limit=4, summary_size=3))
    return memory


def _gc_store(memory: Memory, clock) -> dict[str, list[int]]:
    stale = [it.fact_id for it in memory.absorb(
        ["Checked the ingest logs for the customer; nothing unusual was found there.",
         "The user asked to retry the nightly export job after the disk was cleaned."],
        defaults={"scope": "run", "session_id": "s-0917"}).items]
    clock.advance(31)
    ttl = [memory.absorb([{"text": "The staging TLS certificate is valid until the end of this month.",
                           "ttl_days": 5}]).items[0].fact_id]
    releases = [it.fact_id for it in memory.absorb(
        [{"text": t, "tags": ["release"], "importance": 0.9 if k == 5 else 0.5} for k, t in enumerate(RELEASES)]).items]
    clock.advance(6)
    return {"stale": stale, "ttl": ttl, "releases": releases}


def test_gc_three_labelled_stages_then_nothing_left(small_gc: Memory, clock, db_path: Path) -> None:
    memory = small_gc
    ids = _gc_store(memory, clock)
    before = _counts(db_path)
    plan = memory.gc(dry_run=True)
    assert _counts(db_path) == before
    stages = [(it.stage, it.outcome, it.target_id) for it in plan.items]
    assert stages[:3] == [("ttl", "expire", ids["ttl"][0]), ("stale", "archive", ids["stale"][0]),
                          ("stale", "archive", ids["stale"][1])]
    summary = plan.items[3]
    folded = ids["releases"][:3]  # 6 facts over a limit of 4: the 3 oldest least important make one summary
    assert (summary.stage, summary.outcome, summary.incoming["kind"]) == ("compact", "new", "derived")
    assert [e["to_id"] for e in summary.edges] == folded and summary.incoming["tags"] == ["release"]
    assert [(it.outcome, it.target_id, it.target_index) for it in plan.items[4:]] == [
        ("archive", f, 3) for f in folded]
    with pytest.raises(PlanError, match="select item 3 too"):  # members never archived without their summary
        memory.apply_plan(plan.id, only=[4])
    memory.apply_plan(plan.id)
    new_id = memory.plan(plan.id).items[3].fact_id
    assert _status(memory, ids["ttl"][0]) == "expired"
    assert [_status(memory, i) for i in ids["stale"] + folded] == ["archived"] * 5
    assert sorted(e.to_id for e in memory.edges(new_id) if e.type == "summarises") == folded
    assert all(RELEASES[k][:30] in memory.facts([new_id])[new_id].text for k in range(3))
    assert memory.gc().items == []  # 3 releases + 1 summary = the limit


def test_gc_stale_item_is_refused_after_the_fact_was_read(small_gc: Memory, clock) -> None:
    ids = _gc_store(small_gc, clock)
    plan = small_gc.gc(dry_run=True)
    small_gc.get(ids["stale"][0])  # someone read it after the plan was made
    with pytest.raises(PlanError, match="access_count of fact"):
        small_gc.apply_plan(plan.id)
    assert _status(small_gc, ids["stale"][1]) == "active"


def _sessions(memory: Memory, clock) -> dict[str, list[int]]:
    known = memory.absorb(["Spreeline Data is an analytics firm based in Berlin, founded in 2019."]).items[0].fact_id
    done = [it.fact_id for it in memory.absorb([
        "The staging cluster runs three replicas of the ingest service.",
        {"text": "Maya wants the weekly report as a PDF attachment, not a link.", "kind": "episodic"},
        {"text": "Ivan Petrov works at Northwind Robotics on the robot arm firmware.",
         "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind Robotics", "type": "company"}],
         "relations": [["Ivan Petrov", "works_at", "Northwind Robotics"]]},
    ], defaults={"scope": "run", "session_id": "s-1"}).items]
    clock.advance(2)
    live = [memory.absorb(["The user is debugging a flaky integration test in the billing module."],
                          defaults={"scope": "run", "session_id": "s-2"}).items[0].fact_id]
    return {"known": [known], "done": done, "live": live}


def test_distill_finished_sessions_through_absorb(memory: Memory, clock) -> None:
    ids = _sessions(memory, clock)
    plan = memory.distill(dry_run=True)
    assert "session s-1: 3 run facts" in plan.note
    # Each original is classified against agent knowledge, never against itself (same text, same vector).
    outcomes = [(it.outcome, it.target_id, it.stage) for it in plan.items]
    assert outcomes[:3] == [("new", None, "distill")] * 3
    assert [(it.outcome, it.target_id, it.target_index) for it in plan.items[3:]] == [
        ("archive", ids["done"][k], k) for k in range(3)]
    memory.apply_plan(plan.id)
    applied = memory.plan(plan.id)
    assert [_status(memory, i) for i in ids["done"]] == ["archived"] * 3
    assert _status(memory, ids["live"][0]) == "active"  # session s-2 is not finished
    new_pref = memory.facts([applied.items[1].fact_id])[applied.items[1].fact_id]
    assert (new_pref.scope, new_pref.kind, new_pref.session_id) == ("agent", "explicit", None)
    assert applied.items[0].incoming["text"] == memory.facts([ids["done"][0]])[ids["done"][0]].text
    for k in range(3):
        edge = [(e.type, e.to_id) for e in memory.edges(applied.items[k].fact_id) if e.type == "distilled_from"]
        assert edge == [("distilled_from", ids["done"][k])]
    assert [m.entity.name for m in memory.graph_query("Northwind Robotics", ["<works_at"])] == ["Ivan Petrov"]
    again = memory.distill()
    assert again.items == [] and again.note == "no finished session to distill"


def test_distill_a_named_session_and_an_unknown_one(memory: Memory, clock) -> None:
    ids = _sessions(memory, clock)
    plan = memory.distill(session_id="s-2")
    assert [it.outcome for it in plan.items] == ["new", "archive"] and plan.status == "applied"
    assert _status(memory, ids["live"][0]) == "archived"
    assert memory.distill(session_id="nope").note == "session nope has no active run facts"


def test_distill_plan_refused_when_an_original_changed(memory: Memory, clock) -> None:
    ids = _sessions(memory, clock)
    plan = memory.distill(dry_run=True)
    memory.apply_plan(memory.propose([{"action": "archive", "fact_id": ids["done"][1]}]).id)
    with pytest.raises(PlanError, match=f"fact {ids['done'][1]} is now archived"):
        memory.apply_plan(plan.id)
    assert _status(memory, ids["done"][0]) == "active"
