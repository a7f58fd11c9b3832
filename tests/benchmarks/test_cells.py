"""The partial-scan measurement (benchmarks/cells.py) measures what it says: reading every cell, or
completing every row, must give today's full-sketch shortlist exactly; reading fewer rows can only lose."""

from __future__ import annotations

import numpy as np

from benchmarks.cells import measure
from engine.search.vectors import VectorIndex


def _index(rows: int, dim: int = 96, topics: int = 40, seed: int = 3) -> VectorIndex:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(topics, dim))
    vectors = centres[rng.integers(0, topics, rows)] + 0.8 * rng.normal(size=(rows, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = VectorIndex(dim)
    index.add(list(range(1, rows + 1)), vectors.astype(np.float32))
    return index


def test_reading_everything_is_the_full_sketch_and_reading_less_loses_nothing_it_did_not_read() -> None:
    index = _index(6000)
    rng = np.random.default_rng(9)
    queries = index.vectors_at(rng.choice(len(index), 12, replace=False)) + 0.3 * rng.normal(size=(12, 96))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    result = measure(index, queries, cells=16, shares=(0.05, 1.0), prefixes=(8,), keeps=(100, 6000))
    found = {row["variant"]: row for row in result["variants"]}
    full = found["full sketch (today)"]
    assert result["rows"] == 6000 and result["shortlist"] < 6000  # a real shortlist, not every row
    assert found["cells 16, 100% of rows read"]["top10_inside"] == full["top10_inside"]
    assert found["first 8 dims, best 6,000 completed"]["top100_inside"] == full["top100_inside"]
    assert found["cells 16, 5% of rows read"]["top100_inside"] < full["top100_inside"]
    assert found["first 8 dims, best 100 completed"]["top100_inside"] < full["top100_inside"]
