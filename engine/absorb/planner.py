"""Absorb planning: the pipeline of DESIGN §3 up to the plan (nothing written here).

Order: validate and reject secrets; merge identical texts in the batch and
drop exact duplicates of stored facts by hash (no embedding computed for
them: the fast path); embed the rest; merge near-identical batch items
(cosine >= 0.85) unless they differ in a cue, identifier, number, date or
name, or the survivor's words would not hold the merged item's; gather
candidates (nearest active facts, same-triple facts, earlier batch items);
classify each survivor.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from engine.absorb.classify import Candidate, classify
from engine.absorb.conflict import difference, words_covered
from engine.absorb.item_names import item_name, refusal
from engine.absorb.span_similarity import SpanSimilarity
from engine.absorb.text_contrast import profile
from engine.absorb.validation import Incoming, reject_secrets, validate
from engine.config import MemorySettings
from engine.errors import InvalidInput, SecretRejected
from engine.search.vectors import VectorIndex
from engine.store.plans import INSERTING, PlanItem
from engine.store.records import active_with_triple, candidate_rows, content_hash, normalise_text, stored_matches


@dataclass
class RawItem:
    """One input to absorb: a dict or string, or a read error found before parsing; ``line`` is the
    input line it was read from, when it came from a file (the plan's reasons name it)."""
    value: Any
    error: str | None = None
    line: int | None = None


@dataclass
class BatchItem:
    """One valid incoming item of a batch, with what planning learns about it."""
    index: int
    item: Incoming
    hash: str
    line: int | None = None
    vector: np.ndarray | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)
    # Normalised (subject, predicate), None without a triple: ``same_key`` as one comparison,
    # since every item meets every earlier one.
    key: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.item.subject is not None and self.item.predicate is not None:
            self.key = (normalise_text(self.item.subject), normalise_text(self.item.predicate))

    def same_key(self, other: "BatchItem") -> bool:
        return self.key is not None and self.key == other.key

    @property
    def name(self) -> str:
        return item_name(self.index, self.line)


def _richness(item: Incoming) -> tuple[int, int]:
    return (len(item.entities) + len(item.relations) + (item.subject is not None) + len(item.tags), len(item.text))


def _validated(raw: Sequence[RawItem], limits: MemorySettings, defaults: dict[str, Any],
               db: sqlite3.Connection) -> tuple[list[PlanItem], list[BatchItem], dict[str, tuple[int, str]]]:
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
            reason = refusal(index, entry.line, str(err), entry.value)
            rejected.append(PlanItem(index, "rejected", "validation", reason))
            continue
        checked.append(BatchItem(index, item, content_hash(item.text), entry.line))
    known, stored = stored_matches(db, [w.hash for w in checked]) if checked else ({}, set())
    work = []
    for w in checked:
        try:
            reject_secrets(w.item, text=w.item.text not in stored)
        except SecretRejected as err:
            reason = refusal(w.index, w.line, str(err), w.item.text)
            rejected.append(PlanItem(w.index, "rejected", "secrets", reason))
            continue
        work.append(w)
    return rejected, work, known


def _evidence_of(work: BatchItem) -> dict[str, Any]:
    entry: dict[str, Any] = {"text": work.item.text}
    if work.item.source:
        entry["source"] = work.item.source
    return entry


def _merge(survivor: BatchItem, absorbed: BatchItem, reason: str, decided_by: str, similarity: float | None) -> PlanItem:
    survivor.evidence.append(_evidence_of(absorbed))
    survivor.evidence.extend(absorbed.evidence)
    return PlanItem(absorbed.index, "merged", decided_by, reason, incoming=absorbed.item.to_dict(),
                    merged_into=survivor.index, similarity=similarity, warnings=absorbed.item.warnings)


def _merge_identical(work: list[BatchItem]) -> tuple[list[PlanItem], list[BatchItem]]:
    first: dict[str, BatchItem] = {}
    merged, kept = [], []
    for w in work:
        if w.hash in first:
            merged.append(_merge(first[w.hash], w, f"same text as {first[w.hash].name}", "hash", 1.0))
        else:
            first[w.hash] = w
            kept.append(w)
    return merged, kept


# Rows of batch vectors compared at a time in ``merge_near``: similarity blocks are at most
# MERGE_BLOCK x MERGE_BLOCK floats (4 MiB), however large the batch (a 100k-line import as one
# n x n matrix needed 37 GiB).
MERGE_BLOCK = 1024


def _may_fold(a: BatchItem, b: BatchItem) -> bool:
    """Two close items are one fact: nothing tells them apart and one's words hold all the other's.

    The survivor's text is what search indexes (the merged text is kept only as evidence and
    a hash alias), so a merge that would hide words from search is not made; both items go on
    to the classifier and are linked instead.
    """
    if a.same_key(b) or difference(a.item.text, b.item.text):
        return False
    return words_covered(a.item.text, b.item.text) or words_covered(b.item.text, a.item.text)


def _attach(work: list[BatchItem], rows: range, columns: list[int], vectors: np.ndarray,
            threshold: float, group_of: dict[int, int]) -> None:
    """For each unattached row, the first column (lowest index, a group head, before the row) it may fold into."""
    if not columns:
        return
    sims = vectors[rows.start:rows.stop] @ vectors[columns].T
    # "not below", so a NaN similarity is treated as before: close, then refused by the checks.
    close = ~(sims < threshold)
    for r, i in enumerate(rows):
        if i in group_of:
            continue
        for c in np.flatnonzero(close[r]).tolist():
            j = columns[c]
            if j >= i:
                break
            if j not in group_of and _may_fold(work[i], work[j]):
                group_of[i] = j
                break


def merge_near(work: list[BatchItem], limits: MemorySettings, block: int = MERGE_BLOCK) -> tuple[list[PlanItem], list[BatchItem]]:
    """N->1 by cosine; disagreeing items, or items the survivor's words would not cover, never merge.

    Each item joins the first earlier group head close enough to fold into. Rows are taken
    ``block`` at a time against the heads so far, ``block`` heads at a time, so memory stays
    O(n * block) whatever the batch size; the order of the checks, and so the groups, are
    those of the whole matrix.
    """
    if len(work) < 2:
        return [], work
    vectors = np.stack([w.vector for w in work])
    group_of: dict[int, int] = {}
    for start in range(0, len(work), block):
        rows = range(start, min(start + block, len(work)))
        heads = [j for j in range(start) if j not in group_of]
        for h in range(0, len(heads), block):
            _attach(work, rows, heads[h:h + block], vectors, limits.consolidate_threshold, group_of)
        # Heads inside the block are settled row by row, so each row sees the rows before it.
        _attach(work, rows, list(rows), vectors, limits.consolidate_threshold, group_of)
    members_of: dict[int, list[int]] = {}
    for i, j in group_of.items():
        members_of.setdefault(j, [j]).append(i)
    merged: list[PlanItem] = []
    absorbed: set[int] = set()
    for head, members in sorted(members_of.items()):
        words = [profile(work[m].item.text).words for m in members]
        everything = frozenset().union(*words)
        covering = [m for m, w in zip(members, words) if w >= everything]
        # The richest item that holds every member's words survives; when none does, the head
        # survives and only the members whose words it holds fold into it.
        best = max(covering, key=lambda m: _richness(work[m].item)) if covering else head
        for m in members:
            if m != best and words_covered(work[m].item.text, work[best].item.text):
                similarity = float(vectors[best] @ vectors[m])
                merged.append(_merge(work[best], work[m], f"near-identical to {work[best].name}",
                                     "batch", similarity))
                absorbed.add(m)
    return merged, [w for k, w in enumerate(work) if k not in absorbed]


def earlier_close(vectors: np.ndarray, threshold: float, block: int = MERGE_BLOCK) -> Iterator[dict[int, float]]:
    """Per row in order: the earlier rows at least ``threshold`` similar, with their cosines.

    Computed ``block`` rows against ``block`` columns at a time: memory is O(block^2) plus
    the close pairs themselves, not the n x n matrix.
    """
    for start in range(0, len(vectors), block):
        stop = min(start + block, len(vectors))
        found: list[dict[int, float]] = [{} for _ in range(start, stop)]
        for col in range(0, stop, block):
            sims = vectors[start:stop] @ vectors[col:min(col + block, stop)].T
            for r, c in zip(*np.nonzero(sims >= threshold)):
                if col + c < start + r:
                    found[r][int(col + c)] = float(sims[r, c])
        yield from found


class AbsorbPlanner:
    """Builds the items of one absorb plan against the current store."""

    def __init__(self, db: sqlite3.Connection, index: VectorIndex, embed: Callable[[list[str]], np.ndarray],
                 limits: MemorySettings, exclude: frozenset[int] = frozenset(),
                 classifier: Callable[..., Any] = classify) -> None:
        self.db, self.index, self.embed, self.limits = db, index, embed, limits
        self.spans = SpanSimilarity(embed)
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
        merged, fresh = merge_near(fresh, self.limits)
        items += merged
        items += self._classify_all(fresh)
        vectors = {w.index: w.vector for w in fresh}
        return sorted(items, key=lambda it: it.index), vectors

    def _classify_all(self, fresh: list[BatchItem]) -> list[PlanItem]:
        if not fresh:
            return []
        vectors = np.stack([w.vector for w in fresh])
        nearest = self.index.nearest_many(vectors, self.limits.candidates)
        earlier = earlier_close(vectors, self.limits.related_threshold)
        stored = self._stored_candidates(fresh, nearest)
        planned: dict[int, tuple[BatchItem, PlanItem]] = {}  # row -> earlier item to be inserted, in row order
        planned_by_key: dict[tuple[str, str], list[int]] = {}
        superseded: tuple[set[int], set[int]] = (set(), set())  # stored fact ids, batch indexes
        items = []
        for row, w in enumerate(fresh):
            # Only earlier items close enough, or sharing the triple, can be candidates: found
            # with one comparison per row and a lookup, not a Python loop over every earlier item.
            sims = next(earlier)
            rows = {r for r in sims if r in planned} | set(planned_by_key.get(w.key, ()))
            close = [(sims[r] if r in sims else float(vectors[row] @ vectors[r]), *planned[r]) for r in sorted(rows)]
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

    def _stored_candidates(self, fresh: list[BatchItem], nearest: list[list[tuple[int, float]]]) -> list[list[Candidate]]:
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
                                       predicate=row["predicate"], object=row["object"], spans=self.spans))
            found.append(cands)
        return found

    def _candidates(self, w: BatchItem, stored: list[Candidate], planned: list[tuple[float, BatchItem, PlanItem]],
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
                                       line=other.line, subject=other.item.subject, predicate=other.item.predicate,
                                       object=other.item.object, spans=self.spans))
        return found
