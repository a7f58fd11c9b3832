"""Large indexes keep float16 (or, larger still, int8) rows; search re-scores its top from SQLite, so results
match float32."""

from __future__ import annotations

import numpy as np
import pytest

import engine.search.vectors as vectors
from engine import Memory


def _texts(count: int) -> list[str]:
    topics = ["billing", "ingest", "search", "auth", "telemetry", "checkout"]
    cities = ["Lisbon", "Kazan", "Osaka", "Quito", "Tallinn"]
    return [f"The {topics[k % 6]} service in {cities[k % 5]} had incident {k} after deploy {k * 7 % 13}."
            for k in range(count)]


def _exact_then_narrower(memory: Memory, monkeypatch: pytest.MonkeyPatch, query: str, **thresholds: int) -> tuple:
    """(hits with float32 rows, hits after reopening the index with the storage ``thresholds`` lowered)."""
    memory.absorb(_texts(300))
    exact = memory.search(query, top_k=8)
    for name, rows in thresholds.items():
        monkeypatch.setattr(vectors, name, rows)
    memory.index.drop()  # reopen the index: now stored narrower
    return exact, memory.search(query, top_k=8)


@pytest.mark.parametrize("query", ["billing incident in Kazan", "what broke after deploy 3", "Osaka telemetry"])
def test_float16_rows_give_the_same_hits_as_float32(memory: Memory, monkeypatch: pytest.MonkeyPatch,
                                                    embedder, query: str) -> None:
    exact, half = _exact_then_narrower(memory, monkeypatch, query, HALF_ROWS=10)
    assert memory.index.index.matrix.dtype == np.float16 and 0 < memory.index.index.error < 1e-2
    assert [h.fact.id for h in half] == [h.fact.id for h in exact]
    # Equal up to float32 summation order, far below float16's ~1e-3.
    assert [h.score for h in half] == pytest.approx([h.score for h in exact], abs=1e-6)
    assert [h.cosine for h in half] == pytest.approx([h.cosine for h in exact], abs=1e-6)


@pytest.mark.parametrize("query", ["billing incident in Kazan", "what broke after deploy 3", "Osaka telemetry"])
def test_int8_rows_give_the_same_hits_as_float32(memory: Memory, monkeypatch: pytest.MonkeyPatch,
                                                 embedder, query: str) -> None:
    # int8 with a scale per row
    exact, small = _exact_then_narrower(memory, monkeypatch, query, HALF_ROWS=10, INT8_ROWS=10)
    index = memory.index.index
    assert index.matrix.dtype == np.int8 and 1e-4 < index.error < 0.05
    assert [h.fact.id for h in small] == [h.fact.id for h in exact]
    assert [h.score for h in small] == pytest.approx([h.score for h in exact], abs=1e-6)
    # Writes after opening go in as int8 too, and removals keep every row's scale with its row.
    memory.absorb(["The billing service in Kazan had a second incident after deploy 3 of the week."])
    again = memory.search(query, top_k=8)
    memory.index.drop()
    monkeypatch.setattr(vectors, "INT8_ROWS", 10 ** 9)
    monkeypatch.setattr(vectors, "HALF_ROWS", 10 ** 9)
    assert [h.fact.id for h in memory.search(query, top_k=8)] == [h.fact.id for h in again]
