"""What a question asks for, and which facts carry that kind of answer: the answer-kind part of a score.

A question is not a statement: "when did I move to Denver?" shares its topic with
every fact about Denver, but only a fact that says a time ("in March", "last
week", "2019") can answer it. The same holds for "how many / how much" (a number),
"where" (a place: a capitalised name) and "who" (a person: a capitalised name).
Topic matching (cosine, BM25) cannot see this, so a fact that carries the kind of
answer a question asks for has its score multiplied by ``1 + answer_kind_weight``;
every other fact, and every fact for a question that asks for none of these
kinds, ranks as before. The patterns are English, as the questions measured
(LoCoMo, LongMemEval); a question in another language asks for no kind here and
ranks as before. Measured in ``benchmarks.ranking_replay`` (docs/benchmarks.md).
"""

from __future__ import annotations

import re
import sqlite3
import weakref
import numpy as np

from engine.search.vectors import VectorIndex
from engine.store.records import fact_columns

# What a fact carries, as bits.
TIME, NUMBER, NAME = 1, 2, 4
# The kinds the score uses. Lifting a capitalised name for "where" / "who" measured lower on every shape
# (benchmarks.ranking_replay --grid answer-kind): most facts name someone or somewhere, so it separates little.
SCORED_KINDS = TIME | NUMBER

_ASKS = (
    (TIME, re.compile(r"\bwhen\b|\bwhat (?:time|date|day|year|month|season)\b|\bwhich (?:day|date|year|month)\b"
                      r"|\bhow long ago\b|\bwhat year\b", re.I)),
    (NUMBER, re.compile(r"\bhow (?:many|much|long|often|old|far)\b|\bwhat (?:percentage|number|amount)\b", re.I)),
    (NAME, re.compile(r"\bwhere\b|\bwho(?:m|se)?\b|\bwhat (?:city|country|state|town|place|name)\b"
                      r"|\bwhich (?:city|country|state|town|place)\b", re.I)),
)

_MONTHS = ("January February March April May June July August September October November December "
           "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec").split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_TIME = re.compile(
    r"\b(?:" + "|".join(_MONTHS + _DAYS) + r")\b"  # capitalised, so "may" the verb is not a month
    r"|(?i:\b(?:yesterday|today|tonight|tomorrow|ago|weekend|spring|summer|autumn|winter"
    r"|(?:last|next|this|past|previous) (?:week|month|year|night|time))\b)"
    r"|\b(?:1[89]|20)\d\d\b|\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b"
    r"|(?i:\b\d{1,2}(?::\d\d)?\s?(?:am|pm|a\.m\.|p\.m\.)\b)|\b\d{1,2}:\d\d\b")
_NUMBER = re.compile(r"\d|(?i:\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
                     r"|thirty|forty|fifty|hundred|thousand|million|dozen|twice|thrice|couple)\b)")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_NOT_NAMES = frozenset(["I", "OK", *_MONTHS, *_DAYS])  # months and weekdays say a time
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n\"(\u201c*#-])\s*$")


def _has_name(text: str) -> bool:
    """A capitalised word that does not open a sentence: a person's or a place's name, most often."""
    for found in _CAPITALISED.finditer(text):
        if found.group() in _NOT_NAMES:
            continue
        if not _SENTENCE_END.search(text[max(0, found.start() - 3):found.start()]):
            return True
    return False


def asked_kinds(query: str) -> int:
    """The kinds of answer a question asks for, as bits (0: none of them)."""
    kinds = 0
    for kind, pattern in _ASKS:
        if pattern.search(query):
            kinds |= kind
    return kinds


def carried_kinds(text: str) -> int:
    """The kinds of answer a text carries, as bits."""
    kinds = 0
    if _TIME.search(text):
        kinds |= TIME
    if _NUMBER.search(text):
        kinds |= NUMBER
    if _has_name(text):
        kinds |= NAME
    return kinds


# Per open memory: fact id -> the kinds it carries (texts never change, so worked out once per fact).
_KINDS: weakref.WeakKeyDictionary[VectorIndex, dict[int, int]] = weakref.WeakKeyDictionary()
MAX_CACHED = 200_000  # a search reads a few hundred; cleared past this so the cache cannot grow without end


def fact_kinds(db: sqlite3.Connection, index: VectorIndex, fact_ids: np.ndarray) -> np.ndarray:
    """The kinds each fact carries, its text read from SQLite the first time a search ranks it (0 for a
    fact not found). Looked up with C-level ``map``: a search ranks ~800 facts with their neighbours."""
    known = _KINDS.get(index)
    if known is None or len(known) > MAX_CACHED:
        known = _KINDS[index] = {}
    ids = fact_ids.tolist()
    found = list(map(known.get, ids))
    if None in found:
        missing = [i for i, kinds in zip(ids, found) if kinds is None]
        known.update(dict.fromkeys(missing, 0))
        for fact_id, row in fact_columns(db, missing, "text").items():
            known[fact_id] = carried_kinds(row["text"])
        found = list(map(known.get, ids))
    return np.fromiter(found, np.int64, len(ids))


def answer_kind_factors(db: sqlite3.Connection, index: VectorIndex, query: str, fact_ids: np.ndarray,
                        weight: float) -> np.ndarray | None:
    """Per fact, what its score is multiplied by for ``query`` (None: the query asks for no kind of answer
    this scores, or the weight is 0, and nothing changes)."""
    if weight <= 0 or not len(fact_ids):
        return None
    asked = asked_kinds(query) & SCORED_KINDS
    if not asked:
        return None
    return 1.0 + weight * ((fact_kinds(db, index, fact_ids) & asked) > 0)
