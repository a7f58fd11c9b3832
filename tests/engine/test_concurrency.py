"""Several processes absorbing and searching one memory file at once (the GUI, CLI, HTTP and MCP
servers all may have it open). No "database is locked" reaches a caller, no write is lost, and
every process finds what every other one wrote.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from engine import Memory, MemLensError

WORKERS = 4
ROUNDS = 6
PEOPLE = ["Amara", "Bogdan", "Chiara", "Dmitri"]
TOPICS = ["the billing database migration", "the Kubernetes ingress rewrite", "the onboarding handbook",
          "the latency dashboard in Grafana", "the quarterly security audit", "the Rust parser prototype"]
PLACES = ["Lisbon", "Tbilisi", "Osaka", "Winnipeg", "Nairobi", "Tromsø"]
# Every worker absorbs these too, at the same moments: the racing writers must agree on one fact each.
SHARED = ["The whole company meets in the atrium every Monday at ten for the weekly update.",
          "All production deploys are frozen during the last week of December."]


def unique_text(worker: int, round_: int) -> str:
    return (f"{PEOPLE[worker]} owns {TOPICS[(round_ + worker) % len(TOPICS)]} while working from "
            f"{PLACES[(round_ * 5 + worker) % len(PLACES)]}, phase {round_ + 1} of {ROUNDS}.")


def _work(db: str, worker: int, start: Any, results: Any) -> None:
    """One process: absorb its own facts and the shared ones, searching for each right after."""
    report: dict[str, Any] = {"worker": worker, "errors": [], "inserted": {}, "misses": []}
    start.wait()
    try:
        with Memory(db, actor=f"worker{worker}") as memory:
            for round_ in range(ROUNDS):
                text = unique_text(worker, round_)
                plan = memory.absorb([text, SHARED[round_ % len(SHARED)]])
                for item in plan.items:
                    if item.fact_id is not None and item.outcome not in ("duplicate", "rejected"):
                        report["inserted"][item.fact_id] = item.incoming["text"]
                hits = memory.search(text, top_k=3)
                if not hits or hits[0].fact.text != text:
                    report["misses"].append(text)
    except MemLensError as err:
        report["errors"].append(str(err))
    except Exception as err:  # a bug: report it rather than hang the parent
        report["errors"].append(f"{type(err).__name__}: {err}")
    results.put(report)


@pytest.mark.slow
def test_four_processes_write_and_search_one_file_at_once(tmp_path: Path, embedder) -> None:
    db = tmp_path / "shared.sqlite"  # not created yet: the processes race to create it too
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_work, args=(str(db), n, start, results)) for n in range(WORKERS)]
    for p in procs:
        p.start()
    start.set()
    reports = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r["errors"] for r in reports] == [[]] * WORKERS
    assert [r["misses"] for r in reports] == [[]] * WORKERS
    inserted = {fid: text for r in reports for fid, text in r["inserted"].items()}
    with Memory(db, embedder=embedder) as memory:
        facts = memory.facts(range(1, 10_000))
        assert sorted(facts) == sorted(inserted)  # every reported write is there, and nothing else
        assert all(facts[fid].text == text for fid, text in inserted.items())
        texts = [f.text for f in facts.values()]
        for n in range(WORKERS):
            for round_ in range(ROUNDS):
                assert texts.count(unique_text(n, round_)) == 1
        for shared in SHARED:  # racing writers of the same text made one fact, the rest reinforced it
            assert texts.count(shared) == 1
        journal = memory.journal(limit=100_000)
        absorbed = [e.fact_id for e in journal if e.action == "absorb"]
        assert sorted(absorbed) == sorted(facts)
        reinforced = sum(1 for e in journal if e.action == "reinforce")
        assert len(absorbed) + reinforced == WORKERS * ROUNDS * 2
        assert {e.actor for e in journal if e.action == "absorb"} <= {f"worker{n}" for n in range(WORKERS)}
        for shared in SHARED:
            assert memory.search(shared, top_k=1)[0].fact.text == shared
