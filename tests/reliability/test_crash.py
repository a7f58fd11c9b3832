"""Crash during writes: SIGKILL a writing process at random moments, then check the file.

After every kill: the file opens with ``Memory``, ``PRAGMA integrity_check`` is ok, every
write the child reported as committed (it fsyncs a side file after each write returns) is
still there, every journal row and fact seen after earlier kills is unchanged, and every plan
is applied wholly (its journal rows and facts present) or not at all (no row carries its id).
The number of kills is ``MEMLENS_STRESS_KILLS`` (12 by default; ``make stress`` runs 200).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

from engine import Memory

from tests.reliability.conftest import KILLS
from tests.reliability.workers import run_and_kill

WORKER = Path(__file__).with_name("crash_worker.py")


def _digest(db: sqlite3.Connection, sql: str, upto: int) -> str:
    h = hashlib.sha256()
    for row in db.execute(sql, (upto,)):
        h.update(repr(tuple(row)).encode())
    return h.hexdigest()


JOURNAL_ROWS = "SELECT id, at, actor, action, fact_id, plan_id, details FROM journal WHERE id <= ? ORDER BY id"
FACT_ROWS = "SELECT id, text, scope, created_at, content_hash, plan_id FROM facts WHERE id <= ? ORDER BY id"


def _half_applied(db: sqlite3.Connection) -> list[str]:
    """Plans that are neither wholly applied nor wholly absent (one pass per table, not per plan)."""
    journal, facts, edges = Counter(), defaultdict(set), Counter()
    journaled = defaultdict(set)
    for plan_id, fact_id in db.execute("SELECT plan_id, fact_id FROM journal WHERE plan_id IS NOT NULL"):
        journal[plan_id] += 1
        journaled[plan_id].add(fact_id)
    all_facts = set()
    for fact_id, plan_id in db.execute("SELECT id, plan_id FROM facts"):
        all_facts.add(fact_id)
        if plan_id is not None:
            facts[plan_id].add(fact_id)
    edges.update(r[0] for r in db.execute("SELECT plan_id FROM edges WHERE plan_id IS NOT NULL"))
    problems = []
    for plan_id, status, applied in db.execute("SELECT id, status, applied_items FROM plans"):
        if status == "applied":
            targets = {v for v in json.loads(applied or "{}").values() if v is not None}
            missing = sorted(targets - all_facts)
            if missing or (targets and not journal[plan_id]):
                problems.append(f"plan {plan_id} applied but facts {missing} / journal rows {journal[plan_id]} missing")
            if facts[plan_id] - journaled[plan_id]:
                problems.append(f"plan {plan_id}: facts {sorted(facts[plan_id] - journaled[plan_id])} "
                                f"inserted without journal rows")
        elif journal[plan_id] or facts[plan_id] or edges[plan_id]:
            problems.append(f"plan {plan_id} is {status} but has {journal[plan_id]} journal rows, "
                            f"{len(facts[plan_id])} facts, {edges[plan_id]} edges")
    return problems


def test_sigkill_during_writes_loses_nothing_committed(tmp_path: Path, embedder, report: dict) -> None:
    db_path, side = tmp_path / "memory.sqlite", tmp_path / "committed.jsonl"
    rng = random.Random(int(os.environ.get("MEMLENS_STRESS_SEED", "9")))
    with Memory(db_path, embedder=embedder) as memory:  # seed: run facts of a few sessions
        memory.absorb([{"text": f"Seed run note {k}: the Ferrite ingest batch of session {k % 3} finished late.",
                        "scope": "run", "session_id": f"seed-{k % 3}"} for k in range(24)])
    seen_journal = seen_facts = 0
    journal_digest = facts_digest = ""
    reported = 0
    def a_moment_later(child: subprocess.Popen) -> None:
        time.sleep(rng.uniform(0.02, 1.2))
        assert child.poll() is None, f"the worker died by itself: {child.stderr.read()}"

    for kill in range(KILLS):
        run_and_kill(WORKER, [str(db_path), str(side), str(kill)], a_moment_later)
        report["kills"] += 1

        # The file opens and stays usable through the facade.
        with Memory(db_path, embedder=embedder) as memory:
            assert memory.stats()["facts"] > 0
            memory.search("Ferrite ingest batch", top_k=3)
        db = sqlite3.connect(db_path)
        try:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            entries = [json.loads(line) for line in side.read_text().splitlines()]
            new, reported = entries[reported:], len(entries)
            lost = []
            for entry in new:
                if "error" in entry:
                    report["errors"][entry["error"]] += 1
                    continue
                report["committed"] += 1
                report["ops"][entry["op"]] += 1
                row = db.execute("SELECT status FROM plans WHERE id = ?", (entry["plan"],)).fetchone()
                if row is None or row[0] != entry["status"]:
                    lost.append(f"plan {entry['plan']} reported {entry['status']}, found {row}")
            journal_max, fact_count = db.execute(
                "SELECT (SELECT coalesce(max(id), 0) FROM journal), (SELECT count(*) FROM facts)").fetchone()
            last = next((e for e in reversed(entries) if "plan" in e), None)
            if last and (journal_max < last["journal_max"] or fact_count < last["facts"]):
                lost.append(f"journal/facts went back: {journal_max}/{fact_count} < "
                            f"{last['journal_max']}/{last['facts']}")
            # Journal ids are AUTOINCREMENT and a rolled-back write takes none: no gap may appear.
            if db.execute("SELECT count(*) FROM journal").fetchone()[0] != journal_max:
                lost.append("the journal's ids have a gap: a committed row is missing")
            # What was there after the previous kill is still there, unchanged.
            if _digest(db, JOURNAL_ROWS, seen_journal) != journal_digest and seen_journal:
                lost.append(f"journal rows up to {seen_journal} changed")
            if _digest(db, FACT_ROWS, seen_facts) != facts_digest and seen_facts:
                lost.append(f"facts up to {seen_facts} changed")
            half = _half_applied(db)
            report["writes_lost"] += len(lost)
            report["half_applied"] += len(half)
            assert not lost, lost
            assert not half, half
            seen_journal = journal_max
            seen_facts = db.execute("SELECT coalesce(max(id), 0) FROM facts").fetchone()[0]
            journal_digest = _digest(db, JOURNAL_ROWS, seen_journal)
            facts_digest = _digest(db, FACT_ROWS, seen_facts)
        finally:
            db.close()
        report["survived"] += 1
    assert report["committed"] > 0, "no write committed before any kill: the test tested nothing"
