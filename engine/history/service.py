"""Reading one open memory's records and their past: facts by id, versions, timelines, the journal."""

from __future__ import annotations

import sqlite3

from typing import Any, Callable, Iterable

from engine.changes import ChangeRecord
from engine.errors import NotFound, StoreError
from engine.history import audit, reading, timeline
from engine.history.replay import Replay, replay
from engine.store.ids import check_id
from engine.store import stats, verify
from engine.store.context import Context
from engine.store.journal import changes_between, high_water
from engine.store.records import Fact, JournalEntry, load_facts, read_journal


class History:
    def __init__(self, ctx: Context, vector_bytes: Callable[[], int]) -> None:
        self._ctx = ctx
        self._vector_bytes = vector_bytes
        self._polled_version, self._polled_mark = -1, -1

    def get(self, fact_id: int, mode: str = "active", *, count_access: bool = True) -> reading.Reading:
        ctx = self._ctx
        with ctx.store.guard():
            found = reading.read(ctx.store.db, fact_id, mode)
            if count_access:
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

    def poll(self, after_id: int, limit: int = 1000) -> tuple[list[JournalEntry], ChangeRecord]:
        """Journal rows written after ``after_id`` (by any process) and their change record.

        ``PRAGMA data_version`` answers "did another connection commit?" without reading a table, so
        an idle poll costs one pragma; the journal's ids then say exactly what is new, which the
        pragma alone cannot (it also moves for commits that wrote no journal row).
        """
        store = self._ctx.store
        with store.guard(reads_first=False):
            version = store.data_version()
            if version == self._polled_version and after_id >= self._polled_mark:
                return [], ChangeRecord()
            entries = read_journal(store.db, None, after_id, limit)
            record = changes_between(store.db, after_id, entries[-1].id) if entries else ChangeRecord()
            self._polled_version = version
            self._polled_mark = entries[-1].id if entries else after_id
            return entries, record

    def high_water(self) -> int:
        with self._ctx.store.guard():
            return high_water(self._ctx.store.db)

    def changes_since(self, journal_id: int) -> ChangeRecord:
        with self._ctx.store.guard():
            return changes_between(self._ctx.store.db, journal_id)

    def audit(self, wanted: audit.AuditFilter | None = None, limit: int = 500) -> list[JournalEntry]:
        with self._ctx.store.guard():
            return audit.entries(self._ctx.store.db, wanted or audit.AuditFilter(), limit)

    def audit_vocabulary(self) -> tuple[list[str], list[str]]:
        with self._ctx.store.guard():
            return audit.vocabulary(self._ctx.store.db)

    def stats(self, vectors: bool = True) -> dict[str, Any]:
        ctx = self._ctx
        with ctx.store.guard():
            found = stats.record_counts(ctx.store.db, ctx.model_id)
            if vectors:
                found.update(stats.vector_health(ctx.store.db, ctx.model_id, self._vector_bytes()))
        return {"path": str(ctx.path), **found, "read_only": ctx.read_only}

    def vector_health_apart(self) -> dict[str, int]:
        # Its own read-only connection, without the store's lock, like verify_apart.
        ctx = self._ctx
        try:
            db = ctx.store.reader()
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{ctx.path} cannot be read for checking: {err}") from None
        try:
            return stats.vector_health(db, ctx.model_id, self._vector_bytes())
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{ctx.path} is damaged: {err}") from None
        finally:
            db.close()

    def verify(self) -> verify.Verification:
        with self._ctx.store.guard():
            return verify.check_file(self._ctx.store.db)

    def verify_apart(self, stopped: Callable[[], bool]) -> verify.Verification | None:
        # A connection of its own, without the store's lock: the file's other calls go on meanwhile.
        store = self._ctx.store
        try:
            db = store.reader()
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{store.path} cannot be read for checking: {err}") from None
        try:
            return verify.check_file(db, set(verify.ORDER) - verify.WRITES, stopped)
        except verify.Stopped:
            return None
        finally:
            db.close()

    def verify_writing_checks(self) -> list[verify.Problem]:
        with self._ctx.store.guard():
            return verify.verify(self._ctx.store.db, verify.WRITES)

    def vector_problems(self, limit: int = 1000) -> list[tuple[int, str]]:
        ctx = self._ctx
        size = self._vector_bytes()
        with ctx.store.guard():
            return stats.vector_problems(ctx.store.db, ctx.model_id, size, limit)
