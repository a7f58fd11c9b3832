"""Hybrid search: score parts, filters, hostile queries, decay and counters."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dataclasses import replace

from engine import InvalidInput, Memory, SearchFilters, Settings
from engine.store.decay import decay_rate, effective_confidence, freshness

CONTEXT_WEIGHT = Settings().memory.context_weight

FACTS = [
    {"text": "Maya prefers dark mode in every editor and terminal she uses.", "scope": "user",
     "kind": "user_preference", "tags": ["ui"]},
    {"text": "Northwind Robotics is headquartered in Kazan, next to the Kazanka river.", "scope": "agent",
     "tags": ["company"]},
    {"text": "The Ferrite service writes robot telemetry into PostgreSQL 16 with COPY.", "scope": "agent",
     "tags": ["ferrite", "db"]},
    {"text": "During the session we fixed Kafka consumer lag in Ferrite by tuning batches.", "scope": "run",
     "kind": "episodic", "session_id": "2026-11-02-a"},
    {"text": "Sofia Marques works remotely from Lisbon and designs the Atlas Console screens.", "scope": "agent"},
]


@pytest.fixture
def filled(memory: Memory) -> Memory:
    memory.absorb(FACTS)
    return memory


def test_hits_carry_consistent_score_parts(filled: Memory) -> None:
    hits = filled.search("which colour theme does Maya like", top_k=3)
    top = hits[0]
    assert "dark mode" in top.fact.text
    expected = (0.7 * top.cosine + 0.3 * top.bm25) * top.freshness + CONTEXT_WEIGHT * top.context
    assert top.score == pytest.approx(expected)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert 0 <= top.bm25 <= 1 and 0 <= top.cosine <= 1


def test_keyword_only_match_is_found(filled: Memory) -> None:
    hits = filled.search("PostgreSQL", top_k=2)
    assert "PostgreSQL" in hits[0].fact.text and hits[0].bm25 == pytest.approx(1.0)


@pytest.mark.parametrize("query", ['"', "AND OR", "NEAR(", "*", "'; DROP TABLE facts; --", "NOT", "a:b",
                                   "(((", "^", "-", "\"unbalanced", "col:value*", "🙂", "   ", "\x00"])
def test_hostile_fts_queries_never_error(filled: Memory, query: str) -> None:
    hits = filled.search(query, top_k=5)
    assert isinstance(hits, list)
    assert filled.stats()["facts"] == len(FACTS)


def test_query_limits(filled: Memory) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        filled.search("x" * 5000)
    with pytest.raises(InvalidInput, match="top_k"):
        filled.search("Maya", top_k=0)
    with pytest.raises(InvalidInput, match="dimensions"):
        filled.search("Maya", query_vector=np.ones(3, np.float32))


def test_filters_by_scope_kind_tag_and_time(filled: Memory) -> None:
    assert {h.fact.scope for h in filled.search("Ferrite", filters=SearchFilters(scope="run"))} == {"run"}
    assert {h.fact.kind for h in filled.search("Maya", filters=SearchFilters(kind="user_preference"))} == \
        {"user_preference"}
    tagged = filled.search("telemetry", filters=SearchFilters(tags=("db",)))
    assert [h.fact.tags for h in tagged] == [["ferrite", "db"]]
    assert filled.search("Ferrite", filters=SearchFilters(until=0)) == []


def test_min_confidence_uses_the_decayed_value(filled: Memory, clock) -> None:
    clock.advance(10)  # episodic decays at 0.30/day: 0.4 * e^-3 ~ 0.02
    hits = filled.search("Kafka consumer lag", filters=SearchFilters(min_confidence=0.1))
    assert all(h.fact.kind != "episodic" for h in hits)
    episodic = filled.search("Kafka consumer lag", filters=SearchFilters(scope="run"))[0]
    assert episodic.effective_confidence == pytest.approx(0.4 * math.exp(-0.3 * 10), rel=1e-3)


def test_superseded_facts_only_on_request(memory: Memory) -> None:
    memory.absorb([{"text": "Maya lives in the Kazan city centre near the Kremlin.", "subject": "Maya",
                    "predicate": "lives_in", "object": "Kazan centre"}])
    memory.absorb([{"text": "Maya moved to Innopolis to be closer to the Northwind office.", "subject": "Maya",
                    "predicate": "lives_in", "object": "Innopolis"}])
    active = memory.search("where does Maya live", top_k=5)
    assert all(h.fact.status == "active" for h in active)
    history = memory.search("where does Maya live", top_k=5,
                            filters=SearchFilters(statuses=("superseded",)))
    assert [h.fact.status for h in history] == ["superseded"] and history[0].cosine > 0.3


@pytest.mark.parametrize("floor, after_30, after_330", [(0.9, 0.9, 0.9), (0.5, 0.7, 0.5), (0.0, 0.7, 0.0)])
def test_freshness_decays_one_percent_a_day_with_a_floor(db_path, clock, embedder, floor, after_30, after_330) -> None:
    settings = replace(Settings(), memory=replace(Settings().memory, freshness_floor=floor))
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        memory.absorb(FACTS)
        assert memory.search("Kazan headquarters", top_k=1)[0].freshness == pytest.approx(1.0)
        clock.advance(30)
        assert memory.search("Kazan headquarters", top_k=1)[0].freshness == pytest.approx(after_30)
        clock.advance(300)
        hits = memory.search("Kazan headquarters", top_k=1)
        assert hits[0].freshness == pytest.approx(after_330)
        # With the seed's floor of 0 every old fact scores 0 and ranking is lost; with a floor it is kept.
        assert ("Kazan" in hits[0].fact.text) == (floor > 0) or hits[0].score == 0
    assert freshness(400, 0.01, 0.0) == 0.0  # floor 0 reproduces the seed's max(0, ...)


def test_phrase_order_is_rewarded(memory: Memory) -> None:
    memory.absorb(["Caroline went to a support group for LGBTQ people last Tuesday evening.",
                   "Caroline said the group of volunteers gave her support with the paperwork."])
    hits = memory.search("LGBTQ support group", top_k=2)
    assert "support group" in hits[0].fact.text and hits[0].bm25 == pytest.approx(1.0)
    assert hits[1].bm25 < 1.0


CONVERSATION = [
    "Melanie: How did the camping weekend in June go for you and the kids?",
    "Caroline: It was awesome! We explored nature and roasted marshmallows around the fire.",
    "Melanie: That sounds lovely. I finally repainted the fence in the back garden.",
]


def test_a_neighbour_of_a_strong_match_gains_context(memory: Memory) -> None:
    memory.absorb(CONVERSATION)  # one batch: adjacent turns are neighbours
    memory.absorb(["Roasted marshmallows are a favourite treat at the scout jamboree."])  # a batch alone
    hits = {h.fact.text: h for h in memory.search("camping trip in June", top_k=4)}
    answer, lone = hits[CONVERSATION[1]], hits["Roasted marshmallows are a favourite treat at the scout jamboree."]
    question = hits[CONVERSATION[0]]
    assert answer.context == pytest.approx(question.score - CONTEXT_WEIGHT * question.context)
    assert lone.context == 0.0
    for hit in hits.values():
        base = (0.7 * hit.cosine + 0.3 * hit.bm25) * hit.freshness
        assert hit.score == pytest.approx(base + CONTEXT_WEIGHT * hit.context)


# A reply long enough to carry its own context: ~1,300 characters about the same trip.
LONG_REPLY = ("Caroline: It was awesome! We explored nature and roasted marshmallows around the fire. "
              + " ".join(f"On day {n} we hiked to the {place} and the kids counted {n * 3} birds by the water."
                         for n, place in enumerate(["lake", "ridge", "waterfall", "old mill", "meadow", "cave",
                                                    "pine forest", "lookout", "creek", "beaver dam", "quarry",
                                                    "orchard", "marsh", "bridge", "cliffs", "dunes"], 1)))


def _base(hit) -> float:
    return hit.score - CONTEXT_WEIGHT * hit.context


def test_a_long_neighbour_lends_context_in_proportion_to_its_length(db_path, clock, embedder) -> None:
    """A short turn lends all of its score as context; a long reply may match far from its neighbour,
    so it lends ``context_length / characters`` of it (and all of it with the scaling off)."""
    lent = {}
    for length in (500, 0):
        settings = replace(Settings(), memory=replace(Settings().memory, context_length=length))
        with Memory(db_path.with_name(f"length-{length}.sqlite"), settings, clock=clock, embedder=embedder) as memory:
            memory.absorb([CONVERSATION[0], LONG_REPLY, CONVERSATION[2]])
            hits = {h.fact.text: h for h in memory.search("camping trip in June", top_k=3)}
            lent[length] = hits[CONVERSATION[2]].context / _base(hits[LONG_REPLY])  # its one neighbour: the reply
            short_neighbours = max(_base(hits[CONVERSATION[0]]), _base(hits[CONVERSATION[2]]))
            assert hits[LONG_REPLY].context == pytest.approx(short_neighbours)  # short turns lend all of it
    assert len(LONG_REPLY) > 1000
    assert lent[500] == pytest.approx(500 / len(LONG_REPLY))
    assert lent[0] == pytest.approx(1.0)


def test_context_gains_agree_whether_the_index_was_loaded_written_or_caught_up(db_path, clock, embedder) -> None:
    """The text length behind a fact's context gain reaches the index on each of its three paths."""
    def contexts(memory: Memory) -> dict[str, float]:
        return {h.fact.text: round(h.context, 6) for h in memory.search("camping trip in June", top_k=3)}

    with Memory(db_path, clock=clock, embedder=embedder) as reader:
        reader.search("anything", top_k=1)  # loads the (empty) index now, so the write below is caught up
        with Memory(db_path, clock=clock, embedder=embedder) as writer:
            writer.absorb([CONVERSATION[0], LONG_REPLY, CONVERSATION[2]])
            written = contexts(writer)  # the writer's own rows, added from what it wrote
        caught_up = contexts(reader)  # another process's write, read back through its journal rows
    with Memory(db_path, clock=clock, embedder=embedder) as reopened:
        loaded = contexts(reopened)  # every row loaded from the file
    assert written == caught_up == loaded
    assert written[LONG_REPLY] > 0 and written[CONVERSATION[2]] > 0


def test_context_weight_zero_is_the_seed_formula(db_path, clock, embedder) -> None:
    settings = replace(Settings(), memory=replace(Settings().memory, context_weight=0.0))
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        memory.absorb(CONVERSATION)
        for hit in memory.search("camping trip in June", top_k=3):
            assert hit.context == 0.0
            assert hit.score == pytest.approx((0.7 * hit.cosine + 0.3 * hit.bm25) * hit.freshness)


def test_filtered_search_scores_context_too(memory: Memory) -> None:
    memory.absorb([{"text": t, "scope": "user"} for t in CONVERSATION])
    hits = memory.search("camping trip in June", top_k=3, filters=SearchFilters(scope="user"))
    assert any(h.context > 0 for h in hits) and {h.fact.scope for h in hits} == {"user"}


def test_search_bumps_access_counters(filled: Memory, clock) -> None:
    hit = filled.search("Sofia Lisbon", top_k=1)[0]
    fact = filled.facts([hit.fact.id])[hit.fact.id]
    assert fact.access_count == 1 and fact.last_accessed == clock.at


def test_query_vector_skips_embedding(filled: Memory, embedder) -> None:
    vector = embedder.embed(["Kazan headquarters"])[0]
    assert filled.search("Kazan headquarters", query_vector=vector)[0].fact.id == \
        filled.search("Kazan headquarters")[0].fact.id


def test_effective_confidence_per_kind() -> None:
    assert effective_confidence(0.5, decay_rate("user_preference"), 35) == pytest.approx(0.5 * math.exp(-0.7))
    assert effective_confidence(0.4, decay_rate("episodic"), 0) == pytest.approx(0.4)
    assert effective_confidence(0.4, decay_rate("episodic"), -3) == pytest.approx(0.4)


def test_index_follows_writes_from_another_process(filled: Memory, db_path, clock, embedder) -> None:
    filled.search("warm up the index")
    with Memory(db_path, clock=clock, embedder=embedder, actor="other") as other:
        other.absorb(["The Tidewater project exports robot data to Spreeline Lake every night."])
    hits = filled.search("Tidewater nightly export", top_k=1)
    assert "Tidewater" in hits[0].fact.text and hits[0].cosine > 0.4


TOPICS = [
    ["Melanie: How did the camping weekend in June go for you and the kids?",
     "Caroline: It was awesome! We explored nature and roasted marshmallows around the fire.",
     "Melanie: Lovely. The kids still talk about the lake where we swam last summer."],
    ["Ivan: The Ferrite ingest service fell behind again during the nightly reindex.",
     "Maya: I raised the Kafka consumer batch size and the lag cleared within an hour.",
     "Ivan: Then let us keep the new batch size and watch the dashboards on Friday."],
    ["Sofia: I moved from Porto to Lisbon in March for the data platform job.",
     "Jonas: How is the commute? I heard the trains along the river are crowded.",
     "Sofia: I cycle to the office along the river, about twenty minutes each way."],
]
SINGLES = ["Backups of the Ferrite database run nightly at 02:00 UTC to the Lisbon site.",
           "The scout jamboree serves roasted marshmallows every evening by the lake.",
           "Northwind Robotics is headquartered in Kazan, next to the Kazanka river.",
           "Maya prefers dark mode in every editor and terminal she uses."]


def test_a_small_pool_finds_the_same_top_k_as_scoring_every_fact(db_path, clock, embedder) -> None:
    """Facts lifted by context or freshness rank even when neither cosine nor BM25 alone puts them in the pool."""
    def settings(pool: int) -> Settings:
        return replace(Settings(), memory=replace(Settings().memory, candidate_pool=pool))

    with Memory(db_path, settings(2), clock=clock, embedder=embedder) as memory:
        for turns in TOPICS:  # a batch each, weeks apart: context and freshness both differ
            memory.absorb(turns)
            clock.advance(20)
        memory.absorb(SINGLES)
        queries = ["camping trip with the kids", "why was the ingest lagging", "how does Sofia get to work",
                   "river", "what happens every night"]
        small = {q: memory.search(q, top_k=5) for q in queries}
    with Memory(db_path, settings(10_000), clock=clock, embedder=embedder) as memory:
        for query in queries:
            every = memory.search(query, top_k=5)
            assert [h.fact.id for h in small[query]] == [h.fact.id for h in every]
            assert [h.score for h in small[query]] == pytest.approx([h.score for h in every])
    assert all(len(found) == 5 for found in small.values())


def test_bm25_part_is_the_share_of_the_best_match_raised_to_bm25_power() -> None:
    from engine.search.hybrid import bm25_parts

    values = np.array([8.0, 4.0, 2.0])
    assert bm25_parts(values, 1.0) == pytest.approx([1.0, 0.5, 0.25])
    assert bm25_parts(values, 2.0) == pytest.approx([1.0, 0.25, 0.0625])
    assert bm25_parts(np.zeros(0), 2.0).shape == (0,)
    assert bm25_parts(np.array([0.0, 0.0]), 2.0) == pytest.approx([0.0, 0.0])


def test_search_reports_the_powered_bm25_part(db_path, clock, embedder) -> None:
    scores = {}
    for power in (1.0, 2.0):
        settings = replace(Settings(), memory=replace(Settings().memory, bm25_power=power))
        path = db_path.with_name(f"power-{power}.sqlite")
        with Memory(path, settings, clock=clock, embedder=embedder) as memory:
            memory.absorb(FACTS)
            hits = memory.search("Ferrite Kafka consumer lag", top_k=5)
            scores[power] = {h.fact.text: h.bm25 for h in hits}
            for hit in hits:
                base = (0.7 * hit.cosine + 0.3 * hit.bm25) * hit.freshness
                assert hit.score == pytest.approx(base + settings.memory.context_weight * hit.context)
    assert max(scores[2.0].values()) == 1.0 and any(0 < part < 1 for part in scores[1.0].values())
    for text, part in scores[1.0].items():
        assert scores[2.0][text] == pytest.approx(part ** 2)


def test_text_matches_past_the_pool_still_rank_by_their_full_score(db_path, clock, embedder) -> None:
    """Only the pool's best text matches by BM25 rank are scored exactly; the rest rank by their rough score,
    so with 25 text matches and a pool of 3 the top 3 are those of scoring every fact."""
    def settings(pool: int) -> Settings:
        return replace(Settings(), memory=replace(Settings().memory, candidate_pool=pool, text_match_budget=1000))

    places = ["mill", "bridge", "ferry", "dam", "lock", "quay", "delta", "ford"]
    filler = [f"The river river {place} report number {k} lists river levels and river river traffic counts."
              for k, place in enumerate(places * 3)]
    answer = "We rented a cabin by the river for the kids' camping trip."
    queries = ["family holiday near the river", "a family camping holiday by the river", "river cabin",
               "river holiday with the children", "ferry traffic on the river", "river levels at the dam"]
    with Memory(db_path, settings(2), clock=clock, embedder=embedder) as memory:
        memory.absorb(filler)
        memory.absorb([answer])
        small = {q: memory.search(q, top_k=3) for q in queries}
    with Memory(db_path, settings(10_000), clock=clock, embedder=embedder) as memory:
        for query in queries:
            every = memory.search(query, top_k=3)
            assert [h.fact.id for h in small[query]] == [h.fact.id for h in every]
            assert [h.score for h in small[query]] == pytest.approx([h.score for h in every])
    assert small["river cabin"][0].fact.text == answer
