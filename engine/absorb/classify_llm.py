"""The absorb classifier with an LLM in front of the heuristic (DESIGN §3, step 6).

The heuristic decides first. When its rules leave no doubt (nothing close, a
same-triple match, a near copy, a near copy with one thing flipped: its
decision is ``certain``) that decision stands and no call is made; the LLM is
asked only about the uncertain band (close, but the words differ in ways the
rules cannot read), for one strict JSON object ``{"outcome", "candidate",
"reason"}``. An answer that cannot be
used (no connection, a timeout, prose, broken JSON, an unknown outcome, a
candidate number out of range) falls back to the heuristic, and the
decision's ``decided_by`` and reason say which decided and why.
"""

from __future__ import annotations

from engine.absorb.classify import Candidate, Decision, classify, same_key
from engine.config import MemorySettings
from engine.models.llm import LLMClient, LLMError
from engine.absorb.secrets import first_secret
from engine.absorb.validation import Incoming
from engine.vocabulary import CLASSIFICATIONS

SYSTEM = (
    "You maintain an agent's long-term memory. Compare a NEW fact with numbered EXISTING facts and choose "
    "exactly one outcome: duplicate (says the same as one existing fact), supersede (a newer value of the same "
    "thing replaces an existing fact), contradict (disagrees with an existing fact; both stay), related (same "
    "topic, different information), new (none of these). Answer with one JSON object only, no prose: "
    '{"outcome": "...", "candidate": <number of the existing fact, or null for new>, "reason": "<short>"}'
)


def _prompt(item: Incoming, candidates: list[Candidate]) -> str:
    lines = [f"NEW: {item.text}", "EXISTING:"]
    lines += [f"{n}. {c.text}" for n, c in enumerate(candidates, start=1)]
    return "\n".join(lines)


def _decision(answer: object, candidates: list[Candidate]) -> Decision:
    if not isinstance(answer, dict):
        raise LLMError("bad_shape", "expected a JSON object")
    outcome, number, reason = answer.get("outcome"), answer.get("candidate"), answer.get("reason")
    if outcome not in CLASSIFICATIONS:
        raise LLMError("bad_shape", f"unknown outcome {str(outcome)[:30]!r}")
    if not isinstance(reason, str) or not reason.strip() or first_secret(reason):
        raise LLMError("bad_shape", "missing or unusable reason")
    reason = " ".join(reason.split())[:200]
    if outcome == "new":
        best = max((c.cosine for c in candidates), default=None)
        return Decision("new", None, best, "llm", f"LLM: {reason}")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(candidates):
        raise LLMError("bad_shape", f"candidate must be a number from 1 to {len(candidates)}")
    target = candidates[number - 1]
    return Decision(outcome, target, target.cosine, "llm", f"LLM: {reason} ({target.label})")


class LLMClassifier:
    """A drop-in for ``classify`` that asks the LLM first; counts live in the client's ``stats``."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def __call__(self, item: Incoming, candidates: list[Candidate], limits: MemorySettings) -> Decision:
        heuristic = classify(item, candidates, limits)
        if heuristic.certain:
            return heuristic
        close = [c for c in candidates if c.cosine >= limits.related_threshold or same_key(item, _as_incoming(c))]
        if not close:
            return heuristic  # nothing to compare with: no call needed
        try:
            return _decision(self.client.ask_json(SYSTEM, _prompt(item, close), max_tokens=200), close)
        except LLMError as err:
            if err.kind == "bad_shape":
                self.client.stats["bad_shape"] += 1
            return Decision(heuristic.outcome, heuristic.target, heuristic.similarity, "heuristic",
                            f"{heuristic.reason} (LLM not used: {err.kind})")


def _as_incoming(c: Candidate) -> Incoming:
    return Incoming(c.text, c.scope, "explicit", subject=c.subject, predicate=c.predicate, object=c.object)
