"""The local second pass of search: a cross-encoder re-orders the first hits (no LLM, no network).

The hybrid score ranks a question against each fact embedded alone; the cross-encoder
(engine/models/cross_encoder.py) reads the question and a fact together. The first
``cross_encoder_depth`` hits are re-ordered by

    (1 - w) · score / best score + w · sigmoid(logit),   w = cross_encoder_weight,

so a hit the cross-encoder finds no answer in moves down, and the engine's own order still counts
(w = 1 would be the cross-encoder's order alone). A hit longer than the model reads keeps its own
score in both parts: cut to its opening, a long text was judged on a part that may not hold the
answer (without this, LoCoMo's turns mixed with 2,500-character packs lost recall). Hits past the depth
keep their places. The depth, weight and that rule were chosen on held-out folds (docs/benchmarks.md,
"A cross-encoder's second pass").
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Sequence

import numpy as np

from engine.config import MemorySettings
from engine.errors import EmbeddingUnavailable
from engine.models.cross_encoder import CrossEncoder, shared_cross_encoder
from engine.search.hybrid import Hit

log = logging.getLogger(__name__)


def enabled(limits: MemorySettings) -> bool:
    """Depth 0 is off; so is 1, which would re-order nothing."""
    return limits.cross_encoder_depth > 1


def mixed_order(scores: np.ndarray, logits: np.ndarray, weight: float, cut: Sequence[bool] | None = None) -> np.ndarray:
    """The order (indexes, best first; ties keep the given order) of hits with these engine ``scores``
    (best first) and cross-encoder ``logits`` under the mix above. A hit whose pair was ``cut`` (longer
    than the model reads) keeps its own score in the cross-encoder's part too: the model judged only its
    opening. Shared with ``benchmarks/rerank_replay.py``, where the depth, weight and rule were chosen."""
    own = np.asarray(scores, np.float64) / max(float(scores[0]), 1e-9)
    read = 1 / (1 + np.exp(-np.asarray(logits, np.float64)))
    if cut is not None and len(cut):
        read = np.where(np.asarray(cut, bool), own, read)
    return np.argsort(-((1 - weight) * own + weight * read), kind="stable")


def reordered(hits: list[Hit], logits: np.ndarray, weight: float, cut: Sequence[bool] | None = None) -> list[Hit]:
    """The first ``len(logits)`` hits in ``mixed_order``, each carrying its logit; the rest as they were."""
    head = len(logits)
    if head == 0:
        return hits
    order = mixed_order(np.array([h.score for h in hits[:head]]), logits, weight, cut)
    return [replace(hits[k], cross_encoder=float(logits[k])) for k in order] + hits[head:]


class CrossReranker:
    """Loads the model on first use (or ``preload``), once; a model that cannot load leaves every
    search in the engine's order and is reported once in the log."""

    def __init__(self) -> None:
        self._model: CrossEncoder | None = None
        self._failed: str | None = None
        self._run_failed: str | None = None  # the first failure of a model run, logged once
        self._lock = threading.Lock()

    def preload(self, limits: MemorySettings) -> None:
        if enabled(limits):
            self._loaded(limits)

    @property
    def unavailable(self) -> str | None:
        """Why the model could not load (None: it loaded, or was never needed)."""
        return self._failed

    def _loaded(self, limits: MemorySettings) -> CrossEncoder | None:
        with self._lock:
            if self._model is None and self._failed is None:
                try:
                    self._model = shared_cross_encoder(limits.cross_encoder_tokens)
                except EmbeddingUnavailable as err:
                    self._failed = str(err)
                    log.warning("search keeps its own order: %s", err)
            return self._model

    def rerank(self, limits: MemorySettings, query: str, hits: list[Hit]) -> list[Hit]:
        if not enabled(limits) or len(hits) < 2:
            return hits
        model = self._loaded(limits)
        if model is None:
            return hits
        head = hits[: limits.cross_encoder_depth]
        try:
            logits, cut = model.read(query, [h.fact.text for h in head])
        except Exception as err:  # onnxruntime and tokenizers raise their own types; never fail a search
            if self._run_failed is None:
                self._run_failed = f"{type(err).__name__}: {str(err)[:200]}"
                log.warning("the re-ranking model failed; this search keeps its own order: %s", self._run_failed)
            return hits
        return reordered(hits, logits, limits.cross_encoder_weight, cut)
