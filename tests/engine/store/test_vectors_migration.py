"""Version 7 moved each fact's vector out of its ``facts`` row into ``fact_vectors``: a file of
version 6 (vectors in ``facts.embedding``) opens, migrates, verifies clean and searches the same."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from engine import Memory, fixed_clock, parse_time
from engine.store.migrations import LATEST_VERSION

TEXTS = [
    "The staging cluster runs 3 replicas of the ingest service.",
    "Lena works at Brightline Labs.",
    "The weekly sync is on Tuesdays at 10:00.",
    "Priya leads the SRE team.",
    "The Redis cache runs version 7.2.",
    "Our build server number 12 sits in rack B.",
]


def _as_version_6(path: Path) -> None:
    """Rewrite a current file the way version 6 stored it: the vectors in ``facts.embedding``."""
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("BEGIN")
        db.execute("ALTER TABLE facts ADD COLUMN embedding BLOB")
        db.execute("UPDATE facts SET embedding = (SELECT vector FROM fact_vectors WHERE fact_id = facts.id)")
        for trigger in ("fact_vectors_never_deleted", "fact_vectors_never_replaced"):
            db.execute(f"DROP TRIGGER {trigger}")
        db.execute("DROP TABLE fact_vectors")
        db.execute("PRAGMA user_version = 6")
        db.execute("COMMIT")


def _vectors(path: Path) -> dict[int, bytes]:
    with closing(sqlite3.connect(path)) as db:
        return dict(db.execute("SELECT fact_id, vector FROM fact_vectors"))


@pytest.mark.parametrize("query", ["ingest replicas", "who leads SRE", "when is the sync"])
def test_a_version_6_file_migrates_verifies_and_searches_the_same(tmp_path: Path, embedder, query: str) -> None:
    path = tmp_path / "m.sqlite"
    clock = fixed_clock(parse_time("2026-11-30T12:00:00Z"))
    with Memory(path, embedder=embedder, clock=clock) as memory:
        memory.absorb(TEXTS)
        memory.absorb(["The staging cluster now runs 5 replicas of the ingest service.", TEXTS[1]])  # supersede, reinforce
        before = [h.fact.id for h in memory.search(query, count_access=False)]
    vectors = _vectors(path)
    _as_version_6(path)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM facts WHERE embedding IS NOT NULL").fetchone()[0] == len(vectors)

    with Memory(path, embedder=embedder, clock=clock) as memory:
        assert memory.verify().problems == []
        assert [h.fact.id for h in memory.search(query, count_access=False)] == before
        memory.absorb(["Marco joined the platform team in May."])  # written the new way after the move
        assert memory.verify().problems == []
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert "embedding" not in [r[1] for r in db.execute("PRAGMA table_info(facts)")]
    moved = _vectors(path)
    assert {k: moved[k] for k in vectors} == vectors  # every vector moved byte for byte
    assert len(moved) == len(vectors) + 1


def test_a_vector_is_never_deleted_nor_replaced(tmp_path: Path, embedder) -> None:
    path = tmp_path / "m.sqlite"
    with Memory(path, embedder=embedder) as memory:
        memory.absorb(TEXTS[:2])
    with closing(sqlite3.connect(path)) as db:
        with pytest.raises(sqlite3.DatabaseError, match="never deleted"):
            db.execute("DELETE FROM fact_vectors WHERE fact_id = 1")
        with pytest.raises(sqlite3.DatabaseError, match="never replaced"):
            db.execute("INSERT OR REPLACE INTO fact_vectors (fact_id, vector) VALUES (1, x'00')")


def test_verify_finds_a_vector_changed_behind_its_back(tmp_path: Path, embedder) -> None:
    path = tmp_path / "m.sqlite"
    with Memory(path, embedder=embedder) as memory:
        memory.absorb(TEXTS[:3])
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE fact_vectors SET vector = (SELECT vector FROM fact_vectors WHERE fact_id = 2) WHERE fact_id = 1")
        db.commit()
    with Memory(path, embedder=embedder) as memory:
        problems = memory.verify().problems
    assert [(p.check, p.where) for p in problems] == [("replay", "fact 1")]
    assert "vector" in problems[0].message
