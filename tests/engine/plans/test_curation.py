"""Hand-made changes (Memory.propose) and the generic plan actions: archive, expire, link, retag, extra edges."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import InvalidInput, Memory, NotFound, PlanError, PlanItem, SecretRejected

FAKE_AWS_KEY = "AKIA" + "IOSFODNN7" + "QWERTYZ"
TEXTS = ["Northwind Robotics builds warehouse robots in its factory in Kazan.",
         "Maya prefers dark mode in every editor that she uses at work.",
         "The Ferrite service batches inserts into PostgreSQL every 500 ms."]


@pytest.fixture
def ids(memory: Memory) -> list[int]:
    plan = memory.absorb([{"text": t, "tags": ["seed"]} for t in TEXTS])
    return [it.fact_id for it in plan.items]


def _table_counts(db_path: Path) -> dict[str, int]:
    raw = sqlite3.connect(db_path)
    return {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("facts", "edges", "journal", "plans")}


def _statuses(memory: Memory, ids: list[int]) -> list[str]:
    facts = memory.facts(ids)
    return [facts[i].status for i in ids]


def test_archive_is_a_draft_until_applied_then_journaled(memory: Memory, ids: list[int], db_path: Path) -> None:
    before = _table_counts(db_path)
    plan = memory.propose([{"action": "archive", "fact_id": ids[0], "reason": "the factory moved"}], note="tidy up")
    assert plan.status == "draft" and plan.kind == "curate" and plan.items[0].outcome == "archive"
    assert _table_counts(db_path) == {**before, "plans": before["plans"] + 1}
    assert _statuses(memory, ids) == ["active", "active", "active"]
    applied = memory.apply_plan(plan.id)
    assert applied.status == "applied" and applied.note == "tidy up"
    assert _statuses(memory, ids) == ["archived", "active", "active"]
    entry = [e for e in memory.journal(ids[0]) if e.action == "archive"][0]
    assert entry.plan_id == plan.id
    assert entry.details["before"] == {"status": "active"} and entry.details["after"] == {"status": "archived"}
    assert entry.details["reason"] == "the factory moved"
    assert ids[0] not in [h.fact.id for h in memory.search("warehouse robots Kazan")]
    assert memory.get(ids[0], "full_history").facts[0].status == "archived"  # still readable


def test_link_adds_an_edge_both_sides_see(memory: Memory, ids: list[int]) -> None:
    plan = memory.propose([{"action": "link", "type": "contradicts", "from_id": ids[1], "to_id": ids[2]},
                           {"action": "link", "type": "related", "from_id": ids[0], "to_id": ids[2]}])
    memory.apply_plan(plan.id)
    edges = memory.edges(ids[2])
    assert [(e.type, e.from_id, e.to_id, e.plan_id) for e in edges] == [
        ("contradicts", ids[1], ids[2], plan.id), ("related", ids[0], ids[2], plan.id)]
    assert [e.to_dict()["type"] for e in memory.edges(ids[1])] == ["contradicts"]
    assert [e.action for e in memory.journal(ids[1])][-1] == "link"
    with pytest.raises(InvalidInput, match="already linked"):  # contradicts counts in both directions
        memory.propose([{"action": "link", "type": "contradicts", "from_id": ids[2], "to_id": ids[1]}])


def test_retag_replaces_tags_with_before_and_after(memory: Memory, ids: list[int]) -> None:
    plan = memory.propose([{"action": "retag", "fact_id": ids[1], "tags": ["UI", "prefs", "ui"]}])
    assert plan.items[0].tags == ["ui", "prefs"] and plan.items[0].before == {"tags": ["seed"]}
    memory.apply_plan(plan.id)
    assert memory.facts([ids[1]])[ids[1]].tags == ["ui", "prefs"]
    entry = memory.journal(ids[1])[-1]
    assert (entry.action, entry.details["before"], entry.details["after"]) == (
        "retag", {"tags": ["seed"]}, {"tags": ["ui", "prefs"]})
    cleared = memory.propose([{"action": "retag", "fact_id": ids[1], "tags": []}])
    memory.apply_plan(cleared.id)
    assert memory.facts([ids[1]])[ids[1]].tags == []


def test_supersede_by_hand_is_a_new_version_decided_by_the_user(memory: Memory, ids: list[int]) -> None:
    plan = memory.propose([{"action": "supersede", "fact_id": ids[2], "importance": 0.9,
                            "text": "The Ferrite service batches inserts into PostgreSQL every 200 ms."}])
    item = plan.items[0]
    assert (item.outcome, item.decided_by, item.target_id) == ("supersede", "user", ids[2])
    memory.apply_plan(plan.id)
    new_id = memory.plan(plan.id).items[0].fact_id
    facts = memory.facts([new_id, ids[2]])
    new, old = facts[new_id], facts[ids[2]]
    assert (old.status, new.status, new.importance, new.tags) == ("superseded", "active", 0.9, ["seed"])
    assert memory.get(ids[2], "latest").facts[0].id == new_id
    assert [(e.type, e.from_id, e.to_id) for e in memory.edges(ids[2])] == [("supersedes", new_id, ids[2])]


def test_a_secret_in_a_supersede_is_rejected_and_never_stored(memory: Memory, ids: list[int], db_path: Path) -> None:
    before = _table_counts(db_path)
    with pytest.raises(SecretRejected) as err:
        memory.propose([{"action": "archive", "fact_id": ids[0]},
                        {"action": "supersede", "fact_id": ids[1], "text": f"Maya's deploy key is {FAKE_AWS_KEY}."}])
    assert FAKE_AWS_KEY not in str(err.value) and str(err.value).startswith("change 1:")
    assert _table_counts(db_path) == before
    raw = sqlite3.connect(db_path)
    assert not raw.execute("SELECT count(*) FROM plans WHERE items LIKE ?", (f"%{FAKE_AWS_KEY}%",)).fetchone()[0]
    with pytest.raises(SecretRejected):
        memory.propose([{"action": "archive", "fact_id": ids[0], "reason": f"key {FAKE_AWS_KEY}"}])


@pytest.mark.parametrize("change, error, message", [
    ({"action": "delete", "fact_id": 1}, InvalidInput, "action must be one of"),
    ({"action": "archive"}, InvalidInput, "'fact_id' is missing"),
    ({"action": "archive", "fact_id": "1"}, InvalidInput, "positive integer"),
    ({"action": "archive", "fact_id": True}, InvalidInput, "positive integer"),
    ({"action": "archive", "fact_id": 999}, NotFound, "no fact 999"),
    ({"action": "archive", "fact_id": 1, "colour": "red"}, InvalidInput, "unknown field 'colour'"),
    ({"action": "link", "type": "contradicts", "from_id": 1, "to_id": 1}, InvalidInput, "itself"),
    ({"action": "link", "type": "supersedes", "from_id": 1, "to_id": 2}, InvalidInput, "link type"),
    ({"action": "link", "type": "related", "from_id": 1}, InvalidInput, "'to_id' is missing"),
    ({"action": "retag", "fact_id": 1, "tags": "a,b"}, InvalidInput, "list of strings"),
    ({"action": "retag", "fact_id": 1, "tags": [3]}, InvalidInput, "tag must be a string"),
    ({"action": "retag", "fact_id": 1}, InvalidInput, "'tags' is missing"),
    ({"action": "supersede", "fact_id": 1}, InvalidInput, "text must be a string"),
    ({"action": "supersede", "fact_id": 1, "text": TEXTS[0]}, InvalidInput, "same as fact 1"),
    ({"action": "supersede", "fact_id": 1, "text": TEXTS[1]}, InvalidInput, "fact 2 already says this"),
    ({"action": "supersede", "fact_id": 1, "text": "Northwind moved to Perm.", "scope": "moon"}, InvalidInput,
     "scope must be"),
    ("archive 1", InvalidInput, "must be an object"),
])
def test_bad_changes_raise_one_line_errors_and_store_nothing(memory: Memory, ids: list[int], db_path: Path,
                                                             change, error, message) -> None:
    before = _table_counts(db_path)
    with pytest.raises(error, match=message) as err:
        memory.propose([change])
    assert "\n" not in str(err.value)
    assert _table_counts(db_path) == before


def test_inactive_targets_and_conflicting_changes_are_refused(memory: Memory, ids: list[int]) -> None:
    memory.apply_plan(memory.propose([{"action": "archive", "fact_id": ids[0]}]).id)
    with pytest.raises(InvalidInput, match=f"fact {ids[0]} is archived"):
        memory.propose([{"action": "archive", "fact_id": ids[0]}])
    with pytest.raises(InvalidInput, match="not active"):
        memory.propose([{"action": "link", "type": "related", "from_id": ids[1], "to_id": ids[0]}])
    with pytest.raises(InvalidInput, match="already archived or superseded by change 0"):
        memory.propose([{"action": "archive", "fact_id": ids[1]},
                        {"action": "supersede", "fact_id": ids[1], "text": "Maya prefers light mode now."}])
    for bad in ([], "archive", {"action": "archive"}):
        with pytest.raises(InvalidInput):
            memory.propose(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="kind"):
        memory.propose([{"action": "archive", "fact_id": ids[1]}], kind="import")


def test_plan_made_before_the_target_changed_is_refused_whole(memory: Memory, ids: list[int]) -> None:
    stale = memory.propose([{"action": "retag", "fact_id": ids[2], "tags": ["perf"]},
                            {"action": "archive", "fact_id": ids[1]}])
    other = memory.propose([{"action": "archive", "fact_id": ids[1]}])
    memory.apply_plan(other.id)
    with pytest.raises(PlanError, match=f"item 1: fact {ids[1]} is now archived"):
        memory.apply_plan(stale.id)
    assert memory.plan(stale.id).status == "refused"
    assert memory.facts([ids[2]])[ids[2]].tags == ["seed"]  # the fresh item was not written either
    retag = memory.propose([{"action": "retag", "fact_id": ids[2], "tags": ["perf"]}])
    memory.apply_plan(memory.propose([{"action": "retag", "fact_id": ids[2], "tags": ["db"]}]).id)
    with pytest.raises(PlanError, match="tags of fact"):
        memory.apply_plan(retag.id)
    link = memory.propose([{"action": "link", "type": "related", "from_id": ids[0], "to_id": ids[2]}])
    memory.apply_plan(memory.propose([{"action": "link", "type": "related", "from_id": ids[2], "to_id": ids[0]}]).id)
    with pytest.raises(PlanError, match="already linked"):
        memory.apply_plan(link.id)


def test_only_some_changes_are_applied(memory: Memory, ids: list[int]) -> None:
    plan = memory.propose([{"action": "archive", "fact_id": ids[0]}, {"action": "archive", "fact_id": ids[1]}])
    memory.apply_plan(plan.id, only=[1])
    assert _statuses(memory, ids) == ["active", "archived", "active"]
    assert memory.plan(plan.id).applied_indexes == [1]


def test_expire_and_inserted_items_carrying_edges(memory: Memory, ids: list[int]) -> None:
    """The generic actions housekeeping uses: expire, and a new fact with edges to existing ones."""
    summary = {"text": "Seed facts: Northwind in Kazan, Maya's dark mode, Ferrite's batching.", "scope": "agent",
               "kind": "derived"}
    items = [PlanItem(0, "expire", "gc", "past its ttl", target_id=ids[0], target_status="active", stage="ttl"),
             PlanItem(1, "new", "gc", "summary of 2 facts", incoming=summary,
                      edges=[{"type": "summarises", "to_id": ids[1], "to_status": "active"},
                             {"type": "summarises", "to_id": ids[2], "to_status": "active"}])]
    plan = memory.planning.store_draft("gc", items)
    memory.apply_plan(plan.id)
    new_id = memory.plan(plan.id).items[1].fact_id
    assert _statuses(memory, ids) == ["expired", "active", "active"]
    assert sorted((e.type, e.from_id, e.to_id) for e in memory.edges(new_id)) == [
        ("summarises", new_id, ids[1]), ("summarises", new_id, ids[2])]
    assert memory.journal(ids[0])[-1].details["stage"] == "ttl"


def test_contradiction_queue_and_its_three_resolutions(memory: Memory) -> None:
    pairs = []
    for old, new in [("The staging cluster runs 3 replicas of the Ferrite ingest service.",
                      "The staging cluster runs 5 replicas of the Ferrite ingest service."),
                     ("Maya wants the agent to run the full test suite before proposing a commit.",
                      "Maya does not want the agent to run the full test suite before proposing a commit."),
                     ("The Harbor dashboard refreshes every 30 seconds for the operations team.",
                      "The Harbor dashboard refreshes every 10 seconds for the operations team.")]:
        a = memory.absorb([old]).items[0].fact_id
        b = memory.absorb([new]).items[0]
        assert b.outcome == "contradict"
        pairs.append((a, b.fact_id))
    queue = memory.contradictions()
    assert [(c.left.id, c.right.id) for c in queue] == pairs
    (k1, r1), (k2, r2), (k3, r3) = pairs
    plan = memory.propose([{"action": "prefer", "keep_id": r1, "retire_id": k1}])
    memory.apply_plan(plan.id)
    assert memory.facts([k1])[k1].status == "superseded"
    assert memory.get(k1, "latest").facts[0].id == r1
    assert memory.timeline(k1).chain_ids == [k1, r1]
    plan = memory.propose([{"action": "link", "type": "related", "from_id": k2, "to_id": r2,
                            "reason": "both hold: she changed her mind for small commits only"}])
    memory.apply_plan(plan.id)
    assert [(c.left.id, c.right.id) for c in memory.contradictions()] == [(k3, r3)]
    assert {f.status for f in memory.facts([k2, r2]).values()} == {"active"}


def test_prefer_refuses_bad_pairs_and_stale_plans(memory: Memory) -> None:
    a = memory.absorb(["The staging cluster runs 3 replicas of the Ferrite ingest service."]).items[0].fact_id
    b = memory.absorb(["The staging cluster runs 5 replicas of the Ferrite ingest service."]).items[0].fact_id
    with pytest.raises(InvalidInput, match="same fact"):
        memory.propose([{"action": "prefer", "keep_id": a, "retire_id": a}])
    with pytest.raises(NotFound):
        memory.propose([{"action": "prefer", "keep_id": a, "retire_id": 999}])
    first = memory.propose([{"action": "prefer", "keep_id": a, "retire_id": b}])
    second = memory.propose([{"action": "prefer", "keep_id": b, "retire_id": a}])
    memory.apply_plan(first.id)
    with pytest.raises(PlanError, match="out of date"):
        memory.apply_plan(second.id)
    assert memory.facts([a])[a].status == "active" and memory.facts([b])[b].status == "superseded"
