"""The answer-kind part of search: a "when" / "how many" question lifts the facts that say a time / a number."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.search.question_kind import NAME, NUMBER, TIME, asked_kinds, carried_kinds

# Three facts on one topic; only one says when, only one says how many.
TIMED = "Nora moved to the lake house last March."
COUNTED = "The lake house has 4 bedrooms and a dock."
PLAIN = "Quiet mornings by the water are what everyone loves about the lake house."
FACTS = [PLAIN, TIMED, COUNTED]


def _settings(weight: float) -> Settings:
    return replace(Settings(), memory=replace(Settings().memory, answer_kind_weight=weight))


def _ranked(path: Path, clock, embedder, weight: float, query: str) -> list:
    with Memory(path, _settings(weight), clock=clock, actor="test", embedder=embedder) as memory:
        if not memory.search("lake house", top_k=1):
            for fact in FACTS:  # one absorb each: no batch neighbours, so no context part
                memory.absorb([fact])
        return memory.search(query, top_k=3)


def test_what_a_question_asks_for() -> None:
    assert asked_kinds("When did Caroline go to the support group?") == TIME
    assert asked_kinds("What year did I graduate?") == TIME
    assert asked_kinds("How many kids does Melanie have?") == NUMBER
    assert asked_kinds("How much did I spend on the bike?") == NUMBER
    assert asked_kinds("Where did I buy my bike?") == NAME
    assert asked_kinds("Who gave me the book?") == NAME
    assert asked_kinds("What is my favourite colour?") == 0
    assert asked_kinds("") == 0


def test_what_a_fact_carries() -> None:
    assert carried_kinds("I went there last week.") == TIME
    assert carried_kinds("We met on Sunday") == TIME
    assert carried_kinds("It was back in 2019") & TIME
    assert carried_kinds("The meeting is at 3:30 pm") & TIME
    assert carried_kinds("We have three kids") == NUMBER
    assert carried_kinds("We have 3 kids") == NUMBER
    assert carried_kinds("I bought it at Target.") == NAME
    # A capitalised word opening a sentence is no name; "may" the verb is no month.
    assert carried_kinds("Yes. That sounds great!") == 0
    assert carried_kinds("you may like it") == 0


@pytest.mark.parametrize("question, answer", [("When did Nora move to the lake house?", TIMED),
                                              ("How many bedrooms does the lake house have?", COUNTED)])
def test_a_fact_saying_the_kind_asked_for_gains(db_path, clock, embedder, question: str, answer: str) -> None:
    off = {h.fact.text: h for h in _ranked(db_path, clock, embedder, 0.0, question)}
    on = {h.fact.text: h for h in _ranked(db_path, clock, embedder, 0.25, question)}
    assert on[answer].answer_kind == pytest.approx(1.25)
    assert on[answer].score == pytest.approx(off[answer].score * 1.25)
    assert on[PLAIN].answer_kind == 1.0 and on[PLAIN].score == pytest.approx(off[PLAIN].score)
    assert on[answer].score > on[PLAIN].score


@pytest.mark.parametrize("question", ["Where is the lake house?", "What does Nora love about the lake house?"])
def test_questions_asking_no_scored_kind_rank_as_without_it(db_path, clock, embedder, question: str) -> None:
    """Names are recognised but not scored, and a question asking for no kind ranks exactly as with it off."""
    off = _ranked(db_path, clock, embedder, 0.0, question)
    on = _ranked(db_path, clock, embedder, 0.25, question)
    assert [(h.fact.id, h.score) for h in on] == [(h.fact.id, h.score) for h in off]
    assert all(h.answer_kind == 1.0 for h in on)


def test_scores_still_add_up_from_their_parts(db_path, clock, embedder) -> None:
    settings = _settings(0.25).memory
    for hit in _ranked(db_path, clock, embedder, 0.25, "When did Nora move?"):
        base = (settings.cosine_weight * hit.cosine + settings.bm25_weight * hit.bm25) * hit.freshness
        assert hit.score == pytest.approx(base * hit.voice * hit.answer_kind + settings.context_weight * hit.context)
        assert hit.to_dict()["answer_kind"] == round(hit.answer_kind, 4)
