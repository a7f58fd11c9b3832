"""The pair model: an update said in words the frame reading does not parse still supersedes; it
is never asked about another numbered thing, a scene of anyone, a text of several statements, or
a candidate it cannot measure; the shipped model reads the features absorb computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import Memory
from engine.absorb.classify import Candidate, _a_known_thing, by_pair_model, classify  # noqa: PLC2701
from engine.absorb.frame_contrast import compare
from engine.absorb.pair_features import NAMES, differing_words, features, joins_clauses
from engine.absorb.pair_model import CLASSES, probabilities
from engine.absorb.pairs import decide_pairs
from engine.absorb.span_similarity import SpanSimilarity
from engine.absorb.validation import Incoming
from engine.config import Settings

# Written for this test, in none of benchmarks/agent_families.py's families.
UPDATES = [
    ("Invoices for Acme go to Dana.", "Since March, invoices for Acme go to Felix instead."),
    ("Feed the cat twice a day.", "Feed the cat three times a day from now on."),
]


def _decide(embedder, pairs: list[tuple[str, str]]) -> list:
    return decide_pairs([(k, a, b) for k, (a, b) in enumerate(pairs)], Settings().memory, embedder.embed, classify)


def test_updates_the_frame_reading_gives_up_on_supersede_by_the_model(embedder) -> None:
    decided = _decide(embedder, UPDATES)
    assert [(d.outcome, d.decided_by) for d in decided] == [("supersede", "model")] * len(UPDATES)
    assert all("pair model" in d.reason for d in decided)


@pytest.mark.parametrize("stored, incoming", [
    ("Build runner 4 uses the ARM pool.", "Build runner 5 now uses the x86 pool."),  # another numbered thing
    ("A man is playing a guitar.", "A man is now playing a flute."),  # a scene of anyone
    ("Ines's gym is FitHub on Main Street.", "Noah's gym is now Iron Temple."),  # another person
    ("The rovers act as robotic geologists.", "The rovers act as robotic geologists, moving on six wheels now."),
])
def test_the_model_never_supersedes_another_thing_or_a_scene(embedder, stored: str, incoming: str) -> None:
    decided, = _decide(embedder, [(stored, incoming)])
    assert decided.outcome != "supersede" and decided.decided_by != "model"


# Written for this test: a plain disagreement about one named thing, in other words than the
# stored text, which the frame reading leaves undecided.
DISAGREEMENTS = [
    ("Dana drinks an oat latte.", "Dana usually orders a double espresso."),
]


def test_a_plain_disagreement_about_a_named_thing_contradicts_by_the_model(embedder) -> None:
    decided = _decide(embedder, DISAGREEMENTS)
    assert [(d.outcome, d.decided_by) for d in decided] == [("contradict", "model")] * len(DISAGREEMENTS)
    assert "pair model" in decided[0].reason and "'Dana'" in decided[0].reason


def test_a_headline_of_an_event_is_never_contradicted_by_the_model(embedder) -> None:
    decided, = _decide(embedder, [("South Africa train crash kills at least 19", "South Africa train crash kills 26")])
    assert decided.decided_by != "model", decided.reason


@pytest.mark.parametrize("stored, incoming, known", [
    ("Dana drinks an oat latte.", "Dana usually orders a double espresso.", True),
    # a conversation's note says two things with two verbs
    ("Gina is excited about Jon's dance studio.",
     "Gina supports Jon's opening of the dance studio and expresses excitement for the launch.", False),
    ("The woman is slicing a tomato.", "The woman is slicing an onion.", False),  # a caption names nothing
    ("Lena works at Brightline Labs.", "Marco works at Corvid Systems.", False),  # two people
    # two attributes of one owner, or one said of its owner and one not
    ("Lena's favourite colour is green.", "Lena's favourite food is sushi.", False),
    ("Lena's manager is Dana.", "Lena's mentor is Felix.", False),
    ("Ines's gym is FitHub on Main Street.", "Ines trains at Iron Temple.", False),
])
def test_the_model_may_call_a_disagreement_only_on_one_named_thing_said_with_one_verb(
        stored: str, incoming: str, known: bool) -> None:
    assert _a_known_thing(compare(stored, incoming), stored, incoming) is known


@pytest.mark.parametrize("stored, incoming", [
    ("Lena's favourite colour is green.", "Lena's favourite food is sushi."),
    ("Lena's cat is Miso.", "Lena's dog is Otto."),
    ("Lena's hometown is Porto.", "Lena's university was Coimbra."),  # below the related threshold too
])
def test_two_attributes_of_one_person_are_never_a_disagreement(embedder, stored: str, incoming: str) -> None:
    decided, = _decide(embedder, [(stored, incoming)])
    assert decided.outcome in ("related", "new"), decided.reason


def test_a_disagreement_the_rules_explain_keeps_their_reason(memory: Memory) -> None:
    old = memory.absorb(["The staging cluster runs 3 replicas of the Ferrite ingest service."]).items[0].fact_id
    item = memory.absorb(["The staging cluster runs 5 replicas of the Ferrite ingest service."]).items[0]
    assert (item.outcome, item.target_id, item.decided_by) == ("contradict", old, "heuristic")


def test_a_candidate_without_a_span_measure_is_never_read_by_the_model(embedder) -> None:
    stored, incoming = UPDATES[0]
    cosine = float(np.dot(*embedder.embed([stored, incoming])))
    item = Incoming(text=incoming, scope="agent", kind="explicit")
    limits = Settings().memory
    assert by_pair_model(item, [Candidate(stored, "agent", cosine, fact_id=1)], limits) is None
    measured = Candidate(stored, "agent", cosine, fact_id=1, spans=SpanSimilarity(embedder.embed))
    assert by_pair_model(item, [measured], limits).outcome == "supersede"
    # below the floor the model is not asked at all
    far = Candidate(stored, "agent", limits.pair_floor - 0.01, fact_id=1, spans=SpanSimilarity(embedder.embed))
    assert by_pair_model(item, [far], limits) is None


def test_an_update_through_absorb_supersedes_and_the_timeline_shows_the_chain(memory: Memory, clock) -> None:
    old = memory.absorb(["Invoices for Acme go to Dana.", "Invoices for Globex go to Priya."]).items[0].fact_id
    clock.advance(1)
    item = memory.absorb(["Since March, invoices for Acme go to Felix instead."]).items[0]
    assert (item.outcome, item.target_id, item.decided_by) == ("supersede", old, "model")
    facts = memory.facts([old, item.fact_id])
    assert (facts[old].status, facts[item.fact_id].status) == ("superseded", "active")
    assert memory.timeline(item.fact_id).chain_ids == [old, item.fact_id]


def test_a_newer_worded_update_the_frames_misread_as_a_restatement_is_not_a_duplicate(embedder) -> None:
    """"These days Ines prefers window seats" after "... aisle seats": the frame reading took the
    attribute for reworded; a duplicate would have kept the old value and dropped the new one."""
    decided, = _decide(embedder, [("Ines prefers aisle seats on flights.",
                                   "These days Ines prefers window seats on flights.")])
    assert decided.outcome != "duplicate"


def test_the_differing_words_and_the_statements_a_text_joins() -> None:
    assert differing_words("Jonas is vegetarian.", "When ordering lunch, remember Jonas is vegan.") == (
        "vegetarian", "ordering lunch remember vegan")
    assert differing_words("Lena works at Corvid.", "Lena works at Corvid.") == ("", "")
    assert not joins_clauses("Since March, invoices for Acme go to Felix instead.")
    assert joins_clauses("The rovers act as robotic geologists, moving on six wheels.")
    assert joins_clauses("Sirius carries NPR, although it doesn't include popular shows.")


def test_the_shipped_model_reads_the_features_absorb_computes() -> None:
    row = features("Ines sits at bench 5.", "Ines sits at bench 9 now.", 0.8, 0.6)
    assert row.shape == (len(NAMES),) and np.isfinite(row).all()
    odds = probabilities("Ines sits at bench 5.", "Ines sits at bench 9 now.", 0.8, 0.6)
    assert set(odds) == set(CLASSES) and sum(odds.values()) == pytest.approx(1.0)


def test_the_training_script_writes_a_model_the_engine_can_use(tmp_path: Path) -> None:
    """A small model of the tuning families, through the script's own functions: features named as
    absorb names them, and the engine classifies with it."""
    import lightgbm

    from benchmarks import pair_model_training as training
    from engine.absorb import pair_model

    rows, labels = training.agent_rows(["held-out", "fresh", "fresh2", "fresh3", "fresh4"], per_label=2)
    assert rows.shape[1] == len(NAMES) and set(labels.tolist()) == {0, 1, 2}
    out = tmp_path / "model.txt"
    training.fit(rows, labels, rounds=5).save_model(str(out))
    booster = lightgbm.Booster(model_file=str(out))
    assert tuple(booster.feature_name()) == NAMES
    with pair_model.using(booster):
        odds = probabilities("Lena works at Brightline Labs.", "Lena now works at Corvid Systems.", 0.8, 0.5)
    assert set(odds) == set(CLASSES) and odds != probabilities(
        "Lena works at Brightline Labs.", "Lena now works at Corvid Systems.", 0.8, 0.5)


def test_two_things_said_of_a_person_in_a_conversation_are_neither_a_change_nor_a_restatement(embedder) -> None:
    """LoCoMo's conversation notes planned 648 contradictions, 60 supersedes and 29 duplicates in
    1,487 facts, nearly all false: notes about one person differ in many words on both sides. (Some
    still pass: "Melanie values family time ..." / "Melanie values special moments with her kids ..."
    differ in three words a side and stay a contradiction.)"""
    decided = _decide(embedder, [
        ("Caroline attended an LGBTQ+ pride parade last week and felt a sense of belonging and happiness.",
         "Caroline felt proud and grateful at the pride parade feeling accepted by the community."),
        ("Melanie signed up for a pottery class and finds it therapeutic for self-expression and creativity.",
         "Melanie is a big fan of pottery and finds it calming and creative."),
        ("Caroline expresses appreciation for her friendship with Melanie.",
         "Caroline appreciates seeing Melanie's love for her family and acknowledges that they are her rock."),
    ])
    assert [d.outcome for d in decided] == ["related"] * 3
    # an update that says the old value is gone may name it as well
    assert _decide(embedder, [("Build server number 41 handles the docs site build.",
                               "Build server number 41 no longer runs the old job; it runs the load tests now.")]
                   )[0].outcome == "supersede"
