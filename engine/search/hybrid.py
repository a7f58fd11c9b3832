"""Hybrid search (DESIGN §4): ``(w_cos·cosine + w_bm25·bm25_norm) × freshness``, plus context.

The base score is also multiplied by who speaks in a fact (engine/search/voice.py) and by whether it
carries the kind of answer a question asks for (engine/search/question_kind.py), each 1 when it does
not apply.

``bm25_norm`` is per query: ``(bm25 / best match's bm25) ** bm25_power`` (``bm25_parts``).

Without filters (or with only a confidence floor), every active fact is
scored roughly, its cosine estimated from the index's sketch (exact for a
shortlist of the nearest estimates), and the ``candidate_pool`` best and
every text match are scored exactly (``Searcher._active``); the text matches
and their BM25 come from the in-memory ``TextIndex`` (the same numbers as
FTS5's ``bm25()``), or from FTS5 when no text index is given. With filters,
candidates are the nearest facts and best FTS5 matches among the facts that
pass them, so a narrow filter never starves the result list. Each hit carries
its parts so a person can see why it ranked. The context part
(``context_weight`` × the best batch neighbour's score, see ``search_context``)
is 0 in the seed's formula, ``context_weight = 0``.
"""

from __future__ import annotations

import sqlite3
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from engine.clock import format_time
from engine.config import MemorySettings
from engine.store.decay import age_days, decay_rate, effective_confidence, freshness
from engine.vocabulary import ENTITY_TYPES, KINDS, MAX_TAGS_PER_FILTER, SCOPES, STATUSES
from engine.errors import InvalidInput
from engine.search.fts import RAREST_STRETCH, TermCounts, match_expression, match_parts
from engine.store import fts_rows
from engine.store.facts_read import ids_where
from engine.store.records import Fact, fact_columns, load_facts, vector_columns
from engine.search.context import context_gains, context_of, lookup
from engine.search.text_index import TextIndex
from engine.search.vectors import VectorIndex
from engine.search.question_kind import answer_kind_factors
from engine.search.voice import asks_about_self, voice_factors


@dataclass
class SearchFilters:
    scope: str | None = None
    kind: str | None = None
    statuses: tuple[str, ...] = ("active",)
    tags: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    min_confidence: float | None = None
    entity: str | None = None  # only facts mentioning this entity: its graph key, "type:normalised name"

    def __post_init__(self) -> None:
        """Every face builds its filters here, so every face refuses the same things the same way."""
        self.statuses = tuple(dict.fromkeys(self.statuses))
        bad = [s for s in self.statuses if s not in STATUSES]
        if bad or not self.statuses:
            raise InvalidInput(f"status must be among {', '.join(STATUSES)}")
        if self.scope is not None and self.scope not in SCOPES:
            raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}")
        if self.kind is not None and self.kind not in KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(KINDS)}")
        if len(self.tags) > MAX_TAGS_PER_FILTER:
            raise InvalidInput(f"at most {MAX_TAGS_PER_FILTER} tags in a filter")
        if not all(isinstance(tag, str) and 0 < len(tag) <= 200 for tag in self.tags):
            raise InvalidInput("each tag in a filter must be a string of 1-200 characters")
        if self.since is not None and self.until is not None and self.since > self.until:
            raise InvalidInput("the time range is reversed: 'since' is after 'until'")
        if self.min_confidence is not None and not 0 <= self.min_confidence <= 1:
            raise InvalidInput("min_confidence must be between 0 and 1")
        if self.entity is not None and (not isinstance(self.entity, str) or ":" not in self.entity
                                        or self.entity.split(":", 1)[0] not in ENTITY_TYPES):
            raise InvalidInput(f"an entity filter is 'type:name' with a type among {', '.join(ENTITY_TYPES)}")

    @property
    def only_active(self) -> bool:
        return self.statuses == ("active",)

    def sql(self) -> tuple[str, list[Any]]:
        """A WHERE clause over ``facts`` for every filter SQL can check (not decayed confidence).

        Pure string building, kept beside the filters it encodes; the store's query
        functions (store/facts_read.py, store/fts_rows.py) are what execute it.
        """
        clauses = [f"status IN ({','.join('?' * len(self.statuses))})"]
        params: list[Any] = list(self.statuses)
        for column, value in (("scope", self.scope), ("kind", self.kind)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.since is not None:
            clauses.append("created_at >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append("created_at <= ?")
            params.append(self.until)
        for tag in self.tags:
            # A row whose tags column is damaged matches no tag rather than failing the whole query.
            clauses.append("EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(facts.tags) THEN facts.tags "
                           "ELSE '[]' END) WHERE json_each.value = ?)")
            params.append(tag.lower())
        if self.entity is not None:
            clauses.append("facts.id IN (SELECT m.fact_id FROM entity_mentions m JOIN entities e ON e.id = m.entity_id "
                           "WHERE e.type = ? AND e.norm_name = ?)")
            params += self.entity.split(":", 1)
        return " AND ".join(clauses), params

    @property
    def narrows(self) -> bool:
        bounded = self.since is not None or self.until is not None
        return bool(self.scope or self.kind or self.tags or self.entity) or bounded or not self.only_active


def bm25_parts(text: np.ndarray, power: float) -> np.ndarray:
    """BM25 parts in 0..1 from negated bm25() values, best first: ``(value / best) ** power``.

    bm25() is negative and unbounded (lower is better), and its scale depends on the
    store and the query, so each query is normalised on its own: negated, divided by
    the best hit's value (the best text match scores 1.0; min-max measured no better on
    LoCoMo and pushes the weakest of a few good hits to zero), then raised to
    ``bm25_power``. A power above 1 keeps the best matches near the top of the 0.3 and
    gives less of it to facts that share only a query's weaker words.
    """
    if not len(text) or text[0] <= 0:
        return np.zeros(len(text))
    parts = np.maximum(text, 0.0) / text[0]
    return parts if power == 1 else parts ** power


def _normalised(rows: list[tuple[int, float]], power: float = 1.0) -> dict[int, float]:
    """Fact id -> BM25 part (``bm25_parts``) from (rowid, bm25()) rows sorted best first."""
    if not rows:
        return {}
    parts = bm25_parts(-np.asarray([r[1] for r in rows], np.float64), power)
    return {int(r[0]): float(v) for r, v in zip(rows, parts)}


# Per open memory (its index lives as long as it does): document frequencies of query terms.
_TERM_COUNTS: weakref.WeakKeyDictionary[VectorIndex, TermCounts] = weakref.WeakKeyDictionary()


def match_budget(limits: MemorySettings, facts: int) -> int:
    """The text-match budget of a memory of ``facts`` indexed facts: ``text_match_share`` of them, at least
    ``text_match_budget`` and at most ``text_match_ceiling`` (0: no budget, every word is kept).

    A word in 15% of a 600-fact conversation and one in 15% of a 5,000-fact pooled
    history separate facts equally well (the same IDF), so the budget follows the
    store's size; a fixed 100 kept only the rarest one or two words of a question
    in the pooled history, and the answer's other words were left to the cosine.
    The ceiling bounds what a search reads in a large memory.
    """
    if limits.text_match_budget <= 0:
        return 0
    return int(max(limits.text_match_budget, min(limits.text_match_ceiling, limits.text_match_share * facts)))


def term_frequency(db: sqlite3.Connection, index: VectorIndex, budget: int,
                   text: TextIndex | None = None) -> Callable[[str], int]:
    """Facts per query word or phrase, counted up to the most ``budget`` can use: from the text index
    when there is one (the same counts), else from FTS5."""
    cap = budget * RAREST_STRETCH + 1
    if text is not None:
        return lambda part: min(text.frequency(part), cap)
    counts = _TERM_COUNTS.get(index)
    if counts is None or counts.cap != cap:
        counts = _TERM_COUNTS[index] = TermCounts(cap)
    return counts.bind(db)


def text_parts(query: str, db: sqlite3.Connection, index: VectorIndex, limits: MemorySettings,
               text: TextIndex | None = None) -> list[str]:
    """The words and phrases searches match: every one, or the rarest within ``match_budget``."""
    budget = match_budget(limits, len(index))
    if budget <= 0:
        return match_parts(query)
    return match_parts(query, term_frequency(db, index, budget, text), budget)


def text_query(query: str, db: sqlite3.Connection, index: VectorIndex, limits: MemorySettings,
               text: TextIndex | None = None) -> str | None:
    """The FTS5 expression of ``text_parts``."""
    budget = match_budget(limits, len(index))
    if budget <= 0:
        return match_expression(query)
    return match_expression(query, term_frequency(db, index, budget, text), budget)


# Per open memory: every indexed fact's freshness, for ranking them all roughly (see ``Searcher._active``).
_FRESHNESS: weakref.WeakKeyDictionary[VectorIndex, tuple[Any, ...]] = weakref.WeakKeyDictionary()
# Freshness moves by freshness_rate (0.01) a day, so a minute-old copy is off by < 1e-5: fine for choosing
# which facts to score exactly, and those are scored at the exact time.
FRESHNESS_REUSE_SECONDS = 60.0


def rough_freshness(index: VectorIndex, now: float, limits: MemorySettings) -> tuple[np.ndarray, np.ndarray]:
    """Freshness of every indexed row, and it times ``cosine_weight`` (float32; one pass over every row
    fewer per search), worked out again after a write or a minute."""
    cached = _FRESHNESS.get(index)
    knobs = (limits.cosine_weight, limits.freshness_rate, limits.freshness_floor)
    if (cached is not None and cached[0] == index.version and abs(now - cached[1]) < FRESHNESS_REUSE_SECONDS
            and cached[2] == knobs):
        return cached[3]
    found = freshness(age_days(now, index.meta[:, 0]), limits.freshness_rate, limits.freshness_floor)
    pair = (found.astype(np.float32), (found * limits.cosine_weight).astype(np.float32))
    _FRESHNESS[index] = (index.version, now, knobs, pair)
    return pair


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique``; for a search's few hundred rows a sort and a comparison cost
    a fraction of numpy's hash-based unique, which union1d and setdiff1d call)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values


def _outside(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """``values`` that are not among ``sorted_keys`` (sorted, distinct)."""
    if not len(sorted_keys):
        return values
    at = np.minimum(np.searchsorted(sorted_keys, values), len(sorted_keys) - 1)
    return values[sorted_keys[at] != values]


@dataclass
class TextMatches:
    """Active text matches: index rows and BM25 parts, best first."""
    rows: np.ndarray
    scores: np.ndarray

    def at(self, rows: np.ndarray) -> np.ndarray:
        """The BM25 part of each row (0 for rows that do not match)."""
        return lookup(self.rows, self.scores, rows)


@dataclass
class Hit:
    fact: Fact
    score: float
    cosine: float
    bm25: float
    freshness: float
    effective_confidence: float
    # The best batch neighbour's own score; ``score`` adds it times ``context_weight``.
    context: float = 0.0
    # What the base score was multiplied by for who speaks in the fact (engine/search/voice.py; 1: nothing).
    voice: float = 1.0
    # ... and for carrying the kind of answer the question asks for (engine/search/question_kind.py; 1: nothing).
    answer_kind: float = 1.0
    # The cross-encoder's logit for this fact and the question, when its pass re-ordered the hit
    # (engine/search/cross_rerank.py; None: no such pass).
    cross_encoder: float | None = None

    def to_dict(self) -> dict[str, Any]:
        f = self.fact
        return {"id": f.id, "text": f.text, "score": round(self.score, 4), "cosine": round(self.cosine, 4),
                "bm25": round(self.bm25, 4), "freshness": round(self.freshness, 4), "context": round(self.context, 4),
                "voice": round(self.voice, 4), "answer_kind": round(self.answer_kind, 4),
                "confidence": round(f.confidence, 4), "effective_confidence": round(self.effective_confidence, 4),
                "scope": f.scope, "kind": f.kind, "status": f.status, "tags": f.tags,
                "created_at": format_time(f.created_at), "sources": f.sources,
                **({"cross_encoder": round(self.cross_encoder, 4)} if self.cross_encoder is not None else {}),
                **({"damaged": f.damaged} if f.damaged else {})}


@dataclass
class Searcher:
    db: sqlite3.Connection
    index: VectorIndex
    limits: MemorySettings
    # Every fact's text in memory (``IndexSync.text``); None: FTS5 answers the text part.
    text: TextIndex | None = None

    def _allowed_ids(self, filters: SearchFilters) -> np.ndarray | None:
        if not filters.narrows:
            return None
        where, params = filters.sql()
        return np.fromiter(ids_where(self.db, where, params), dtype=np.int64)

    def _cosines(self, query_vector: np.ndarray, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(ids, cosines) over the allowed facts; non-active facts' vectors come from SQLite."""
        ids, scores = self.index.ids, self.index.cosine(query_vector)
        if allowed is not None:
            keep = np.isin(ids, allowed)
            ids, scores = ids[keep], scores[keep]
            missing = np.setdiff1d(allowed, ids)
            if len(missing):
                extra_ids, extra = self._stored_vectors(missing)
                ids = np.concatenate([ids, extra_ids])
                scores = np.concatenate([scores, extra @ query_vector if len(extra_ids) else np.zeros(0, np.float32)])
        return ids, scores

    def _stored_vectors(self, fact_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        found_ids, rows = [], []
        for fact_id, row in vector_columns(self.db, (int(i) for i in fact_ids)).items():
            if row["embedding"] is not None and len(row["embedding"]) == 4 * self.index.dim:
                found_ids.append(fact_id)
                rows.append(np.frombuffer(row["embedding"], dtype=np.float32))
        if not rows:
            return np.zeros(0, np.int64), np.zeros((0, self.index.dim), np.float32)
        return np.asarray(found_ids, np.int64), np.stack(rows)

    def _bm25(self, query: str, filters: SearchFilters) -> dict[int, float]:
        """Filtered searches keep FTS5 (joined with the filters in SQL); the text index, when there is
        one, only counts the words for the budget."""
        expression = text_query(query, self.db, self.index, self.limits, self.text)
        if expression is None:
            return {}
        where, params = filters.sql()
        rows = fts_rows.ranked_matches_where(self.db, expression, where, params, self.limits.candidate_pool)
        return _normalised(rows, self.limits.bm25_power)

    def _add_text_only_cosines(self, bm25: dict[int, float], cosine_of: dict[int, float], query_vector: np.ndarray) -> None:
        """Text matches outside the cosine pool still get their real cosine, not zero."""
        unseen = [fid for fid in bm25 if fid not in cosine_of]
        stored = []
        for fid in unseen:
            vector = self.index.vector(fid)
            if vector is None:
                stored.append(fid)
            else:
                cosine_of[fid] = float(vector @ query_vector)
        if stored:
            extra_ids, extra = self._stored_vectors(np.asarray(stored, np.int64))
            for fid, cos in zip(extra_ids, extra @ query_vector):
                cosine_of[int(fid)] = float(cos)

    def _candidate_meta(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, [last_reinforced, confidence, decay rate] rows) from one light query."""
        rows = fact_columns(self.db, ids, "last_reinforced, confidence, kind")
        meta = [(r["last_reinforced"], r["confidence"], decay_rate(r["kind"])) for r in rows.values()]
        return np.fromiter(rows, np.int64, len(rows)), np.asarray(meta, np.float64).reshape(-1, 3)

    def _bm25_active(self, query: str) -> TextMatches:
        """Active text matches and their BM25 parts, best first.

        Every match is read (``match_budget`` bounds them) and every fact gets
        its true BM25 part. The text index ranks every fact as FTS5 does (same
        values, ties by id) and the same first ``limit`` are kept; without one,
        FTS5 orders by rank itself, no join.
        """
        limit = max(2 * self.limits.candidate_pool, match_budget(self.limits, len(self.index)))
        if self.text is not None:
            parts = text_parts(query, self.db, self.index, self.limits, self.text)
            matches = self.text.ranked(parts, limit)
            ids, text = matches.fact_ids, matches.scores
        else:
            expression = text_query(query, self.db, self.index, self.limits)
            found = fts_rows.ranked_matches(self.db, expression, limit) if expression is not None else []
            ids, ranks = np.asarray(found, np.float64).reshape(-1, 2).T
            ids, text = ids.astype(np.int64), -ranks
        if not len(ids):
            return TextMatches(np.zeros(0, np.int64), np.zeros(0))
        rows = self.index.rows_or_missing(ids)
        active = rows >= 0
        rows, text = rows[active], text[active]
        return TextMatches(rows, bm25_parts(text, self.limits.bm25_power))

    def _base(self, meta: np.ndarray, cos: np.ndarray, text: np.ndarray, now: float,
              voiced: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """(base score, freshness, effective confidence) from cosines, BM25 parts and index meta rows, times
        each fact's voice factor when the query asks about the asker (``voice_factors``; before context, so
        a reply lends and borrows its discounted score)."""
        days = age_days(now, meta[:, 0])
        fresh = freshness(days, self.limits.freshness_rate, self.limits.freshness_floor)
        base = (self.limits.cosine_weight * np.maximum(0.0, cos) + self.limits.bm25_weight * text) * fresh
        if voiced is not None:
            base = base * voiced
        return base, fresh, effective_confidence(meta[:, 1], meta[:, 2], days)

    def _active(self, text: TextMatches, query_vector: np.ndarray, now: float, top_k: int,
                min_confidence: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The default path: every indexed active fact is scored, roughly, and the best exactly.

        The rough score is the full formula (cosine, BM25, freshness and context)
        with each cosine estimated from the index's sketch (exact below its size,
        see ``VectorIndex.estimated_cosines``) except on a shortlist of the nearest
        estimates, which is scored exactly. The ``candidate_pool`` (at least
        ``top_k``) best by it and the best text matches are ranked exactly, with their
        batch neighbours (which only lend context). Nothing but FTS touches SQLite.
        Returns (rows, exact cosines, BM25 parts, how many leading rows rank).
        """
        index, w = self.index, self.limits
        pool = max(w.candidate_pool, top_k)
        cosines = index.estimated_cosines(query_vector)
        # Exact cosines for a shortlist several times the pool: a sketch estimate runs low exactly
        # when fact and query share a topic the sketch does not span, so the pool is chosen after.
        shortlist = index.shortlist_cosines(query_vector, pool, cosines)
        exact = None  # which rows of ``cosines`` are exact (None: all of them)
        if shortlist is not None:
            cosines[shortlist[0]] = shortlist[1]
            exact = np.zeros(len(cosines), bool)
            exact[shortlist[0]] = True
        # Scores go to a new array and ``cosines`` stays: the ranked rows' cosines are read from it, which
        # costs less than finding them among the shortlist's rows again (a sort of 10,000 rows at 1M).
        # Then in place and in float32: at 1M facts each pass over the rows costs ~0.5 ms.
        fresh, weighted = rough_freshness(index, now, w)
        rough = np.maximum(cosines, 0.0)
        rough *= weighted
        rough[text.rows] += np.float32(w.bm25_weight) * text.scores.astype(np.float32) * fresh[text.rows]
        if w.context_weight > 0:
            lent = index.neighbour_maximum(rough * context_gains(index, w.context_length))
            lent *= np.float32(w.context_weight)
            rough += lent
        if min_confidence is not None:
            meta = index.meta
            rough[effective_confidence(meta[:, 1], meta[:, 2], age_days(now, meta[:, 0])) < min_confidence] = -1.0
        # Text matches past the pool's size in BM25 rank keep only their rough score: they hold a small share
        # of the BM25 part, so only a high cosine could lift one into the top, and the shortlist has those
        # exact. Scoring all of a large budget's matches exactly cost a 10k search ~35 % (docs/benchmarks.md).
        ranked = _distinct(np.concatenate([index.largest(rough, pool), text.rows[:pool]]))
        rows = ranked
        if w.context_weight > 0:
            near = np.concatenate(index.neighbours(ranked))
            rows = np.concatenate([ranked, _outside(_distinct(near[near >= 0]), ranked)])
        return rows, self._exact_cosines(rows, query_vector, cosines, exact), text.at(rows), len(ranked)

    def _exact_cosines(self, rows: np.ndarray, query_vector: np.ndarray, cosines: np.ndarray,
                       exact: np.ndarray | None) -> np.ndarray:
        """Exact cosines of ``rows``: read from ``cosines`` where ``exact`` says they are (every row when
        it is None), computed for the rest."""
        found = cosines[rows].astype(np.float64)
        if exact is not None:
            outside = ~exact[rows]
            if outside.any():
                found[outside] = self.index.cosine_rows(rows[outside], query_vector)
        return found

    def _filtered_candidates(self, query: str, query_vector: np.ndarray, filters: SearchFilters) -> tuple[np.ndarray, ...]:
        allowed = self._allowed_ids(filters)
        ids, cosines = self._cosines(query_vector, allowed)
        pool = min(self.limits.candidate_pool, len(ids))
        by_cosine = np.argpartition(-cosines, pool - 1)[:pool] if pool else np.zeros(0, np.int64)
        bm25 = self._bm25(query, filters)
        cosine_of = dict(zip(ids[by_cosine].tolist(), cosines[by_cosine].tolist()))
        self._add_text_only_cosines(bm25, cosine_of, query_vector)
        found, meta = self._candidate_meta(list(set(cosine_of) | set(bm25)))
        cos = np.fromiter((cosine_of.get(i, 0.0) for i in found.tolist()), np.float64, len(found))
        text = np.fromiter((bm25.get(i, 0.0) for i in found.tolist()), np.float64, len(found))
        return found, cos, text, meta

    def _scores(self, rows: np.ndarray, meta: np.ndarray, cos: np.ndarray, text: np.ndarray, now: float,
                ranked: int, voiced: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """(base, freshness, effective confidence, context, score); rows past ``ranked`` only lend context."""
        base, fresh, effective = self._base(meta, cos, text, now, voiced)
        context = (context_of(self.index, rows, base, self.limits.context_length) if self.limits.context_weight > 0
                   else np.zeros(len(rows)))
        score = base + self.limits.context_weight * context
        score[ranked:] = -1.0
        return base, fresh, effective, context, score

    def _exact_near_top(self, found: np.ndarray, rows: np.ndarray, cos: np.ndarray, score: np.ndarray,
                        top_k: int, query_vector: np.ndarray) -> np.ndarray:
        """``cos`` with float32 cosines, read from SQLite, for every fact that may be in the top k and its neighbours.

        A float16 row's cosine is off by at most ``index.error``, so a score by at
        most ``(1 + context_weight) · cosine_weight · error``: only facts within
        twice that of the k-th score can change places with it.
        """
        slack = 2 * (1 + self.limits.context_weight) * (1 + self.limits.voice_weight) \
            * (1 + self.limits.answer_kind_weight) * self.limits.cosine_weight * self.index.error
        kth = np.sort(score)[-min(top_k, len(score))]
        near = np.flatnonzero(score >= kth - slack)
        if self.limits.context_weight > 0:
            indexed = np.flatnonzero(rows >= 0)
            around = np.concatenate(self.index.neighbours(rows[near[rows[near] >= 0]]))
            at = lookup(rows[indexed], indexed + 1.0, around).astype(np.int64) - 1  # -1: not among these rows
            near = _distinct(np.concatenate([near, at[at >= 0]]))
        wanted = found[near].tolist()
        if not wanted:
            return cos
        stored = vector_columns(self.db, wanted)
        cos = cos.copy()
        # Row by row: one product over the rows can round two identical vectors differently by their
        # position, and equal facts must tie (then the lower id wins) as the reference has them.
        cos[near] = np.maximum(0.0, [np.frombuffer(stored[i]["embedding"], np.float32) @ query_vector
                                     for i in wanted])
        return cos

    def _ranked(self, found: np.ndarray, rows: np.ndarray, meta: np.ndarray, cos: np.ndarray, text: np.ndarray,
                now: float, ranked: int, top_k: int, query_vector: np.ndarray,
                voiced: np.ndarray | None = None) -> tuple[np.ndarray, tuple]:
        """(cosines, (base, freshness, effective confidence, context, score)), exact near the top k."""
        cos = np.maximum(0.0, cos)
        scored = self._scores(rows, meta, cos, text, now, ranked, voiced)
        if self.index.error > 0:
            cos = self._exact_near_top(found, rows, cos, scored[-1], top_k, query_vector)
            scored = self._scores(rows, meta, cos, text, now, ranked, voiced)
        return cos, scored

    def search(self, query: str, query_vector: np.ndarray, top_k: int, filters: SearchFilters, now: float) -> list[Hit]:
        if self.limits.voice_weight > 0 and asks_about_self(query):
            # A question about the asker takes no context: what a statement lends goes to the reply beside
            # it, which speaks to the asker and holds the answer far less often (engine/search/voice.py).
            self.limits = replace(self.limits, context_weight=0.0)
        if filters.narrows:
            found, cos, text, meta = self._filtered_candidates(query, query_vector, filters)
            rows, ranked = self.index.rows_or_missing(found), len(found)
        else:
            rows, cos, text, ranked = self._active(self._bm25_active(query), query_vector, now, top_k,
                                                   filters.min_confidence)
            found, meta = self.index.ids[rows], self.index.meta[rows]
        if len(found) == 0:
            return []
        voice = voice_factors(self.db, self.index, query, found, self.limits.voice_weight)
        kind = answer_kind_factors(self.db, self.index, query, found, self.limits.answer_kind_weight)
        voiced = voice if kind is None else kind if voice is None else voice * kind
        cos, scored = self._ranked(found, rows, meta, cos, text, now, ranked, top_k, query_vector, voiced)
        base, fresh, effective, context, score = scored
        if filters.min_confidence is not None:
            score = np.where(effective >= filters.min_confidence, score, -1.0)
        order = np.lexsort((-found, -score))[:top_k]
        order = order[score[order] >= 0]
        facts = load_facts(self.db, found[order].tolist())
        return [Hit(facts[int(found[k])], float(score[k]), float(cos[k]), float(text[k]), float(fresh[k]),
                    float(effective[k]), float(context[k]), 1.0 if voice is None else float(voice[k]),
                    1.0 if kind is None else float(kind[k]))
                for k in order]

