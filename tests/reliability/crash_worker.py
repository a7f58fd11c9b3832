"""A child process for test_crash.py: writes to a memory in a loop until it is killed.

Usage: ``python -m tests.reliability.crash_worker DB SIDE_FILE SEED``

It absorbs batches of run facts (applied at once, or as a dry run then applied
with ``apply_plan``), runs gc, distill and consolidate, and searches. After
each write *returns* it appends one JSON line to SIDE_FILE and fsyncs it: the
plan id and status it committed, the journal's highest id and the fact count
it saw. Those lines are the writes the parent may hold the file to after a
SIGKILL. A refused plan or another user-facing error is recorded too (as
``error``), and the loop goes on. It prints ``ready`` once the model is loaded.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

from engine import Memory, Settings
from engine.config import GCSettings
from engine.models.embeddings import shared_embedder
from engine.errors import MemLensError

DAY = 86_400.0
WORDS = ("ingest", "latency", "Ferrite", "batch", "queue", "Kazan", "deploy", "rollback", "schema", "index",
         "vector", "Atlas", "Maya", "editor", "cache", "replica", "shard", "timeout", "retry", "budget",
         "sprint", "review", "release", "token", "parser", "gateway", "Berlin", "Lisbon", "metrics", "alert")
# Small gc limits so that every pass has work: stale after a day, compaction above 12 facts per tag group.
SETTINGS = Settings(gc=GCSettings(stale_run_days=1, group_limit=12, summary_size=4, finished_session_hours=1.0))


class StepClock:
    """Wall time plus a day for every write, so TTLs expire and run facts go stale between runs."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def __call__(self) -> float:
        return time.time() + self.offset

    def step(self) -> None:
        self.offset += DAY


def fact_text(rng: random.Random, tag: str) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
    return f"Run note {tag}: the team observed {words} during the session."


def main() -> None:
    db, side, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    clock = StepClock(0)
    embedder = shared_embedder()
    embedder.embed(["warm up"])
    out = os.open(side, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def record(entry: dict) -> None:
        os.write(out, (json.dumps(entry) + "\n").encode())
        os.fsync(out)

    with Memory(db, SETTINGS, clock=clock, actor="agent", embedder=embedder) as memory:
        # Carry on from the last write of the previous (killed) run: time never goes back.
        latest = memory.store.db.execute("SELECT coalesce(max(at), 0) FROM journal").fetchone()[0]
        clock.offset = max(0.0, latest - time.time())
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        serial = 0
        while True:
            serial += 1
            clock.step()
            session = f"w{seed}-s{serial % 5}"
            op = rng.choice(("absorb", "absorb", "absorb", "review", "gc", "distill", "consolidate", "search"))
            try:
                if op in ("absorb", "review"):
                    items = [{"text": fact_text(rng, f"{seed}-{serial}-{k}"), "scope": "run", "session_id": session,
                              "tags": [rng.choice(("ops", "perf", "team"))],
                              **({"ttl_days": 1} if rng.random() < 0.2 else {})}
                             for k in range(rng.randint(3, 16))]
                    if rng.random() < 0.3:  # the same text again: a duplicate that reinforces
                        items.append({"text": items[0]["text"], "scope": "run", "session_id": session})
                    if op == "absorb":
                        plan = memory.absorb(items)
                    else:
                        draft = memory.absorb(items, dry_run=True)
                        only = [it.index for it in draft.items
                                if it.merged_into is None and it.target_index is None and rng.random() < 0.7]
                        plan = memory.apply_plan(draft.id, only or None)
                elif op == "gc":
                    plan = memory.gc()
                elif op == "distill":
                    plan = memory.distill(session_id=session)
                elif op == "consolidate":
                    plan = memory.consolidate()
                else:
                    memory.search(rng.choice(WORDS), top_k=5)
                    continue
            except MemLensError as err:
                record({"op": op, "error": type(err).__name__})
                continue
            if plan.id is None:
                continue  # nothing to do: nothing was stored
            journal_max, facts = memory.store.db.execute(
                "SELECT (SELECT coalesce(max(id), 0) FROM journal), (SELECT count(*) FROM facts)").fetchone()
            record({"op": op, "plan": plan.id, "status": plan.status, "journal_max": journal_max, "facts": facts})


if __name__ == "__main__":
    main()
