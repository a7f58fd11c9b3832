"""Verifying through a connection of its own (the window's background check): the same verdict as
``verify``, other calls go on meanwhile, and a check asked to stop stops."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from engine import Memory


def _tamper(db_path: Path) -> None:
    db = sqlite3.connect(db_path)
    db.execute("DROP TRIGGER facts_immutable")
    db.execute("UPDATE facts SET text = 'The deploy key is in the vault.' WHERE id = 2")
    db.commit()
    db.close()


def test_apart_and_writing_checks_together_give_verifys_verdict(memory: Memory, db_path: Path) -> None:
    memory.absorb(["Maya prefers Vim.", "The ingest service uses Postgres.", "Ferrite runs on Fridays."])
    clean = memory.verify_apart()
    assert clean is not None and clean.adding(memory.verify_writing_checks()) == memory.verify()
    assert not clean.problems and clean.journal_head == memory.verify().journal_head
    _tamper(db_path)
    apart = memory.verify_apart()
    # Since issue 26: the dropped trigger, and the replay's digest of the exact text, are named too.
    assert apart is not None and [(p.check, p.where) for p in apart.problems] == [
        ("triggers", "facts_immutable"), ("facts", "fact 2"), ("replay", "fact 2")]
    writing = memory.verify_writing_checks()
    assert [p.check for p in writing] == ["fts"]
    assert apart.adding(writing) == memory.verify()  # same problems, in the same order


def test_other_calls_go_on_while_a_check_apart_is_held(memory: Memory) -> None:
    memory.absorb(["Maya prefers Vim."])
    held, release = threading.Event(), threading.Event()

    def stopped() -> bool:  # polled by the check while it runs: hold it there
        held.set()
        release.wait()
        return False

    verdicts = []
    checker = threading.Thread(target=lambda: verdicts.append(memory.verify_apart(stopped)))
    checker.start()
    assert held.wait(10)
    try:
        assert memory.stats()["facts"] == 1  # would wait forever if the check held the file's lock
    finally:
        release.set()
        checker.join()
    assert verdicts[0] is not None and not verdicts[0].problems


def test_a_check_asked_to_stop_gives_no_verdict(memory: Memory) -> None:
    memory.absorb(["Maya prefers Vim.", "Ferrite runs on Fridays."])
    asked = []

    def stopped() -> bool:
        asked.append(1)
        return len(asked) > 1  # let the first statement start, then stop

    assert memory.verify_apart(stopped) is None
    assert memory.verify_apart(lambda: False) is not None


def test_stats_without_vectors_and_the_vector_counts_apart_make_the_full_stats(memory: Memory,
                                                                              db_path: Path) -> None:
    memory.absorb(["Maya prefers Vim.", "The ingest service uses Postgres.", "Ferrite runs on Fridays."])
    db = sqlite3.connect(db_path)
    db.execute("UPDATE fact_vectors SET vector = x'00' WHERE fact_id = 1")
    db.execute("UPDATE facts SET embedding_model = 'old/model-v0' WHERE id = 2")
    db.commit()
    db.close()
    full = memory.stats()
    assert (full["needs_reembedding"], full["damaged_vectors"]) == (1, 1)
    quick = memory.stats(vectors=False)
    assert "needs_reembedding" not in quick and "damaged_vectors" not in quick
    assert {**quick, **memory.vector_health_apart()} == full
