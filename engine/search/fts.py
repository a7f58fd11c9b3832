"""Turning a user's question into a safe FTS5 query, and BM25 into 0..1.

User text never reaches ``MATCH`` as syntax: it is split into word tokens,
each token is emitted as a double-quoted FTS5 string, and the tokens are
joined with ``OR``. So ``"``, ``AND OR``, ``NEAR(``, ``*`` or
``'; DROP TABLE facts; --`` are just words (or nothing) to FTS5.

FTS5 scores every row an ``OR`` query matches, so a query term found in a
large share of a big store costs milliseconds while adding almost nothing to
BM25 (its IDF is near zero). With a *match budget*, the query's parts (words
and adjacent-word phrases) are taken rarest first while their summed document
counts stay within it; the rest are left to the cosine part of the score. A
phrase of two common words ("ember portal") is often rare, so it stays when
its words go. No query ever matches more facts than the budget, which is
what lets search read every match and give each its true BM25.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Callable

from engine.store import fts_rows

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


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def adjacent_pairs(query: str) -> list[str]:
    """Neighbouring content words ("support group"), matched as phrases to reward word order."""
    words = [w.lower() for w in _WORD.findall(query)]
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:]) if a not in STOP_WORDS and b not in STOP_WORDS]
    return list(dict.fromkeys(pairs))[:MAX_TERMS]


# When every part is over the budget, the rarest is still kept if it matches at most this many times
# the budget: a one-word query ("replicas" in 285 facts of 10k) must keep a text part, or every hit
# shows BM25 0.000; a word in thousands of facts (a stop word) adds time and no ranking.
RAREST_STRETCH = 20


def within_budget(parts: list[str], frequency: Callable[[str], int], budget: int) -> list[str]:
    """The rarest parts whose document counts sum to at most ``budget``, in query order; when none
    fits, the rarest alone if it is within ``RAREST_STRETCH`` budgets (maybe none)."""
    by_rarity = sorted(range(len(parts)), key=lambda k: (frequency(parts[k]), k))
    kept, total = [], 0
    for k in by_rarity:
        total += frequency(parts[k])
        if total > budget:
            break
        kept.append(k)
    if not kept and by_rarity and frequency(parts[by_rarity[0]]) <= budget * RAREST_STRETCH:
        kept = [by_rarity[0]]
    return [parts[k] for k in sorted(kept)]


def match_parts(query: str, frequency: Callable[[str], int] | None = None, budget: int = 0) -> list[str]:
    """The words and adjacent-word phrases a query matches, each a phrase to FTS5 (or to the text index).

    Terms are OR-ed (a fact need not contain every word of a question), and
    each pair of adjacent content words is OR-ed in again as a phrase, so a
    fact that keeps the question's word order earns the extra BM25 weight
    (measured on LoCoMo: recall@5 +0.01). Given ``frequency`` (documents per
    word or phrase) and a positive ``budget``, only the parts ``within_budget``
    are kept (none when even the rarest is too common for that).
    """
    parts = [*query_terms(query), *adjacent_pairs(query)]
    if parts and frequency is not None and budget > 0:
        parts = within_budget(parts, frequency, budget)
    return parts


def match_expression(query: str, frequency: Callable[[str], int] | None = None, budget: int = 0) -> str | None:
    """An FTS5 MATCH string of ``match_parts`` that can never be a syntax error, or None if there is nothing to match."""
    parts = match_parts(query, frequency, budget)
    return " OR ".join(_quoted(part) for part in parts) if parts else None


class TermCounts:
    """Documents matching each word or phrase, counted up to ``cap`` and cached while no fact is added.

    Facts are never deleted and their text never changes, so the largest fact
    id identifies the full-text index's content exactly.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._mark: int | None = None
        self._counts: dict[str, int] = {}

    def bind(self, db: sqlite3.Connection) -> Callable[[str], int]:
        """A ``frequency`` function for ``match_expression`` over the store as it is now."""
        mark = fts_rows.content_mark(db)
        if mark != self._mark:
            self._mark, self._counts = mark, {}

        def frequency(term: str) -> int:
            found = self._counts.get(term)
            if found is None:
                found = self._counts[term] = fts_rows.match_count(db, _quoted(term), self.cap)
            return found

        return frequency
