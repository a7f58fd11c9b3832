"""Listing facts without a query: every fact that passes the filters, newest first or in an order SQLite sorts.

Front ends page through the returned ids (a 100k-fact memory lists in tens of
milliseconds) and describe one page at a time, so a table never holds more
rows than a person scrolls to.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np

from engine.config import MemorySettings
from engine.store.decay import KIND_DECAY, age_days, effective_confidence, freshness
from engine.errors import InvalidInput
from engine.store.facts_read import LISTING_ORDERS, decay_inputs_where, ids_in_order
from engine.store.records import Fact
from engine.search.hybrid import Hit, SearchFilters

NO_SCORE = math.nan
EFFECTIVE = "effective_confidence"  # sorted here on the decayed value, which SQLite does not hold
ORDERS = (*LISTING_ORDERS, EFFECTIVE)


def check_order(order_by: object) -> str:
    if not isinstance(order_by, str) or order_by not in ORDERS:
        raise InvalidInput(f"cannot order a listing by {order_by!r}; choose one of: {', '.join(ORDERS)}")
    return order_by


def matching_ids(db: sqlite3.Connection, filters: SearchFilters, now: float, order_by: str = "id",
                 descending: bool = True) -> list[int]:
    """Ids of the facts passing ``filters``, sorted by SQLite on ``order_by`` (newest first by default);
    minimum confidence is checked on the decayed value, as search does, so it needs the kind and last
    reinforcement. "confidence" orders by the stored confidence; "effective_confidence" by the decayed
    one a listing shows (numpy sorts it, ties by id in the same direction)."""
    where, params = filters.sql()
    by_decay = check_order(order_by) == EFFECTIVE
    if filters.min_confidence is None and not by_decay:
        return ids_in_order(db, where, params, order_by, bool(descending))
    rows = decay_inputs_where(db, where, params, "id" if by_decay else order_by, bool(descending))
    if not rows:
        return []
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    confidence = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    rates = np.fromiter((KIND_DECAY[r[2]][0] for r in rows), dtype=np.float64, count=len(rows))
    days = age_days(now, np.fromiter((r[3] for r in rows), dtype=np.float64, count=len(rows)))
    effective = effective_confidence(confidence, rates, days)
    if by_decay:
        order = np.lexsort((-ids, -effective)) if descending else np.lexsort((ids, effective))
        ids, effective = ids[order], effective[order]
    if filters.min_confidence is not None:
        ids = ids[effective >= filters.min_confidence]
    return ids.tolist()


def describe(facts: list[Fact], now: float, limits: MemorySettings) -> list[Hit]:
    """Hits without a query: freshness and effective confidence filled in, scores NaN.

    The decay is computed for the whole page at once: per fact, numpy's scalar calls cost more
    than the arithmetic, and a page is described while a person scrolls."""
    if not facts:
        return []
    days = age_days(now, np.fromiter((f.last_reinforced for f in facts), np.float64, len(facts)))
    fresh = freshness(days, limits.freshness_rate, limits.freshness_floor).tolist()
    stored = np.fromiter((f.confidence for f in facts), np.float64, len(facts))
    rates = np.fromiter((KIND_DECAY[f.kind][0] for f in facts), np.float64, len(facts))
    conf = effective_confidence(stored, rates, days).tolist()
    return [Hit(fact, NO_SCORE, NO_SCORE, NO_SCORE, f, c) for fact, f, c in zip(facts, fresh, conf)]
