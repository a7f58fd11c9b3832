"""The facade's plan-making methods besides absorb: hand-made changes and edges.

A mixin of ``Memory`` (kept in its own module so the facade stays readable);
it uses the facade's store, clock, actor and settings, and every plan it makes
is a draft applied later with ``Memory.apply_plan``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from engine.housekeeping import common as housekeeping
from engine.housekeeping import distill as housekeeping_distill
from engine.housekeeping import gc as housekeeping_gc
from engine.plans.curation import (ChangePlanner, Contradiction, Edge, check_kind, check_note, edges_of, open_contradictions)
from engine.errors import StoreError
from engine.store.plans import Plan, PlanItem, save_plan

if TYPE_CHECKING:
    from engine.memory import Memory


class PlanMethods:
    """``Memory.propose``, ``Memory.edges`` and the housekeeping passes."""

    def propose(self: "Memory", changes: Sequence[dict[str, Any]], *, kind: str = "curate",
                note: str | None = None) -> Plan:
        """Validate hand-made changes and store them as a draft plan (nothing else is written).

        Each change is one of::

            {"action": "archive", "fact_id": N, "reason": "..."}
            {"action": "link", "type": "contradicts"|"related", "from_id": A, "to_id": B, "reason": "..."}
            {"action": "retag", "fact_id": N, "tags": ["a", "b"]}
            {"action": "supersede", "fact_id": N, "text": "...", ...any field absorb accepts}
            {"action": "prefer", "keep_id": A, "retire_id": B, "reason": "..."}  # B becomes A's older version

        Apply the plan with ``apply_plan(plan.id, only=[...])``. Bad input raises
        ``InvalidInput`` (or ``NotFound`` for an unknown fact) and stores nothing.
        """
        kind = check_kind(kind)
        note = check_note(note)
        with self._store.guard():
            items = ChangePlanner(self._store.db, self.settings.memory).plan(changes)
            return self._store_draft(kind, items, note)

    def edges(self: "Memory", fact_id: int) -> list[Edge]:
        """Every edge touching a fact, oldest first (``from_id`` -> ``to_id``); NotFound for an unknown id."""
        with self._store.guard():
            return edges_of(self._store.db, fact_id)

    def contradictions(self: "Memory", limit: int = 1000) -> list[Contradiction]:
        """The review queue: open contradicts pairs (both active, not settled as related), oldest first."""
        with self._store.guard():
            return open_contradictions(self._store.db, limit)

    # -- housekeeping passes (DESIGN §7): each a plan, applied unless dry_run ------------------------
    def consolidate(self: "Memory", *, dry_run: bool = False) -> Plan:
        """Archive active facts whose decayed confidence is below ``[memory] archive_below``."""
        with self._store.guard():
            items = housekeeping.consolidate(self._store.db, self.settings.memory, self.clock())
            return self._run_pass("consolidate", items, {}, dry_run)

    def gc(self: "Memory", *, dry_run: bool = False) -> Plan:
        """Three labelled stages: expire past TTL, archive stale unread run facts, compact big tag groups."""
        with self._store.guard():
            items = housekeeping_gc.gc(self._store.db, self.settings.gc, self.settings.memory, self.clock())
            return self._run_pass("gc", items, {}, dry_run)

    def distill(self: "Memory", *, session_id: str | None = None, dry_run: bool = False) -> Plan:
        """Re-absorb run facts of finished sessions (or of ``session_id``) as agent knowledge."""
        with self._store.guard():
            items, vectors, lines = housekeeping_distill.distill(
                self._store.db, self._ready_index(), self.embed, self.settings.memory, self.settings.gc,
                self.clock(), session_id, self._classifier())
            note = "; ".join(lines) if lines else (
                f"session {session_id} has no active run facts" if session_id else "no finished session to distill")
            return self._run_pass("distill", items, vectors, dry_run, note)

    def _run_pass(self: "Memory", kind: str, items: list[PlanItem], vectors: dict[int, np.ndarray],
                  dry_run: bool, note: str | None = None) -> Plan:
        """Store a pass's items as a draft and apply them unless ``dry_run``.

        A pass with nothing to do stores nothing: it returns an unsaved, empty plan (``id`` None).
        """
        if not items:
            return Plan(None, kind, self.clock(), self.actor, "draft", [], note=note or "nothing to do")
        if self.read_only and dry_run:
            return Plan(None, kind, self.clock(), self.actor, "draft", items, note=note)
        plan = self._store_draft(kind, items, note)
        if not dry_run:
            self._apply(plan, None, vectors)
        return plan

    def _store_draft(self: "Memory", kind: str, items: list[PlanItem], note: str | None = None) -> Plan:
        plan = Plan(None, kind, self.clock(), self.actor, "draft", items, note=note)
        if self.read_only:
            raise StoreError(f"{self.path} is read-only: the plan cannot be stored")
        with self._store.transaction() as db:
            save_plan(db, plan)
        return plan
