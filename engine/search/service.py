"""Finding facts in one open memory: hybrid search, and filtered browsing without a query."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from engine.errors import InvalidInput
from engine.models.llm import LLMClient
from engine.search import browse, cross_rerank, rerank
from engine.search.hybrid import Hit, Searcher, SearchFilters
from engine.search.index_sync import IndexSync
from engine.search.text_first import text_only_hits
from engine.store.context import Context
from engine.store.records import load_facts

MAX_TOP_K = 1000
MAX_QUERY_CHARS = 4000


class SearchService:
    def __init__(self, ctx: Context, index: IndexSync, llm: Callable[[], LLMClient]) -> None:
        self._ctx, self._index, self._llm = ctx, index, llm
        self.cross = cross_rerank.CrossReranker()

    def search(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
               query_vector: np.ndarray | None = None, count_access: bool = True) -> list[Hit]:
        return self.search_timed(query, top_k=top_k, filters=filters, query_vector=query_vector,
                                 count_access=count_access)[0]

    def search_timed(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
                     query_vector: np.ndarray | None = None, count_access: bool = True,
                     text_first: bool = False) -> tuple[list[Hit], Timing]:
        """The hits and where the time went: embedding the query, the engine's own search, the whole call.
        ``count_access=False`` for a person browsing (gc's "never read" is about agents using a fact).
        ``text_first``: while the embedding model or the vector index is not loaded yet (``warm_up`` is
        loading them in another thread), answer from the text alone at once (``text_first.py``;
        ``Timing.text_only`` says so) instead of waiting for them."""
        started = time.perf_counter()
        check_query(query, top_k)
        if not query.strip():
            return [], Timing(0.0, 0.0, _ms_since(started))
        ctx, filters = self._ctx, filters or SearchFilters()
        limits, llm = ctx.settings.memory, self._llm()
        if text_first and query_vector is None and not self.vectors_ready():
            with ctx.store.guard(reads_first=False):
                hits = text_only_hits(ctx.store.db, limits, query, top_k, filters, ctx.clock())
                if count_access:
                    ctx.store.count_reads([h.fact.id for h in hits], ctx.clock())
            return hits, Timing(0.0, _ms_since(started), _ms_since(started), text_only=True)
        with ctx.store.guard(reads_first=False):  # a search's own reads are written in batches
            # The model before the index, so the model's load-time peak comes before the index's memory.
            vector = ctx.embed([query])[0] if query_vector is None else np.asarray(query_vector, np.float32)
            embedded = time.perf_counter()
            index = self._index.ready()
            if len(vector) != index.dim:
                raise InvalidInput(f"query vector has {len(vector)} dimensions; this memory uses {index.dim}")
            pool = max(rerank.pool_size(limits, llm, top_k),
                       limits.cross_encoder_depth if cross_rerank.enabled(limits) else 0)
            hits = Searcher(ctx.store.db, index, limits, self._index.text()).search(
                query, vector, pool, filters, ctx.clock())
        searched = time.perf_counter()
        # The second passes read only the hits' texts, so the store is not held while a model (or an LLM)
        # takes its tenths of a second: another thread's read or write goes on meanwhile.
        hits = self.cross.rerank(limits, query, hits)
        reordered = time.perf_counter()
        hits = rerank.rerank(limits, llm, query, hits[: rerank.pool_size(limits, llm, top_k)], top_k)
        # Access counters feed gc; they are telemetry, written in batches (engine/store/reads.py).
        if count_access:
            with ctx.store.guard(reads_first=False):
                ctx.store.count_reads([h.fact.id for h in hits], ctx.clock())
        embed_ms = (embedded - started) * 1000 if query_vector is None else 0.0
        # The pass ran when its hits carry their logits (not when it is off, nor when its model cannot load).
        ran = any(h.cross_encoder is not None for h in hits)
        return hits, Timing(embed_ms, (searched - embedded) * 1000, _ms_since(started),
                            rerank_ms=(reordered - searched) * 1000 if ran else None)

    def vectors_ready(self) -> bool:
        """Whether a hybrid search would start at once: the embedding model and the vector index are loaded."""
        return self._ctx.model_loaded and self._index.loaded

    def browse(self, filters: SearchFilters | None = None, order_by: str = "id", descending: bool = True) -> list[int]:
        browse.check_order(order_by)
        with self._ctx.store.guard():
            return browse.matching_ids(self._ctx.store.db, filters or SearchFilters(), self._ctx.clock(),
                                       order_by, descending)

    def describe(self, fact_ids: Sequence[int]) -> list[Hit]:
        with self._ctx.store.guard():
            found = load_facts(self._ctx.store.db, fact_ids)
        return browse.describe([found[i] for i in fact_ids if i in found], self._ctx.clock(), self._ctx.settings.memory)


@dataclass(frozen=True)
class Timing:
    """Milliseconds: embedding the query, the engine-only search (index, BM25, ranking), the
    cross-encoder's pass when it is on (``rerank_ms``, None when off), and the whole call (with any
    LLM re-rank)."""
    embed_ms: float
    search_ms: float
    total_ms: float
    text_only: bool = False  # answered by the text alone: the vectors were still loading (``text_first``)
    rerank_ms: float | None = None

    def to_dict(self) -> dict[str, float | bool]:
        found: dict[str, float | bool] = {"embed_ms": round(self.embed_ms, 3), "search_ms": round(self.search_ms, 3),
                                          "total_ms": round(self.total_ms, 3)}
        if self.rerank_ms is not None:
            found["rerank_ms"] = round(self.rerank_ms, 3)
        return {**found, "text_only": True} if self.text_only else found


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def check_query(query: object, top_k: int) -> None:
    if not isinstance(query, str):
        raise InvalidInput("query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    if any("\ud800" <= ch <= "\udfff" for ch in query):
        raise InvalidInput("query is not valid UTF-8 (a lone surrogate)")
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
