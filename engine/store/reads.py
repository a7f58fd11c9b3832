"""Read counters (``access_count``, ``last_accessed``) written in batches, not one transaction per search.

A search used to open a write transaction just to bump its hits' counters:
a fifth of an engine-only search at 10k facts. The counters are telemetry
(gc's ``stale`` stage reads them), so reads are noted in memory and written
together: in the next write transaction (so no plan is drafted or applied
against counters that are behind), at the next facade call that is not a
search, after ``FLUSH_SECONDS``, past ``FLUSH_READS`` distinct facts, and on
close. A process killed meanwhile loses at most those few seconds of counts.
"""

from __future__ import annotations

import sqlite3
import time

FLUSH_SECONDS = 2.0
FLUSH_READS = 512


class PendingReads:
    def __init__(self) -> None:
        self._counts: dict[int, list[float]] = {}  # fact id -> [reads, last read time]
        self._since: float | None = None  # monotonic time of the oldest unwritten read

    def __bool__(self) -> bool:
        return bool(self._counts)

    def note(self, fact_ids: list[int], at: float) -> None:
        for fact_id in fact_ids:
            entry = self._counts.get(fact_id)
            if entry is None:
                self._counts[fact_id] = [1, at]
            else:
                entry[0] += 1
                entry[1] = at
        if self._since is None and self._counts:
            self._since = time.monotonic()

    @property
    def due(self) -> bool:
        return bool(self._counts) and (len(self._counts) >= FLUSH_READS
                                       or time.monotonic() - (self._since or 0.0) >= FLUSH_SECONDS)

    def take(self) -> dict[int, list[float]]:
        taken, self._counts, self._since = self._counts, {}, None
        return taken

    def put_back(self, taken: dict[int, list[float]]) -> None:
        """Reads whose write was rolled back wait for the next one."""
        for fact_id, (count, at) in taken.items():
            entry = self._counts.setdefault(fact_id, [0, at])  # a later read's time wins
            entry[0] += count
        if self._counts and self._since is None:
            self._since = time.monotonic()


def write_reads(db: sqlite3.Connection, taken: dict[int, list[float]]) -> None:
    """Add the counts inside the caller's write transaction."""
    if taken:
        db.executemany("UPDATE facts SET access_count = access_count + ?, last_accessed = ? WHERE id = ?",
                       [(int(count), at, fact_id) for fact_id, (count, at) in taken.items()])
