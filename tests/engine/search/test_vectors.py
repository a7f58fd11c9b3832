"""The vector index: the sketch pre-filter returns exact cosines, rows stay consistent, batch neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from engine.search.vectors import SKETCH_MIN_ROWS, VectorIndex, top_per_row

DIM = 96  # above SKETCH_DIMS, so the index keeps a sketch


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _vectors(count: int, seed: int = 0, topics_seed: int = 0) -> np.ndarray:
    """Clustered like sentence embeddings: a few dozen directions plus a little noise."""
    topics = np.random.default_rng(topics_seed).standard_normal((40, DIM))
    rng = np.random.default_rng(seed + 1000)
    mix = np.zeros((count, 40))
    for row in range(count):
        mix[row, rng.choice(40, 3, replace=False)] = rng.random(3) + 0.2
    return _unit(mix @ topics + 0.02 * rng.standard_normal((count, DIM)))


@pytest.fixture
def index() -> VectorIndex:
    found = VectorIndex(DIM)
    count = SKETCH_MIN_ROWS + 2000
    ids = list(range(1, count + 1))
    batches = [(0.0, 0.5, 0.05, 1 + fid // 100) for fid in ids]  # batches of 100 consecutive facts
    found.fill(count, [(ids, _vectors(count).tobytes(), batches)])
    return found


def _exhaustive_top(index: VectorIndex, query: np.ndarray, count: int) -> set[int]:
    scores = index.cosine(query)
    return set(np.argsort(-scores, kind="stable")[:count].tolist())


def test_large_index_keeps_a_sketch_and_top_cosines_are_exact(index: VectorIndex) -> None:
    assert index._basis is not None and index._shortlist(50) is not None
    for query in _vectors(20, seed=1):
        rows, cosines = index.top_cosines(query, 50)
        assert np.allclose(cosines, index.matrix[rows] @ query, atol=1e-6)
        # Only which rows get re-scored is estimated: the true nearest are always among them.
        assert _exhaustive_top(index, query, 10) <= set(rows.tolist())
        assert len(set(rows.tolist()) & _exhaustive_top(index, query, 50)) >= 45


def test_estimates_are_near_and_every_shortlist_cosine_is_exact(index: VectorIndex) -> None:
    for query in _vectors(5, seed=3):
        exact = index.cosine(query)
        estimates = index.estimated_cosines(query)
        assert np.abs(estimates - exact).mean() < 0.05  # an estimate, on the cosine scale
        for count in (50, len(index) // 4):  # the second asks for more rows than a shortlist is worth
            rows, cosines = index.shortlist_cosines(query, count, estimates)
            assert len(rows) >= min(len(index), 5 * count)
            np.testing.assert_allclose(cosines, exact[rows], atol=1e-6)


def _sketch_matches_matrix(index: VectorIndex) -> bool:
    return bool(np.allclose(index._sketch[:, : len(index)].T, index._project(index.matrix), atol=1e-5))


def test_rows_stay_consistent_through_removal_and_replacement(index: VectorIndex) -> None:
    assert _sketch_matches_matrix(index)
    index.remove(list(range(1, 400)))
    fresh = _vectors(300, seed=2)
    index.add(list(range(10_000, 10_300)), fresh)
    index.add([10_000], fresh[1:2])  # replacing a row's vector updates its sketch too
    assert len(index) == SKETCH_MIN_ROWS + 2000 - 399 + 300
    assert np.allclose(index.vector(10_000), fresh[1]) and _sketch_matches_matrix(index)
    assert sorted(index.ids.tolist()) == list(range(400, SKETCH_MIN_ROWS + 2001)) + list(range(10_000, 10_300))


def test_rows_on_new_topics_trigger_a_refit(index: VectorIndex) -> None:
    """Facts about things the sketch never saw would be estimated badly: their arrival refits it."""
    fitted = index._fitted_at
    index.add(list(range(20_000, 20_600)), _vectors(600, seed=6, topics_seed=9))
    assert index._fitted_at > fitted and _sketch_matches_matrix(index)
    for query in _vectors(10, seed=7, topics_seed=9):
        rows, _ = index.top_cosines(query, 30)
        assert _exhaustive_top(index, query, 10) <= set(rows.tolist())
    for query in _vectors(10, seed=3):
        rows, cosines = index.top_cosines(query, 30)
        assert np.allclose(cosines, index.matrix[rows] @ query, atol=1e-6)
        assert _exhaustive_top(index, query, 10) <= set(rows.tolist())


def test_small_index_scans_everything() -> None:
    small = VectorIndex(DIM)
    small.add([1, 2, 3], _vectors(3))
    rows, cosines = small.top_cosines(_vectors(1, seed=5)[0], 10)
    assert sorted(small.ids[rows].tolist()) == [1, 2, 3] and small._basis is None


def test_nearest_many_matches_a_full_sort(index: VectorIndex) -> None:
    queries = _vectors(7, seed=4)
    found = index.nearest_many(queries, 5)
    for query, near in zip(queries, found):
        scores = index.cosine(query)
        best = np.argsort(-scores, kind="stable")[:5]
        assert [fid for fid, _ in near] == index.ids[best].tolist()
        assert [s for _, s in near] == pytest.approx(scores[best].tolist(), abs=1e-6)


@pytest.mark.parametrize(("shape", "k"), [((3, 40), 5), ((20, 5000), 5), ((4, 3000), 40), ((2, 2000), 1)])
def test_top_per_row_is_exact_and_best_first(shape: tuple[int, int], k: int) -> None:
    scores = np.random.default_rng(k).standard_normal(shape).astype(np.float32)
    cols, values = top_per_row(scores, k)
    for row in range(shape[0]):
        assert sorted(scores[row, cols[row]].tolist(), reverse=True) == values[row].tolist()
        assert values[row].tolist() == sorted(scores[row].tolist(), reverse=True)[:k]


def test_neighbours_are_adjacent_facts_of_the_same_batch(index: VectorIndex) -> None:
    rows = np.array(index.rows_of([150, 199, 200]))
    before, after = index.neighbours(rows)
    assert index.ids[before[:2]].tolist() == [149, 198] and index.ids[after[0]] == 151
    assert before[2] == -1 and after[1] == -1  # 199 | 200 is a batch boundary (batch = 1 + id // 100)
    index.remove([151])  # the last row moves into 151's place: 150 now has no next neighbour
    before, after = index.neighbours(np.array(index.rows_of([150, 152])))
    assert after[0] == -1 and before[1] == -1
    moved = int(index.ids[-1])
    before, _ = index.neighbours(np.array(index.rows_of([moved])))
    assert index.ids[before[0]] == moved - 1  # found through the id map, not the adjacent row


def test_int8_rows_estimate_within_their_error_and_top_cosines_stay_near(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.search.vectors as vectors

    monkeypatch.setattr(vectors, "HALF_ROWS", 100)
    monkeypatch.setattr(vectors, "INT8_ROWS", 100)
    count = SKETCH_MIN_ROWS + 2000
    exact_rows = _vectors(count)
    ids = list(range(1, count + 1))
    index = VectorIndex(DIM)
    index.fill(count, [(ids, exact_rows.tobytes(), None)])
    assert index.matrix.dtype == np.int8 and 0 < index.error < 0.02
    for query in _vectors(10, seed=5):
        truth = exact_rows @ query
        # Every dequantised cosine is within the measured error of the float32 one.
        assert np.abs(index.cosine(query) - truth).max() <= index.error + 1e-6
        rows, cosines = index.top_cosines(query, 20)
        assert np.abs(cosines - truth[rows]).max() <= index.error + 1e-6
        # The true top 10 are among the 20 nearest by int8 cosine (exact re-scoring happens in search).
        assert set(np.argsort(-truth)[:10].tolist()) <= set(index.ids[rows].astype(int) - 1)


def test_int8_rows_follow_adds_and_removes(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.search.vectors as vectors

    monkeypatch.setattr(vectors, "HALF_ROWS", 10)
    monkeypatch.setattr(vectors, "INT8_ROWS", 10)
    rows = _vectors(600, seed=9)
    index = VectorIndex(DIM)
    index.fill(400, [(list(range(1, 401)), rows[:400].tobytes(), None)])
    index.add(list(range(401, 601)), rows[400:])
    index.remove(list(range(1, 600, 3)))
    index.add([2], rows[599])  # replace a row's vector in place
    kept = [i for i in range(1, 601) if (i - 1) % 3 != 0]
    assert len(index) == len(kept) and all(i in index for i in kept) and 1 not in index
    for fact_id in kept:
        want = rows[599] if fact_id == 2 else rows[fact_id - 1]
        assert np.abs(index.vector(fact_id) - want).max() < 0.01
    np.testing.assert_array_equal(index.rows_or_missing(np.array([1, 2, 10 ** 12, -5])) >= 0,
                                  [False, True, False, False])


def test_ids_far_apart_are_still_found() -> None:
    index = VectorIndex(DIM)
    far = [5, 10 ** 12, 2 ** 62, 7]
    index.add(far, _vectors(4, seed=2))
    assert index.rows_of(far) == [0, 1, 2, 3]
    index.remove([10 ** 12])
    assert index.rows_of(far) == [0, 2, 1]  # the last row moved into the freed one
    assert list(index.rows_or_missing(np.array(far, dtype=np.int64))) == [0, -1, 2, 1]


def test_neighbour_maximum_equals_the_gather_after_removals_and_replacements() -> None:
    count = 3000
    index = VectorIndex(DIM)
    ids = list(range(1, count + 1))
    index.fill(count, [(ids, _vectors(count, seed=4).tobytes(), [(0.0, 0.5, 0.05, 1 + fid // 7) for fid in ids])])
    index.remove(list(range(3, count, 11)))  # moves the last rows into the gaps
    index.add([count + 1, count + 2], _vectors(2, seed=6), [(0.0, 0.5, 0.05, 10 ** 6)] * 2)
    values = np.random.default_rng(2).random(len(index)).astype(np.float32)
    before, after = index.neighbours(np.arange(len(index)))
    padded = np.append(values, np.float32(0))
    np.testing.assert_array_equal(index.neighbour_maximum(values), np.maximum(padded[before], padded[after]))


def test_large_indexes_re_score_a_share_of_their_rows() -> None:
    import engine.search.vectors as vectors

    index = VectorIndex(DIM)
    index._basis, index._size = np.zeros((DIM, 2)), 10 ** 6
    assert index._shortlist(200) == 10 ** 6 // vectors.SHORTLIST_SHARE
    index._size = 100_000
    assert index._shortlist(200) == 200 * vectors.OVERSAMPLE
