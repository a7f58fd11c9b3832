"""Read counters are written in batches: never lost by the process that keeps running, never behind a plan."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import Memory, Settings, StoreError
from engine.store.reads import FLUSH_READS

FACTS = [
    "Maya prefers dark mode in every editor she uses, including the terminal and the browser.",
    "The Atlas console is deployed from the Kazan office every Friday after the code freeze.",
    "Sofia moved from Porto to Lisbon in March to lead the data platform team there.",
]


def _counters(db_path: Path) -> dict[int, tuple[int, float | None]]:
    """What another connection (another process) sees in the file."""
    with sqlite3.connect(db_path) as db:
        return {r[0]: (r[1], r[2]) for r in db.execute("SELECT id, access_count, last_accessed FROM facts")}


@pytest.fixture
def filled(memory: Memory) -> Memory:
    memory.absorb(FACTS)
    return memory


def test_searches_wait_then_the_next_other_call_writes_every_read(filled: Memory, db_path: Path, clock) -> None:
    hit = filled.search("Sofia Lisbon data platform", top_k=1)[0].fact.id
    clock.advance(1)
    assert filled.search("Sofia Lisbon data platform", top_k=1)[0].fact.id == hit
    assert _counters(db_path)[hit][0] == 0  # not written yet: no write transaction per search
    assert filled.facts([hit])[hit].access_count == 2
    assert _counters(db_path)[hit] == (2, clock.at)


def test_pending_reads_are_written_in_the_next_write_and_on_close(filled: Memory, db_path: Path, embedder) -> None:
    hit = filled.search("dark mode editor", top_k=1)[0].fact.id
    filled.absorb(["Ivan Petrov joined Northwind Robotics in Kazan as head of the perception group."])
    assert _counters(db_path)[hit][0] == 1
    again = filled.search("dark mode editor", top_k=1)[0].fact.id
    filled.close()
    assert _counters(db_path)[again][0] == 2


def test_many_distinct_reads_are_written_without_waiting(memory: Memory) -> None:
    for fact_id in range(1, FLUSH_READS + 1):
        memory.store.count_reads([fact_id], 1.0)  # ids need not exist: the UPDATE matches nothing
    assert not memory.store.reads


def test_a_rolled_back_write_keeps_the_reads_for_the_next(filled: Memory, db_path: Path) -> None:
    hit = filled.search("Atlas console Kazan", top_k=1)[0].fact.id
    with pytest.raises(RuntimeError):
        with filled.store.transaction():
            raise RuntimeError("the write fails after the reads went in")
    assert _counters(db_path)[hit][0] == 0
    filled.stats()
    assert _counters(db_path)[hit][0] == 1


def test_a_read_only_memory_counts_nothing_and_searches(filled: Memory, db_path: Path, embedder) -> None:
    filled.close()
    db_path.chmod(0o444)
    try:
        with Memory(db_path, Settings(), embedder=embedder) as reader:
            assert reader.search("Atlas console", top_k=1)
            assert not reader.store.reads
            with pytest.raises(StoreError, match="read-only"):
                reader.absorb(["The Ferrite database is backed up nightly at 02:00 UTC to the Lisbon site."])
    finally:
        db_path.chmod(0o644)


def test_reads_a_file_refuses_on_close_are_dropped_and_close_can_be_called_again(filled: Memory,
                                                                                 db_path: Path) -> None:
    hit = filled.search("Atlas console Kazan", top_k=1)[0].fact.id
    filled.store.db.execute("PRAGMA query_only = 1")  # the file turns read-only under the session
    filled.close()
    filled.close()
    assert _counters(db_path)[hit][0] == 0
