"""Reading one open memory's records and their past: facts by id, versions, timelines, the journal."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from engine.changes import ChangeRecord
from engine.errors import NotFound
from engine.history import audit, reading, timeline
from engine.history.replay import Replay, replay
from engine.store.ids import check_id
from engine.store import stats, verify
from engine.store.context import Context
from engine.store.journal import changes_between
from engine.store.records import Fact, JournalEntry, load_facts, read_journal


class History:
    def __init__(self, ctx: Context, vector_bytes: Callable[[], int]) -> None:
        self._ctx = ctx
        self._vector_bytes = vector_bytes

    def get(self, fact_id: int, mode: str = "active") -> reading.Reading:
        ctx = self._ctx
        with ctx.store.guard():
            found = reading.read(ctx.store.db, fact_id, mode)
            ctx.store.count_reads([f.id for f in found.facts if f.id == fact_id or mode == "latest"], ctx.clock())
            return found

    def facts(self, fact_ids: Iterable[int]) -> dict[int, Fact]:
        with self._ctx.store.guard():
            return load_facts(self._ctx.store.db, fact_ids)

    def timeline(self, fact_id: int) -> timeline.Timeline:
        with self._ctx.store.guard():
            return timeline.build(self._ctx.store.db, fact_id)

    def replay(self, fact_id: int, when: float | None = None) -> Replay:
        when = self._ctx.clock() if when is None else when
        with self._ctx.store.guard():
            return replay(self._ctx.store.db, check_id(fact_id), when)

    def confidence_curve(self, fact_id: int, points: int = 200) -> timeline.ConfidenceCurve:
        with self._ctx.store.guard():
            fact = load_facts(self._ctx.store.db, [fact_id]).get(fact_id)
            if fact is None:
                raise NotFound(f"there is no fact {fact_id} in this memory")
            return timeline.confidence_curve(self._ctx.store.db, fact, self._ctx.clock(), points)

    def journal(self, fact_id: int | None = None, after_id: int = 0, limit: int = 200) -> list[JournalEntry]:
        with self._ctx.store.guard():
            return read_journal(self._ctx.store.db, fact_id, after_id, limit)

    def changes_since(self, journal_id: int) -> ChangeRecord:
        with self._ctx.store.guard():
            return changes_between(self._ctx.store.db, journal_id)

    def audit(self, wanted: audit.AuditFilter | None = None, limit: int = 500) -> list[JournalEntry]:
        with self._ctx.store.guard():
            return audit.entries(self._ctx.store.db, wanted or audit.AuditFilter(), limit)

    def audit_vocabulary(self) -> tuple[list[str], list[str]]:
        with self._ctx.store.guard():
            return audit.vocabulary(self._ctx.store.db)

    def stats(self) -> dict[str, Any]:
        ctx = self._ctx
        with ctx.store.guard():
            found = stats.counts(ctx.store.db, ctx.model_id, self._vector_bytes())
        return {"path": str(ctx.path), **found, "read_only": ctx.read_only}

    def verify(self) -> verify.Verification:
        with self._ctx.store.guard():
            return verify.check_file(self._ctx.store.db)

    def vector_problems(self, limit: int = 1000) -> list[tuple[int, str]]:
        ctx = self._ctx
        size = self._vector_bytes()
        with ctx.store.guard():
            return stats.vector_problems(ctx.store.db, ctx.model_id, size, limit)
