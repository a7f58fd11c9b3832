"""The voice part of search: a question about the asker's own life finds the asker's own statement."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine import Memory, Settings
from engine.search.voice import asks_about_self, person_shares, voice

STATEMENT = "I finally adopted a beagle puppy last weekend and named her Luna."
# An assistant's reply on the same topic: ten times longer, speaking to "you", not holding the answer.
REPLY = ("Congratulations on your new puppy! Choosing a name for your dog is a big decision, and bringing a puppy "
         "home is exciting. Here are some tips for your first weeks with your new dog: 1. Set up a quiet space where "
         "your puppy can rest. 2. Start house training right away and reward your dog with treats. 3. Book a vet "
         "visit for vaccinations. 4. Socialise your puppy with people and other dogs. Beagles are curious, "
         "energetic hounds with a strong nose, so you will want to keep your beagle on a leash on walks. If you "
         "have any questions about training or caring for your new puppy, feel free to ask!")
CHAT = [STATEMENT, REPLY, "Can you suggest a good dog park nearby?", "Sure, Riverside Park has a fenced dog run."]


def _settings(voice_weight: float) -> Settings:
    return replace(Settings(), memory=replace(Settings().memory, voice_weight=voice_weight))


def _ranked(path: Path, clock, embedder, voice_weight: float, query: str) -> list:
    with Memory(path, _settings(voice_weight), clock=clock, actor="test", embedder=embedder) as memory:
        if not memory.search("puppy", top_k=1):
            memory.absorb(CHAT)  # one batch: the statement and the reply are neighbours
        return memory.search(query, top_k=4)


def test_who_a_question_asks_about() -> None:
    assert asks_about_self("What did I name my new puppy?")
    assert asks_about_self("Where do I work now?")
    # Addressing someone: it asks what was said to the asker, not what the asker said.
    assert not asks_about_self("Can you remind me of the restaurant you recommended?")
    assert not asks_about_self("What tips did you give me?")
    # A third-person question (LoCoMo's kind) is about nobody in particular.
    assert not asks_about_self("When did Caroline go to the LGBTQ support group?")
    assert not asks_about_self("")


def test_voice_reads_first_and_second_person_words() -> None:
    first, second = person_shares("I named my dog Luna")
    assert first == pytest.approx(2 / 5) and second == 0
    assert person_shares("") == (0.0, 0.0)
    assert voice(STATEMENT) > 0.5
    assert voice(REPLY) < -0.3
    assert voice("Caroline went to the support group on Sunday.") == 0
    assert voice("I\u2019m moving to Lisbon") > 0  # a typographic apostrophe counts as one


def test_a_short_statement_outranks_a_long_reply_on_its_topic(db_path, clock, embedder) -> None:
    question = "What did I name my new puppy?"
    before = _ranked(db_path, clock, embedder, 0.0, question)
    assert before[0].fact.text == REPLY  # what the voice part is for: without it the reply wins
    after = _ranked(db_path, clock, embedder, 0.4, question)
    assert after[0].fact.text == STATEMENT
    statement = next(h for h in after if h.fact.text == STATEMENT)
    reply = next(h for h in after if h.fact.text == REPLY)
    assert statement.voice > 1 > reply.voice
    # No context for a question about the asker: the statement's score is not lent to the reply beside it.
    assert all(h.context == 0 for h in after) and any(h.context > 0 for h in before)


@pytest.mark.parametrize("question", ["What tips did you give me for my new puppy?",
                                      "Which park has a fenced dog run?",
                                      "When did Luna get adopted?"])
def test_questions_not_about_the_asker_rank_as_without_voice(db_path, clock, embedder, question: str) -> None:
    """A question that addresses someone, or names no person, ranks exactly as with the voice part off."""
    off = _ranked(db_path, clock, embedder, 0.0, question)
    on = _ranked(db_path, clock, embedder, 0.4, question)
    assert [(h.fact.id, h.score) for h in on] == [(h.fact.id, h.score) for h in off]
    assert all(h.voice == 1.0 for h in on)


def test_voiced_scores_still_add_up_from_their_parts(db_path, clock, embedder) -> None:
    settings = _settings(0.4).memory
    for hit in _ranked(db_path, clock, embedder, 0.4, "What name did I give my dog?"):
        base = (settings.cosine_weight * hit.cosine + settings.bm25_weight * hit.bm25) * hit.freshness
        assert hit.score == pytest.approx(base * hit.voice + settings.context_weight * hit.context)


def test_filtered_searches_weigh_voice_too(db_path, clock, embedder) -> None:
    from engine.search.hybrid import SearchFilters

    _ranked(db_path, clock, embedder, 0.4, "puppy")
    with Memory(db_path, _settings(0.4), clock=clock, actor="test", embedder=embedder) as memory:
        hits = memory.search("What did I name my new puppy?", top_k=2, filters=SearchFilters(scope="agent"))
    assert hits[0].fact.text == STATEMENT
