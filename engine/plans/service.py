"""Drafting, storing, applying and discarding plans: the one way anything is written.

Absorb, curation, housekeeping and import all end here: their items become a stored draft
plan, and applying it writes exactly the selected items in one transaction, journals them,
and returns the plan with its change record (``plan.changes``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

from engine.absorb.planner import AbsorbPlanner, RawItem
from engine.errors import PlanError, StoreError
from engine.plans.apply import Changes, PlanWriter, check_fresh, select_items, target_rows
from engine.plans.curation import ChangePlanner, Contradiction, Edge, check_kind, check_note, edges_of, open_contradictions
from engine.search.index_sync import IndexSync
from engine.store.context import Context
from engine.store.edges import open_contradiction_count
from engine.store.journal import changes_between, high_water
from engine.store.plans import INSERTING, Plan, PlanItem, PlanSummary, list_plans, load_plan, mark_plan, save_plan

ABSORB_ATTEMPTS = 5  # plans refused because another process wrote meanwhile are re-made
PROGRESS_BATCH = 64  # texts embedded between progress reports (~0.15 s on two cores)
Progress = Callable[[int, int], None]
# Writes a plan kind's selected items (``import`` restores an export); the default is ``PlanWriter``.
Writer = Callable[..., Changes]
Recorder = Callable[[Any, Plan], None]  # (connection, the plan just stored), inside its transaction


class PlanService:
    """Plans of one open memory. ``classifier()`` gives the absorb classifier in force."""

    def __init__(self, ctx: Context, index: IndexSync, classifier: Callable[[], Callable[..., Any]]) -> None:
        self._ctx = ctx
        self._index = index
        self._classifier = classifier
        self.writers: dict[str, Writer] = {}
        # Checks a plan kind adds to the freshness check, inside the applying transaction.
        self.checks: dict[str, Callable[[Any, Plan], list[str]]] = {}

    # -- reading ---------------------------------------------------------------------------------
    def get(self, plan_id: int) -> Plan:
        with self._ctx.store.guard():
            return load_plan(self._ctx.store.db, plan_id)

    def list(self, status: str | None = None, limit: int = 200) -> list[PlanSummary]:
        with self._ctx.store.guard():
            return list_plans(self._ctx.store.db, status, limit)

    def edges(self, fact_id: int) -> list[Edge]:
        with self._ctx.store.guard():
            return edges_of(self._ctx.store.db, fact_id)

    def contradictions(self, limit: int = 1000) -> list[Contradiction]:
        with self._ctx.store.guard():
            return open_contradictions(self._ctx.store.db, limit)

    def contradiction_count(self) -> int:
        with self._ctx.store.guard():
            return open_contradiction_count(self._ctx.store.db)

    # -- drafting --------------------------------------------------------------------------------
    def absorb(self, items: Iterable[Any], *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
               progress: Progress | None = None, record: Recorder | None = None) -> Plan:
        """Plan ``items`` and apply the plan unless ``dry_run``. ``record(db, plan)`` runs in the
        transaction that stores the plan (an import notes which lines the plan came from)."""
        raw = [it if isinstance(it, RawItem) else RawItem(it) for it in items]
        embed = self._ctx.embed if progress is None else self._embedding_with(progress)
        ctx = self._ctx
        with ctx.store.guard():
            for attempt in range(1, ABSORB_ATTEMPTS + 1):
                planner = AbsorbPlanner(ctx.store.db, self._index.ready(), embed, ctx.settings.memory,
                                        classifier=self._classifier())
                plan_items, vectors = planner.plan(raw, defaults or {})
                plan = Plan(None, "absorb", ctx.clock(), ctx.actor, "draft", plan_items)
                if ctx.read_only:
                    if not dry_run:
                        raise StoreError(f"{ctx.path} is read-only: nothing was written (a dry run still works)")
                    return plan
                if dry_run:
                    self._store(plan, record)
                    return plan
                try:
                    return self._store_and_apply(plan, vectors, record)
                except PlanError:
                    # Another process wrote the same text (or touched a target) between planning and
                    # applying; nobody reviewed this plan, so plan again against the file as it is now.
                    # The refused plan stays in the file, marked refused.
                    if attempt == ABSORB_ATTEMPTS:
                        raise
        raise AssertionError("the loop above returns or raises")  # keeps type checkers sure of a return

    def propose(self, changes: Sequence[dict[str, Any]], *, kind: str = "curate", note: str | None = None) -> Plan:
        kind = check_kind(kind)
        note = check_note(note)
        with self._ctx.store.guard():
            items = ChangePlanner(self._ctx.store.db, self._ctx.settings.memory).plan(changes)
            return self.store_draft(kind, items, note)

    def store_draft(self, kind: str, items: list[PlanItem], note: str | None = None,
                    record: Recorder | None = None) -> Plan:
        ctx = self._ctx
        plan = Plan(None, kind, ctx.clock(), ctx.actor, "draft", items, note=note)
        ctx.refuse_if_read_only("the plan cannot be stored")
        self._store(plan, record)
        return plan

    def _store(self, plan: Plan, record: Recorder | None) -> None:
        with self._ctx.store.transaction() as db:
            save_plan(db, plan)
            if record is not None:
                record(db, plan)

    def _store_and_apply(self, plan: Plan, vectors: dict[int, np.ndarray], record: Recorder | None) -> Plan:
        """Store a plan applied at once and apply it, in one transaction.

        One commit, not two, and the plan's row (its items, tens of KB for a batch of 100) is
        written once: a plan applied at once never needs to be seen as a draft. A plan that is
        out of date is still stored, refused, as before; any other failure stores nothing.
        """
        selected = select_items(plan, None)
        if any(it.incoming and it.index not in vectors and it.outcome in INSERTING for it in selected):
            self._store(plan, record)  # an item to embed first: embedding is not done inside a write
            return self.apply_loaded(plan, None, vectors)
        now = self._ctx.clock()
        with self._ctx.store.transaction() as db:
            save_plan(db, plan)
            if record is not None:
                record(db, plan)
            problems, written = self._write(db, plan, selected, vectors, now)
        return self._applied(plan, problems, written)

    def run_pass(self, kind: str, items: list[PlanItem], vectors: dict[int, np.ndarray], dry_run: bool,
                 note: str | None = None) -> Plan:
        """Store a pass's items as a draft and apply them unless ``dry_run``.

        A pass with nothing to do stores nothing: it returns an unsaved, empty plan (``id`` None).
        """
        ctx = self._ctx
        if not items:
            return Plan(None, kind, ctx.clock(), ctx.actor, "draft", [], note=note or "nothing to do")
        if ctx.read_only and dry_run:
            return Plan(None, kind, ctx.clock(), ctx.actor, "draft", items, note=note)
        if dry_run:
            return self.store_draft(kind, items, note)
        ctx.refuse_if_read_only("the plan cannot be stored")
        return self._store_and_apply(Plan(None, kind, ctx.clock(), ctx.actor, "draft", items, note=note), vectors, None)

    # -- deciding --------------------------------------------------------------------------------
    def apply(self, plan_id: int, only: list[int] | None = None) -> Plan:
        with self._ctx.store.guard():
            plan = load_plan(self._ctx.store.db, plan_id)
            if plan.damaged:
                raise PlanError(f"plan {plan_id} is damaged ({plan.damaged[0]}); it cannot be applied")
            self._index.ready()
            return self.apply_loaded(plan, only, {})

    def discard(self, plan_id: int) -> Plan:
        with self._ctx.store.guard():
            plan = load_plan(self._ctx.store.db, plan_id)
            if plan.status != "draft":
                raise PlanError(f"plan {plan_id} is {plan.status}; only a draft plan can be discarded")
            with self._ctx.store.transaction() as db:
                mark_plan(db, plan, "discarded", self._ctx.clock())
            return plan

    def apply_loaded(self, plan: Plan, only: list[int] | None, vectors: dict[int, np.ndarray]) -> Plan:
        """Apply ``plan`` (already loaded, store guarded) and set ``plan.changes``."""
        ctx = self._ctx
        selected = select_items(plan, only)
        now = ctx.clock()
        missing = [it for it in selected if it.incoming and it.index not in vectors and it.outcome in INSERTING]
        if missing:
            # Embedding is slow: refuse a stale plan before paying for it (checked again when writing).
            if problems := check_fresh(ctx.store.db, plan, selected):
                with ctx.store.transaction() as db:
                    mark_plan(db, plan, "refused", now, "; ".join(problems))
                raise out_of_date(plan, problems)
            vectors = dict(vectors)
            for it, vector in zip(missing, ctx.embed([it.incoming["text"] for it in missing])):
                vectors[it.index] = vector
        with ctx.store.transaction() as db:
            problems, written = self._write(db, plan, selected, vectors, now)
        return self._applied(plan, problems, written)

    def _write(self, db: Any, plan: Plan, selected: list[PlanItem], vectors: dict[int, np.ndarray],
               now: float) -> tuple[list[str], Changes | None]:
        """Inside the caller's write transaction: refuse the plan if it is out of date, else write it."""
        ctx = self._ctx
        # Checked inside the write transaction: nothing changes between the check and the write,
        # and the rows read for it are the ones reinforcements start from.
        targets = target_rows(db, selected)
        problems = check_fresh(db, plan, selected, targets)
        if check := self.checks.get(plan.kind):
            problems += check(db, plan)
        if problems:
            mark_plan(db, plan, "refused", now, "; ".join(problems))
            return problems, None
        mark = high_water(db)
        writer = self.writers.get(plan.kind)
        if writer is not None:
            written = writer(db, plan, selected, vectors, ctx.model_id, now, ctx.actor)
        else:
            written = PlanWriter(db, plan, now, ctx.actor, ctx.model_id, ctx.settings.memory,
                                 vectors, targets).write(selected)
        plan.applied_indexes = [it.index for it in selected]
        mark_plan(db, plan, "applied", now)
        # PlanWriter builds the record from what it wrote; a plan kind's own writer's is read back.
        plan.changes = written.record if written.record is not None else changes_between(db, mark)
        return [], written

    def _applied(self, plan: Plan, problems: list[str], written: Changes | None) -> Plan:
        """After the commit: the refusal raised, or the index brought up to what was written."""
        if problems or written is None:
            raise out_of_date(plan, problems)
        self._index.apply(plan.changes, written.inserted_rows, written.reinforced)
        return plan

    def _embedding_with(self, progress: Progress) -> Callable[[Sequence[str]], np.ndarray]:
        def embed(texts: Sequence[str]) -> np.ndarray:
            texts = list(texts)
            parts = []
            for start in range(0, len(texts), PROGRESS_BATCH):
                progress(start, len(texts))
                parts.append(self._ctx.embed(texts[start:start + PROGRESS_BATCH]))
            progress(len(texts), len(texts))
            return np.concatenate(parts) if parts else self._ctx.embed([])
        return embed


def out_of_date(plan: Plan, problems: list[str]) -> PlanError:
    """The error for a plan refused because the store changed since it was made."""
    return PlanError(f"plan {plan.id} is out of date and was refused, nothing written: {problems[0]}"
                     + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
                     + "; make a new dry run")
