"""``search_timed(text_first=True)`` while the vectors are not loaded: the words answer, by the hybrid
formula without its cosine, and the timing says so; once loaded, the search is hybrid again."""

from __future__ import annotations

import pytest

from engine import Memory, SearchFilters
from tests.engine.search.test_search import FACTS


@pytest.fixture
def fresh(memory: Memory, db_path, clock, embedder) -> Memory:
    memory.absorb(FACTS)
    memory.archive_fact(memory.search("dark mode", top_k=1)[0].fact.id, reason="test")
    memory.close()
    return Memory(db_path, clock=clock, embedder=embedder)


def test_text_first_answers_from_the_words_until_the_vectors_are_loaded(fresh: Memory) -> None:
    with fresh as memory:
        assert not memory.vectors_ready
        hits, timing = memory.search_timed("Ferrite Kafka lag", top_k=5, text_first=True)
        assert timing.text_only and timing.to_dict()["text_only"] is True and not memory.index.loaded
        assert [h.fact.text for h in hits][0].startswith("During the session we fixed Kafka consumer lag")
        w = memory.settings.memory
        for hit in hits:
            assert hit.cosine == 0.0 and 0 < hit.bm25 <= 1
            assert hit.score == pytest.approx(w.bm25_weight * hit.bm25 * hit.freshness)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        # Only active facts, as the hybrid search: the archived one matches its words but is not listed.
        assert memory.search_timed("dark mode", text_first=True)[0] == []
        assert memory.search_timed("dark mode", text_first=True,
                                   filters=SearchFilters(statuses=("active", "archived")))[0]

        memory.warm_up(wait=True)
        assert memory.vectors_ready
        hits, timing = memory.search_timed("Ferrite Kafka lag", top_k=5, text_first=True)
        assert not timing.text_only and "text_only" not in timing.to_dict()
        assert any(h.cosine > 0 for h in hits)


def test_text_first_keeps_the_confidence_floor(fresh: Memory, clock) -> None:
    with fresh as memory:
        every, _ = memory.search_timed("Ferrite", top_k=10, text_first=True)
        floor = sorted(h.effective_confidence for h in every)[-1]
        kept, _ = memory.search_timed("Ferrite", top_k=10, text_first=True,
                                      filters=SearchFilters(min_confidence=floor))
        assert len(every) >= 2 and kept
        assert [h.fact.id for h in kept] == [h.fact.id for h in every if h.effective_confidence >= floor]
