"""Hybrid search (DESIGN §4): ``(w_cos·cosine + w_bm25·bm25_norm) × freshness``.

Candidates are the union of the nearest facts by cosine and the best FTS5
matches (each capped at ``candidate_pool``), restricted first to the facts
that pass the filters, so a narrow filter never starves the result list.
Each hit carries its parts so a person can see why it ranked.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from .clock import format_time
from .config import MemorySettings
from .decay import STATUSES, age_days, decay_rate, effective_confidence, freshness
from .errors import InvalidInput
from .fts import match_expression
from .records import Fact, fact_columns, load_facts
from .vectors import VectorIndex


@dataclass
class SearchFilters:
    scope: str | None = None
    kind: str | None = None
    statuses: tuple[str, ...] = ("active",)
    tags: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    min_confidence: float | None = None

    def __post_init__(self) -> None:
        bad = [s for s in self.statuses if s not in STATUSES]
        if bad or not self.statuses:
            raise InvalidInput(f"status must be among {', '.join(STATUSES)}")

    @property
    def only_active(self) -> bool:
        return self.statuses == ("active",)

    def sql(self) -> tuple[str, list[Any]]:
        """A WHERE clause over ``facts`` for every filter SQL can check (not decayed confidence)."""
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
            clauses.append("EXISTS (SELECT 1 FROM json_each(facts.tags) WHERE json_each.value = ?)")
            params.append(tag.lower())
        return " AND ".join(clauses), params

    @property
    def narrows(self) -> bool:
        bounded = self.since is not None or self.until is not None
        return bool(self.scope or self.kind or self.tags) or bounded or not self.only_active


def _normalised(rows: list[tuple[int, float]]) -> dict[int, float]:
    """Fact id -> BM25 in 0..1 from (rowid, bm25()) rows sorted best first.

    bm25() is negative and unbounded (lower is better): negate, then divide by
    the best hit's value, so the best text match scores 1.0 and the others keep
    their proportion to it (max-normalisation; min-max measured no better on
    LoCoMo and pushes the weakest of a few good hits to zero).
    """
    if not rows:
        return {}
    best = -rows[0][1]
    return {int(r[0]): (-r[1] / best if best > 0 else 0.0) for r in rows}


@dataclass
class Hit:
    fact: Fact
    score: float
    cosine: float
    bm25: float
    freshness: float
    effective_confidence: float

    def to_dict(self) -> dict[str, Any]:
        f = self.fact
        return {"id": f.id, "text": f.text, "score": round(self.score, 4), "cosine": round(self.cosine, 4),
                "bm25": round(self.bm25, 4), "freshness": round(self.freshness, 4),
                "confidence": round(f.confidence, 4), "effective_confidence": round(self.effective_confidence, 4),
                "scope": f.scope, "kind": f.kind, "status": f.status, "tags": f.tags,
                "created_at": format_time(f.created_at), "sources": f.sources}


@dataclass
class Searcher:
    db: sqlite3.Connection
    index: VectorIndex
    limits: MemorySettings

    def _allowed_ids(self, filters: SearchFilters) -> np.ndarray | None:
        if not filters.narrows:
            return None
        where, params = filters.sql()
        return np.fromiter((r[0] for r in self.db.execute(f"SELECT id FROM facts WHERE {where}", params)),
                           dtype=np.int64)

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
        for fact_id, row in fact_columns(self.db, (int(i) for i in fact_ids), "embedding").items():
            if row["embedding"] is not None and len(row["embedding"]) == 4 * self.index.dim:
                found_ids.append(fact_id)
                rows.append(np.frombuffer(row["embedding"], dtype=np.float32))
        if not rows:
            return np.zeros(0, np.int64), np.zeros((0, self.index.dim), np.float32)
        return np.asarray(found_ids, np.int64), np.stack(rows)

    def _bm25(self, query: str, filters: SearchFilters) -> dict[int, float]:
        expression = match_expression(query)
        if expression is None:
            return {}
        where, params = filters.sql()
        rows = self.db.execute(
            f"SELECT facts_fts.rowid, bm25(facts_fts) AS rank FROM facts_fts JOIN facts ON facts.id = facts_fts.rowid "
            f"WHERE facts_fts MATCH ? AND {where} ORDER BY rank LIMIT ?",
            [expression, *params, self.limits.candidate_pool]).fetchall()
        return _normalised(rows)

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

    def _bm25_active(self, query: str) -> dict[int, float]:
        """BM25 without a join: FTS5 then orders by rank itself; non-active hits drop out via the index."""
        expression = match_expression(query)
        if expression is None:
            return {}
        rows = self.db.execute("SELECT rowid, bm25(facts_fts) AS rank FROM facts_fts WHERE facts_fts MATCH ? "
                               "ORDER BY rank LIMIT ?", (expression, 2 * self.limits.candidate_pool)).fetchall()
        return _normalised([r for r in rows if r[0] in self.index][: self.limits.candidate_pool])

    def _active_candidates(self, query: str, query_vector: np.ndarray) -> tuple[np.ndarray, ...]:
        """The default path: every candidate is an indexed active fact, so nothing but FTS touches SQLite."""
        cosines = self.index.cosine(query_vector)
        pool = min(self.limits.candidate_pool, len(cosines))
        rows = set(np.argpartition(-cosines, pool - 1)[:pool].tolist()) if pool else set()
        bm25 = self._bm25_active(query)
        rows.update(self.index.rows_of(list(bm25)))
        picked = np.fromiter(rows, np.int64, len(rows))
        found = self.index.ids[picked]
        text = np.fromiter((bm25.get(i, 0.0) for i in found.tolist()), np.float64, len(found))
        return found, cosines[picked].astype(np.float64), text, self.index.meta[picked]

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

    def search(self, query: str, query_vector: np.ndarray, top_k: int, filters: SearchFilters, now: float) -> list[Hit]:
        if filters.narrows:
            found, cos, text, meta = self._filtered_candidates(query, query_vector, filters)
        else:
            found, cos, text, meta = self._active_candidates(query, query_vector)
        if len(found) == 0:
            return []
        cos = np.maximum(0.0, cos)
        days = age_days(now, meta[:, 0])
        effective = effective_confidence(meta[:, 1], meta[:, 2], days)
        fresh = freshness(days, self.limits.freshness_rate, self.limits.freshness_floor)
        score = (self.limits.cosine_weight * cos + self.limits.bm25_weight * text) * fresh
        if filters.min_confidence is not None:
            score = np.where(effective >= filters.min_confidence, score, -1.0)
        order = np.lexsort((-found, -score))[:top_k]
        order = order[score[order] >= 0]
        facts = load_facts(self.db, found[order].tolist())
        return [Hit(facts[int(found[k])], float(score[k]), float(cos[k]), float(text[k]), float(fresh[k]),
                    float(effective[k])) for k in order]
