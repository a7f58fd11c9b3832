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


def test_tuning_and_held_out_families_are_apart() -> None:
    held = {p.family for p in generate(3, held_out=True)}
    tuning = {p.family for p in generate(3, held_out=False)}
    assert held and tuning and not held & tuning
    assert held | tuning == {f.name for f in FAMILIES}


def test_scores_count_supersede_and_contradict_as_a_change_found() -> None:
    labels = ["changed", "changed", "changed", "distinct", "distinct", "same", "same"]
    outcomes = ["supersede", "contradict", "related", "contradict", "new", "duplicate", "related"]
    got = score(labels, outcomes)
    assert got["changes_found"] == round(2 / 3, 3) and got["change_precision"] == round(2 / 3, 3)
    assert got["distinct_flagged"] == 0.5 and got["restatements_recognised"] == 0.5
    assert got["duplicate_precision"] == 1.0
    assert Pair("x", "f", "same", "a", "b").to_dict()["label"] == "same"
