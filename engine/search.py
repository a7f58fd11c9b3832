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
from .decay import STATUSES, age_days, effective_confidence, freshness
from .errors import InvalidInput
from .fts import match_expression
from .records import Fact, load_facts
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
        wanted = [int(i) for i in fact_ids]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for fact_id, blob in self.db.execute(
                    f"SELECT id, embedding FROM facts WHERE id IN ({marks}) AND embedding IS NOT NULL", chunk):
                vector = np.frombuffer(blob, dtype=np.float32)
                if len(vector) == self.index.dim:
                    found_ids.append(fact_id)
                    rows.append(vector)
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
        if not rows:
            return {}
        # bm25() is negative and unbounded (lower is better): negate, then divide by the best hit's
        # value, so the best text match scores 1.0 and others keep their proportion to it.
        best = -rows[0][1]
        return {int(r[0]): (-r[1] / best if best > 0 else 0.0) for r in rows}

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

    def search(self, query: str, query_vector: np.ndarray, top_k: int, filters: SearchFilters, now: float) -> list[Hit]:
        allowed = self._allowed_ids(filters)
        ids, cosines = self._cosines(query_vector, allowed)
        pool = min(self.limits.candidate_pool, len(ids))
        by_cosine = np.argpartition(-cosines, pool - 1)[:pool] if pool else np.zeros(0, np.int64)
        bm25 = self._bm25(query, filters)
        cosine_of = {int(ids[i]): float(cosines[i]) for i in by_cosine}
        self._add_text_only_cosines(bm25, cosine_of, query_vector)
        candidates = set(cosine_of) | set(bm25)
        facts = load_facts(self.db, candidates)
        hits = []
        for fid, fact in facts.items():
            days = age_days(now, fact.last_reinforced)
            eff = effective_confidence(fact.confidence, fact.kind, days)
            if filters.min_confidence is not None and eff < filters.min_confidence:
                continue
            cos, text_score = max(0.0, cosine_of.get(fid, 0.0)), bm25.get(fid, 0.0)
            fresh = float(freshness(days, self.limits.freshness_rate, self.limits.freshness_floor))
            score = (self.limits.cosine_weight * cos + self.limits.bm25_weight * text_score) * fresh
            hits.append(Hit(fact, score, cos, text_score, fresh, eff))
        hits.sort(key=lambda h: (-h.score, -h.fact.id))
        return hits[:top_k]
