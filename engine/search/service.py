"""Finding facts in one open memory: hybrid search, and filtered browsing without a query."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from engine.errors import InvalidInput
from engine.llm import LLMClient
from engine.search import browse, rerank
from engine.search.hybrid import Hit, Searcher, SearchFilters
from engine.search.index_sync import IndexSync
from engine.store.context import Context
from engine.store.records import load_facts

MAX_TOP_K = 1000
MAX_QUERY_CHARS = 4000


class SearchService:
    def __init__(self, ctx: Context, index: IndexSync, llm: Callable[[], LLMClient]) -> None:
        self._ctx, self._index, self._llm = ctx, index, llm

    def search(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
               query_vector: np.ndarray | None = None, count_access: bool = True) -> list[Hit]:
        check_query(query, top_k)
        if not query.strip():
            return []
        ctx, filters = self._ctx, filters or SearchFilters()
        limits, llm = ctx.settings.memory, self._llm()
        with ctx.store.guard(reads_first=False):  # a search's own reads are written in batches
            # The model before the index, so the model's load-time peak comes before the index's memory.
            vector = ctx.embed([query])[0] if query_vector is None else np.asarray(query_vector, np.float32)
            index = self._index.ready()
            if len(vector) != index.dim:
                raise InvalidInput(f"query vector has {len(vector)} dimensions; this memory uses {index.dim}")
            hits = Searcher(ctx.store.db, index, limits).search(
                query, vector, rerank.pool_size(limits, llm, top_k), filters, ctx.clock())
            hits = rerank.rerank(limits, llm, query, hits, top_k)
            # Access counters feed gc; they are telemetry, written in batches (engine/store/reads.py).
            if count_access:
                ctx.store.count_reads([h.fact.id for h in hits], ctx.clock())
        return hits

    def browse(self, filters: SearchFilters | None = None) -> list[int]:
        with self._ctx.store.guard():
            return browse.matching_ids(self._ctx.store.db, filters or SearchFilters(), self._ctx.clock())

    def describe(self, fact_ids: Sequence[int]) -> list[Hit]:
        with self._ctx.store.guard():
            found = load_facts(self._ctx.store.db, fact_ids)
        return browse.describe([found[i] for i in fact_ids if i in found], self._ctx.clock(), self._ctx.settings.memory)


def check_query(query: object, top_k: int) -> None:
    if not isinstance(query, str):
        raise InvalidInput("query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    if any("\ud800" <= ch <= "\udfff" for ch in query):
        raise InvalidInput("query is not valid UTF-8 (a lone surrogate)")
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
