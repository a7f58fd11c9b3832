"""Applying a plan: exactly its selected items, in one transaction, journaled.

Before writing, every selected item's target is checked against the store as
it is now; a plan made against a state that has since changed is refused as a
whole (status ``refused``) and nothing is written.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.absorb.validation import Incoming, expires_at
from engine.changes import ChangeRecord
from engine.errors import PlanError
from engine.store import journal_chain
from engine.store.journal import changes_written
from engine.store.json_text import encoder
from engine.store.decay import reinforced
from engine.store.entities import link_entities
from engine.store.plans import INSERTING, STATUS_CHANGES, Plan, PlanItem
from engine.store.edges import contradiction_open, has_edge, supersedes_cycle
from engine.store.facts_read import status_of, tags_column
from engine.vocabulary import EDGE_TYPES
from engine.store.records import (active_hash_owners, add_aliases, content_hash, fact_columns, insert_edge, insert_fact,
                                  stored_list, update_fact, write_reinforcements, written_state)

EDGE_OF = {"supersede": "supersedes", "contradict": "contradicts", "related": "related"}
SYMMETRIC_EDGES = frozenset({"contradicts", "related"})
# Columns an item may record in ``before`` (what its reason rests on); any change refuses the plan.
CHECKED = ("tags", "last_reinforced", "confidence", "access_count", "expires_at")
# content_hash: the journal's hash chain commits to it, and a fact's never changes.
REINFORCE_COLUMNS = "status, confidence, reinforcement_count, last_reinforced, evidence, content_hash"
TARGET_COLUMNS = "status, reinforcement_count, evidence, content_hash, " + ", ".join(CHECKED)
# Journal details as ``records.journal`` writes them; one encoder, not one per row (json.dumps with options).
_journal_json = encoder(ensure_ascii=False, sort_keys=True)


@dataclass
class Changes:
    """What an apply changed, so callers (search index, GUI panes) refresh only that."""
    plan_id: int | None = None
    inserted: list[int] = field(default_factory=list)
    deactivated: list[int] = field(default_factory=list)
    touched: list[int] = field(default_factory=list)  # other columns changed (tags)
    # Reinforced facts: fact id -> (last_reinforced, confidence), the only columns a reinforcement
    # changes that the search index holds (its vector stays), so the index need not re-read the fact.
    reinforced: dict[int, tuple[float, float]] = field(default_factory=dict)
    # Inserted facts as the index holds them, fact id -> (vector, last_reinforced, confidence, kind,
    # batch, text length): just written, so the index need not read them back (ids missing here are re-read).
    inserted_rows: dict[int, tuple[np.ndarray, float, float, str, int, int]] = field(default_factory=dict)
    # The change record, when the writer built it from what it wrote (``PlanWriter``); None: read it
    # back from the journal (``changes_between``), which gives the same record.
    record: ChangeRecord | None = None


def select_items(plan: Plan, only: list[int] | None) -> list[PlanItem]:
    if plan.status != "draft":
        raise PlanError(f"plan {plan.id} is {plan.status}; only a draft plan can be applied")
    chosen = set(only) if only else {it.index for it in plan.items}
    known = {it.index for it in plan.items}
    if missing := sorted(chosen - known):
        raise PlanError(f"plan {plan.id} has no item {missing[0]} (items are 0-{max(known, default=0)})")
    for it in plan.items:
        if it.index not in chosen:
            continue
        if it.merged_into is not None and it.merged_into not in chosen:
            raise PlanError(f"item {it.index} is merged into item {it.merged_into}; select item {it.merged_into} too")
        if it.target_index is not None and it.target_index not in chosen:
            raise PlanError(f"item {it.index} builds on item {it.target_index}; select item {it.target_index} too")
    return [it for it in plan.items if it.index in chosen and it.outcome != "rejected"]


def target_rows(db: sqlite3.Connection, selected: list[PlanItem]) -> dict[int, sqlite3.Row]:
    """The rows of the facts the items name (targets, edge ends), with what ``check_fresh`` compares
    and what a reinforcement starts from: read inside the write transaction, they serve both."""
    ends = [e["to_id"] for it in selected for e in it.edges]
    return fact_columns(db, [*(it.target_id for it in selected if it.target_id is not None), *ends], TARGET_COLUMNS)


def check_fresh(db: sqlite3.Connection, plan: Plan, selected: list[PlanItem],
                facts: dict[int, sqlite3.Row] | None = None) -> list[str]:
    """Reasons why the plan no longer matches the store (empty when it still does).

    ``facts`` are the ``target_rows`` of ``selected`` when the caller has read them already.
    """
    problems = []
    facts = target_rows(db, selected) if facts is None else facts
    for it in selected:
        if it.target_id is None:
            continue
        fact = facts.get(it.target_id)
        if fact is None or fact["status"] != it.target_status:
            now = "missing" if fact is None else fact["status"]
            problems.append(f"item {it.index}: fact {it.target_id} is now {now} (was {it.target_status})")
            continue
        for column, value in (it.before or {}).items():
            current = stored_list(fact[column], "tags") if column == "tags" else fact[column]
            if current != value:
                problems.append(f"item {it.index}: the {column} of fact {it.target_id} changed since the plan "
                                f"was made")
    for it in selected:
        for edge in it.edges:
            fact = facts.get(edge["to_id"])
            if fact is None or edge.get("to_status") not in (None, fact["status"]):
                now = "missing" if fact is None else fact["status"]
                problems.append(f"item {it.index}: fact {edge['to_id']} is now {now} (was {edge.get('to_status')})")
            elif it.outcome == "link" and (src := link_source(it)) is not None and \
                    link_direction(db, src, edge["to_id"], edge["type"]) != (src, edge["to_id"]):
                problems.append(f"item {it.index}: facts {src} and {edge['to_id']} are already linked "
                                f"({edge['type']})")
    # A fact this plan retires, or the inserted fact's own source (an edge of the item), may share its
    # text (distill re-absorbs a run fact's text as agent knowledge): neither counts as "stored since".
    retiring = {it.target_id for it in selected if it.outcome in STATUS_CHANGES}
    inserting = [(it, content_hash(it.incoming["text"])) for it in selected if it.outcome in INSERTING]
    already = active_hash_owners(db, [text_hash for _, text_hash in inserting])
    for it, text_hash in inserting:
        sources = {e["to_id"] for e in it.edges}
        found = sorted(already.get(text_hash, set()) - retiring - sources)
        if found:
            problems.append(f"item {it.index}: the same text was stored since, as fact {found[0]}")
    return problems


def edge_exists(db: sqlite3.Connection, src: int, dst: int, edge_type: str) -> bool:
    """An edge of this type between the two facts; contradicts and related count in both directions."""
    return has_edge(db, src, dst, edge_type, edge_type in SYMMETRIC_EDGES)


def link_direction(db: sqlite3.Connection, src: int, dst: int, edge_type: str) -> tuple[int, int] | None:
    """The (from, to) a new edge of this type between the two facts is written as, or None when they
    are already linked so. A ``related`` edge that settles an open contradiction ("both hold") is
    written even when absorb had linked the pair ``related`` before the contradiction, in the
    direction still free (an edge is unique per direction)."""
    if edge_type == "related" and contradiction_open(db, src, dst):
        for ends in ((src, dst), (dst, src)):
            if not has_edge(db, *ends, edge_type, False):
                return ends
        return None
    return None if edge_exists(db, src, dst, edge_type) else (src, dst)


def link_source(it: PlanItem) -> int | None:
    """The fact a ``link`` item's edges start from (drafts made before links named it kept it in ``target_id``)."""
    return it.fact_id if it.fact_id is not None else it.target_id


class PlanWriter:
    """Writes the selected items of one plan inside an open transaction."""

    def __init__(self, db: sqlite3.Connection, plan: Plan, now: float, actor: str, model_id: str,
                 limits: Any, vectors: dict[int, np.ndarray], targets: dict[int, sqlite3.Row] | None = None) -> None:
        self.db, self.plan, self.now, self.actor = db, plan, now, actor
        self.model_id, self.limits, self.vectors = model_id, limits, vectors
        # ``target_rows`` read in this transaction, if the caller has them: reinforcement needs no second read.
        self.targets = targets or {}
        self.changes = Changes(plan_id=plan.id)
        self.fact_of_index: dict[int, int] = {}
        self._journal: list[tuple] = []
        self._hashes: dict[int, str] = {}  # content hashes of facts written or read here, for the journal chain
        self._edges: list[int] = []  # ids of the edges inserted

    def write(self, selected: list[PlanItem]) -> Changes:
        duplicates = []
        for it in selected:
            if it.outcome == "duplicate":
                duplicates.append(it)
            elif it.outcome in INSERTING:
                self._insert(it)
            elif it.outcome in STATUS_CHANGES:
                self._retire(it)
            elif it.outcome == "retag":
                self._retag(it)
            elif it.outcome == "link":
                it.fact_id = link_source(it)
            elif it.outcome == "prefer":
                self._prefer(it)
        self._reinforce(duplicates)
        for it in selected:
            if it.outcome == "merged":
                it.fact_id = self.fact_of_index.get(it.merged_into)
        for it in selected:
            if it.edges and it.fact_id is not None:
                self._add_edges(it)
        span = journal_chain.append(self.db, self._journal, self._hashes)
        first, last = span or (None, None)
        # Every edge carries this plan's id and every journal row too: the edges ``changes_between``
        # finds by plan are exactly those inserted here.
        self.changes.record = changes_written(self.db, [row[1:5] + (None,) for row in self._journal], first, last,
                                              self._edges if self.plan.id is not None else ())
        return self.changes

    def _retire(self, it: PlanItem) -> None:
        """archive / expire: only the status moves; the fact stays readable in every mode."""
        status = STATUS_CHANGES[it.outcome]
        before = status_of(self.db, it.target_id)
        update_fact(self.db, it.target_id, {"status": status})
        it.fact_id = it.target_id
        details = {"before": {"status": before}, "after": {"status": status}, "reason": it.reason,
                   "decided_by": it.decided_by}
        self._log(it.outcome, it.target_id, {**details, **({"stage": it.stage} if it.stage else {})})
        self.changes.deactivated.append(it.target_id)

    def _prefer(self, it: PlanItem) -> None:
        """A person settled a contradiction: the other fact becomes a superseded older version of
        the target; the supersedes edge itself is added with the item's edges."""
        it.fact_id = it.target_id
        for edge in it.edges:
            update_fact(self.db, edge["to_id"], {"status": "superseded"})
            self._log("supersede", edge["to_id"], {"before": {"status": "active"}, "after": {"status": "superseded"},
                                                   "by": it.target_id, "reason": it.reason,
                                                   "decided_by": it.decided_by})
            self.changes.deactivated.append(edge["to_id"])

    def _retag(self, it: PlanItem) -> None:
        before = stored_list(tags_column(self.db, it.target_id), "tags")
        update_fact(self.db, it.target_id, {"tags": list(it.tags or [])})
        it.fact_id = it.target_id
        self._log("retag", it.target_id, {"before": {"tags": before}, "after": {"tags": list(it.tags or [])},
                                          "decided_by": it.decided_by})
        self.changes.touched.append(it.target_id)

    def _add_edges(self, it: PlanItem) -> None:
        """The item's extra edges, from its fact to existing facts, each journaled on the source fact."""
        for edge in it.edges:
            if edge["type"] not in EDGE_TYPES:  # any; ``supersedes`` always comes with a status change
                raise PlanError(f"item {it.index}: edge type {edge['type']!r} cannot be added by a plan item")
            if link_direction(self.db, it.fact_id, edge["to_id"], edge["type"]) != (it.fact_id, edge["to_id"]):
                continue  # a reinforced fact may already carry it (abstract finding a derived fact again)
            self._edge(it.fact_id, edge["to_id"], edge["type"])
            self._log("link", it.fact_id, {"type": edge["type"], "from": it.fact_id, "to": edge["to_id"],
                                           "reason": it.reason, "decided_by": it.decided_by})

    def _edge(self, src: int, dst: int, edge_type: str) -> None:
        # Checked again here, inside the write: a plan drafted before another one applied (or a
        # stored plan edited) must not close a loop of versions either.
        if edge_type == "supersedes" and (why := supersedes_cycle(self.db, src, dst)):
            raise PlanError(why)
        edge_id = insert_edge(self.db, src, dst, edge_type, self.now, self.plan.id)
        if edge_id is not None:
            self._edges.append(edge_id)

    def _target(self, it: PlanItem) -> int:
        return it.target_id if it.target_id is not None else self.fact_of_index[it.target_index]

    def _log(self, action: str, fact_id: int, details: dict[str, Any]) -> None:
        """Queue a journal row; they are written together at the end of ``write``, in order."""
        self._journal.append((self.now, self.actor, action, fact_id, self.plan.id, _journal_json(details)))

    def _reinforce(self, duplicates: list[PlanItem]) -> None:
        """All reinforcements of the plan with one read and two batched writes (the re-absorb fast path)."""
        if not duplicates:
            return
        for it in duplicates:
            it.fact_id = self.fact_of_index[it.index] = self._target(it)
        # Rows read before this write still hold unless the plan changed the fact's status since
        # (superseded by an item before); a fact this plan inserted was never read.
        changed = set(self.changes.deactivated)
        wanted = {it.fact_id for it in duplicates}
        facts = {fid: self.targets[fid] for fid in wanted if fid in self.targets and fid not in changed}
        if len(facts) < len(wanted):
            facts.update(fact_columns(self.db, wanted - facts.keys(), REINFORCE_COLUMNS))
        state: dict[int, dict[str, Any]] = {}
        entries, aliases = [], []
        for it in duplicates:
            fact = facts[it.fact_id]
            self._hashes[it.fact_id] = fact["content_hash"]
            if fact["status"] != "active":
                continue  # a known old version: history already has it, and it must not come back to life
            now = state.get(it.fact_id) or state.setdefault(it.fact_id, {
                "confidence": fact["confidence"], "count": fact["reinforcement_count"],
                "last": fact["last_reinforced"], "stored_evidence": fact["evidence"], "evidence": None})
            before = {"confidence": now["confidence"], "reinforcement_count": now["count"],
                      "last_reinforced": now["last"]}
            now["confidence"] = reinforced(now["confidence"], self.limits.reinforce_gain, self.limits.confidence_cap)
            now["count"] += 1
            now["last"] = self.now
            for entry in (_own_evidence(it, with_text=it.decided_by != "hash"), *it.evidence):
                if not entry:
                    continue  # the usual re-absorb: same text, no source, so no evidence to parse or add
                if now["evidence"] is None:
                    now["evidence"] = stored_list(now["stored_evidence"], "evidence")
                    if now["evidence"] is None:  # damaged: kept as stored for verify and a person to see
                        break
                if entry not in now["evidence"]:
                    now["evidence"].append(entry)
                    aliases += [(it.fact_id, entry["text"])] if entry.get("text") else []
            after = {"confidence": now["confidence"], "reinforcement_count": now["count"], "last_reinforced": self.now}
            entries.append((it.fact_id, {"before": before, "after": after, "decided_by": it.decided_by}))
        write_reinforcements(self.db, [(v["confidence"], v["count"], v["last"], _evidence_column(v), fid)
                                       for fid, v in state.items()])
        for fact_id, details in entries:
            self._log("reinforce", fact_id, details)
        for fact_id, text in aliases:
            add_aliases(self.db, fact_id, [text])
        self.changes.reinforced.update((fid, (v["last"], v["confidence"])) for fid, v in state.items())

    def _insert(self, it: PlanItem) -> None:
        item = Incoming(**it.incoming)
        created = item.created_at if item.created_at is not None else self.now
        values = {
            "text": item.text, "scope": item.scope, "kind": item.kind, "subject": item.subject,
            "predicate": item.predicate, "object": item.object, "confidence": item.initial_confidence(),
            "importance": item.importance, "tags": item.tags, "status": "active", "session_id": item.session_id,
            "created_at": created, "last_reinforced": created, "expires_at": expires_at(item, created),
            "source": item.source, "evidence": it.evidence,
            "metadata": {k: v for k, v in (("entities", item.entities), ("relations", item.relations)) if v},
            "content_hash": content_hash(item.text), "plan_id": self.plan.id,
        }
        vector = self.vectors[it.index]
        fact_id = insert_fact(self.db, values, vector, self.model_id)
        it.fact_id = fact_id
        self._hashes[fact_id] = values["content_hash"]
        self.fact_of_index[it.index] = fact_id
        self.changes.inserted.append(fact_id)
        self.changes.inserted_rows[fact_id] = (np.asarray(vector, dtype=np.float32), created, values["confidence"],
                                               item.kind, self.plan.id, len(item.text))
        details: dict[str, Any] = {"outcome": it.outcome, "decided_by": it.decided_by, "scope": item.scope,
                                   "content_hash": values["content_hash"], **written_state(values, vector)}
        if it.outcome != "new":
            target = self._target(it)
            self._edge(fact_id, target, EDGE_OF[it.outcome])
            details["target"] = target
            if it.outcome == "supersede":
                update_fact(self.db, target, {"status": "superseded"})
                self._log("supersede", target, {"before": {"status": "active"}, "after": {"status": "superseded"},
                                                "by": fact_id})
                self.changes.deactivated.append(target)
        if it.evidence:
            add_aliases(self.db, fact_id, [e["text"] for e in it.evidence if e.get("text")])
        self._log("absorb", fact_id, details)
        link_entities(self.db, fact_id, item.entities, item.relations, self.now)


def _evidence_column(state: dict[str, Any]) -> str:
    """The evidence column after reinforcing: re-encoded only when evidence was added."""
    if state["evidence"] is None:
        return state["stored_evidence"] or "[]"
    return json.dumps(state["evidence"], ensure_ascii=False)


def _own_evidence(it: PlanItem, with_text: bool) -> dict[str, Any]:
    """A duplicate adds its source to the survivor's evidence; its text too unless it is the same text."""
    entry: dict[str, Any] = {"text": it.incoming["text"]} if with_text else {}
    if it.incoming.get("source"):
        entry["source"] = it.incoming["source"]
    return entry
