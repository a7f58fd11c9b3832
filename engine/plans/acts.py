"""Curation acts a person or an agent takes on facts, each a plan (dry run, review, apply).

These are the named forms of ``Memory.propose``'s changes, with the checks a caller expects
from a command: the fact exists and is active, a link does not point at itself, a resolution
names an open contradiction. Each act drafts a plan; unless ``dry_run`` it is applied at once.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from engine.errors import InvalidInput, NotFound
from engine.plans import revert
from engine.plans.service import PlanService
from engine.store.context import Context
from engine.store.ids import check_id
from engine.store.plans import Plan
from engine.store.records import fact_columns
from engine.vocabulary import LINK_TYPES

KEEP_BOTH = "both"


class Curation:
    def __init__(self, ctx: Context, plans: PlanService) -> None:
        self._ctx, self._plans = ctx, plans
        plans.checks[revert.REVERT_KIND] = revert.still_revertible

    def _run(self, changes: list[dict[str, Any]], dry_run: bool) -> Plan:
        plan = self._plans.propose(changes)
        return plan if dry_run else self._plans.apply(plan.id)

    def version(self, fact_id: int, text: str, *, fields: dict[str, Any] | None = None,
                reason: str | None = None, dry_run: bool = False) -> Plan:
        """A new version of an active fact; it keeps the old one's scope, kind, tags, source,
        entities and relations unless ``fields`` gives others."""
        extra = dict(fields or {})
        if not isinstance(extra, dict) or {"action", "fact_id", "text"} & set(extra):
            raise InvalidInput("fields may not repeat the fact id or the text")
        change = {**extra, "action": "supersede", "fact_id": check_id(fact_id), "text": text}
        if reason is not None:
            change["reason"] = reason
        return self._run([change], dry_run)

    def archive(self, fact_id: int, *, reason: str | None = None, dry_run: bool = False) -> Plan:
        change: dict[str, Any] = {"action": "archive", "fact_id": check_id(fact_id)}
        if reason is not None:
            change["reason"] = reason
        return self._run([change], dry_run)

    def tag(self, fact_id: int, *, add: Sequence[str] = (), remove: Sequence[str] = (),
            dry_run: bool = False) -> Plan:
        """Add and remove tags (compared case-insensitively, as tags are stored)."""
        fact_id = check_id(fact_id)
        for name, values in (("add", add), ("remove", remove)):
            if isinstance(values, (str, bytes)) or not all(isinstance(v, str) for v in values):
                raise InvalidInput(f"{name} must be a list of tag strings")
        if not add and not remove:
            raise InvalidInput("give tags to add or to remove")
        with self._ctx.store.guard():
            row = fact_columns(self._ctx.store.db, [fact_id], "tags").get(fact_id)
        if row is None:
            raise NotFound(f"there is no fact {fact_id} in this memory")
        try:
            current = [t for t in json.loads(row["tags"] or "[]") if isinstance(t, str)]
        except ValueError:
            current = []  # damaged tags: the new list replaces them
        gone = {t.strip().lower() for t in remove}
        tags = [t for t in current if t.lower() not in gone] + [t for t in add if t.strip().lower() not in
                                                               {c.lower() for c in current}]
        return self._run([{"action": "retag", "fact_id": fact_id, "tags": tags}], dry_run)

    def link(self, from_id: int, to_id: int, link_type: str, *, reason: str | None = None,
             dry_run: bool = False) -> Plan:
        if link_type not in LINK_TYPES:
            raise InvalidInput(f"link type must be one of {', '.join(LINK_TYPES)}")
        change = {"action": "link", "type": link_type, "from_id": check_id(from_id), "to_id": check_id(to_id)}
        if reason is not None:
            change["reason"] = reason
        return self._run([change], dry_run)

    def resolve(self, fact_id: int, other_id: int, keep: int | str, *, reason: str | None = None,
                dry_run: bool = False) -> Plan:
        """Settle the open contradiction between two facts: ``keep`` one id (the other becomes its
        superseded older version) or ``"both"`` (both hold: a ``related`` edge closes the pair)."""
        fact_id, other_id = check_id(fact_id), check_id(other_id)
        if keep != KEEP_BOTH and keep not in (fact_id, other_id):
            raise InvalidInput(f"keep must be {fact_id}, {other_id} or '{KEEP_BOTH}'")
        pairs = {frozenset((c.left.id, c.right.id)) for c in self._plans.contradictions(limit=1_000_000)}
        if frozenset((fact_id, other_id)) not in pairs:
            raise InvalidInput(f"facts {fact_id} and {other_id} are not an open contradiction "
                               f"(see 'memlens contradictions')")
        if keep == KEEP_BOTH:
            change: dict[str, Any] = {"action": "link", "type": "related", "from_id": fact_id, "to_id": other_id,
                                      "reason": reason or f"both hold: facts {fact_id} and {other_id}"}
        else:
            retire = other_id if keep == fact_id else fact_id
            change = {"action": "prefer", "keep_id": keep, "retire_id": retire}
            if reason is not None:
                change["reason"] = reason
        return self._run([change], dry_run)

    def revert(self, plan_id: int, *, dry_run: bool = False) -> Plan:
        """A new plan that undoes an applied plan's effects by new records (nothing is deleted)."""
        plan_id = check_id(plan_id, "plan id")
        with self._ctx.store.guard():
            items, note = revert.plan_revert(self._ctx.store.db, plan_id)
            plan = self._plans.store_draft(revert.REVERT_KIND, items, note)
        return plan if dry_run else self._plans.apply(plan.id)
