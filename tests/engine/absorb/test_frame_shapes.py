"""Sentence shapes beyond "subject verb value": notes, fronted phrases, value first, first person,
"from A to B". Each is read for its subject and compared for which span differs."""

from __future__ import annotations

import pytest

from engine.absorb.frame_contrast import compare
from engine.absorb.frames import frame


def _subject(text: str) -> str | None:
    read = frame(text)
    return read.subject.text if read.subject else None


def test_a_note_of_key_and_value_reads_the_key_as_its_subject() -> None:
    assert _subject("Mail relay of the Porto office: smtp-3.") == "Mail relay of Porto office"
    assert frame("Mail relay of the Porto office: smtp-3.").definite
    # A participle after the mark is the value, not a verb: "state: archived".
    assert [sp.verb for sp in frame("Wiki page 12 state: archived.").spans] == [False, False]
    # A label before a sentence is not a key: the sentence's own subject counts.
    assert _subject("Update: the nightly export moved to 02:00.") == "nightly export"


def test_a_fronted_time_phrase_is_not_the_subject_and_does_not_make_two_clauses() -> None:
    read = frame("Since October, the staging cluster runs on spot instances.")
    assert read.subject.text == "staging cluster" and read.definite and not read.compound
    assert [sp.text for sp in read.spans if sp.temporal] == ["October"]
    assert frame("After the outage, the gateway keeps 3 replicas.").subject.text == "gateway"
    # Two clauses joined by a comma still are two.
    assert frame("The gateway keeps 3 replicas, said Olga.").compound


def test_a_fronted_place_belongs_to_the_subject() -> None:
    subject = frame("In the Porto office, the printer is a Brother HL-L2350.").subject
    assert {"porto", "office", "printer"} <= subject.key
    assert compare("In the Porto office, the printer is a Brother HL-L2350.",
                   "In the Lyon office, the printer is a Brother HL-L2350.").verdict == "distinct"


def test_a_fronted_weekday_is_a_value() -> None:
    read = compare("On Mondays, Ilse works from home.", "On Wednesdays, Ilse works from home.")
    assert read.verdict == "changed"


def test_my_and_our_name_one_thing_even_in_one_word() -> None:
    assert frame("My plumber is Mr. Varga.").definite
    assert not frame("The plumber is late.").definite  # "the plumber" may be anyone's
    assert compare("My plumber is Mr. Varga.", "My plumber is Ms. Quist now.").verdict == "changed"
    assert compare("My plumber is Mr. Varga.", "My electrician is Mr. Varga.").verdict == "distinct"


def test_a_name_equated_with_a_definite_thing_is_its_value() -> None:
    assert _subject("Quist Partners is our law firm.") == "law firm"
    read = compare("Quist Partners is our law firm.", "Our law firm is Varga & Co now.")
    assert read.verdict == "changed" and read.newer
    # A numbered thing is not a bare name: "Shelf 4 is responsible for the spares" is about shelf 4.
    assert _subject("Shelf 4 is responsible for the spare parts.") == "Shelf 4"


def test_value_first_with_when_or_where_reads_as_the_plain_sentence() -> None:
    assert _subject("Saturdays is when the climbing gym opens late.") == "climbing gym"
    read = compare("Saturdays is when the climbing gym opens late.", "The climbing gym opens late on Sundays.")
    assert read.verdict == "changed"
    assert _subject("Porto is where the archive lives.") == "archive"


def test_an_amount_set_first_is_the_value_of_the_definite_thing_after_the_verb() -> None:
    assert _subject("4 cores are assigned to the render node.") == "render node"
    assert _subject("$700 was budgeted for the team dinner.") == "team dinner"
    # A numbered thing set first stays the subject.
    assert _subject("Locker 12 holds the spare keys.") == "Locker 12"


def test_contractions_split_into_the_pronoun_and_its_verb() -> None:
    assert _subject("I'm with Pollux Telecom for my phone contract.") is not None
    assert _subject("We're on the annual plan.") == "annual plan"
    assert not frame("They've got the keys.").compound


def test_from_a_to_b_names_the_value_that_is_gone_and_reads_as_newer() -> None:
    read = frame("The archive switched from tape to object storage.")
    assert read.replaced is not None and read.replaced.text == "tape" and read.newer
    got = compare("The photo archive is kept on tape.", "The photo archive switched from tape to object storage.")
    assert got.verdict == "changed" and got.newer
    # A range after a copula is not a change: "open from 9 to 5".
    assert frame("The canteen is open from 9 to 5.").replaced is None


def test_after_a_verb_to_opens_a_value_and_a_capitalised_word_mid_sentence_is_a_name() -> None:
    spans = frame("The default shell changed to fish.").spans
    assert [sp.text for sp in spans if not sp.verb][-1] == "fish"
    spans = frame("We migrated the wiki to Render.").spans
    assert "Render" in [sp.text for sp in spans if not sp.verb]


@pytest.mark.parametrize("text", ["The audit ends on 03/07/2026.", "The audit ends in Q3.", "The audit ends on May 4."])
def test_dates_in_several_formats_are_times(text: str) -> None:
    assert [sp.kind for sp in frame(text).spans if not sp.verb][-1] == "time"


def test_the_thing_an_attribute_belongs_to_is_a_shared_subject() -> None:
    read = compare("Disk quota of the photo archive: 2 TB.", "The storage limit of the photo archive is 3 TB now.")
    assert read.verdict == "changed" and read.newer
    # Two attributes named, values of no common sort: not one value replaced.
    assert compare("Owner of the photo archive: Ilse.", "Status of the photo archive: frozen.").verdict is None


def test_a_value_replaced_in_the_one_slot_after_the_verb_is_a_change_not_a_rewording() -> None:
    read = compare("The wiki uses Markdown as its markup.", "The wiki uses AsciiDoc as its markup.")
    assert read.verdict == "changed"
    # The same slot holding the same thing in other words stays a restatement (or unsure), never a change.
    assert compare("Shelf 4 is responsible for the spare parts.",
                   "Shelf 4 is the place for the spare parts.").verdict != "changed"


def test_a_name_is_not_joined_to_a_for_phrase_after_it() -> None:
    spans = [sp.text for sp in frame("I'm with Pollux Telecom for my phone contract.").spans]
    assert "Pollux Telecom" in spans and "phone contract" in spans
    assert frame("The budget for the spring offsite is $3,000.").subject.text == "budget for spring offsite"


def test_one_definite_word_is_one_thing_when_a_name_is_said_of_it() -> None:
    assert frame("The wiki is hosted by Netlify.").definite
    assert not frame("The man is slicing a tomato.").definite


def test_merge_request_numbers_are_identifiers_and_a_comma_ends_a_phrase() -> None:
    read = frame("Right now, MR !42 is merged.")
    assert read.subject.text == "MR !42" and read.subject.kind == "identifier" and read.definite


def test_a_named_label_before_someones_words_is_a_headline_not_a_fact_of_one_subject() -> None:
    read = frame("Lisbon council: we will close the old bridge.")
    assert read.compound and not read.definite
    # all after a note's mark is its one value (test_the_value_of_a_note_is_everything_after_its_mark)
    assert [sp.text for sp in frame("Gate 3 state: blocked by ice.").spans] == ["Gate 3 state", "blocked ice"]


def test_clock_times_with_am_and_pm_are_one_time_value() -> None:
    spans = frame("The yoga class starts at 7 am.").spans
    assert [(sp.text, sp.kind) for sp in spans if not sp.verb][-1] == ("7 am", "time")
    assert compare("The yoga class starts at 7 am.", "The yoga class now starts at 6:30 pm.").verdict == "changed"


def test_now_before_a_noun_phrase_does_not_make_it_a_time_phrase() -> None:
    assert frame("Right now the guest wifi is disabled.").subject.text == "guest wifi"


def test_of_and_for_join_only_the_noun_right_before_them() -> None:
    read = frame("The guest wifi is on for visitors only.")
    assert read.subject.text == "guest wifi"
    assert frame("The rota for the night shift is posted.").subject.text == "rota for night shift"


def test_a_unit_word_before_a_number_names_a_thing() -> None:
    assert frame("Node 4 has the IP 10.1.1.4.").subject.text == "Node 4"
    assert compare("Node 4 has the IP 10.1.1.4.", "Node 9 has the IP 10.1.1.4.").verdict == "distinct"


def test_a_place_and_a_party_are_values_of_two_attributes() -> None:
    assert compare("Bruno works in Lyon.", "Bruno works at Halden Freight.").verdict is None
    assert compare("Bruno works at Halden Freight.", "Bruno now works for Ostby Marine.").verdict == "changed"


def test_a_log_line_with_an_equals_sign_is_a_note_of_key_and_value() -> None:
    read = frame("Build 77 runner=linux-large")
    assert read.subject.text == "Build 77 runner" and [sp.text for sp in read.spans][-1] == "linux-large"
    assert compare("Build 77 runner=linux-large", "Build 77 runner=linux-small").verdict == "changed"


def test_a_participle_naming_what_follows_is_the_verb() -> None:
    spans = frame("Our boat is called Wren.").spans
    assert [(sp.text, sp.verb) for sp in spans] == [("boat", False), ("called", True), ("Wren", False)]
    assert compare("Our boat is called Wren.", "Our boat is called Heron now.").verdict == "changed"


def test_a_fronted_phrase_without_its_comma_ends_where_a_name_begins() -> None:
    read = frame("For sketching Ingrid uses Procreate.")
    assert read.subject is not None and "ingrid" in read.subject.lemmas
    got = compare("For sketching Ingrid uses Procreate.", "Ingrid now uses Krita for sketching.")
    assert got.verdict == "changed" and got.newer
    assert compare("For sketching Ingrid uses Procreate.", "For sketching Bram uses Krita.").verdict == "distinct"


def test_a_capitalised_bare_word_before_the_verb_is_a_name() -> None:
    read = frame("Caddy serves the wiki.")
    assert read.subject is not None and read.subject.text == "wiki"
    assert compare("Caddy serves the wiki.", "Traefik serves the wiki now.").verdict == "changed"
    assert compare("Caddy serves the wiki.", "The wiki is served by Caddy.").verdict == "same"
    # Not a pronoun-like word or a plural: "Everyone uses Slack", "Dogs chase cats" name nobody in particular.
    assert not frame("Everyone uses Slack.").subject.anchored
    plural = frame("Engineers use Slack.").subject
    assert plural is None or not plural.anchored


def test_a_title_and_its_name_are_one_span() -> None:
    read = frame("My optician is Dr. Varga.")
    assert [sp.text for sp in read.spans] == ["optician", "Dr Varga"]
    got = compare("My optician is Dr. Varga.", "My optician is Ms. Oduya now.")
    assert got.verdict == "changed" and "Dr Varga" in got.why


def test_an_organisation_and_a_place_are_values_of_two_attributes() -> None:
    assert compare("Greta works at Fennick Labs.", "Greta moved to Tallinn.").verdict is None
    assert compare("Greta works at Fennick Labs.", "Greta relocated to Bergen GmbH.").verdict == "changed"
    assert compare("Greta works at Fennick Labs.", "Greta now works at Solvik Systems.").verdict == "changed"
    # A person is not an organisation: "Dr. Varga" / "Fennick Labs" are two attributes.
    assert compare("Greta's doctor is Dr. Varga.", "Greta's doctor is Fennick Labs.").verdict is None


def test_the_value_of_a_note_is_everything_after_its_mark() -> None:
    read = frame("Task OPS-3 state: blocked by QA.")
    assert [sp.text for sp in read.spans] == ["Task OPS-3 state", "blocked QA"]
    assert compare("Task OPS-3 state: blocked by QA.", "Task OPS-3 state: done.").verdict == "changed"
    assert compare("Task OPS-3 state: blocked by QA.", "The state of task OPS-3 is blocked by QA.").verdict == "same"


def test_a_name_of_several_capitalised_words_holds_the_thing_after_its_verb() -> None:
    assert frame("Gitea Cloud hosts the wiki.").subject.text == "wiki"
    assert compare("The wiki is hosted by Gitea Cloud.", "Gitea Cloud hosts the tracker.").verdict == "distinct"
    assert compare("Gitea Cloud hosts the wiki.", "Forgejo Hub hosts the wiki now.").verdict == "changed"


def test_someone_elses_thing_is_another_subject() -> None:
    assert frame("My brother's dog is called Rex.").possessor
    assert compare("My brother's dog is called Rex.", "My dog is called Bolt.").verdict == "distinct"
    assert compare("Ilse's bike is red.", "Ilse's bike is blue now.").verdict == "changed"


def test_a_value_swapped_in_an_unchanged_build_counts_as_said_alike() -> None:
    # No verb of their own, yet every other span is the same: the attribute is said alike.
    assert compare("Kestrel Mutual is my insurer.", "Pavo is my insurer.").shared_predicate
    # Two organisations or one name for another: the value's type says the attribute where verbs differ.
    assert compare("Ada is employed by Norrland Systems.", "Ada works for Tarn Labs.").shared_predicate
    assert compare("Our goat is called Fig.", "Our goat goes by Clover.").shared_predicate
    # Not when the values are of other types or more than one thing changed.
    assert not compare("Ada works at Norrland Systems.", "Ada now uses Kate as her editor.").shared_predicate


def test_a_bare_name_needs_its_verb_right_after_it_and_is_no_adjective() -> None:
    assert not frame("Different crews are painting a wall.").subject.anchored
    assert not frame("Glass is being cut with a saw.").subject.anchored


def test_an_untyped_place_needs_a_verb_of_motion_before_to() -> None:
    # "assigned to Fatima" is a person, not a place: one owner for another is still a change
    got = compare("Ticket QA-5 is assigned to Ines.", "Ticket QA-5 is owned by Pavel.")
    assert got.verdict == "changed" and got.shared_predicate
    assert compare("Ines works at Harrow Labs.", "Ines relocated to Turku.").verdict is None


def test_a_subject_named_only_in_a_later_clause_is_mentioned_in_passing() -> None:
    # The second text is about the courier; Oskar only signs for it afterwards: no new value of his.
    stored = "Oskar prefers deliveries before 09:00 at the back door of the bakery."
    got = compare(stored, "The courier moved the pickup to 14:00 on Fridays; Oskar agreed and signed the form.")
    assert got.verdict is None and "only mentions" in got.why
    # Named in the first clause, the same subject still changes its value.
    assert compare(stored, "Oskar now prefers deliveries before 07:00 at the back door of the bakery; "
                           "the courier agreed.").verdict == "changed"


def test_a_time_after_a_name_and_its_verb_is_a_value_not_the_thing_held() -> None:
    """"Noah takes the 8:15 train" was read as about "the 8:15 train", so "the 7:40 train" was another
    subject and the change was lost; "Aiko owns ticket OPS-4821" still holds its ticket."""
    assert _subject("Noah takes the 8:15 train to work.") == "Noah"
    read = compare("Noah takes the 8:15 train to work.", "Noah now takes the 7:40 train to work.")
    assert (read.verdict, read.newer) == ("changed", True)
    assert _subject("Aiko owns ticket OPS-4821.") == "ticket OPS-4821"


def test_newer_wording_of_a_start_and_of_a_rebooking() -> None:
    assert frame("From September our youngest attends Riverside Academy.").newer
    assert frame("For the Oslo offsite we rebooked to Hotel Bristol.").newer
    assert frame("The bonsai went from twice a week to daily.").newer
    assert not frame("The office is open from Monday to Friday.").newer  # a range, not a start
