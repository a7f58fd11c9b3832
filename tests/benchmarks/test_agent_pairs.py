"""The agent-memory pair generator: labels fixed by construction, families split, scores as the
hidden check counts them."""

from __future__ import annotations

from benchmarks.agent_families import FAMILIES
from benchmarks.agent_pairs import Pair, generate, score


def test_pairs_are_reproducible_and_labelled_by_how_they_are_made() -> None:
    pairs = generate(6, seed=3)
    assert pairs == generate(6, seed=3) and pairs != generate(6, seed=4)
    by_family = {f.name: f for f in FAMILIES}
    for p in pairs:
        family = by_family[p.family]
        values = [v.lower() for v in family.values]
        stored, incoming = p.stored.lower(), p.incoming.lower()  # a value may open the sentence
        if p.label == "changed":
            assert any(v in stored for v in values)
            assert any(v in incoming and v not in stored for v in values)  # a new value came
        if p.label == "same":
            assert any(v in stored and v in incoming for v in values)
    assert {p.label for p in pairs} == {"changed", "distinct", "same"}
    assert any(p.newer for p in pairs) and any(p.label == "changed" and not p.newer for p in pairs)


def test_tuning_held_out_and_fresh_families_are_apart() -> None:
    held = {p.family for p in generate(3, groups=("held-out",))}
    fresh = {p.family for p in generate(3, groups=("fresh",))}
    fresh2 = {p.family for p in generate(3, groups=("fresh2",))}
    tuning = {p.family for p in generate(3, groups=("tuning",))}
    assert held and tuning and fresh and not held & tuning and not fresh & (held | tuning)
    fresh3 = {p.family for p in generate(3, groups=("fresh3",))}
    assert fresh2 and not fresh2 & (held | tuning | fresh)
    fresh4 = {p.family for p in generate(3, groups=("fresh4",))}
    assert fresh3 and not fresh3 & (held | tuning | fresh | fresh2)
    assert fresh4 and not fresh4 & (held | tuning | fresh | fresh2 | fresh3)
    assert held | tuning | fresh | fresh2 | fresh3 | fresh4 == {f.name for f in FAMILIES}


def test_an_update_from_the_old_value_names_the_value_it_replaces() -> None:
    by_family = {f.name: f for f in FAMILIES}
    pairs = generate(20, seed=5, groups=("fresh",))
    assert all("{" not in p.stored + p.incoming for p in pairs)
    from_old = [p for p in pairs if p.label == "changed" and " from " in p.incoming]
    assert from_old
    for p in from_old:
        old = [v for v in by_family[p.family].values if f"from {v} " in p.incoming]
        assert old and old[0].lower() in p.stored.lower()


def test_scores_count_supersede_and_contradict_as_a_change_found() -> None:
    labels = ["changed", "changed", "changed", "distinct", "distinct", "same", "same"]
    outcomes = ["supersede", "contradict", "related", "contradict", "new", "duplicate", "related"]
    got = score(labels, outcomes)
    assert got["changes_found"] == round(2 / 3, 3) and got["change_precision"] == round(2 / 3, 3)
    assert got["distinct_flagged"] == 0.5 and got["restatements_recognised"] == 0.5
    assert got["duplicate_precision"] == 1.0
    assert Pair("x", "f", "same", "a", "b").to_dict()["label"] == "same"


def test_conversation_notes_are_planned_per_conversation_and_counted(tmp_path) -> None:
    import json

    from benchmarks.agent_pairs import conversation_notes
    notes = tmp_path / "observations.jsonl"
    rows = [("c1", "Caroline attended a pottery class last week."), ("c1", "Caroline adopted a cat named Oscar."),
            ("c2", "Jon opened a dance studio downtown."), ("c2", "Jon opened a dance studio downtown.")]
    notes.write_text("".join(json.dumps({"conv_id": c, "text": t}) + "\n" for c, t in rows), encoding="utf-8")
    counts = conversation_notes(notes)
    assert counts["notes"] == 4 and sum(v for k, v in counts.items() if k != "notes") == 4
    assert counts.get("merged", 0) + counts.get("duplicate", 0) == 1  # the repeated note, within its conversation
