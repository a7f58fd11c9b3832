"""Past the sketch's shortlist the rough score is worked out on the rows that can reach the pool only
(``Searcher._active_shortlisted``): its top 10 equals the exhaustive reference's (every active fact
scored exactly, ``benchmarks.speed.Reference``) on at least 99 % of queries, on a generated store large
enough for the shortlist (a few thousand facts, batches with context, real embeddings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import speed
from benchmarks.synthetic import Generator, build_store, embed_by_length
from engine.search import hybrid

SIZE = 6000
QUERIES = 100


@pytest.mark.slow
def test_the_shortlisted_rough_score_agrees_with_the_exhaustive_reference(tmp_path: Path, embedder,
                                                                         monkeypatch) -> None:
    path = tmp_path / "store.sqlite"
    build_store(path, SIZE, embedder, log=lambda _m: None, bench_dir=tmp_path)
    queries = Generator(7).queries(QUERIES)
    vectors = embed_by_length(embedder, queries, lambda _m: None)
    taken: list[int] = []
    real = hybrid.Searcher._active_shortlisted
    monkeypatch.setattr(hybrid.Searcher, "_active_shortlisted",
                        lambda self, *a, **k: (taken.append(1), real(self, *a, **k))[1])
    with speed.open_memory(path, embedder) as memory:
        checked = speed.correctness(memory, queries, np.asarray(vectors))
    assert len(taken) == QUERIES  # every search went through the shortlisted path
    assert checked["agree"] >= 0.99 * QUERIES, checked["differences"]
