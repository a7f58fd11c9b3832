"""The context part of a search score: facts absorbed next to each other lend each other weight.

A fact absorbed in the same batch right before or after a strong match is
likely about the same thing: in a conversation the answer sits next to the
question, in a document the next sentence continues the last one. So a fact
also earns ``context_weight`` times the larger *base* score (cosine and BM25
times freshness) of its two batch neighbours. LoCoMo recall@5 goes from 0.585
to 0.63 at 0.2, and up in each of its six conversations.

How much a neighbour lends depends on its length: ``min(1, context_length /
characters)`` of its score. A short turn that matches is one step of the exchange
next to it; a 2,500-character reply may match in a paragraph far from its
neighbour, so lending its whole score would lift the short turn beside it (or the
next passage) over facts that hold the answer. Measured on LoCoMo's four shapes
(turns, packs, observations, packs between single turns): a fact's *own* length
as the scale lifted turns but dropped the mixed shape by three points; the
lender's length keeps or lifts all four (README "Recall, held out").
"""

from __future__ import annotations

import weakref

import numpy as np

from engine.search.vectors import LENGTH_COLUMN, VectorIndex

# Per open memory: the share of its score every indexed row lends, worked out again after a write.
_GAINS: weakref.WeakKeyDictionary[VectorIndex, tuple[int, int, np.ndarray]] = weakref.WeakKeyDictionary()


def context_gains(index: VectorIndex, context_length: int) -> np.ndarray:
    """Per index row, the share of its score a fact lends its batch neighbours (float32, 0..1)."""
    cached = _GAINS.get(index)
    if cached is not None and cached[:2] == (index.version, context_length):
        return cached[2]
    chars = index.meta[:, LENGTH_COLUMN]
    gains = np.ones(len(chars), np.float32)
    if context_length > 0:
        # A row loaded without its length (NaN) lends all of its score, as before lengths were kept.
        known = chars > context_length
        gains[known] = context_length / chars[known]
    _GAINS[index] = (index.version, context_length, gains)
    return gains


def lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray, missing: float = 0.0) -> np.ndarray:
    """``values`` at the positions of ``wanted`` in the unique ``keys``; ``missing`` where a key is not there."""
    if len(keys) == 0:
        return np.full(len(wanted), missing)
    order = np.argsort(keys)
    at = order[np.minimum(np.searchsorted(keys, wanted, sorter=order), len(keys) - 1)]
    return np.where(keys[at] == wanted, values[at], missing)


def context_of(index: VectorIndex, rows: np.ndarray, base: np.ndarray, context_length: int) -> np.ndarray:
    """Per row (-1: not indexed, no context): the larger of what its two batch neighbours lend,
    each its base score times its share (``context_gains``)."""
    found = np.zeros(len(rows))
    known = rows >= 0
    if not known.any():
        return found
    before, after = index.neighbours(rows[known])
    lent = base[known] * context_gains(index, context_length)[rows[known]]
    both = lookup(rows[known], lent, np.concatenate([before, after]))  # one sort of the rows, not two
    found[known] = np.maximum(both[: len(before)], both[len(before):])
    return found
