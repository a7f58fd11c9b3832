"""Which span of a fact differs decides: subject -> two facts, value -> a change (newer wording
supersedes), wording only -> the same fact. Checked on the reading and through absorb itself."""

from __future__ import annotations

import pytest

from engine import Memory
from engine.absorb.classify import Candidate, classify
from engine.absorb.frame_contrast import compare
from engine.absorb.frames import frame, unwrap
from engine.absorb.validation import Incoming
from engine.config import MemorySettings

LIMITS = MemorySettings()


@pytest.mark.parametrize("stored, incoming, verdict, newer", [
    ("Lena works at Brightline Labs.", "Lena now works at Corvid Systems.", "changed", True),
    ("The weekly sync is on Tuesdays at 10:00.", "The weekly sync moved to Thursdays at 10:00.", "changed", True),
    ("The billing API runs in eu-west-1.", "The billing API runs in us-east-2.", "changed", False),
    ("Lena works at Brightline Labs.", "Lena has a job at Brightline Labs.", "same", False),
    ("The build server number 12 runs the nightly job for team 5.",
     "The build server number 13 runs the nightly job for team 6.", "distinct", False),
    ("Lena works at Brightline Labs.", "Marco works at Brightline Labs.", "distinct", False),
    ("Job finished: build 4312 took 35 s.", "Job finished: build 4313 took 41 s.", "distinct", False),
    # Not one thing: two scenes, nothing said about one subject's value.
    ("A man is playing a guitar.", "A man is playing a flute.", None, False),
    # Values of other sorts are other attributes of the subject.
    ("The Atlas migration is due on March 14.", "The Atlas migration has a budget of $12,000.", None, False),
])
def test_the_span_that_differs_decides(stored: str, incoming: str, verdict: str | None, newer: bool) -> None:
    read = compare(stored, incoming)
    assert read.verdict == verdict, read.why
    assert read.newer is newer


def test_a_notes_bare_key_and_the_one_named_after_the_mark_are_its_subject() -> None:
    assert frame("Parking: Aiko in spot 14.").subject.text == "Parking / Aiko"
    assert compare("Parking: Aiko in spot 14.", "Aiko parks in the bike cage.").verdict == "changed"
    assert compare("Parking: Aiko in spot 14.", "Parking: Aiko in the bike cage.").verdict == "changed"
    assert compare("Parking: Aiko in spot 14.", "Parking: Marco in spot 14.").verdict == "distinct"
    # the key tells two notes apart: never the same fact
    assert compare("Lunch: Aiko on Tuesdays.", "Dinner: Aiko on Tuesdays.").verdict == "distinct"
    # a key naming its owner holds the subject; an -ed word before the mark stays a verb
    assert frame("School for my niece: the Montessori on Elm Street.").subject.text == "School for niece"
    assert frame("Job OPS-12 reassigned: Fatima.").subject.text == "Job OPS-12"


def test_a_note_opening_with_a_verb_is_about_its_object() -> None:
    assert frame("Water the fern every other day.").subject.text == "fern"
    assert frame("Feed the cat three times a day.").subject.text == "cat"
    # a first name that is also a verb opens a sentence about a person
    assert frame("Mark Chen works at Corvid.").subject.text == "Mark Chen"
    assert compare("Mark Chen works at Corvid.", "Sue Chen works at Corvid.").verdict == "distinct"


def test_how_often_is_a_value_never_the_same_fact_said_again() -> None:
    assert compare("We water the herb box once a fortnight.", "We water the herb box once a week.").verdict is None


def test_the_subject_is_the_opening_phrase_not_a_time_phrase_or_a_pronoun() -> None:
    assert frame("As of last week the auth service runs in us-west-2.").subject.text == "auth service"
    assert frame("We hold the weekly sync on Tuesdays at 10:00.").subject.text == "weekly sync"
    assert frame("The Redis cache runs version 7.2.").subject.text == "Redis cache"
    assert frame("The Kafka brokers run version 7.2.").subject.text == "Kafka brokers"
    assert frame("Lately Noah does squash at weekends.").subject.text == "Noah"  # an adverb takes no name


@pytest.mark.parametrize("text", [
    "Ines went vegan last year.", "Noah has started doing squash.", "Noah gave up tennis for squash.",
    "Update: the weekly sync is on Thursdays at 10:00.", "The kiosk was re-imaged with Debian 12.",
    "The docs have been rewritten in Markdown.",
])
def test_a_change_of_state_or_an_update_label_reads_as_newer(text: str) -> None:
    assert frame(text).newer


@pytest.mark.parametrize("text", [
    "The backup starts at 02:00.", "Lena went to Lisbon for the offsite.", "Noah plays tennis at weekends.",
    "The new office is in Porto.", "Lena began piano lessons at 6.", "Lena started learning Japanese.",
    "Lena went by train to Porto.", "Noah is a new member of the Atlas team.", "Prices dropped in winter.",
    "New: a 5-euro note.",
])
def test_a_standing_fact_a_story_or_a_trip_is_not_newer(text: str) -> None:
    assert not frame(text).newer


def test_words_telling_the_reader_what_to_do_are_not_the_fact() -> None:
    assert unwrap("Remember that Daniel is lactose-free.") == "Daniel is lactose-free."
    assert unwrap("FYI: the staging database is in ap-south-1.") == "The staging database is in ap-south-1."
    assert frame("Note: the staging database is in ap-south-1.").subject.text == "staging database"


@pytest.mark.parametrize("text", [
    "Notes are kept in the wiki.", "Note 7 is missing.", "Recall of the fraud model is 0.81.",
    "Remember me to Lena.", "If it rains, remember the picnic moves to Sunday.",
    "When paging Dana, remember she is on Lisbon time.",
])
def test_a_text_that_only_looks_like_a_reminder_is_read_whole(text: str) -> None:
    assert unwrap(text) == text


def _decide(stored: str, incoming: str, cosine: float) -> str:
    item = Incoming(text=incoming, scope="agent", kind="explicit")
    return classify(item, [Candidate(stored, "agent", cosine, fact_id=1)], LIMITS).outcome


def test_no_longer_is_a_newer_value_not_a_denial() -> None:
    assert _decide("Build server number 41 handles the docs site build.",
                   "Build server number 41 no longer runs the old job; it runs the load tests now.", 0.8) == "supersede"


def test_a_word_misread_as_a_verb_is_never_the_same_fact_said_again() -> None:
    assert compare("The interns review changes weekly.", "The interns review designs weekly.").verdict is None
    assert compare("The engineers deploy fixes on Fridays.", "The engineers deploy features on Fridays.").verdict is None
    # a verb facts are built on, swapped for another, still says the same
    assert compare("The search indexer is hosted in eu-west-1.", "The search indexer is running in eu-west-1.").verdict \
        == "same"


def test_another_time_or_key_is_never_a_duplicate() -> None:
    assert _decide("We water the herb box once a fortnight.", "We water the herb box once a week.", 0.95) \
        != "duplicate"
    assert _decide("Lunch: Aiko on Tuesdays.", "Dinner: Aiko on Tuesdays.", 0.95) != "duplicate"
    assert _decide("If it rains, remember the picnic moves to Sunday.",
                   "If it snows, remember the picnic moves to Sunday.", 0.95) != "duplicate"


def test_a_restatement_with_an_opposite_is_never_a_duplicate() -> None:
    assert _decide("Maya likes working from the Lisbon office on Fridays.",
                   "Maya dislikes working from the Lisbon office on Fridays.", 0.95) == "contradict"


def test_an_update_in_plain_text_supersedes_and_the_timeline_shows_the_chain(memory: Memory, clock) -> None:
    old = memory.absorb(["Lena works at Brightline Labs."]).items[0].fact_id
    clock.advance(1)
    item = memory.absorb(["Lena now works at Corvid Systems."]).items[0]
    assert (item.outcome, item.target_id) == ("supersede", old)
    facts = memory.facts([old, item.fact_id])
    assert (facts[old].status, facts[item.fact_id].status) == ("superseded", "active")
    assert memory.timeline(item.fact_id).chain_ids == [old, item.fact_id]


def test_a_schedule_change_supersedes_among_other_meetings(memory: Memory, clock) -> None:
    memory.absorb(["The design review is on Mondays at 14:30.", "The budget call is on Fridays at 09:00.",
                   "The platform standup is on Wednesdays at 09:15."])
    old = memory.absorb(["The weekly sync is on Tuesdays at 10:00."]).items[0].fact_id
    clock.advance(1)
    item = memory.absorb(["The weekly sync moved to Thursdays at 10:00."]).items[0]
    assert (item.outcome, item.target_id) == ("supersede", old)


def test_numbered_subjects_in_mid_phrase_plan_no_contradiction(memory: Memory) -> None:
    """Issue 25: "The build server number {i} runs the nightly job for team {i mod 7}." planned 999
    contradictions over 1,200 lines (benchmarks.agent_pairs --imports measures the full size)."""
    lines = [f"The build server number {i} runs the nightly job for team {i % 7}." for i in range(240)]
    plan = memory.absorb(lines, dry_run=True)
    assert [it.outcome for it in plan.items if it.outcome in ("contradict", "supersede", "duplicate", "merged")] == []


def test_log_like_lines_plan_no_contradiction(memory: Memory) -> None:
    lines = [f"2026-03-{1 + i % 28:02d} 0{i % 10}:{i % 60:02d}:00 worker-{i % 9} finished job {4000 + i} "
             f"in {20 + i % 37} s" for i in range(200)]
    plan = memory.absorb(lines, dry_run=True)
    assert [it.outcome for it in plan.items if it.outcome in ("contradict", "supersede")] == []


def test_in_one_batch_an_update_supersedes_and_another_attribute_or_person_stays(memory: Memory) -> None:
    plan = memory.absorb(["Lena works at Brightline Labs.", "Lena now works at Corvid Systems.",
                          "Lena lives in Lisbon.", "Marco works at Brightline Labs."])
    outcomes = [(it.outcome, it.target_index) for it in plan.items]
    assert outcomes[:2] == [("new", None), ("supersede", 0)]
    assert outcomes[2][0] in ("related", "new") and outcomes[3][0] in ("related", "new")
    first, second = plan.items[0].fact_id, plan.items[1].fact_id
    assert memory.timeline(second).chain_ids == [first, second]
