"""Undoing an applied plan by new records: nothing is deleted, the undo is a plan of its own.

Each applied item of the plan is turned back where the store allows it: a fact the plan added
is archived, a fact it archived, expired or superseded is made active again, tags go back to
what they were, and a contradiction it recorded is settled as "both hold" (a ``related`` edge),
since edges are permanent. What cannot be undone (a reinforcement's raised confidence, a
``related`` link) is listed in the plan's note. Every item records the status its fact has now,
so a revert drafted against a state that has since changed is refused like any stale plan.
"""

from __future__ import annotations

import sqlite3

from engine.errors import PlanError
from engine.plans.apply import link_direction, link_source
from engine.store.edges import contradiction_open
from engine.store.plans import (INSERTING, REVERT_NOTE, STATUS_CHANGES, Plan, PlanItem, applied_plan_noted, load_plan,
                                revert_note)
from engine.store.records import fact_columns, stored_list

REVERT_KIND = "revert"


def note_for(plan_id: int) -> str:
    return revert_note(plan_id)


def reverted_by(db: sqlite3.Connection, plan_id: int) -> int | None:
    """The applied revert plan of ``plan_id``, if there is one."""
    return applied_plan_noted(db, REVERT_KIND, note_for(plan_id))


def still_revertible(db: sqlite3.Connection, plan: Plan) -> list[str]:
    """Checked again inside the transaction that applies a revert: two reverts of one plan raced."""
    target = _reverted_id(plan)
    if target is not None and (other := reverted_by(db, target)) is not None:
        return [f"plan {target} was already reverted by plan {other}"]
    return []


def _reverted_id(plan: Plan) -> int | None:
    prefix = REVERT_NOTE
    if plan.kind != REVERT_KIND or not (plan.note or "").startswith(prefix):
        return None
    return int(plan.note[len(prefix):].split(";")[0])


def plan_revert(db: sqlite3.Connection, plan_id: int) -> tuple[list[PlanItem], str]:
    """The items that undo ``plan_id``, and a note naming it (and what cannot be undone)."""
    plan = load_plan(db, plan_id)
    if plan.damaged:
        raise PlanError(f"plan {plan_id} is damaged ({plan.damaged[0]}); what it wrote cannot be read to undo it")
    if plan.status != "applied":
        raise PlanError(f"plan {plan_id} is {plan.status}; only an applied plan can be reverted")
    if (other := reverted_by(db, plan_id)) is not None:
        raise PlanError(f"plan {plan_id} was already reverted by plan {other}")
    applied = set(plan.applied_indexes) if plan.applied_indexes else {it.index for it in plan.items}
    chosen = [it for it in plan.items if it.index in applied]
    facts = fact_columns(db, _touched(chosen), "status, tags")
    maker = _Undo(db, plan_id, facts)
    for it in chosen:
        maker.undo(it)
    kept = sorted(set(maker.kept))
    note = note_for(plan_id) + (f"; not undone: {', '.join(kept)}" if kept else "")
    if not maker.items:
        raise PlanError(f"plan {plan_id} has nothing left to undo ({', '.join(kept) or 'its facts changed since'})")
    return maker.items, note


def _touched(items: list[PlanItem]) -> list[int]:
    ids = [i for it in items for i in (it.fact_id, it.target_id) if i is not None]
    return ids + [e["to_id"] for it in items for e in it.edges]


class _Undo:
    def __init__(self, db: sqlite3.Connection, plan_id: int, facts: dict[int, sqlite3.Row]) -> None:
        self.db, self.plan_id, self.facts = db, plan_id, facts
        self.items: list[PlanItem] = []
        self.kept: list[str] = []
        self._seen: set[tuple[str, int]] = set()

    def _status(self, fact_id: int | None) -> str | None:
        row = self.facts.get(fact_id) if fact_id is not None else None
        return row["status"] if row is not None else None

    def _add(self, outcome: str, fact_id: int, reason: str, **extra: object) -> None:
        if (outcome, fact_id) in self._seen:
            return
        self._seen.add((outcome, fact_id))
        self.items.append(PlanItem(len(self.items), outcome, "user", reason, target_id=fact_id,
                                   target_status=self._status(fact_id), **extra))

    def undo(self, it: PlanItem) -> None:
        why = f"undoes item {it.index} of plan {self.plan_id}"
        if it.outcome in INSERTING and it.fact_id is not None:
            if self._status(it.fact_id) == "active":
                self._add("archive", it.fact_id, f"{why}: archive the fact it added")
            if it.outcome == "supersede":
                self._reactivate(it.target_id, "superseded", why)
        elif it.outcome in ("archive", "expire"):
            self._reactivate(it.target_id, STATUS_CHANGES[it.outcome], why)
        elif it.outcome == "prefer":
            for edge in it.edges:
                self._reactivate(edge["to_id"], "superseded", why)
        elif it.outcome == "reactivate":
            self._add("archive", it.target_id, f"{why}: archive the fact it made active again") \
                if self._status(it.target_id) == "active" else None
        elif it.outcome == "retag":
            self._retag(it, why)
        elif it.outcome == "link":
            self._settle(it, why)
        elif it.outcome == "duplicate":
            self.kept.append("reinforcements")

    def _reactivate(self, fact_id: int | None, was: str, why: str) -> None:
        if fact_id is not None and self._status(fact_id) == was:
            self._add("reactivate", fact_id, f"{why}: make the fact it retired active again")

    def _retag(self, it: PlanItem, why: str) -> None:
        row = self.facts.get(it.target_id)
        before = (it.before or {}).get("tags")
        if row is None or before is None or stored_list(row["tags"], "tags") != list(it.tags or []):
            self.kept.append(f"tags of fact {it.target_id} (changed since)")
            return
        self._add("retag", it.target_id, f"{why}: tags back to {before}", tags=list(before),
                  before={"tags": list(it.tags or [])})

    def _settle(self, it: PlanItem, why: str) -> None:
        for edge in it.edges:
            if edge["type"] != "contradicts":
                self.kept.append(f"{edge['type']} links (edges are permanent)")
                continue
            ends = (link_source(it), edge["to_id"])
            if any(self._status(end) != "active" for end in ends) or not contradiction_open(self.db, *ends):
                continue
            direction = link_direction(self.db, *ends, "related")
            if direction is None or ("link", direction[0]) in self._seen:
                continue
            self._seen.add(("link", direction[0]))
            self.items.append(PlanItem(len(self.items), "link", "user",
                                       f"{why}: settle the contradiction it recorded as both holding",
                                       fact_id=direction[0], target_id=direction[1], target_status="active",
                                       edges=[{"type": "related", "to_id": direction[1], "to_status": "active"}]))
