"""The facade's optional LLM (a mixin of ``Memory``): classifier, rerank, abstract.

With no ``[llm]`` configured every method here takes the no-LLM path: the
heuristic classifier, search order unchanged, abstract reporting every
cluster skipped. ``llm_stats`` counts calls and each kind of failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from engine.housekeeping import abstract as housekeeping_abstract
from engine.absorb.classify import classify
from engine.absorb.classify_llm import LLMClassifier
from engine.llm import LLMClient, LLMError
from engine.search.hybrid import Hit

if TYPE_CHECKING:
    from engine.memory import Memory

RERANK_SYSTEM = (
    "You rank search results for a question. Answer with one JSON array only, no prose: the numbers of the "
    "results from most to least relevant, e.g. [3, 1, 2]. Leave out results that do not help at all."
)


class LLMMethods:
    _llm_client: LLMClient | None = None

    @property
    def llm(self: "Memory") -> LLMClient:
        if self._llm_client is None:
            self._llm_client = LLMClient(self.settings.llm)
        return self._llm_client

    def llm_stats(self: "Memory") -> dict[str, Any]:
        """Whether an LLM is configured, and how many calls were made and failed (by kind) so far."""
        return {"configured": self.llm.configured, **self.llm.stats}

    def _classifier(self: "Memory") -> Callable[..., Any]:
        return LLMClassifier(self.llm) if self.llm.configured else classify

    def _pool_size(self: "Memory", top_k: int) -> int:
        """How many hits to fetch: top_k, or top_k x 3 for the LLM to re-order (DESIGN §4)."""
        return top_k * 3 if self.settings.memory.rerank and self.llm.configured else top_k

    def _rerank(self: "Memory", query: str, hits: list[Hit], top_k: int) -> list[Hit]:
        """The LLM's order of the expanded hits; any unusable answer keeps the engine's order."""
        if len(hits) <= 1 or not (self.settings.memory.rerank and self.llm.configured):
            return hits[:top_k]
        listing = "\n".join(f"{n}. {h.fact.text}" for n, h in enumerate(hits, start=1))
        try:
            order = self.llm.ask_json(RERANK_SYSTEM, f"QUESTION: {query}\nRESULTS:\n{listing}", max_tokens=200)
            if not isinstance(order, list) or not order or not all(
                    isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(hits) for n in order):
                raise LLMError("bad_shape", "expected a JSON array of result numbers")
        except LLMError as err:
            if err.kind == "bad_shape":
                self.llm.stats["bad_shape"] += 1
            return hits[:top_k]
        chosen = list(dict.fromkeys(n - 1 for n in order))
        rest = [k for k in range(len(hits)) if k not in set(chosen)]
        return [hits[k] for k in chosen + rest][:top_k]

    def abstract(self: "Memory", *, min_cluster: int = 3, dry_run: bool = False) -> housekeeping_abstract.Report:
        """Derive at most two facts per cluster of same-subject facts (needs the LLM; see DESIGN §7).

        Without an LLM every cluster is reported skipped and nothing is written. Returns the
        report: the plan (``None`` when there is nothing to do) and created / skipped / failed.
        """
        with self._store.guard():
            report = housekeeping_abstract.plan_abstract(
                self._store.db, self._ready_index(), self.embed, self.settings.memory, self.llm, min_cluster)
            if report.items:
                report.plan = self._run_pass("abstract", report.items, report.vectors, dry_run, report.summary())
            return report
