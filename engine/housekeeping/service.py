"""The housekeeping passes of one open memory (DESIGN §7), each a plan applied unless a dry run."""

from __future__ import annotations

from typing import Any, Callable

from engine.housekeeping import abstract as abstracting
from engine.housekeeping import common, distill as distilling, gc as collecting
from engine.models.llm import LLMClient
from engine.plans.service import PlanService
from engine.search.index_sync import IndexSync
from engine.store.context import Context
from engine.store.facts_read import run_sessions
from engine.store.plans import Plan


class Housekeeping:
    def __init__(self, ctx: Context, index: IndexSync, plans: PlanService,
                 classifier: Callable[[], Callable[..., Any]], llm: Callable[[], LLMClient]) -> None:
        self._ctx, self._index, self._plans = ctx, index, plans
        self._classifier, self._llm = classifier, llm

    def consolidate(self, *, dry_run: bool = False) -> Plan:
        ctx = self._ctx
        with ctx.store.guard():
            items = common.consolidate(ctx.store.db, ctx.settings.memory, ctx.clock())
            return self._plans.run_pass("consolidate", items, {}, dry_run)

    def gc(self, *, dry_run: bool = False) -> Plan:
        ctx = self._ctx
        with ctx.store.guard():
            items = collecting.gc(ctx.store.db, ctx.settings.gc, ctx.settings.memory, ctx.clock())
            return self._plans.run_pass("gc", items, {}, dry_run)

    def sessions(self) -> list[tuple[str, float, bool]]:
        """(session id, last activity, finished) of every session with active run facts, least recent first."""
        ctx = self._ctx
        with ctx.store.guard():
            finished = {s for s, _ in distilling.finished_sessions(ctx.store.db, ctx.settings.gc, ctx.clock(), None)}
            return [(s, last, s in finished) for s, last in run_sessions(ctx.store.db)]

    def distill(self, *, session_id: str | None = None, dry_run: bool = False) -> Plan:
        ctx = self._ctx
        with ctx.store.guard():
            items, vectors, lines = distilling.distill(
                ctx.store.db, self._index.ready(), ctx.embed, ctx.settings.memory, ctx.settings.gc,
                ctx.clock(), session_id, self._classifier())
            note = "; ".join(lines) if lines else (
                f"session {session_id} has no active run facts" if session_id else "no finished session to distill")
            return self._plans.run_pass("distill", items, vectors, dry_run, note)

    def abstract(self, *, min_cluster: int = 3, dry_run: bool = False) -> abstracting.Report:
        ctx = self._ctx
        with ctx.store.guard():
            report = abstracting.plan_abstract(ctx.store.db, self._index.ready(), ctx.embed, ctx.settings.memory,
                                               self._llm(), min_cluster)
            if report.items:
                report.plan = self._plans.run_pass("abstract", report.items, report.vectors, dry_run,
                                                   report.summary())
            return report
