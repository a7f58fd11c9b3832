"""Plans: every write is proposed first, stored, then applied whole or in part.

A plan's items are immutable once stored; only its status moves
(draft -> applied | refused | discarded) and, when applied, the ids its
items produced are recorded beside it. Rejected items keep a reason only:
a rejected text (possibly a secret) is never stored.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.changes import ChangeRecord
from engine.clock import format_time
from engine.errors import NotFound
from engine.store.ids import check_id

INSERTING = frozenset({"supersede", "contradict", "related", "new"})
# Outcomes that change an existing fact's status, and the status they set.
STATUS_CHANGES = {"archive": "archived", "expire": "expired", "reactivate": "active"}


@dataclass
class PlanItem:
    index: int
    outcome: str
    decided_by: str
    reason: str
    incoming: dict[str, Any] | None = None
    target_id: int | None = None
    target_index: int | None = None
    target_status: str | None = None
    merged_into: int | None = None
    similarity: float | None = None
    evidence: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    fact_id: int | None = None
    # Extra edges {"type", "to_id", "to_status"} from this item's fact (an inserted or reinforced
    # fact, or ``target_id`` for a ``link``) to existing facts: distilled_from, summarises, ...
    edges: list[dict[str, Any]] = field(default_factory=list)
    tags: list[str] | None = None  # the new tags of a ``retag``
    before: dict[str, Any] | None = None  # what the target held when planned, checked before applying
    stage: str | None = None  # a housekeeping pass's label for the item (e.g. gc's "ttl")

    def to_dict(self, applied: bool = False) -> dict[str, Any]:
        """The one shape of a plan item on every face (CLI --json, HTTP, MCP): every key always there."""
        return {"index": self.index, "outcome": self.outcome, "applied": applied, "fact_id": self.fact_id,
                "target_id": self.target_id, "target_index": self.target_index, "target_status": self.target_status,
                "merged_into": self.merged_into,
                "similarity": None if self.similarity is None else round(self.similarity, 4),
                "decided_by": self.decided_by, "reason": self.reason, "stage": self.stage,
                "text": self.incoming.get("text") if self.incoming else None, "incoming": self.incoming,
                "warnings": self.warnings, "edges": self.edges, "tags": self.tags, "before": self.before,
                "evidence": self.evidence}


@dataclass
class Plan:
    id: int | None
    kind: str
    created_at: float
    actor: str
    status: str
    items: list[PlanItem]
    decided_at: float | None = None
    applied_indexes: list[int] = field(default_factory=list)
    note: str | None = None
    changes: ChangeRecord | None = None  # what applying it wrote; set by the apply, not stored with it
    reverted_by: int | None = None  # the applied plan that undid this one (read with it, never stored)
    damaged: list[str] = field(default_factory=list)  # stored columns that did not parse; shown, never raised

    @property
    def applied(self) -> bool:
        return self.status == "applied"

    def counts(self) -> dict[str, int]:
        return dict(Counter(item.outcome for item in self.items))

    def item(self, index: int) -> PlanItem:
        for it in self.items:
            if it.index == index:
                return it
        raise NotFound(f"plan {self.id} has no item {index}")

    @property
    def partly_applied(self) -> bool:
        """Applied, but only some of its items (a person ticked a subset)."""
        return self.applied and len(self.applied_indexes) < sum(it.outcome != "rejected" for it in self.items)

    def to_dict(self) -> dict[str, Any]:
        """The one shape of a plan on every face (CLI --json, HTTP, MCP)."""
        done = set(self.applied_indexes) if self.applied else set()
        return {
            "plan_id": self.id, "kind": self.kind, "status": self.status, "applied": self.applied,
            "partly_applied": self.partly_applied, "applied_items": sorted(done), "reverted_by": self.reverted_by,
            "created_at": format_time(self.created_at), "decided_at": format_time(self.decided_at),
            "actor": self.actor, "counts": self.counts(), "note": self.note,
            "items": [it.to_dict(it.index in done) for it in self.items],
            "changes": None if self.changes is None else self.changes.to_dict(),
            **({"damaged": self.damaged} if self.damaged else {}),
        }


REVERT_NOTE = "reverts plan "  # a revert plan's note starts with it, then the id of the plan it undoes


def save_plan(db: sqlite3.Connection, plan: Plan) -> int:
    # vars(): asdict's deep copy is the hot spot. A fact id is known before applying only for a
    # ``link`` (the fact its edge starts from); an inserted fact's id is the apply's to record.
    items = [{**vars(it), "fact_id": it.fact_id if it.outcome == "link" else None} for it in plan.items]
    plan.id = int(db.execute(
        "INSERT INTO plans (kind, created_at, actor, status, items, summary, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (plan.kind, plan.created_at, plan.actor, plan.status, json.dumps(items, ensure_ascii=False),
         json.dumps(plan.counts()), plan.note)).lastrowid)
    return plan.id


def mark_plan(db: sqlite3.Connection, plan: Plan, status: str, at: float, note: str | None = None) -> None:
    """Move a plan to ``status``; a ``note`` (e.g. why it was refused) replaces the stored one, None keeps it."""
    done = set(plan.applied_indexes)  # a list: looked up once per item, quadratic for a large plan
    applied = {str(it.index): it.fact_id for it in plan.items if it.index in done}
    note = plan.note if note is None else note
    db.execute("UPDATE plans SET status = ?, decided_at = ?, applied_items = ?, note = ? WHERE id = ?",
               (status, at, json.dumps(applied) if status == "applied" else None, note, plan.id))
    plan.status, plan.decided_at, plan.note = status, at, note


def _stored_items(text: Any) -> tuple[list[PlanItem], str | None]:
    try:
        raw = json.loads(text)
        if not isinstance(raw, list):
            return [], "items is not a JSON list; shown empty"
        return [PlanItem(**value) for value in raw], None
    except (ValueError, TypeError):  # bad JSON, or an entry that is not an item's fields
        return [], "items does not parse as plan items; shown empty"


def _stored_applied(text: Any) -> tuple[dict[str, Any], str | None]:
    if not text:
        return {}, None
    try:
        value = json.loads(text)
    except ValueError:
        return {}, "applied_items is not JSON; shown empty"
    if not isinstance(value, dict) or not all(k.isdigit() and (v is None or type(v) is int)
                                              for k, v in value.items()):
        return {}, "applied_items is not an object of item numbers; shown empty"
    return value, None


def _plan_from_row(row: sqlite3.Row) -> Plan:
    """A plan from its row; a damaged items or applied_items column reads as empty and is named in
    ``damaged`` (like a fact's), so one bad row cannot break a listing, a page or the app."""
    items, items_problem = _stored_items(row["items"])
    applied, applied_problem = _stored_applied(row["applied_items"])
    for item in items:
        if str(item.index) in applied:
            item.fact_id = applied[str(item.index)]
    return Plan(id=row["id"], kind=row["kind"], created_at=row["created_at"], actor=row["actor"],
                status=row["status"], items=items, decided_at=row["decided_at"],
                applied_indexes=sorted(int(k) for k in applied), note=row["note"],
                damaged=[p for p in (items_problem, applied_problem) if p])


def load_plan(db: sqlite3.Connection, plan_id: int) -> Plan:
    row = db.execute("SELECT * FROM plans WHERE id = ?", (check_id(plan_id, "a plan id"),)).fetchone()
    if row is None:
        raise NotFound(f"there is no plan {plan_id} in this memory")
    plan = _plan_from_row(row)
    if plan.applied:
        plan.reverted_by = reverts(db).get(plan.id)
    return plan


@dataclass
class PlanSummary:
    id: int
    kind: str
    status: str
    created_at: float
    decided_at: float | None
    actor: str
    counts: dict[str, int]
    note: str | None
    applied_count: int | None = None  # items written, for an applied plan
    reverted_by: int | None = None  # the applied plan that undid this one
    damaged: list[str] = field(default_factory=list)

    @property
    def writable(self) -> int:
        """Items an apply could write (every item but the rejected ones)."""
        return sum(n for outcome, n in self.counts.items() if outcome != "rejected")

    @property
    def partly_applied(self) -> bool:
        """Applied with some writable items left out (as ``Plan.partly_applied``)."""
        return self.status == "applied" and self.applied_count is not None and self.applied_count < self.writable

    def to_dict(self) -> dict[str, Any]:
        return {"plan_id": self.id, "kind": self.kind, "status": self.status,
                "created_at": format_time(self.created_at), "decided_at": format_time(self.decided_at),
                "actor": self.actor, "counts": self.counts, "note": self.note,
                "applied_count": self.applied_count, "partly_applied": self.partly_applied,
                "reverted_by": self.reverted_by,
                **({"damaged": self.damaged} if self.damaged else {})}


def list_plans(db: sqlite3.Connection, status: str | None = None, limit: int = 200) -> list[PlanSummary]:
    where, params = ("WHERE status = ?", [status]) if status else ("", [])
    # A damaged applied_items column counts as unknown rather than failing the whole list.
    rows = db.execute(f"SELECT id, kind, status, created_at, decided_at, actor, summary, note, "
                      f"CASE WHEN json_valid(applied_items) THEN (SELECT count(*) FROM json_each(applied_items)) "
                      f"END AS applied_count FROM plans {where} ORDER BY id DESC LIMIT ?", params + [limit]).fetchall()
    undone = reverts(db) if any(r["status"] == "applied" for r in rows) else {}
    summaries = []
    for r in rows:
        counts = _stored_counts(r["summary"])
        summaries.append(PlanSummary(r["id"], r["kind"], r["status"], r["created_at"], r["decided_at"], r["actor"],
                                     counts or {}, r["note"], r["applied_count"],
                                     undone.get(r["id"]) if r["status"] == "applied" else None,
                                     [] if counts is not None else ["summary is not counts by outcome; shown empty"]))
    return summaries


def _stored_counts(text: Any) -> dict[str, int] | None:
    """The summary column (counts by outcome), or None when it is damaged."""
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and type(v) is int for k, v in value.items()):
        return None
    return value


def revert_note(plan_id: int) -> str:
    """The note of a revert plan, naming the plan it undoes (what ``reverts`` reads back)."""
    return f"{REVERT_NOTE}{plan_id}"


def reverts(db: sqlite3.Connection) -> dict[int, int]:
    """Plan id -> the first applied revert plan that undid it (reverts are few: one query for all)."""
    found: dict[int, int] = {}
    for rid, note in db.execute("SELECT id, note FROM plans WHERE kind = 'revert' AND status = 'applied' "
                                "AND note LIKE ? ORDER BY id", (REVERT_NOTE + "%",)):
        target = note[len(REVERT_NOTE):].split(";")[0]
        if target.isdigit():
            found.setdefault(int(target), rid)
    return found


def applied_plan_noted(db: sqlite3.Connection, kind: str, note: str) -> int | None:
    """The first applied plan of ``kind`` whose note is ``note`` or starts with ``note;``."""
    row = db.execute("SELECT id FROM plans WHERE kind = ? AND status = 'applied' AND (note = ? OR note LIKE ?) "
                     "ORDER BY id LIMIT 1", (kind, note, note + ";%")).fetchone()
    return row[0] if row else None
