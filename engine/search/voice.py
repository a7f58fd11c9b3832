"""Who speaks in a text, and who a question asks about: the voice part of a search score.

A question in the first person that does not address anyone ("what did I name my
dog?", "where do I work now?") asks about the asker's own life, and the answer is
in what the asker said: a statement in the first person ("I named her Luna").
An assistant's reply on the same topic speaks to the asker instead ("your dog
will...", "you could try..."), is often ten times longer, and matches the
question's topic as well or better, so without this it outranks the statement
that holds the answer. For such a question a fact's score is multiplied by
``1 + voice_weight · clip(voice_scale · (first − second), −1, 1)`` where *first*
and *second* are the shares of first- and second-person words in the fact: a
statement in the first person gains, a text speaking to "you" loses. Such a
question also takes no context part (``context_weight``, engine/search/context.py):
in a chat, what the asker's matching statement lends goes to the reply beside it,
which is how long replies outranked the statements they answer. A question
that addresses someone ("what did you recommend?", "can you remind me...") asks
for what was said to the asker, and one with no person words (a third-person
question about someone named, as in LoCoMo) is about nobody in particular: both
rank as before. Measured in ``benchmarks.ranking_replay`` and
``benchmarks.longmemeval`` (docs/benchmarks.md, "One long pooled memory").
"""

from __future__ import annotations

import re
import sqlite3
import weakref
from typing import Iterable

import numpy as np

from engine.search.vectors import VectorIndex
from engine.store.records import fact_columns

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
FIRST_PERSON = frozenset("i i'm i've i'd i'll me my mine myself".split())
SECOND_PERSON = frozenset("you you're you've you'd you'll your yours yourself yourselves".split())
# The share difference that counts fully: a user's statement has a first-person share of ~0.07 (median,
# LongMemEval), an assistant's reply a second-person share ~0.03 above its first-person one.
VOICE_SCALE = 10.0


def _words(text: str) -> list[str]:
    return [w.lower().replace("\u2019", "'") for w in _WORD.findall(text)]


def person_shares(text: str) -> tuple[float, float]:
    """Shares of first- and second-person words among a text's words (0, 0 without words)."""
    words = _words(text)
    if not words:
        return 0.0, 0.0
    return (sum(w in FIRST_PERSON for w in words) / len(words),
            sum(w in SECOND_PERSON for w in words) / len(words))


def asks_about_self(query: str) -> bool:
    """A question in the first person that addresses no one: its answer is the asker's own statement."""
    words = set(_words(query))
    return bool(words & FIRST_PERSON) and not words & SECOND_PERSON


def voice(text: str) -> float:
    """A text's voice in -1..1: toward 1 the more it speaks in the first person, toward -1 to "you"."""
    first, second = person_shares(text)
    return float(np.clip(VOICE_SCALE * (first - second), -1.0, 1.0))


# Per open memory: fact id -> voice. Facts' texts never change, so a fact's voice is worked out once.
_VOICES: weakref.WeakKeyDictionary[VectorIndex, dict[int, float]] = weakref.WeakKeyDictionary()
MAX_CACHED = 200_000  # a search reads a few hundred; cleared past this so the cache cannot grow without end


def voices(db: sqlite3.Connection, index: VectorIndex, fact_ids: Iterable[int]) -> dict[int, float]:
    """The voice of each fact, its text read from SQLite the first time a search ranks it."""
    known = _VOICES.get(index)
    if known is None or len(known) > MAX_CACHED:
        known = _VOICES[index] = {}
    wanted = [int(i) for i in fact_ids]
    missing = [i for i in wanted if i not in known]
    if missing:
        for fact_id, row in fact_columns(db, missing, "text").items():
            known[fact_id] = voice(row["text"])
    return {i: known.get(i, 0.0) for i in wanted}


def voice_factors(db: sqlite3.Connection, index: VectorIndex, query: str, fact_ids: np.ndarray,
                  weight: float) -> np.ndarray | None:
    """Per fact, what its score is multiplied by for ``query`` (None: the query asks about no one's own life,
    or the weight is 0, and nothing changes)."""
    if weight <= 0 or not len(fact_ids) or not asks_about_self(query):
        return None
    found = voices(db, index, fact_ids.tolist())
    return 1.0 + weight * np.fromiter((found[int(i)] for i in fact_ids), np.float64, len(fact_ids))
