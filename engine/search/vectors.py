"""The in-memory vector index of active facts: one contiguous matrix.

Writes add or drop rows in place (amortised growth, swap-with-last removal),
so nothing is rebuilt per query. Above ``SKETCH_MIN_ROWS`` rows the index
also keeps a *sketch*: each row projected on the store's top
``SKETCH_DIMS`` principal directions (a sixth of the bytes). Top-``k``
queries scan the sketch, then re-score the best ``OVERSAMPLE × k`` estimates
against the full vectors; only the choice of which rows to re-score is
approximate (``make bench`` checks the final top 10 against an exhaustive
reference: 300/300 queries agree at 10k, 100/100 at 100k).

A store opened with ``HALF_ROWS`` or more vectors keeps them as float16: half
the memory (72 MB less at 100k), and cosines off by at most ``error`` (5e-4);
search re-scores the facts near its top k from the float32 vectors in
SQLite, so its results stay exact. From ``INT8_ROWS`` (a quarter million) rows
are int8 with one float32 scale per row: a quarter of float32 (384 MB at 1M
instead of 768 as float16), each row's rounding error measured as it is stored
(``error`` is the largest, ~0.01), and the same exact re-scoring from SQLite.

Fact ids map to rows through a dense array (ids are SQLite rowids, nearly
contiguous): 4 bytes per id instead of ~100 bytes per entry of a dict.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterable, Iterator

import numpy as np
from threadpoolctl import threadpool_limits

# A query is one matrix-vector product: memory-bound, so a second BLAS thread buys little
# and, on a 2-core machine shared with the embedder and the GUI, costs ~5x in contention
# (measured: 10k x 384 product 0.5 ms on one thread, 3.8 ms on two under load).
_ONE_THREAD = threadpool_limits(limits=1, user_api="blas")

SKETCH_DIMS = 64        # 78 % of the variance of MiniLM vectors on the benchmark store
SKETCH_MIN_ROWS = 4096  # below this the full product costs about what the sketch saves
OVERSAMPLE = 5          # rows re-scored exactly per row wanted
# ... and at least one row in SHORTLIST_SHARE at SHORTLIST_SHARE_AT rows, a share growing with the size:
# subjects grow with the store (~20,000 at 1M) while the sketch keeps 64 directions, so ever more facts'
# own topics lie outside it. At 1M the 1,000 best estimates missed facts of true cosine rank 4 (top-10
# agreement 91/100; 96 with 5,000 re-scored, 99 with 10,000, 100 with 20,000); over all 300 queries
# 10,000 gave 294/300 (misses of cosine rank 5-48 whose estimates ranked 9,784-23,946) and 20,000 299/300.
# At 100k the OVERSAMPLE rows (1,000) are the shortlist still: 298/300.
SHORTLIST_SHARE = 50
SHORTLIST_SHARE_AT = 1_000_000
SHORTLIST_FLOOR_SHARE = 100  # never fewer than one row in 100, as before the growing share (2,200 at 220k)
# Rows gathered and re-scored at a time: 512 int8 rows widen to 768 KB, which stays in cache for the
# product (20,000 random int8 rows of 1M: 2.3-4.5 ms in chunks of 512, 4.9-5.5 ms for 10,000 at once, load ~7).
_ROWS_AT_ONCE = 512
FIT_SAMPLE = 4096       # rows the principal directions are estimated from
DRIFT_ROWS = 256        # rows added before their distance from the sketch can trigger a refit
EXACT_BATCH_ROWS = 32_768  # batch absorb scores every row up to here (~35 ms per 100 items)
# Stores opened this large keep float16 rows: batch absorb no longer multiplies the whole matrix.
HALF_ROWS = EXACT_BATCH_ROWS
HALF_ERROR = 2.0 ** -11 + 384 * 2.0 ** -25
# Stores opened this large keep int8 rows (scale = the row's largest magnitude / 127) instead.
INT8_ROWS = 262_144
# Rows widened or projected at a time: 16,384 (25 MB temporaries) left ~25 MB of freed heap resident at 100k.
_CHUNK = 2048
# float16 bit pattern -> float32 value: a table lookup widens rows exactly, 2x faster than astype.
_WIDEN_HALF = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
# The batch column tells facts absorbed together (their plan id) for search's context part, and
# the length column (characters) how much context a fact takes from them; NaN (a batch equal to
# nothing, a length taking full context) when the caller gives only the first columns.
META_COLUMNS = 5
LENGTH_COLUMN = 4


def _float32(rows: np.ndarray) -> np.ndarray:
    """float16 or float32 rows as float32 (the same array when already float32)."""
    if rows.dtype == np.float16:
        return np.take(_WIDEN_HALF, rows.view(np.uint16))
    return rows


def _int8(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(int8 rows, their float32 scales, the largest distance of a dequantised row from its vector)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    scale = np.abs(vectors).max(axis=1) / np.float32(127)
    scale[scale == 0] = 1.0
    rows = np.rint(vectors / scale[:, None]).astype(np.int8)
    error = float(np.linalg.norm(rows * scale[:, None] - vectors, axis=1).max()) if len(vectors) else 0.0
    return rows, scale.astype(np.float32), error


class _RowMap:
    """Fact id -> index row (-1: not indexed), as a dense int32 array over ids; ids far beyond the
    number of rows (never seen from SQLite's rowids, but allowed) go to a dict instead."""

    def __init__(self) -> None:
        self._dense = np.full(0, -1, np.int32)
        self._sparse: dict[int, int] = {}

    def _fits(self, fact_id: int, size: int) -> bool:
        if 0 <= fact_id < len(self._dense):
            return True
        if fact_id < 0 or fact_id > 4 * size + (1 << 16):
            return False
        grown = np.full(max(fact_id + 1, 2 * len(self._dense), 1024), -1, np.int32)
        grown[: len(self._dense)] = self._dense
        self._dense = grown
        return True

    def set_many(self, fact_ids: np.ndarray, rows: np.ndarray, size: int) -> None:
        fact_ids = np.asarray(fact_ids, np.int64)
        if len(fact_ids) == 0:
            return
        top = int(fact_ids.max())
        if 0 <= int(fact_ids.min()) and self._fits(top, size):
            self._dense[fact_ids] = rows
            return
        for fact_id, row in zip(fact_ids.tolist(), np.asarray(rows).tolist()):
            self.set(fact_id, row, size)

    def set(self, fact_id: int, row: int, size: int) -> None:
        if self._fits(fact_id, size):
            self._dense[fact_id] = row
        else:
            self._sparse[fact_id] = row

    def get(self, fact_id: int) -> int | None:
        if 0 <= fact_id < len(self._dense):
            row = int(self._dense[fact_id])
            return None if row < 0 else row
        return self._sparse.get(fact_id)

    def pop(self, fact_id: int) -> int | None:
        row = self.get(fact_id)
        if row is not None:
            if 0 <= fact_id < len(self._dense):
                self._dense[fact_id] = -1
            else:
                del self._sparse[fact_id]
        return row

    def rows(self, fact_ids: np.ndarray) -> np.ndarray:
        fact_ids = np.asarray(fact_ids, np.int64)
        found = np.full(len(fact_ids), -1, np.int64)
        inside = (fact_ids >= 0) & (fact_ids < len(self._dense))
        found[inside] = self._dense[fact_ids[inside]]
        if self._sparse and not inside.all():
            for k in np.flatnonzero(~inside).tolist():
                found[k] = self._sparse.get(int(fact_ids[k]), -1)
        return found


def _meta_rows(meta: np.ndarray | list | None, count: int) -> np.ndarray:
    found = np.full((count, META_COLUMNS), np.nan)
    if meta is not None and count:
        given = np.asarray(meta, np.float64).reshape(count, -1)
        found[:, : given.shape[1]] = given
    return found


def _largest(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` largest values, in no order.

    A full argpartition of 100k values costs ~0.8 ms; a threshold read off every
    16th value (reached by about twice ``count`` values) and an argpartition of
    just those costs a tenth of that.
    """
    n = len(values)
    if count >= 64 and n >= 32 * count:
        sample = values[::16]
        rank = len(sample) - 2 * (count // 16)
        found = np.flatnonzero(values >= np.partition(sample, rank)[rank])
        if len(found) >= count:
            return found[np.argpartition(values[found], len(found) - count)[len(found) - count:]]
    return np.argpartition(values, n - count)[n - count:]


class VectorIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        # Per row: last_reinforced, confidence, decay rate, batch, text length: what ranking needs besides the vector.
        self._meta = np.zeros((0, META_COLUMNS), dtype=np.float64)
        self._row_of = _RowMap()
        self._scale = np.ones(0, dtype=np.float32)  # per row, for int8 rows only
        self._size = 0
        self._adjacent: tuple[np.ndarray, np.ndarray] | None = None  # see _adjacent_rows
        self._shifted: tuple[np.ndarray, ...] | None = None  # see _neighbour_layout
        self.version = 0  # changes with every write, for whatever is worked out from the rows
        self._basis: np.ndarray | None = None  # dim x SKETCH_DIMS, orthonormal columns
        self._centre = np.zeros(dim, dtype=np.float32)
        # One column per row (SKETCH_DIMS x capacity): a query then streams SKETCH_DIMS long rows,
        # ~30 % faster than the row-per-fact layout's matrix-vector product (measured at 100k).
        self._sketch = np.zeros((SKETCH_DIMS, 0), dtype=np.float32)
        self._fitted_at = 0
        self.error = 0.0  # largest distance of a stored row from its float32 vector (0: stored exactly)
        # Mean squared distance of rows from the sketch's subspace: at the fit, and over rows added since.
        self._fit_residual = 0.0
        self._drift = [0.0, 0]

    def __len__(self) -> int:
        return self._size

    def __contains__(self, fact_id: int) -> bool:
        return self._row_of.get(fact_id) is not None

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: self._size]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self._size]

    @property
    def meta(self) -> np.ndarray:
        return self._meta[: self._size]

    def fill(self, total: int, chunks: Iterable[tuple[list[int], bytes, list[tuple]]]) -> None:
        """Load many rows at once: (ids, their vectors' bytes joined, meta rows) per chunk.

        The matrix is allocated once with room to grow and filled chunk by chunk,
        so opening a large memory neither loops per row nor holds two copies.
        """
        if self._size == 0 and storage_dtype(total, self.dim) != self._matrix.dtype:
            self._matrix = np.zeros((0, self.dim), dtype=storage_dtype(total, self.dim))
        self._changed()
        with _small_pages():  # as for the cache: advised pages cost seconds to fault in at 1M
            self._reserve(total + max(256, total // 8))
            for ids, blob, meta in chunks:
                n = len(ids)
                if self._size + n > len(self._matrix):
                    self._reserve(n)
                rows = slice(self._size, self._size + n)
                self._store_rows(rows, np.frombuffer(blob, dtype=np.float32).reshape(n, self.dim))
                self._ids[rows] = ids
                self._meta[rows] = _meta_rows(meta, n)
                self._row_of.set_many(np.asarray(ids, np.int64), np.arange(self._size, self._size + n),
                                      self._size + n)
                self._size += n
            self._refit_if_grown()

    def rows_or_missing(self, fact_ids: np.ndarray) -> np.ndarray:
        """The index row of each id, -1 for ids not indexed."""
        return self._row_of.rows(fact_ids)

    def rows_of(self, fact_ids: list[int]) -> list[int]:
        """Index rows of those ids that are indexed (active, with a current vector)."""
        return [r for r in map(self._row_of.get, fact_ids) if r is not None]

    def _reserve(self, extra: int) -> None:
        needed = self._size + extra
        if needed <= len(self._matrix):
            return
        capacity = max(needed, 2 * len(self._matrix), 256)
        matrix = np.zeros((capacity, self.dim), dtype=self._matrix.dtype)
        ids = np.zeros(capacity, dtype=np.int64)
        meta = np.zeros((capacity, META_COLUMNS), dtype=np.float64)
        if self._matrix.dtype == np.int8:
            scale = np.ones(capacity, dtype=np.float32)
            scale[: self._size] = self._scale[: self._size]
            self._scale = scale
        matrix[: self._size] = self._matrix[: self._size]
        ids[: self._size] = self._ids[: self._size]
        meta[: self._size] = self._meta[: self._size]
        self._matrix, self._ids, self._meta = matrix, ids, meta
        if self._basis is not None:
            sketch = np.zeros((SKETCH_DIMS, capacity), dtype=np.float32)
            sketch[:, : self._size] = self._sketch[:, : self._size]
            self._sketch = sketch

    def _refit_if_grown(self) -> None:
        """(Re)estimate the principal directions when the index first gets large, each time it doubles,
        and when the rows added since the last fit lie clearly off its subspace (new topics)."""
        if self._size < SKETCH_MIN_ROWS or self.dim <= SKETCH_DIMS:
            return
        added, count = self._drift
        drifted = count >= DRIFT_ROWS and added / count > 2 * self._fit_residual
        if self._size < 2 * self._fitted_at and not drifted:
            return
        sample = self._rows_float32(np.arange(0, self._size, max(1, self._size // FIT_SAMPLE)))
        centre = sample.mean(axis=0, dtype=np.float64)
        sample = sample - centre.astype(np.float32)
        # The product in float32 (half the time of float64; the directions come out the same to 1e-5).
        values, vectors = np.linalg.eigh((sample.T @ sample).astype(np.float64))  # eigenvalues ascending
        self._fit_residual = float(values[: self.dim - SKETCH_DIMS].sum() / len(sample))
        self._drift = [0.0, 0]
        self._basis = np.ascontiguousarray(vectors[:, ::-1][:, :SKETCH_DIMS], dtype=np.float32)
        self._centre = centre.astype(np.float32)
        self._sketch = np.zeros((SKETCH_DIMS, len(self._matrix)), dtype=np.float32)
        for start in range(0, self._size, _CHUNK):
            stop = min(self._size, start + _CHUNK)
            self._sketch[:, start:stop] = self._project(self._dense(start, stop)).T
        self._fitted_at = self._size

    def _store_rows(self, rows: slice | np.ndarray, vectors: np.ndarray) -> None:
        if self._matrix.dtype == np.int8:
            self._matrix[rows], self._scale[rows], error = _int8(vectors)
            self.error = max(self.error, error)  # measured: a row's rounding error depends on its values
            return
        self._matrix[rows] = vectors
        if self._matrix.dtype == np.float16 and len(vectors):
            # Rounding to float16 moves each component by at most 2^-11 of itself (2^-25 when
            # subnormal), so a unit row by at most 2^-11 + 384·2^-25; no need to measure it.
            self.error = HALF_ERROR

    def _project(self, vectors: np.ndarray) -> np.ndarray:
        # (x - c)·B as x·B - c·B: the subtraction on 64 columns instead of 384.
        return np.asarray(vectors, dtype=np.float32) @ self._basis - self._centre @ self._basis

    def add(self, fact_ids: list[int], vectors: np.ndarray, meta: np.ndarray | None = None) -> None:
        """Add or replace rows: one unit-length vector and (last, confidence, rate[, batch]) meta row per id."""
        if len(fact_ids) == 0:
            return
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(fact_ids), self.dim)
        meta = _meta_rows(meta, len(fact_ids))
        self._changed()
        if np.isnan(meta[:, :3]).any():
            meta[:, :3] = np.nan_to_num(meta[:, :3])
        self._reserve(len(fact_ids))
        rows = np.empty(len(fact_ids), dtype=np.int64)
        for k, fact_id in enumerate(fact_ids):
            row = self._row_of.get(fact_id)
            if row is None:
                row = self._size
                self._row_of.set(fact_id, row, self._size + 1)
                self._ids[row] = fact_id
                self._size += 1
            rows[k] = row
        self._store_rows(rows, vectors)
        self._meta[rows] = meta
        if self._basis is not None:
            projected = self._project(vectors)
            self._sketch[:, rows] = projected.T
            offset = vectors - self._centre
            self._drift[0] += float((offset * offset).sum() - (projected * projected).sum())
            self._drift[1] += len(vectors)
        self._refit_if_grown()

    def remove(self, fact_ids: list[int]) -> None:
        self._changed()
        for fact_id in fact_ids:
            row = self._row_of.pop(fact_id)
            if row is None:
                continue
            last = self._size - 1
            if row != last:
                moved = int(self._ids[last])
                self._matrix[row] = self._matrix[last]
                self._meta[row] = self._meta[last]
                if self._matrix.dtype == np.int8:
                    self._scale[row] = self._scale[last]
                self._ids[row] = moved
                self._row_of.set(moved, row, self._size)
                if self._basis is not None:
                    self._sketch[:, row] = self._sketch[:, last]
            self._size = last

    def set_ranking(self, fact_ids: list[int], ranking: np.ndarray) -> None:
        """New (last_reinforced, confidence) of indexed facts whose vectors did not change (reinforcements)."""
        rows = self.rows_or_missing(np.asarray(fact_ids, dtype=np.int64))
        if (rows < 0).any():
            raise KeyError("set_ranking is for indexed facts only")
        self._meta[rows, :2] = np.asarray(ranking, dtype=np.float64).reshape(len(rows), 2)
        self._changed()

    def _changed(self) -> None:
        self._adjacent = None
        self._shifted = None
        self.version += 1

    def neighbours(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the facts absorbed just before and just after each row's fact, in the same batch (-1: none)."""
        before, after = self._adjacent_rows()
        return before[rows], after[rows]

    def _adjacent_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every row's batch neighbours, worked out once per state of the index (every write clears them).

        Facts of one batch get consecutive ids, so neighbours are facts whose ids
        differ by one and whose batch column is equal (NaN, no batch, equals nothing).
        """
        if self._adjacent is None:
            n = self._size
            order = np.argsort(self._ids[:n], kind="stable")  # nearly sorted already: rows load in id order
            ids, batch = self._ids[order], self._meta[order, 3]
            follows = (ids[1:] == ids[:-1] + 1) & (batch[1:] == batch[:-1])
            earlier, later = order[:-1][follows], order[1:][follows]
            before, after = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
            before[later], after[earlier] = earlier, later
            self._adjacent = (before, after)
        return self._adjacent

    def vector(self, fact_id: int) -> np.ndarray | None:
        row = self._row_of.get(fact_id)
        return None if row is None else self._rows_float32(np.array([row]))[0]

    def cosine(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every indexed fact with a unit-length query, aligned with ``ids``."""
        query = np.asarray(query, dtype=np.float32)
        if self._matrix.dtype == np.float32:
            return self.matrix @ query
        found = np.empty(self._size, dtype=np.float32)
        for start in range(0, self._size, _CHUNK):  # float16 and int8 have no BLAS: widen a chunk at a time
            stop = min(self._size, start + _CHUNK)
            found[start:stop] = self._dense(start, stop) @ query
        return found

    def _dense(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as float32 (dequantised when stored as int8)."""
        rows = self._matrix[start:stop]
        if rows.dtype == np.int8:
            return rows.astype(np.float32) * self._scale[start:stop, None]
        return _float32(rows)

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        """The rows at these positions as float32 vectors (dequantised when stored as int8)."""
        return self._rows_float32(np.asarray(rows, dtype=np.int64))

    def _rows_float32(self, rows: np.ndarray) -> np.ndarray:
        # np.take copies the rows 2-3x faster than fancy indexing (measured at 2,000 rows of 384).
        taken = np.take(self._matrix, rows, axis=0)
        if taken.dtype == np.int8:
            return taken.astype(np.float32) * np.take(self._scale, rows)[..., None]
        return _float32(taken)

    def cosine_rows(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Exact cosines of some rows (from ``rows_of`` or ``top_cosines``); int8 rows within ``error``."""
        query = np.asarray(query, dtype=np.float32)
        if len(rows) > _ROWS_AT_ONCE:
            found = np.empty(len(rows), dtype=np.float32)
            for start in range(0, len(rows), _ROWS_AT_ONCE):
                found[start:start + _ROWS_AT_ONCE] = self.cosine_rows(rows[start:start + _ROWS_AT_ONCE], query)
            return found
        if self._matrix.dtype == np.int8:  # scale after the product: one pass over the rows fewer
            return (np.take(self._matrix, rows, axis=0).astype(np.float32) @ query) * np.take(self._scale, rows)
        return self._rows_float32(rows) @ query

    def _shortlist(self, count: int) -> int | None:
        """How many sketch estimates to re-score for ``count`` rows; None when a full product is cheaper."""
        wanted = max(count * OVERSAMPLE, self._size // SHORTLIST_FLOOR_SHARE,
                     self._size // SHORTLIST_SHARE * self._size // SHORTLIST_SHARE_AT)
        return wanted if self._basis is not None and 4 * wanted <= self._size else None

    def top_cosines(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, exact cosines) of the ``count`` rows nearest to a unit-length query, in no order."""
        query = np.asarray(query, dtype=np.float32)
        n, count = self._size, min(count, self._size)
        if count <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        shortlist = self._shortlist(count)
        if shortlist is None:
            scores = self.cosine(query)
            rows = np.argpartition(scores, n - count)[n - count:]
            return rows, scores[rows]
        rows, exact = self.shortlist_cosines(query, count, self.estimated_cosines(query))
        keep = np.argpartition(exact, len(rows) - count)[len(rows) - count:]
        return rows[keep], exact[keep]

    def shortlist_cosines(self, query: np.ndarray, count: int,
                          estimates: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, exact cosines) of the rows ``top_cosines`` would re-score to find the ``count`` nearest
        (``OVERSAMPLE`` times as many, best by ``estimates``, or every row when that many is most of
        them); None when there is no sketch, so the estimates are exact already."""
        if self._basis is None:
            return None
        shortlist = self._shortlist(min(count, self._size))
        if shortlist is None:
            return np.arange(self._size), self.cosine(query)
        rows = _largest(estimates, shortlist)
        return rows, self.cosine_rows(rows, query)

    def estimated_cosines(self, query: np.ndarray) -> np.ndarray:
        """Every row's cosine with a unit-length query: from the sketch when there is one, else exact.

        With a sketch, an estimate is the cosine within the top ``SKETCH_DIMS``
        principal directions; whoever ranks by it re-scores its choice exactly.
        """
        query = np.asarray(query, dtype=np.float32)
        if self._basis is None:
            return self.cosine(query)
        # (x - c)·B·(q·B) + c·q: the centre's part is the same for every row, so it cannot change an order,
        # but adding it keeps estimates on the cosine scale that scores mix with BM25.
        found = (query @ self._basis) @ self._sketch[:, : self._size]
        found += np.float32(self._centre @ query)  # in place: a second array of every row costs ~1 ms at 1M
        return found

    def largest(self, values: np.ndarray, count: int) -> np.ndarray:
        """Rows of the ``count`` largest of one value per row (all rows if there are fewer), in no order."""
        if count >= len(values):
            return np.arange(len(values))
        return _largest(values, count)

    def _neighbour_layout(self) -> tuple[np.ndarray, ...]:
        """Rows load in id order, so a row's neighbours are nearly always the rows beside it: (is the row
        before this one its neighbour, is the row after it, and the few rows whose neighbours are
        elsewhere (after removals moved rows) with those neighbours)."""
        if self._shifted is None:
            before, after = self._adjacent_rows()
            n = self._size
            rows = np.arange(n)
            prev, nxt = before == rows - 1, after == rows + 1
            odd_b = np.flatnonzero((before >= 0) & ~prev)
            odd_a = np.flatnonzero((after >= 0) & ~nxt)
            self._shifted = (prev[1:].astype(np.float32), nxt[:-1].astype(np.float32),
                             odd_b, before[odd_b], odd_a, after[odd_a])
        return self._shifted

    def neighbour_maximum(self, values: np.ndarray) -> np.ndarray:
        """Per row, the larger of its two batch neighbours' values (0 without a neighbour); values are
        scores, never negative.

        Shifted copies instead of two gathers over every row: at 1M rows 1.8 ms of CPU instead of 6.3.
        """
        n = len(values)
        found = np.zeros(n, dtype=values.dtype)
        if n < 2:
            return found
        prev, nxt, odd_b, at_b, odd_a, at_a = self._neighbour_layout()
        np.multiply(values[:-1], prev, out=found[1:], casting="unsafe")
        np.maximum(found[:-1], values[1:] * nxt, out=found[:-1], casting="unsafe")
        if len(odd_b):
            found[odd_b] = np.maximum(found[odd_b], values[at_b])
        if len(odd_a):
            found[odd_a] = np.maximum(found[odd_a], values[at_a])
        return found

    def nearest_many(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """``nearest`` for a batch of queries, best first, with exact cosines (what makes batch absorb cheap).

        Up to ``EXACT_BATCH_ROWS`` rows every cosine is computed (one matrix product),
        so the classifier sees the true nearest facts; above, the sketch picks 200
        rows per query to re-score exactly (99.96 % of the true top 5 at 10k).
        """
        if self._size == 0 or k <= 0 or len(queries) == 0:
            return [[] for _ in range(len(queries))]
        queries = np.asarray(queries, dtype=np.float32)
        k = min(k, self._size)
        if self._basis is None or self._size <= EXACT_BATCH_ROWS:
            cols, sims = top_per_row(queries @ self._dense(0, self._size).T, k)
        else:
            estimate = (queries @ self._basis) @ self._sketch[:, : self._size]
            near, _ = top_per_row(estimate, min(self._size, OVERSAMPLE * max(k, 20)))
            rows = self._rows_float32(near)
            scores = np.einsum("qkd,qd->qk", rows, queries)
            best, sims = top_per_row(scores, k)
            cols = np.take_along_axis(near, best, axis=1)
        return [[(int(self._ids[c]), float(v)) for c, v in zip(row_cols, row_sims)]
                for row_cols, row_sims in zip(cols, sims)]

    # -- saved and restored (engine/search/index_file.py) ------------------------------------------
    def saved_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """(scalars, arrays) from which ``restored`` makes an equal index: views of the live arrays,
        not copies, so the caller must hold the store's lock while reading them."""
        n = self._size
        scalars = {"rows": n, "dim": self.dim, "dtype": self._matrix.dtype.str, "error": self.error,
                   "fitted_at": self._fitted_at, "fit_residual": self._fit_residual, "drift": list(self._drift),
                   "sketch": self._basis is not None, "sketch_dims": SKETCH_DIMS, "meta_columns": META_COLUMNS}
        arrays = {"ids": self._ids[:n], "meta": self._meta[:n], "matrix": self._matrix[:n]}
        if self._matrix.dtype == np.int8:
            arrays["scale"] = self._scale[:n]
        if self._basis is not None:
            arrays.update(basis=self._basis, centre=self._centre, sketch=self._sketch[:, :n])
        return scalars, arrays

    @classmethod
    def restored(cls, scalars: dict[str, Any], fill: Callable[[str, np.ndarray], None]) -> "VectorIndex":
        """The index ``saved_state`` described: ``fill(name, out)`` writes that saved array into ``out``
        (allocated here with the headroom a load from SQLite leaves, so the first writes do not
        double the arrays). Raises ValueError on scalars this code did not write."""
        n, dim = int(scalars["rows"]), int(scalars["dim"])
        dtype = np.dtype(scalars["dtype"])
        if (n < 0 or dim <= 0 or dtype not in (np.float32, np.float16, np.int8)
                or scalars["sketch_dims"] != SKETCH_DIMS or scalars["meta_columns"] != META_COLUMNS):
            raise ValueError("saved index of another layout")
        index = cls(dim)
        capacity = n + max(256, n // 8)
        with _small_pages():
            index._matrix = np.zeros((capacity, dim), dtype=dtype)
            index._ids = np.zeros(capacity, dtype=np.int64)
            index._meta = np.zeros((capacity, META_COLUMNS), dtype=np.float64)
            index._scale = np.ones(capacity if dtype == np.int8 else 0, dtype=np.float32)
            index._sketch = np.zeros((SKETCH_DIMS, capacity if scalars["sketch"] else 0), dtype=np.float32)
        fill("ids", index._ids[:n])
        fill("meta", index._meta[:n])
        fill("matrix", index._matrix[:n])
        if dtype == np.int8:
            fill("scale", index._scale[:n])
        if scalars["sketch"]:
            index._basis = np.zeros((dim, SKETCH_DIMS), dtype=np.float32)
            fill("basis", index._basis)
            fill("centre", index._centre)
            fill("sketch", index._sketch[:, :n])
        index._size = n
        index._row_of.set_many(index._ids[:n], np.arange(n), n)
        index.error = float(scalars["error"])
        index._fitted_at = int(scalars["fitted_at"])
        index._fit_residual = float(scalars["fit_residual"])
        index._drift = [float(scalars["drift"][0]), int(scalars["drift"][1])]
        return index


@contextlib.contextmanager
def _small_pages() -> Iterator[None]:
    """Arrays allocated inside get no transparent-huge-page advice from numpy: on this VM faulting in
    665 MB of advised pages cost 2.1-2.6 s of CPU (the kernel compacts memory for each 2 MB page)
    against 0.33 s with 4 KB pages, while a sketch scan ran 21.1 vs 22.2 ms: within noise."""
    toggle = getattr(getattr(np, "_core", None), "multiarray", None)
    toggle = getattr(toggle, "_set_madvise_hugepage", None)
    before = toggle(False) if toggle is not None else None
    try:
        yield
    finally:
        if toggle is not None:
            toggle(before)


def storage_dtype(total: int, dim: int) -> np.dtype:
    """How ``fill`` stores rows when opening with ``total`` of them (a saved index must match it)."""
    if total >= HALF_ROWS and dim > SKETCH_DIMS:
        return np.dtype(np.int8 if total >= INT8_ROWS else np.float16)
    return np.dtype(np.float32)


def top_per_row(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(columns, values) of each row's ``k`` largest values, best first (equal values: lower column first).

    Exact, but faster than argpartition over whole rows: each row's k-th largest
    of every 16th value is a threshold that at least k values reach, and only
    the values at or above it (~16·k per row) are sorted.
    """
    rows, n = scores.shape
    if n < 64 * k:
        cols = np.argpartition(scores, n - k, axis=1)[:, n - k:]
    else:
        sample = scores[:, ::16]
        floor = np.partition(sample, sample.shape[1] - k, axis=1)[:, sample.shape[1] - k]
        row, col = np.divmod(np.flatnonzero(scores >= floor[:, None]), n)  # 10x faster than 2-d nonzero
        order = np.lexsort((col, -scores[row, col], row))
        row, col = row[order], col[order]
        starts = np.searchsorted(row, np.arange(rows))
        cols = col[starts[:, None] + np.arange(k)]
    values = np.take_along_axis(scores, cols, axis=1)
    order = np.lexsort((cols, -values), axis=1) if rows else cols
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(values, order, axis=1)
