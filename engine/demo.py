"""The demo behind ``make run`` until the desktop app exists.

Builds a demo memory in a temporary file from ``resources/demo/memory.jsonl``
(never touching the user's memory), shows the absorb plan, applies it, and
runs a few searches and a history read through the same facade the CLI uses.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .clock import fixed_clock, parse_time
from .jsonl import read_records
from .memory import Memory
from .resources import resource_path
from .cli import render

DEMO_NOW = "2026-11-30T09:00:00Z"
QUERIES = ("which editor does Maya use", "where is Northwind Robotics located", "Ferrite database",
           "what should the agent do before proposing a commit")


def _section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def main() -> int:
    source = resource_path("demo", "memory.jsonl")
    with tempfile.TemporaryDirectory(prefix="memlens-demo-") as folder:
        path = Path(folder) / "demo.sqlite"
        with source.open("rb") as stream:
            items = [raw for _, raw in read_records(stream)]
        with Memory(path, clock=fixed_clock(parse_time(DEMO_NOW)), actor="demo") as memory:
            _section(f"absorb {len(items)} facts from {source.name} (dry run first)")
            plan = memory.absorb(items, dry_run=True)
            interesting = [it for it in plan.items if it.outcome != "new"]
            print(f"plan {plan.id}: {plan.counts()}; the items that are not simply new:")
            for it in interesting:
                print(f"  #{it.index:<3} {it.outcome:<10} {it.reason}")
            plan = memory.apply_plan(plan.id)
            render.stats(memory.stats(), as_json=False)
            for query in QUERIES:
                _section(f"search: {query}")
                render.search_results(memory.search(query, top_k=3), as_json=False)
            changed = next(it for it in reversed(plan.items) if it.outcome == "supersede")
            _section(f"history of fact {changed.fact_id} (every version, oldest first)")
            render.reading(memory.history(changed.fact_id), as_json=False)
        print(f"\nThe demo memory was a temporary file and is gone; try the CLI: memlens --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
