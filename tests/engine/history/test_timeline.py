"""Timelines rebuilt from the journal: versions, contradictions, "as of" states, confidence curves."""

from __future__ import annotations

import math

import pytest

from engine import Memory, NotFound, SearchFilters

EDITOR = {"subject": "Maya", "predicate": "preferred_editor"}
DAY = 86400.0


def _three_versions(memory: Memory, clock) -> list[int]:
    ids = []
    for obj, text in [("VS Code", "Maya's preferred editor is VS Code with the Rust analyzer plugin."),
                      ("Neovim", "Maya switched her preferred editor to Neovim with a LazyVim setup."),
                      ("Helix", "Maya's preferred editor is now Helix; it needs almost no configuration.")]:
        ids.append(memory.absorb([{"text": text, **EDITOR, "object": obj}]).items[0].fact_id)
        clock.advance(10)
    return ids


def test_as_of_shows_which_version_was_current(memory: Memory, clock) -> None:
    start = clock()
    ids = _three_versions(memory, clock)
    line = memory.timeline(ids[1])
    assert line.chain_ids == ids
    as_of = lambda when: memory.timeline_as_of(ids[1], when)  # noqa: E731
    assert as_of(start - 1).current is None and as_of(start - 1).versions == []
    assert as_of(start + 1 * DAY).current == ids[0] and as_of(start + 1 * DAY).versions == ids[:1]
    assert as_of(start + 11 * DAY).current == ids[1] and as_of(start + 11 * DAY).versions == ids[:2]
    assert as_of(start + 11 * DAY).statuses[ids[0]] == "superseded"
    assert as_of(clock()).current == ids[2]
    assert as_of(start + 11 * DAY).statuses[ids[2]] is None
    # What the Timeline pane draws (each version's status over time) agrees with the replay.
    for when in (start - 1, start + 1 * DAY, start + 11 * DAY, clock()):
        assert {v.fact.id: v.status_at(when) for v in line.versions} == {i: as_of(when).statuses[i] for i in ids}


def test_contradiction_is_open_only_while_both_sides_are_active(memory: Memory, clock) -> None:
    old = memory.absorb(["The staging cluster runs 3 replicas of the Ferrite ingest service."]).items[0].fact_id
    clock.advance(5)
    new = memory.absorb(["The staging cluster runs 5 replicas of the Ferrite ingest service."]).items[0].fact_id
    line = memory.timeline(old)
    assert [(link.type, link.src, link.dst) for link in line.contradictions] == [("contradicts", new, old)]
    assert new in line.others
    assert memory.timeline_as_of(old, clock() - 2 * DAY).open_contradictions == []
    assert memory.timeline_as_of(old, clock()).open_contradictions == [(old, new)]


def test_confidence_curve_decays_and_jumps_at_each_reinforcement(memory: Memory, clock) -> None:
    text = "Maya prefers short commit messages written in the imperative mood."
    fact_id = memory.absorb([text]).items[0].fact_id
    clock.advance(30)
    memory.absorb([text])
    clock.advance(30)
    curve = memory.confidence_curve(fact_id, points=61)
    assert len(curve.reinforced_at) == 1 and curve.reinforced_at[0] == pytest.approx(clock() - 30 * DAY)
    before_jump = curve.values[29]
    assert curve.values[0] > before_jump  # decayed over 30 days
    assert curve.values[31] > before_jump  # the reinforcement raised it
    assert curve.reinforced_to[0] == pytest.approx(memory.facts([fact_id])[fact_id].confidence)
    assert all(0 < v <= 0.99 for v in curve.values)


def test_timeline_of_unknown_fact_is_not_found(memory: Memory) -> None:
    with pytest.raises(NotFound):
        memory.timeline(404)
    with pytest.raises(NotFound):
        memory.confidence_curve(404)


def test_browse_lists_newest_first_and_filters(memory: Memory, clock) -> None:
    ids = _three_versions(memory, clock)
    assert memory.browse() == [ids[2]]
    every = memory.browse(SearchFilters(statuses=("active", "superseded")))
    assert every == sorted(ids, reverse=True)
    assert memory.browse(SearchFilters(statuses=("active", "superseded"), min_confidence=0.99)) == []
    hits = memory.describe(every)
    assert [h.fact.id for h in hits] == every
    assert math.isnan(hits[0].score) and 0 < hits[0].effective_confidence <= 1



def test_a_fact_kept_over_its_contradiction_shows_every_older_version_in_every_reading(memory: Memory,
                                                                                      clock) -> None:
    """Seen in the real-window walk: a fact that already had an older version and was then kept over
    a contradicting one has two older versions; the timeline listed one, the replayed chart another."""
    start = clock()
    first = memory.absorb([{"text": "Maya's preferred editor is VS Code.", **EDITOR, "object": "VS Code"}])
    clock.advance(10)
    kept = memory.absorb([{"text": "Maya's preferred editor is now Helix.", **EDITOR, "object": "Helix"}])
    clock.advance(10)
    old, kept = first.items[0].fact_id, kept.items[0].fact_id
    said = memory.absorb(["Maya's preferred editor is Zed."]).items[0]
    rival = said.fact_id
    if (said.outcome, said.target_id) != ("contradict", kept):  # however absorb read it, a person may
        memory.link_facts(rival, kept, "contradicts")
    assert any({c.left.id, c.right.id} == {rival, kept} for c in memory.contradictions())
    clock.advance(10)
    memory.resolve_contradiction(kept, rival, keep=kept)
    for asked in (old, kept, rival):
        assert memory.timeline(asked).chain_ids == [old, rival, kept]
        assert memory.timeline_as_of(asked).versions == [old, rival, kept]
        assert [f.id for f in memory.history(asked).facts] == [old, rival, kept]
    line = memory.timeline(kept)
    assert {v.fact.id: v.status_at(clock()) for v in line.versions} == {old: "superseded", rival: "superseded",
                                                                      kept: "active"}
    # before the resolution the rival was its own fact, and active
    before = memory.timeline_as_of(kept, start + 25 * DAY)  # the clock advances in days
    assert before.versions == [old, kept] and before.statuses[rival] == "active"
    # before the kept fact was written, its history is its first older version's
    earlier = memory.timeline_as_of(kept, start + 5 * DAY)
    assert (earlier.versions, earlier.current) == ([old], old)
    # the kept fact joined the chain when it replaced the first version, not when it was kept
    joined = {v.fact.id: v.joined_at for v in line.versions}
    assert joined[kept] == memory.facts([kept])[kept].created_at
