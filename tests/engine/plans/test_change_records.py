"""A plan's change record is built by its writer from what it wrote; it must equal the record read
back from the journal (what another process, history and the index's catch-up see), and the
journal's hash chain, written with the content hashes the writer already holds, must verify.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from engine import Memory, Settings
from engine.changes import ChangeRecord
from engine.plans.apply import PlanWriter


def _same_as_read_back(memory: Memory, act: Callable[[], Any]) -> ChangeRecord:
    """Run ``act`` (returns a plan) and check its record against ``changes_between`` of its journal rows."""
    mark = memory.journal_high_water()
    plan = act()
    assert plan.changes is not None
    assert plan.changes == memory.changes_since(mark)
    assert memory.verify().problems == []
    return plan.changes


def _built_by_writer(monkeypatch) -> list[ChangeRecord]:
    """Records PlanWriter built (so a test knows the writer's path was taken, not the read back)."""
    built: list[ChangeRecord] = []
    original = PlanWriter.write

    def write(self, selected):
        changes = original(self, selected)
        built.append(changes.record)
        return changes

    monkeypatch.setattr(PlanWriter, "write", write)
    return built


def test_absorb_records_equal_the_journal(memory: Memory, clock, monkeypatch) -> None:
    built = _built_by_writer(monkeypatch)
    first = _same_as_read_back(memory, lambda: memory.absorb([
        {"text": "The billing service runs 3 replicas in eu-west-1.", "subject": "billing service",
         "predicate": "replicas", "object": "3"},
        {"text": "Maya likes green tea in the morning.", "source": "chat-1"},
        {"text": "Ivan Petrov works at Northwind Robotics on the robot arm firmware.",
         "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind Robotics", "type": "company"}],
         "relations": [["Ivan Petrov", "works_at", "Northwind Robotics"]]},
        "The nightly backup job is enabled on the staging database.",
    ]))
    assert len(first.facts_added) == 4 and first.entities_touched and built[-1] == first
    clock.advance(1)
    second = _same_as_read_back(memory, lambda: memory.absorb([
        # supersede (same triple), contradict (negation), duplicate by hash with a new source (evidence),
        # in-batch merge of identical texts, related
        {"text": "The billing service runs 5 replicas in eu-west-1.", "subject": "billing service",
         "predicate": "replicas", "object": "5"},
        "There is no nightly backup job enabled on the staging database.",
        {"text": "Maya likes green tea in the morning.", "source": "chat-2"},
        {"text": "Maya likes green tea in the morning.", "source": "chat-3"},
        "Ivan Petrov also maintains the Northwind Robotics test rig firmware.",
    ]))
    assert second.facts_status_changed and second.facts_touched and second.edges_added
    assert built[-1] == second
    clock.advance(1)
    # The superseded text again: a duplicate of an old version, nothing written, an empty record.
    old = _same_as_read_back(memory, lambda: memory.absorb([
        {"text": "The billing service runs 3 replicas in eu-west-1."}]))
    assert old == ChangeRecord() and built[-1] == old


def test_curation_records_equal_the_journal(memory: Memory, clock, monkeypatch) -> None:
    built = _built_by_writer(monkeypatch)
    ids = [it.fact_id for it in memory.absorb([
        "The build server restarts every night at two in the morning.",
        "The nightly backup job is enabled on the staging database.",
        "There is no nightly backup job enabled on the staging database.",
        "Maya prefers short stand-up meetings that end within ten minutes.",
        "Deploys go out from the main branch after a green build.",
    ]).items]
    clock.advance(1)
    records = [
        _same_as_read_back(memory, lambda: memory.archive_fact(ids[0], reason="obsolete")),
        _same_as_read_back(memory, lambda: memory.tag_fact(ids[3], add=["team", "meetings"])),
        _same_as_read_back(memory, lambda: memory.link_facts(ids[3], ids[4], "related", reason="both process")),
        _same_as_read_back(memory, lambda: memory.version_fact(ids[4], "Deploys go out from the release branch.")),
    ]
    contradiction = memory.contradictions()[0]
    records.append(_same_as_read_back(memory, lambda: memory.resolve_contradiction(
        contradiction.left.id, contradiction.right.id, contradiction.left.id, reason="checked")))
    draft = memory.archive_fact(ids[3], dry_run=True)
    applied = memory.plan(draft.id)
    records.append(_same_as_read_back(memory, lambda: memory.apply_plan(applied.id)))
    records.append(_same_as_read_back(memory, lambda: memory.revert_plan(applied.id)))
    assert all(not r.empty for r in records) and built[-len(records):] == records


def test_housekeeping_records_equal_the_journal(memory: Memory, clock, monkeypatch) -> None:
    built = _built_by_writer(monkeypatch)
    memory.settings = replace(memory.settings, gc=replace(memory.settings.gc, group_limit=4, summary_size=3))
    memory.absorb(["Checked the ingest logs for the customer; nothing unusual was found there.",
                   "The user asked to retry the nightly export job after the disk was cleaned.",
                   {"text": "Ivan Petrov works at Northwind Robotics.", "kind": "episodic",
                    "entities": [{"name": "Ivan Petrov", "type": "person"}]}],
                  defaults={"scope": "run", "session_id": "s-1"})
    memory.absorb([{"text": "The staging TLS certificate is valid until the end of this month.", "ttl_days": 5}])
    memory.absorb([{"text": f"Release 4.{n} of the fleet console ships feature number {n}.", "tags": ["release"]}
                   for n in range(7)])
    memory.absorb(["The build server restarts every night at two in the morning."])
    clock.advance(2)
    distilled = _same_as_read_back(memory, lambda: memory.distill())
    clock.advance(40)
    collected = _same_as_read_back(memory, lambda: memory.gc())
    clock.advance(60)
    consolidated = _same_as_read_back(memory, lambda: memory.consolidate())
    assert distilled.facts_added and collected.edges_added and consolidated.facts_status_changed
    assert built[-3:] == [distilled, collected, consolidated]


def test_import_records_equal_the_journal(memory: Memory, tmp_path: Path, clock, embedder) -> None:
    memory.absorb(["The build server restarts every night at two in the morning.",
                   {"text": "Ivan Petrov works at Northwind Robotics.",
                    "entities": [{"name": "Ivan Petrov", "type": "person"}]}])
    memory.absorb(["The build server restarts every night at three in the morning."])
    exported = io.StringIO()
    memory.export(exported)
    path = tmp_path / "export.jsonl"
    path.write_text(exported.getvalue())
    with Memory(tmp_path / "other.sqlite", Settings(), clock=clock, actor="test", embedder=embedder) as other:
        restored = _same_as_read_back(other, lambda: other.import_file(path).plan)  # the import writer: read back
        assert restored.facts_added
        plain = tmp_path / "plain.jsonl"
        plain.write_text('{"text": "Maya prefers short stand-up meetings."}\n')
        assert _same_as_read_back(other, lambda: other.import_file(plain).plan).facts_added
