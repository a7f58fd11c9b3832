"""The absorb pipeline and plans: outcomes, dry runs, partial and stale applies."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, NotFound, PlanError, RawItem, Settings

EDITOR = {"subject": "Maya", "predicate": "preferred_editor"}
HOME = {"subject": "Jonas", "predicate": "home_city"}


def _counts(db_path: Path) -> dict[str, int]:
    raw = sqlite3.connect(db_path)
    return {t: raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("facts", "edges", "journal", "entities", "relations", "text_aliases")}


def _fact_state(db_path: Path) -> list[tuple]:
    return sqlite3.connect(db_path).execute(
        "SELECT id, status, confidence, reinforcement_count, access_count FROM facts ORDER BY id").fetchall()


def test_new_fact_is_stored_with_kind_confidence_and_journal(memory: Memory) -> None:
    plan = memory.absorb([{"text": "Maya prefers reviewing pull requests before eleven in the morning.",
                           "kind": "user_preference", "scope": "user", "tags": ["Work", "reviews"],
                           "source": "chat:2026-11-02#4"}])
    item = plan.items[0]
    assert (plan.status, item.outcome) == ("applied", "new")
    fact = memory.facts([item.fact_id])[item.fact_id]
    assert fact.confidence == pytest.approx(0.5)  # user_preference starts at 0.5
    assert fact.tags == ["work", "reviews"]
    assert fact.sources == ["chat:2026-11-02#4"]
    actions = [e.action for e in memory.journal(item.fact_id)]
    assert actions == ["absorb"]


def test_dry_run_stores_a_draft_and_writes_nothing_else(memory: Memory, db_path: Path) -> None:
    memory.absorb(["Northwind Robotics builds warehouse robots in its Kazan factory."])
    before_counts, before_state = _counts(db_path), _fact_state(db_path)
    plan = memory.absorb(["Northwind Robotics builds warehouse robots in its Kazan factory.",
                          "The Ferrite service batches inserts into PostgreSQL every 500 ms."], dry_run=True)
    assert [it.outcome for it in plan.items] == ["duplicate", "new"]
    assert plan.status == "draft" and not plan.applied
    assert _counts(db_path) == before_counts
    assert _fact_state(db_path) == before_state  # not even a reinforcement or an access count
    assert memory.plan(plan.id).status == "draft"


def test_apply_later_by_id_writes_exactly_the_plan(memory: Memory, db_path: Path) -> None:
    plan = memory.absorb(["Sofia Marques designs the fleet map screens of Atlas Console.",
                          "Jonas Becker founded Spreeline Data in Berlin in 2019."], dry_run=True)
    applied = memory.apply_plan(plan.id)
    assert applied.status == "applied"
    assert [it.fact_id is not None for it in applied.items] == [True, True]
    assert _counts(db_path)["facts"] == 2
    with pytest.raises(PlanError, match="applied"):
        memory.apply_plan(plan.id)
    assert _counts(db_path)["facts"] == 2


def test_apply_only_a_subset(memory: Memory, db_path: Path) -> None:
    plan = memory.absorb(["Sofia Marques designs the fleet map screens of Atlas Console.",
                          "Jonas Becker founded Spreeline Data in Berlin in 2019.",
                          "Ana Ribeiro founded Atlântico Labs, a logistics company in Lisbon."], dry_run=True)
    applied = memory.apply_plan(plan.id, only=[0, 2])
    assert applied.applied_indexes == [0, 2]
    texts = [r[0] for r in sqlite3.connect(db_path).execute("SELECT text FROM facts ORDER BY id")]
    assert texts == [plan.items[0].incoming["text"], plan.items[2].incoming["text"]]
    assert memory.plan(plan.id).applied_indexes == [0, 2]


def test_only_with_unknown_item_is_refused(memory: Memory) -> None:
    plan = memory.absorb(["Sofia Marques designs the fleet map screens of Atlas Console."], dry_run=True)
    with pytest.raises(PlanError, match="no item 7"):
        memory.apply_plan(plan.id, only=[7])


def test_stale_plan_is_refused_and_nothing_written(memory: Memory, db_path: Path) -> None:
    memory.absorb([{"text": "Maya's preferred editor is VS Code with the Rust analyzer plugin.", **EDITOR,
                    "object": "VS Code"}])
    first = memory.absorb([{"text": "Maya's preferred editor is Neovim with a LazyVim configuration.", **EDITOR,
                            "object": "Neovim"}], dry_run=True)
    second = memory.absorb([{"text": "Maya's preferred editor is Helix since the summer of 2026.", **EDITOR,
                             "object": "Helix"}], dry_run=True)
    memory.apply_plan(first.id)
    before = _counts(db_path)
    with pytest.raises(PlanError, match="out of date.*superseded"):
        memory.apply_plan(second.id)
    assert _counts(db_path) == before
    assert memory.plan(second.id).status == "refused"


def test_unknown_plan(memory: Memory) -> None:
    with pytest.raises(NotFound, match="no plan 42"):
        memory.apply_plan(42)


def test_discard_keeps_the_plan_and_changes_nothing(memory: Memory, db_path: Path) -> None:
    plan = memory.absorb(["The Harbor project moves every Northwind service onto Kubernetes."], dry_run=True)
    memory.discard_plan(plan.id)
    assert memory.plan(plan.id).status == "discarded"
    assert _counts(db_path)["facts"] == 0
    with pytest.raises(PlanError, match="discarded"):
        memory.apply_plan(plan.id)


def test_exact_duplicate_reinforces_by_hash(memory: Memory, clock) -> None:
    text = "Ferrite is written in Rust and reads robot telemetry from Kafka."
    first = memory.absorb([text]).items[0].fact_id
    clock.advance(3)
    plan = memory.absorb(["  ferrite is WRITTEN in rust and reads robot telemetry from kafka.  "])
    item = plan.items[0]
    assert (item.outcome, item.decided_by, item.target_id) == ("duplicate", "hash", first)
    fact = memory.facts([first])[first]
    assert fact.reinforcement_count == 1
    assert fact.confidence == pytest.approx(0.4 + 0.3 * 0.6)  # explicit starts at 0.4
    assert fact.last_reinforced == clock.at


def test_reinforcement_is_capped(memory: Memory) -> None:
    text = "Maya drinks green tea during the afternoon planning meeting."
    for _ in range(25):
        memory.absorb([text])
    fact = next(iter(memory.facts([1]).values()))
    assert fact.confidence == pytest.approx(0.99)
    assert fact.reinforcement_count == 24


def test_same_triple_new_object_supersedes_three_times(memory: Memory, db_path: Path) -> None:
    versions = [("VS Code", "Maya's preferred editor is VS Code with the Rust analyzer plugin."),
                ("Neovim", "Maya switched her preferred editor to Neovim with a LazyVim setup."),
                ("Helix", "Maya's preferred editor is now Helix; it needs almost no configuration.")]
    ids = []
    for obj, text in versions:
        plan = memory.absorb([{"text": text, **EDITOR, "object": obj}])
        ids.append(plan.items[0].fact_id)
    assert [it.outcome for it in memory.plan(3).items] == ["supersede"]
    statuses = dict(sqlite3.connect(db_path).execute("SELECT id, status FROM facts"))
    assert [statuses[i] for i in ids] == ["superseded", "superseded", "active"]
    edges = sqlite3.connect(db_path).execute("SELECT src_id, dst_id, type FROM edges ORDER BY id").fetchall()
    assert edges == [(ids[1], ids[0], "supersedes"), (ids[2], ids[1], "supersedes")]


def test_versions_in_one_batch_chain_in_order(memory: Memory) -> None:
    plan = memory.absorb([
        {"text": "Maya's preferred editor is VS Code with the Rust analyzer plugin.", **EDITOR, "object": "VS Code"},
        {"text": "Maya switched her preferred editor to Neovim with a LazyVim setup.", **EDITOR, "object": "Neovim"},
        {"text": "Maya's preferred editor is now Helix; it needs almost no configuration.", **EDITOR,
         "object": "Helix"},
    ])
    assert [(it.outcome, it.target_index) for it in plan.items] == [("new", None), ("supersede", 0), ("supersede", 1)]
    latest = memory.get(plan.items[0].fact_id, "latest").facts[0]
    assert latest.object == "Helix"


def test_number_change_is_a_contradiction_both_stay_active(memory: Memory) -> None:
    old = memory.absorb(["The staging cluster runs 3 replicas of the Ferrite ingest service."]).items[0].fact_id
    item = memory.absorb(["The staging cluster runs 5 replicas of the Ferrite ingest service."]).items[0]
    assert (item.outcome, item.target_id) == ("contradict", old)
    assert "number" in item.reason
    facts = memory.facts([old, item.fact_id])
    assert {f.status for f in facts.values()} == {"active"}
    reading = memory.get(old, "full_history")
    assert reading.contradicts and reading.contradicts[0]["type"] == "contradicts"


def test_negation_is_a_contradiction(memory: Memory) -> None:
    memory.absorb(["Maya wants the agent to run the full test suite before proposing a commit."])
    item = memory.absorb(["Maya does not want the agent to run the full test suite before proposing a commit."]).items[0]
    assert item.outcome == "contradict" and "negation" in item.reason


def test_close_but_different_is_related(memory: Memory) -> None:
    target = memory.absorb(["Ferrite handles a peak of forty thousand robot events per second."]).items[0].fact_id
    item = memory.absorb(["Ferrite batches robot events and flushes them to PostgreSQL every half second."]).items[0]
    assert item.outcome in ("related", "new")
    if item.outcome == "related":
        assert item.target_id == target


def test_unrelated_is_new(memory: Memory) -> None:
    memory.absorb(["Ferrite handles a peak of forty thousand robot events per second."])
    item = memory.absorb(["Sofia Marques prefers sketching interfaces on paper before using Figma."]).items[0]
    assert item.outcome == "new"


def test_near_identical_items_in_a_batch_merge_into_the_richest(memory: Memory) -> None:
    plan = memory.absorb([
        {"text": "Maya prefers dark mode in every editor she uses.", "source": "chat:1"},
        {"text": "Maya prefers dark mode in every code editor that she uses.", "source": "chat:2",
         "tags": ["ui"]},
    ])
    outcomes = {it.index: it for it in plan.items}
    assert outcomes[0].outcome == "merged" and outcomes[0].merged_into == 1
    assert outcomes[1].outcome == "new"
    fact = memory.facts([outcomes[1].fact_id])[outcomes[1].fact_id]
    assert fact.sources == ["chat:2", "chat:1"]
    # The merged text is remembered: absorbing it again is a hash duplicate of the survivor.
    again = memory.absorb(["Maya prefers dark mode in every editor she uses."]).items[0]
    assert (again.outcome, again.decided_by, again.target_id) == ("duplicate", "hash", fact.id)


def test_disagreeing_items_in_a_batch_do_not_merge(memory: Memory) -> None:
    plan = memory.absorb(["The staging cluster runs 3 replicas of the Ferrite ingest service.",
                          "The staging cluster runs 5 replicas of the Ferrite ingest service."])
    assert [it.outcome for it in plan.items] == ["new", "contradict"]


def test_reabsorbing_an_old_version_does_not_revive_it(memory: Memory) -> None:
    old = {"text": "Maya's preferred editor is VS Code with the Rust analyzer plugin.", **EDITOR, "object": "VS Code"}
    memory.absorb([old])
    memory.absorb([{"text": "Maya's preferred editor is Helix since the summer of 2026.", **EDITOR,
                    "object": "Helix"}])
    item = memory.absorb([old]).items[0]
    assert item.outcome == "duplicate" and "superseded" in item.reason
    assert memory.facts([item.target_id])[item.target_id].status == "superseded"


def test_bad_items_are_rejected_and_the_rest_go_on(memory: Memory, db_path: Path) -> None:
    good = "Ольга Смирнова leads the Harbor migration of Northwind services to Kubernetes."
    plan = memory.absorb([
        "", "x" * 1_000_000, {"text": "bad scope item with enough characters to be a fact", "scope": "galaxy"},
        {"text": "bad kind item with enough characters to be a fact", "kind": "rumour"},
        {"text": "a fact with a NUL \x00 byte inside of it for testing"},
        {"text": 42}, ["not", "an", "object"], RawItem(None, "line 9: not valid UTF-8 (byte 3)"),
        {"text": "entities that are not a list, which is malformed metadata", "entities": "Maya"},
        {"text": "an unknown field should be refused and explained clearly", "colour": "red"},
        good,
    ])
    outcomes = [it.outcome for it in plan.items]
    assert outcomes == ["rejected"] * 10 + ["new"]
    reasons = [it.reason for it in plan.items[:10]]
    assert "empty" in reasons[0] and "1,000,000 characters" in reasons[1]
    assert "scope" in reasons[2] and "kind" in reasons[3] and "control" in reasons[4]
    assert "UTF-8" in reasons[7] and "unknown field 'colour'" in reasons[9]
    assert all(it.incoming is None for it in plan.items[:10])
    texts = [r[0] for r in sqlite3.connect(db_path).execute("SELECT text FROM facts")]
    assert texts == [good]


def test_entity_metadata_creates_nodes_and_relations(memory: Memory, db_path: Path) -> None:
    memory.absorb([{"text": "Maya Lindqvist works at Northwind Robotics as a backend engineer.",
                    "entities": [{"name": "Maya Lindqvist", "type": "person"},
                                 {"name": "Northwind Robotics", "type": "company"}],
                    "relations": [["Maya Lindqvist", "works_at", "Northwind Robotics"]]},
                   {"text": "maya  lindqvist gave a talk at Systems Days Berlin in May 2026.",
                    "entities": [{"name": "MAYA LINDQVIST", "type": "person"}]}])
    raw = sqlite3.connect(db_path)
    assert raw.execute("SELECT count(*) FROM entities WHERE type = 'person'").fetchone()[0] == 1
    assert raw.execute("SELECT type FROM relations").fetchall() == [("works_at",)]


def test_relation_to_an_undeclared_entity_is_rejected(memory: Memory) -> None:
    plan = memory.absorb([{"text": "Maya Lindqvist works at Northwind Robotics as a backend engineer.",
                           "entities": [{"name": "Maya Lindqvist", "type": "person"}],
                           "relations": [["Maya Lindqvist", "works_at", "Northwind Robotics"]]}])
    assert plan.items[0].outcome == "rejected" and "missing from 'entities'" in plan.items[0].reason


def test_run_scope_needs_a_session(memory: Memory) -> None:
    item = memory.absorb([{"text": "We fixed the Kafka consumer lag by raising max.poll.records.",
                           "scope": "run"}]).items[0]
    assert item.outcome == "rejected" and "session" in item.reason


def test_ttl_sets_expiry_and_created_at_is_kept(memory: Memory) -> None:
    item = memory.absorb([{"text": "The on-call rotation this week is covered by Ольга from the SRE team.",
                           "ttl_days": 7, "created_at": "2026-11-01T10:00:00Z"}]).items[0]
    fact = memory.facts([item.fact_id])[item.fact_id]
    assert fact.to_dict()["created_at"] == "2026-11-01T10:00:00Z"
    assert fact.to_dict()["expires_at"] == "2026-11-08T10:00:00Z"


def test_short_text_gets_a_warning_not_an_error(memory: Memory) -> None:
    item = memory.absorb(["Maya likes tea."]).items[0]
    assert item.outcome == "new" and item.warnings and "characters" in item.warnings[0]


KNOWN = "The deploy note says akiaq3zv7t2l9xw4pb6n is the old bucket label for the staging cluster."


def test_a_known_text_still_has_its_metadata_scanned(memory: Memory) -> None:
    memory.absorb([KNOWN])
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    plan = memory.absorb([KNOWN, {"text": KNOWN, "source": token}])
    assert [(it.outcome, it.decided_by) for it in plan.items] == [("duplicate", "hash"), ("rejected", "secrets")]
    assert token not in plan.items[1].reason


def test_same_hash_but_not_verbatim_is_scanned(memory: Memory) -> None:
    """Dedup ignores case; the secret rules do not: an upper-cased key is a key even if its lower case is stored."""
    memory.absorb([KNOWN])
    plan = memory.absorb([KNOWN.replace("akiaq3zv7t2l9xw4pb6n", "AKIAQ3ZV7T2L9XW4PB6N")])
    assert plan.items[0].outcome == "rejected" and "aws-access-key-id" in plan.items[0].reason


def test_the_search_index_after_writes_is_what_a_fresh_load_reads(memory: Memory, db_path: Path, clock,
                                                                   embedder) -> None:
    """The index follows absorbs from what they wrote (new rows, reinforcements) without reading
    them back; it must hold exactly the vectors and ranking columns a reload from the file gives."""
    known = ["The staging cluster runs 3 replicas of the Ferrite ingest service.",
             "Jonas Becker founded Spreeline Data in Berlin in 2019."]
    memory.absorb(known)
    clock.advance(1)
    plan = memory.absorb([
        *known,  # duplicates by hash: reinforced
        {"text": "Maya's preferred editor is VS Code with the Rust analyzer plugin.", **EDITOR, "object": "VS Code"},
        {"text": "Maya's preferred editor is still VS Code, whatever the project.", **EDITOR, "object": "VS Code"},
        {"text": "Maya's preferred editor is now Helix; it needs almost no configuration.", **EDITOR,
         "object": "Helix"},
        {"text": "Jonas lives in Lisbon, close to the river.", **HOME, "object": "Lisbon"},
        {"text": "Jonas has made Lisbon his home for years now.", **HOME, "object": "Lisbon"},
    ])
    # Reinforced; a new item reinforced by a later one of its batch, then superseded by the next;
    # a new item reinforced by a later one and left active.
    assert [(it.outcome, it.target_index) for it in plan.items] == [
        ("duplicate", None), ("duplicate", None), ("new", None), ("duplicate", 2), ("supersede", 2),
        ("new", None), ("duplicate", 5)]
    clock.advance(2)
    memory.absorb(known)
    live = memory.index.index
    with Memory(db_path, Settings(), clock=clock, actor="test", embedder=embedder) as reopened:
        reopened.warm_up()
        loaded = reopened.index.index

    def by_id(index):
        order = np.argsort(index.ids)
        return index.ids[order], index.matrix[order], index.meta[order]

    for ours, theirs in zip(by_id(live), by_id(loaded)):
        np.testing.assert_array_equal(ours, theirs)
