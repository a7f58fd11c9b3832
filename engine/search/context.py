"""The context part of a search score: facts absorbed next to each other lend each other weight.

A fact absorbed in the same batch right before or after a strong match is
likely about the same thing: in a conversation the answer sits next to the
question, in a document the next sentence continues the last one. So a fact
also earns ``context_weight`` times the larger *base* score (cosine and BM25
times freshness) of its two batch neighbours. LoCoMo recall@5 goes from 0.585
to 0.63 at 0.2, and up in each of its six conversations.
"""

from __future__ import annotations

import numpy as np

from engine.search.vectors import VectorIndex


def lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray, missing: float = 0.0) -> np.ndarray:
    """``values`` at the positions of ``wanted`` in the unique ``keys``; ``missing`` where a key is not there."""
    if len(keys) == 0:
        return np.full(len(wanted), missing)
    order = np.argsort(keys)
    at = order[np.minimum(np.searchsorted(keys, wanted, sorter=order), len(keys) - 1)]
    return np.where(keys[at] == wanted, values[at], missing)


def context_of(index: VectorIndex, rows: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per row (-1: not indexed, no context): the larger base score of its two batch neighbours."""
    found = np.zeros(len(rows))
    known = rows >= 0
    if not known.any():
        return found
    before, after = index.neighbours(rows[known])
    found[known] = np.maximum(lookup(rows[known], base[known], before), lookup(rows[known], base[known], after))
    return found
