"""Absorb planning: the pipeline of DESIGN §3 up to the plan (nothing written here).

Order: validate and reject secrets; merge identical texts in the batch and
drop exact duplicates of stored facts by hash (no embedding computed for
them: the fast path); embed the rest; merge near-identical batch items
(cosine >= 0.85) unless a conflict cue says they disagree; gather
candidates (nearest active facts, same-triple facts, earlier batch items);
classify each survivor.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from engine.absorb.classify import Candidate, classify
from engine.config import MemorySettings
from engine.absorb.conflict import conflict_cue
from engine.errors import InvalidInput, SecretRejected
from engine.store.plans import INSERTING, PlanItem
from engine.store.records import active_with_triple, candidate_rows, content_hash, normalise_text, stored_matches
from engine.absorb.validation import Incoming, reject_secrets, validate
from engine.search.vectors import VectorIndex


@dataclass
class RawItem:
    """One input to absorb: a dict or string, or a read error found before parsing."""
    value: Any
    error: str | None = None


@dataclass
class _Work:
    index: int
    item: Incoming
    hash: str
    vector: np.ndarray | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)
    # Normalised (subject, predicate), None without a triple: ``same_key`` as one comparison,
    # since every item meets every earlier one.
    key: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.item.subject is not None and self.item.predicate is not None:
            self.key = (normalise_text(self.item.subject), normalise_text(self.item.predicate))

    def same_key(self, other: "_Work") -> bool:
        return self.key is not None and self.key == other.key


def _richness(item: Incoming) -> tuple[int, int]:
    return (len(item.entities) + len(item.relations) + (item.subject is not None) + len(item.tags), len(item.text))


def _validated(raw: Sequence[RawItem], limits: MemorySettings, defaults: dict[str, Any],
               db: sqlite3.Connection) -> tuple[list[PlanItem], list[_Work], dict[str, tuple[int, str]]]:
    """Checked items, and the stored facts holding their texts (``stored_by_hash``).

    A text stored verbatim skips the text's secret scan (see ``reject_secrets``).
    Only a verbatim match counts: a text equal to a stored one up to case or
    spacing has its hash but may not be the same to the detector ("AKIA…").
    """
    rejected, checked = [], []
    for index, entry in enumerate(raw):
        try:
            if entry.error:
                raise InvalidInput(entry.error)
            item = validate(entry.value, limits, defaults, scan_secrets=False)
        except InvalidInput as err:
            rejected.append(PlanItem(index, "rejected", "validation", str(err)))
            continue
        checked.append(_Work(index, item, content_hash(item.text)))
    known, stored = stored_matches(db, [w.hash for w in checked]) if checked else ({}, set())
    work = []
    for w in checked:
        try:
            reject_secrets(w.item, text=w.item.text not in stored)
        except SecretRejected as err:
            rejected.append(PlanItem(w.index, "rejected", "secrets", str(err)))
            continue
        work.append(w)
    return rejected, work, known


def _evidence_of(work: _Work) -> dict[str, Any]:
    entry: dict[str, Any] = {"text": work.item.text}
    if work.item.source:
        entry["source"] = work.item.source
    return entry


def _merge(survivor: _Work, absorbed: _Work, reason: str, decided_by: str, similarity: float | None) -> PlanItem:
    survivor.evidence.append(_evidence_of(absorbed))
    survivor.evidence.extend(absorbed.evidence)
    return PlanItem(absorbed.index, "merged", decided_by, reason, incoming=absorbed.item.to_dict(),
                    merged_into=survivor.index, similarity=similarity, warnings=absorbed.item.warnings)


def _merge_identical(work: list[_Work]) -> tuple[list[PlanItem], list[_Work]]:
    first: dict[str, _Work] = {}
    merged, kept = [], []
    for w in work:
        if w.hash in first:
            merged.append(_merge(first[w.hash], w, f"same text as item {first[w.hash].index}", "hash", 1.0))
        else:
            first[w.hash] = w
            kept.append(w)
    return merged, kept


def _merge_near(work: list[_Work], limits: MemorySettings) -> tuple[list[PlanItem], list[_Work]]:
    """N->1 by cosine; the most informative item of a group survives, and disagreeing items never merge."""
    if len(work) < 2:
        return [], work
    vectors = np.stack([w.vector for w in work])
    sims = vectors @ vectors.T
    # Only pairs close enough are looked at, as plain ints, not 5,000 numpy scalars per batch of 100
    # ("not below", so a NaN similarity is treated as before).
    close = ~(sims < limits.consolidate_threshold)
    group_of: dict[int, int] = {}
    for i in range(1, len(work)):
        for j in np.flatnonzero(close[i, :i]).tolist():
            if j in group_of:
                continue
            if conflict_cue(work[i].item.text, work[j].item.text) or work[i].same_key(work[j]):
                continue
            group_of[i] = j
            break
    merged: list[PlanItem] = []
    absorbed: set[int] = set()
    for head in sorted(set(range(len(work))) - set(group_of)):
        members = [head] + [i for i, j in group_of.items() if j == head]
        if len(members) == 1:
            continue
        best = max(members, key=lambda m: _richness(work[m].item))
        for m in members:
            if m != best:
                merged.append(_merge(work[best], work[m], f"near-identical to item {work[best].index}",
                                     "batch", float(sims[best, m])))
                absorbed.add(m)
    return merged, [w for k, w in enumerate(work) if k not in absorbed]


class AbsorbPlanner:
    """Builds the items of one absorb plan against the current store."""

    def __init__(self, db: sqlite3.Connection, index: VectorIndex, embed: Callable[[list[str]], np.ndarray],
                 limits: MemorySettings, exclude: frozenset[int] = frozenset(),
                 classifier: Callable[..., Any] = classify) -> None:
        self.db, self.index, self.embed, self.limits = db, index, embed, limits
        self.exclude = exclude  # facts never matched (distill re-absorbs run facts: not against themselves)
        self.classifier = classifier  # the heuristic, or the LLM in front of it (classify_llm)

    def plan(self, raw: Sequence[RawItem], defaults: dict[str, Any]) -> tuple[list[PlanItem], dict[int, np.ndarray]]:
        items, work, known = _validated(raw, self.limits, defaults, self.db)
        merged, work = _merge_identical(work)
        items += merged
        if self.exclude:
            known = {h: found for h, found in known.items() if found[0] not in self.exclude}
        fresh = []
        for w in work:
            if w.hash not in known:
                fresh.append(w)
                continue
            fact_id, status = known[w.hash]
            reason = f"same text as fact {fact_id}" + ("" if status == "active" else
                                                       f", which is {status}: kept in history, not added again")
            items.append(PlanItem(w.index, "duplicate", "hash", reason, incoming=w.item.to_dict(),
                                  target_id=fact_id, target_status=status, similarity=1.0,
                                  evidence=w.evidence, warnings=w.item.warnings))
        if fresh:
            for w, vector in zip(fresh, self.embed([w.item.text for w in fresh])):
                w.vector = vector
        merged, fresh = _merge_near(fresh, self.limits)
        items += merged
        items += self._classify_all(fresh)
        vectors = {w.index: w.vector for w in fresh}
        return sorted(items, key=lambda it: it.index), vectors

    def _classify_all(self, fresh: list[_Work]) -> list[PlanItem]:
        if not fresh:
            return []
        vectors = np.stack([w.vector for w in fresh])
        nearest = self.index.nearest_many(vectors, self.limits.candidates)
        batch_sims = vectors @ vectors.T
        stored = self._stored_candidates(fresh, nearest)
        planned: dict[int, tuple[_Work, PlanItem]] = {}  # row -> earlier item to be inserted, in row order
        planned_by_key: dict[tuple[str, str], list[int]] = {}
        superseded: tuple[set[int], set[int]] = (set(), set())  # stored fact ids, batch indexes
        items = []
        for row, w in enumerate(fresh):
            # Only earlier items close enough, or sharing the triple, can be candidates: found
            # with one comparison per row and a lookup, not a Python loop over every earlier item.
            near = np.flatnonzero(batch_sims[row, :row] >= self.limits.related_threshold).tolist()
            rows = {r for r in near if r in planned} | set(planned_by_key.get(w.key, ()))
            close = [(float(batch_sims[row, r]), *planned[r]) for r in sorted(rows)]
            candidates = self._candidates(w, stored[row], close, superseded)
            decision = self.classifier(w.item, candidates, self.limits)
            target = decision.target
            item = PlanItem(w.index, decision.outcome, decision.decided_by, decision.reason,
                            incoming=w.item.to_dict(), similarity=decision.similarity,
                            evidence=w.evidence, warnings=w.item.warnings)
            if target is not None and target.fact_id is not None:
                item.target_id, item.target_status = target.fact_id, "active"
            elif target is not None:
                item.target_index = target.index
            items.append(item)
            if decision.outcome in INSERTING:
                planned[row] = (w, item)
                if w.key is not None:
                    planned_by_key.setdefault(w.key, []).append(row)
            if item.outcome == "supersede":
                superseded[0].add(item.target_id)
                superseded[1].add(item.target_index)
        return items

    def _stored_candidates(self, fresh: list[_Work], nearest: list[list[tuple[int, float]]]) -> list[list[Candidate]]:
        """Per fresh item: same-triple active facts first, then its nearest active facts (one query for all)."""
        triples = {(w.item.subject, w.item.predicate) for w in fresh if w.item.subject}
        by_triple = {key: [r[0] for r in active_with_triple(self.db, *key)] for key in triples}
        wanted = {fid for near in nearest for fid, _ in near} | {fid for ids in by_triple.values() for fid in ids}
        rows = candidate_rows(self.db, wanted)
        found = []
        for w, near in zip(fresh, nearest):
            scores = dict(near)
            ids = by_triple.get((w.item.subject, w.item.predicate), []) + [fid for fid, _ in near]
            cands = []
            for fid in dict.fromkeys(ids):
                row = rows.get(fid)
                if row is None or row["status"] != "active" or fid in self.exclude:
                    continue
                cosine = scores.get(fid)
                if cosine is None:
                    vec = self.index.vector(fid)
                    cosine = float(vec @ w.vector) if vec is not None else 0.0
                cands.append(Candidate(row["text"], row["scope"], cosine, fact_id=fid, subject=row["subject"],
                                       predicate=row["predicate"], object=row["object"]))
            found.append(cands)
        return found

    def _candidates(self, w: _Work, stored: list[Candidate], planned: list[tuple[float, _Work, PlanItem]],
                    superseded: tuple[set[int], set[int]]) -> list[Candidate]:
        """Stored candidates, minus facts superseded earlier in this batch, plus earlier batch items."""
        superseded_here, replaced = superseded
        found = [c for c in stored if c.fact_id not in superseded_here]
        for cosine, other, _item in planned:  # oldest first, each inserted in front: the newest ends up first
            if other.index in replaced:
                continue
            same_triple = w.same_key(other)
            if cosine >= self.limits.related_threshold or same_triple:
                found.insert(0 if same_triple else len(found),
                             Candidate(other.item.text, other.item.scope, float(cosine), index=other.index,
                                       subject=other.item.subject, predicate=other.item.predicate,
                                       object=other.item.object))
        return found
