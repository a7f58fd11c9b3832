"""An in-memory BM25 index of every fact's text, derived from the file: FTS5's ``bm25()`` without SQLite.

Search spent most of its time in FTS5 (~2 µs per matched row on ``bm25()``,
and one ``count(*)`` per new query word for the match budget). This index
gives the same numbers from numpy arrays:

- **Same tokens.** Texts are split on whitespace (always a separator for
  ``unicode61``, so a chunk's tokens never depend on its neighbours) and each
  distinct chunk is tokenized by SQLite's own FTS5 tokenizer with the file's
  ``tokenize=`` option (``engine.store.fts_tokens``). Query words and phrases
  go through the same path, as FTS5 tokenizes a quoted string.
- **Same documents.** ``facts_fts`` indexes every fact ever written (its
  trigger fires on insert; facts are never deleted and their text never
  changes), so this index holds every fact too, append-only, and N, the
  average length and document frequencies count them all, as FTS5's do. Search
  keeps only the active matches afterwards, as it did with FTS5's rows.
- **Same formula.** FTS5's ``fts5Bm25Function`` (k1 = 1.2, b = 0.75, column
  weight 1): per query phrase ``idf = log((N − n + 0.5) / (n + 0.5))`` (1e-6
  when not positive), summed over the phrases in query order as
  ``idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))``, in float64 in the same
  order of operations, so the values are the same bits. Ties are ordered by
  fact id, as FTS5's ``ORDER BY rank`` returns them.

Layout: every token has a global position (documents laid end to end with one
empty position between them, so no phrase spans two facts); each *segment* is
a CSR array of positions grouped by term over a range of positions. New facts
form a new segment; segments merge when the newest is at least half the size
of the one before (O(log n) segments, amortised O(log n) work per token).
A phrase is found by shifting positions (``p`` of its first token with ``p+1``
of its second ...), which also counts its occurrences per fact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import chain
from typing import Callable, Iterable, Sequence

import numpy as np

K1 = 1.2
B = 0.75
# Distinct whitespace chunks whose tokens are remembered (then forgotten all at once): bounds memory on
# a store of very varied text while the usual words of new facts and queries skip the tokenizer.
CHUNK_CACHE = 100_000
# Phrases whose matches are remembered for the current content (cleared when facts are added).
PHRASE_CACHE = 4096
TOKENIZE_BATCH = 4096
# Positions past which segments are not merged (~35k facts of 30 words): bounds a merge's transient
# memory (~30 bytes a position) at the cost of one more slice per term per query for each such segment.
MAX_SEGMENT = 1 << 20

Tokenize = Callable[[Sequence[str]], list[list[str]]]
_EMPTY = np.zeros(0, np.int64)


class _Grow:
    """A numpy array appended to in place (capacity doubles), read through ``view``."""

    def __init__(self, dtype: type) -> None:
        self._data = np.zeros(16, dtype)
        self.size = 0

    def extend(self, values: np.ndarray) -> None:
        end = self.size + len(values)
        if end > len(self._data):
            grown = np.zeros(max(end, 2 * len(self._data)), self._data.dtype)
            grown[:self.size] = self._data[:self.size]
            self._data = grown
        self._data[self.size:end] = values
        self.size = end

    @property
    def view(self) -> np.ndarray:
        return self._data[:self.size]

    @property
    def nbytes(self) -> int:
        return self._data.nbytes


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array (``np.unique`` hashes: 10x slower here)."""
    if not len(values):
        return values
    keep = np.empty(len(values), bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


@dataclass
class _Segment:
    """Positions ``[start, end)``: ``post[off[t]:off[t+1]]`` are term ``t``'s positions, ascending, in
    ``df[t]`` facts (whole facts only: a fact never spans two segments)."""
    start: int
    end: int
    post: np.ndarray
    off: np.ndarray
    df: np.ndarray

    @classmethod
    def build(cls, start: int, stream: np.ndarray, df: np.ndarray) -> "_Segment":
        """From ``stream``, the term id at each position from ``start`` (-1 between documents), and
        ``df``, the facts each term is in."""
        at = np.flatnonzero(stream >= 0)
        ids = stream[at]
        terms = int(ids.max()) + 1 if len(ids) else 0
        off = np.zeros(terms + 1, np.int64)
        np.cumsum(np.bincount(ids, minlength=terms), out=off[1:])
        # Grouped by term, positions ascending within each: one sort of (term, position) keys.
        keys = np.sort((ids.astype(np.int64) << 32) | at)
        post = ((keys & 0xFFFFFFFF) + start).astype(np.int32)
        return cls(start, start + len(stream), post, off, df[:terms].astype(np.int32))

    def merged(self, newer: "_Segment") -> "_Segment":
        """One segment for both (adjacent) position ranges; their facts are distinct, so counts add."""
        df = np.zeros(max(len(self.df), len(newer.df)), np.int32)
        df[:len(self.df)] += self.df
        df[:len(newer.df)] += newer.df
        return _Segment.build(self.start, np.concatenate([self.stream(), newer.stream()]), df)

    def stream(self) -> np.ndarray:
        found = np.full(self.end - self.start, -1, np.int32)
        found[self.post - self.start] = np.repeat(np.arange(len(self.off) - 1, dtype=np.int32), np.diff(self.off))
        return found

    def positions(self, term: int) -> np.ndarray:
        if term + 1 >= len(self.off):
            return self.post[:0]
        return self.post[self.off[term]:self.off[term + 1]]

    def frequency(self, term: int) -> int:
        return int(self.df[term]) if term < len(self.df) else 0

    @property
    def nbytes(self) -> int:
        return self.post.nbytes + self.off.nbytes + self.df.nbytes


@dataclass
class Matches:
    """Facts matching a query, best first: fact ids and FTS5's bm25() negated (higher is better)."""
    fact_ids: np.ndarray
    scores: np.ndarray


class TextIndex:
    """Every fact's FTS5 tokens, in memory; ``add`` appends facts, ``ranked`` and ``frequency`` answer queries."""

    def __init__(self, tokenize: Tokenize) -> None:
        self._tokenize = tokenize
        self.terms: dict[str, int] = {}
        self._chunks: dict[str, tuple[str, ...]] = {}
        self._segments: list[_Segment] = []
        self._fact_ids = _Grow(np.int64)
        self._doc_start = _Grow(np.int64)
        self._doc_len = _Grow(np.int32)
        self.tokens = 0  # FTS5's total size: tokens in every fact
        self.end = 0  # the next free position
        self.mark = 0  # the largest fact id indexed
        self.version = 0
        self._phrases: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._counts: dict[str, int] = {}  # phrase -> facts, for the current content
        self._sorted_ids: np.ndarray | None = None

    # -- content -----------------------------------------------------------------------------
    @property
    def documents(self) -> int:
        return self._fact_ids.size

    @property
    def fact_ids(self) -> np.ndarray:
        return self._fact_ids.view

    def has(self, fact_ids: Iterable[int]) -> np.ndarray:
        """Which of ``fact_ids`` are indexed (a bool per id)."""
        ids = np.fromiter(fact_ids, np.int64)
        if self._sorted_ids is None:
            self._sorted_ids = np.sort(self.fact_ids)
        at = np.searchsorted(self._sorted_ids, ids)
        return (at < len(self._sorted_ids)) & (self._sorted_ids[np.minimum(at, len(self._sorted_ids) - 1)] == ids)

    def chunk_tokens(self, chunks: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each whitespace-free chunk's FTS5 tokens (from the cache, the rest from the tokenizer)."""
        wanted = list(dict.fromkeys(chunks))
        missing = [c for c in wanted if c not in self._chunks]
        if len(self._chunks) + len(missing) > CHUNK_CACHE:
            self._chunks = {}
            missing = wanted
        for start in range(0, len(missing), TOKENIZE_BATCH):
            batch = missing[start:start + TOKENIZE_BATCH]
            for chunk, tokens in zip(batch, self._tokenize(batch)):
                self._chunks[chunk] = tuple(tokens)
                # unicode61 folds ASCII case before porter stems, so "Ravi" and the query word "ravi" have
                # the same tokens: a lowercase query word seen capitalised in a fact needs no tokenizer call.
                if chunk.isascii() and chunk.isalnum() and not chunk.islower():
                    self._chunks.setdefault(chunk.lower(), self._chunks[chunk])
        return {c: self._chunks[c] for c in wanted}

    def add(self, fact_ids: Sequence[int], texts: Sequence[str]) -> None:
        """Append facts (not already indexed) with their texts, in the given order."""
        if not fact_ids:
            return
        pieces = [text.split() for text in texts]
        flat = list(chain.from_iterable(pieces))
        known = self.chunk_tokens(flat)
        term_of = self.terms
        # Each distinct chunk's term ids, laid end to end: chunk k's are table[first[k]:first[k] + size[k]].
        chunk_no = dict(zip(known, range(len(known))))
        table: list[int] = []
        first, size = [], []
        for tokens in known.values():
            first.append(len(table))
            size.append(len(tokens))
            for token in tokens:
                term = term_of.get(token)
                if term is None:
                    term = term_of[token] = len(term_of)
                table.append(term)
        chunks = np.fromiter(map(chunk_no.__getitem__, flat), np.int64, len(flat))
        sizes = np.asarray(size, np.int64)[chunks]
        # Tokens in order: chunk i's j-th token is table[first[chunk i] + j].
        begin = np.cumsum(sizes) - sizes
        within = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(begin, sizes)
        tokens = np.asarray(table, np.int32)[np.repeat(np.asarray(first, np.int64)[chunks], sizes) + within] \
            if len(table) else np.zeros(0, np.int32)
        # Tokens per fact, then the fact's first position: one empty position follows each fact.
        per_fact = np.fromiter(map(len, pieces), np.int64, len(pieces))
        owner = np.repeat(np.arange(len(pieces)), per_fact)
        lengths = np.bincount(owner, weights=sizes, minlength=len(pieces)).astype(np.int64)
        starts = self.end + np.cumsum(lengths + 1) - (lengths + 1)
        stream = np.full(int((lengths + 1).sum()), -1, np.int32)
        stream[np.arange(len(tokens)) + np.repeat(np.arange(len(pieces)), lengths)] = tokens
        self._fact_ids.extend(np.asarray(fact_ids, np.int64))
        self._doc_start.extend(starts)
        self._doc_len.extend(lengths.astype(np.int32))
        self.tokens += int(lengths.sum())
        # Facts per term among the new ones: distinct (term, fact) pairs.
        pairs = _distinct_sorted(np.sort((tokens.astype(np.int64) << 32) | np.repeat(np.arange(len(pieces)), lengths)))
        df = np.bincount(pairs >> 32, minlength=len(term_of)) if len(pairs) else np.zeros(0, np.int64)
        self._segments.append(_Segment.build(self.end, stream, df))
        self.end += len(stream)
        self.mark = max(self.mark, int(max(fact_ids)))
        self._sorted_ids = None
        self._merge()
        self.version += 1
        self._phrases, self._counts = {}, {}

    def _merge(self) -> None:
        segments = self._segments
        while len(segments) >= 2:
            newer, older = segments[-1].end - segments[-1].start, segments[-2].end - segments[-2].start
            if 2 * newer < older or newer + older > MAX_SEGMENT:
                break
            newer = segments.pop()
            segments.append(segments.pop().merged(newer))

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (not the term dictionary or the chunk cache)."""
        return (sum(s.nbytes for s in self._segments) + self._fact_ids.nbytes + self._doc_start.nbytes
                + self._doc_len.nbytes)

    # -- queries -------------------------------------------------------------------------------
    def phrase_terms(self, phrase: str) -> tuple[int, ...] | None:
        """Term ids of ``phrase`` as FTS5 tokenizes a quoted string; None if a token is in no fact."""
        chunks = phrase.split()
        known = self.chunk_tokens(chunks)
        tokens = [t for chunk in chunks for t in known[chunk]]
        ids = tuple(self.terms.get(t, -1) for t in tokens)
        return None if not ids or -1 in ids else ids

    def _positions(self, term: int) -> np.ndarray:
        found = [s.positions(term) for s in self._segments]
        return found[0] if len(found) == 1 else np.concatenate(found)

    def phrase_matches(self, phrase: str) -> tuple[np.ndarray, np.ndarray]:
        """(document rows, occurrences in each) of ``phrase``, rows ascending."""
        terms = self.phrase_terms(phrase)
        if terms is None:
            return _EMPTY, _EMPTY
        cached = self._phrases.get(terms)
        if cached is not None:
            return cached
        at = self._positions(terms[0])
        for shift, term in enumerate(terms[1:], 1):
            if not len(at):
                break
            following = self._positions(term)
            k = np.searchsorted(following, at + shift)
            hit = k < len(following)
            hit[hit] = following[k[hit]] == at[hit] + shift
            at = at[hit]
        docs = np.searchsorted(self._doc_start.view, at, side="right") - 1  # ascending, as positions are
        rows = _distinct_sorted(docs)
        counts = np.diff(np.append(np.searchsorted(docs, rows), len(docs)))
        if len(self._phrases) >= PHRASE_CACHE:
            self._phrases = {}
        self._phrases[terms] = (rows, counts)
        return rows, counts

    def frequency(self, phrase: str) -> int:
        """Facts containing ``phrase``: FTS5's document count for the quoted string."""
        found = self._counts.get(phrase)
        if found is None:
            terms = self.phrase_terms(phrase)
            if terms is not None and len(terms) == 1:
                found = sum(s.frequency(terms[0]) for s in self._segments)
            else:
                found = len(self.phrase_matches(phrase)[0])
            if len(self._counts) >= PHRASE_CACHE:
                self._counts = {}
            self._counts[phrase] = found
        return found

    def ranked(self, phrases: Sequence[str], limit: int | None = None) -> Matches:
        """Facts matching any of ``phrases`` (an FTS5 ``"a" OR "b c"``) with bm25() negated, best first,
        ties by fact id, the first ``limit``."""
        if not phrases or not self.documents:
            return Matches(_EMPTY, np.zeros(0))
        rows_of = [self.phrase_matches(p) for p in phrases]
        found = _distinct_sorted(np.sort(np.concatenate([rows for rows, _ in rows_of])))
        if not len(found):
            return Matches(_EMPTY, np.zeros(0))
        total = self.documents
        avgdl = float(self.tokens) / float(total)
        doc_len = self._doc_len.view
        score = np.zeros(len(found))
        for rows, counts in rows_of:
            hits = len(rows)
            idf = math.log((total - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            if not hits:
                continue
            freq = counts.astype(np.float64)
            length = doc_len[rows].astype(np.float64)
            score[np.searchsorted(found, rows)] += idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * length / avgdl)))
        ids = self.fact_ids[found]
        order = np.lexsort((ids, -score))
        if limit is not None:
            order = order[:limit]
        return Matches(ids[order], score[order])
