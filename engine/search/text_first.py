"""A search answered by the words alone, while the meaning side (the embedding model and the vector
index) is still loading (issue 29: a large file's first search must not wait seconds for them).

The same formula as the hybrid search with every cosine taken as unknown, so 0: ``bm25_weight ×
bm25_norm × freshness``, over FTS5's matches among the facts passing the filters (the query's rarest
words within ``text_match_budget``, as the hybrid search matches them). Only SQLite is read. The
caller is told the answer came from the text alone (``Timing.text_only``) and says so; a person's
next search, once the vectors are ready, is hybrid again.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from engine.config import MemorySettings
from engine.search.fts import RAREST_STRETCH, TermCounts, match_expression
from engine.search.hybrid import Hit, SearchFilters, bm25_parts
from engine.store import fts_rows
from engine.store.decay import age_days, decay_rate, effective_confidence, freshness
from engine.store.records import fact_columns, load_facts


TEXT_MATCHES_READ = 2  # matches read per pool place, unfiltered: room for superseded and archived ones


def text_only_hits(db: sqlite3.Connection, limits: MemorySettings, query: str, top_k: int,
                   filters: SearchFilters, now: float) -> list[Hit]:
    """The ``top_k`` best text matches by the hybrid formula without its cosine part, best first
    (ties by id, lower first, as in the hybrid search)."""
    if limits.text_match_budget > 0:
        counts = TermCounts(limits.text_match_budget * RAREST_STRETCH + 1).bind(db)
        expression = match_expression(query, counts, limits.text_match_budget)
    else:
        expression = match_expression(query)
    if expression is None:
        return []
    pool = max(limits.candidate_pool, top_k)
    if filters.narrows:
        where, params = filters.sql()
        rows = fts_rows.ranked_matches_where(db, expression, where, params, pool)
        columns = fact_columns(db, [r[0] for r in rows], "status, last_reinforced, confidence, kind")
    else:
        # Unfiltered, no join: joining every match to ``facts`` for its status reads a page of the table
        # per match (a common word's tens of thousands at 1M, from a cold disk cache). The best matches
        # of every status, then the active ones among them: as the hybrid search drops inactive matches.
        rows = fts_rows.ranked_matches(db, expression, TEXT_MATCHES_READ * pool)
        columns = fact_columns(db, [r[0] for r in rows], "status, last_reinforced, confidence, kind")
        rows = [r for r in rows if r[0] in columns and columns[r[0]]["status"] == "active"][:pool]
    if not rows:
        return []
    ids = np.asarray([r[0] for r in rows], np.int64)
    parts = bm25_parts(-np.asarray([r[1] for r in rows], np.float64), limits.bm25_power)
    meta = np.asarray([(columns[i]["last_reinforced"], columns[i]["confidence"], decay_rate(columns[i]["kind"]))
                       for i in ids.tolist()], np.float64).reshape(-1, 3)
    days = age_days(now, meta[:, 0])
    fresh = freshness(days, limits.freshness_rate, limits.freshness_floor)
    effective = effective_confidence(meta[:, 1], meta[:, 2], days)
    score = limits.bm25_weight * parts * fresh
    if filters.min_confidence is not None:
        score = np.where(effective >= filters.min_confidence, score, -1.0)
    order = np.lexsort((ids, -score))[:top_k]
    order = order[score[order] >= 0]
    facts = load_facts(db, ids[order].tolist())
    return [Hit(facts[int(ids[k])], float(score[k]), 0.0, float(parts[k]), float(fresh[k]), float(effective[k]))
            for k in order if int(ids[k]) in facts]
