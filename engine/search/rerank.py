"""The optional second pass of search (DESIGN §4): the LLM re-orders an expanded set of hits."""

from __future__ import annotations

from engine.config import MemorySettings
from engine.models.llm import LLMClient, LLMError
from engine.search.hybrid import Hit

RERANK_SYSTEM = (
    "You rank search results for a question. Answer with one JSON array only, no prose: the numbers of the "
    "results from most to least relevant, e.g. [3, 1, 2]. Leave out results that do not help at all."
)


def enabled(limits: MemorySettings, llm: LLMClient) -> bool:
    return limits.rerank and llm.configured


def pool_size(limits: MemorySettings, llm: LLMClient, top_k: int) -> int:
    """How many hits to fetch: top_k, or top_k x 3 for the LLM to re-order."""
    return top_k * 3 if enabled(limits, llm) else top_k


def rerank(limits: MemorySettings, llm: LLMClient, query: str, hits: list[Hit], top_k: int) -> list[Hit]:
    """The LLM's order of the expanded hits; any unusable answer keeps the engine's order."""
    if len(hits) <= 1 or not enabled(limits, llm):
        return hits[:top_k]
    listing = "\n".join(f"{n}. {h.fact.text}" for n, h in enumerate(hits, start=1))
    try:
        order = llm.ask_json(RERANK_SYSTEM, f"QUESTION: {query}\nRESULTS:\n{listing}", max_tokens=200)
        if not isinstance(order, list) or not order or not all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(hits) for n in order):
            raise LLMError("bad_shape", "expected a JSON array of result numbers")
    except LLMError as err:
        if err.kind == "bad_shape":
            llm.stats["bad_shape"] += 1
        return hits[:top_k]
    chosen = list(dict.fromkeys(n - 1 for n in order))
    rest = [k for k in range(len(hits)) if k not in set(chosen)]
    return [hits[k] for k in chosen + rest][:top_k]
