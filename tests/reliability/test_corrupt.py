"""Corrupt inputs: a truncated file, a vector of the wrong length, a journal row with bad JSON,
a fact embedded by another model. Each is reported clearly (which record, what is wrong) and
the rest of the memory stays usable. The damage is done with raw SQL, as a bad disk, an old
tool or a hand edit would; the triggers allow it (vectors and the model column are not immutable, and
the journal accepts new rows).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import Memory, StoreError

from tests.conftest import NOW

TEXTS = [f"Fact {i}: Maya deploys the Atlas console from the Kazan office every {i + 2} days." for i in range(6)] + [
    "Jonas Becker founded Spreeline Data in Berlin in 2019.",
    "The Ferrite ingest service batches writes every five seconds.",
    "Sofia Marques designs the fleet map screens of Atlas Console.",
]


def _raw(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(db_path, isolation_level=None)


@pytest.fixture
def seeded(memory: Memory, db_path: Path) -> Path:
    memory.absorb(TEXTS)
    memory.close()
    return db_path


@pytest.mark.parametrize("keep", [40, 1024, 0.5, 0.9])
def test_truncated_file_is_a_clear_store_error(seeded: Path, embedder, keep: float, report: dict) -> None:
    data = seeded.read_bytes()
    for suffix in ("-wal", "-shm"):
        Path(f"{seeded}{suffix}").unlink(missing_ok=True)
    cut = int(keep * len(data)) if keep < 1 else int(keep)
    seeded.write_bytes(data[:cut])
    # Opening and every read either works on what is left or raises StoreError naming the file.
    try:
        with Memory(seeded, embedder=embedder) as damaged:
            for read in (damaged.stats, lambda: damaged.search("Atlas console"), damaged.journal,
                         lambda: damaged.get(1), damaged.plans):
                try:
                    read()
                except StoreError as err:
                    assert str(seeded) in str(err) and err.__cause__ is None
    except StoreError as err:
        assert str(seeded) in str(err)
        assert any(w in str(err) for w in ("damaged", "not a SQLite", "cannot be read")), str(err)
    report["faults"].append((f"truncated file (kept {keep}): clear error", "ok"))


def test_vector_of_wrong_length_is_skipped_and_reported(seeded: Path, embedder, report: dict) -> None:
    with _raw(seeded) as db:  # the very first fact: the index must not take its length for the model's
        db.execute("UPDATE fact_vectors SET vector = x'00' WHERE fact_id = 1")
    with Memory(seeded, embedder=embedder) as memory:
        hits = memory.search("Jonas Becker founded Spreeline Data", top_k=5)
        assert hits and hits[0].fact.id == 7
        assert 1 not in [h.fact.id for h in memory.search("Maya deploys the Atlas console", top_k=10)
                         if h.cosine > 0]
        assert memory.get(1).facts[0].text == TEXTS[0]  # the record itself is fine
        assert memory.stats()["damaged_vectors"] == 1
        problems = memory.vector_problems()
        assert [p[0] for p in problems] == [1]
        assert "1 byte" in problems[0][1] and "1536" in problems[0][1]
        # New writes still work beside it.
        assert memory.absorb(["Lena Vogel runs the on-call rotation for the Ferrite ingest service."]).applied
    report["faults"].append(("vector of wrong length: skipped, reported by id", "ok"))


@pytest.mark.parametrize("details", ["{not json", "[1, 2]", "", "\"text\""])
def test_journal_row_with_bad_json_is_marked(seeded: Path, embedder, details: str, report: dict) -> None:
    with _raw(seeded) as db:
        bad = db.execute("INSERT INTO journal (at, actor, action, fact_id, plan_id, details) "
                         "VALUES (?, 'raw', 'reinforce', 2, NULL, ?)", (NOW, details)).lastrowid
    with Memory(seeded, embedder=embedder) as memory:
        entries = {e.id: e for e in memory.journal(fact_id=2)}
        assert isinstance(entries[bad].details, dict)
        if details:
            assert "JSON" in str(entries[bad].details) or "value" in entries[bad].details
        audited = {e.id: e for e in memory.audit()}
        assert isinstance(audited[bad].details, dict)
        # Everything that reads the journal for fact 2 still works.
        assert memory.timeline(2).versions
        assert len(memory.confidence_curve(2).times) > 0
        assert memory.history(2).facts
        assert memory.search("Maya deploys the Atlas console", top_k=3)
        assert memory.absorb([TEXTS[2]]).applied  # a duplicate reinforcing fact 2 is journaled after it
    report["faults"].append((f"journal row with bad JSON {details!r}: marked", "ok"))


def test_fact_embedded_by_another_model_is_counted_and_skipped(seeded: Path, embedder, report: dict) -> None:
    with _raw(seeded) as db:
        db.execute("UPDATE facts SET embedding_model = 'old/model-v0' WHERE id = 8")
    with Memory(seeded, embedder=embedder) as memory:
        assert memory.stats()["needs_reembedding"] == 1
        problems = dict(memory.vector_problems())
        assert list(problems) == [8] and "old/model-v0" in problems[8]
        hits = memory.search("Ferrite ingest batches writes", top_k=5)
        assert all(h.fact.id != 8 or h.cosine == 0 for h in hits)
        assert memory.get(8).facts
        assert memory.absorb(TEXTS[7:8]).applied  # same text: dies by hash, reinforces fact 8
        assert memory.stats()["facts"] == len(TEXTS)
    report["faults"].append(("fact from another embedding model: counted, skipped", "ok"))
