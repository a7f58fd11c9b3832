"""Turning a user's question into a safe FTS5 query, and BM25 into 0..1.

User text never reaches ``MATCH`` as syntax: it is split into word tokens,
each token is emitted as a double-quoted FTS5 string, and the tokens are
joined with ``OR``. So ``"``, ``AND OR``, ``NEAR(``, ``*`` or
``'; DROP TABLE facts; --`` are just words (or nothing) to FTS5.
"""

from __future__ import annotations

import re
import sqlite3

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32

# Function words that match nearly every fact and only add noise to BM25.
STOP_WORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her hers him his
    how i if in into is it its me my no not of on or our she so than that the their them then there these
    they this those to up us was we were what when where which who whom why will with would you your yours
    about after again all also am any because before being between both during each few further here just
    more most much only other over own same should some such too under until very while""".split()
)


def query_terms(query: str) -> list[str]:
    """Distinct lowercase word tokens, stop words dropped unless nothing else is left."""
    words = [w.lower() for w in _WORD.findall(query)]
    content = [w for w in words if w not in STOP_WORDS]
    chosen = content or words
    return list(dict.fromkeys(chosen))[:MAX_TERMS]


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH string that can never be a syntax error, or None if there is nothing to match."""
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def bm25_hits(db: sqlite3.Connection, query: str, limit: int) -> dict[int, float]:
    """Fact id -> BM25 normalised to 0..1 for this query.

    FTS5's ``bm25()`` is negative and unbounded, lower is better. We negate it
    and divide by the best hit's value, so the best text match scores 1.0 and
    the others keep their proportion to it (a max-normalisation: unlike
    min-max it does not push the weakest of a few good hits down to zero).
    """
    expression = match_expression(query)
    if expression is None:
        return {}
    rows = db.execute(
        "SELECT rowid, bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts) LIMIT ?",
        (expression, limit),
    ).fetchall()
    if not rows:
        return {}
    raw = -np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    best = raw.max()
    scaled = raw / best if best > 0 else np.zeros_like(raw)
    return {int(r[0]): float(s) for r, s in zip(rows, scaled)}
