"""What absorb would decide for a stored text and an incoming one, pair by pair, so people can check
the classifier and their thresholds (``memlens classify --batch``) without writing anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from engine.absorb.classify import Candidate, classify
from engine.absorb.classify_llm import LLMClassifier
from engine.absorb.span_similarity import SpanSimilarity
from engine.absorb.validation import validate
from engine.config import MemorySettings, Settings
from engine.errors import InvalidInput
from engine.models.embeddings import Embedder, shared_embedder
from engine.models.llm import LLMClient

MAX_PAIRS = 10_000


@dataclass(frozen=True)
class PairDecision:
    id: Any
    outcome: str | None
    similarity: float | None
    reason: str
    decided_by: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.error is not None:
            return {"id": self.id, "error": self.error}
        return {"id": self.id, "outcome": self.outcome, "similarity": round(self.similarity, 4),
                "reason": self.reason, "decided_by": self.decided_by}


def decide_pairs(pairs: Sequence[tuple[Any, Any, Any]], limits: MemorySettings,
                 embed: Callable[[list[str]], np.ndarray], classifier: Callable[..., Any]) -> list[PairDecision]:
    """``pairs`` of (id, stored text, incoming text); a bad pair is one error line, the rest go on.
    Texts pass absorb's validation and secret check first, so a secret is refused, never echoed."""
    if len(pairs) > MAX_PAIRS:
        raise InvalidInput(f"at most {MAX_PAIRS:,} pairs at a time")
    checked: list[tuple[Any, str, str]] = []
    decided: dict[int, PairDecision] = {}
    for k, (pair_id, stored, incoming) in enumerate(pairs):
        try:
            old = validate({"text": stored}, limits).text
            new = validate({"text": incoming}, limits)
            checked.append((k, old, new))
        except InvalidInput as err:
            decided[k] = PairDecision(pair_id, None, None, "", error=str(err))
    if checked:
        spans = SpanSimilarity(embed)
        vectors = embed([t for _, old, new in checked for t in (old, new.text)])
        for n, (k, old, new) in enumerate(checked):
            cosine = float(np.dot(vectors[2 * n], vectors[2 * n + 1]))
            candidate = Candidate(text=old, scope=new.scope, cosine=cosine, fact_id=0, spans=spans)
            decision = classifier(new, [candidate], limits)
            reason = decision.reason.replace("fact 0", "the stored text")
            decided[k] = PairDecision(pairs[k][0], decision.outcome, cosine, reason, decision.decided_by)
    return [decided[k] for k in range(len(pairs))]


def classify_pairs(pairs: Sequence[tuple[Any, Any, Any]], settings: Settings,
                   embedder: Embedder | None = None) -> list[PairDecision]:
    """``decide_pairs`` with the classifier absorb would use under ``settings`` (the LLM when one is
    configured, else the heuristic) and the configured embedding model; no memory file is needed."""
    llm = LLMClient(settings.llm)
    model = embedder or shared_embedder(settings.embedding.model, settings.embedding.batch_size,
                                        settings.embedding.token_budget)
    return decide_pairs(pairs, settings.memory, lambda texts: model.embed(list(texts)),
                        LLMClassifier(llm) if llm.configured else classify)
