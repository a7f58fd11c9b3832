"""Writing a generated memory straight to a store: what 100k and 1M facts need.

Absorbing a fact plans it first: embedding, nearest stored facts, the
classifier. At 1M that is days on this VM, and it is not what a store of that
size is for: the benchmark needs the *rows* absorb writes. So this writes each
batch of ``BATCH`` items as one absorb plan whose outcomes and targets are the
generator's (``synthetic.Planned``): the plan is stored (``store.plans.save_plan``),
written by the engine's own plan writer (``plans.apply.PlanWriter``: the fact,
its FTS5 row by trigger, its edge to the target, a superseded target's status,
entities and mentions, and the journal rows with their hash chain), and marked
applied (``mark_plan``), as ``Memory.absorb`` does; only the planning is skipped.
Many plans share one transaction. No SQL is written here: the rows are exactly
the engine's, and ``memlens verify`` checks the result.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Callable

import numpy as np

from engine import Settings
from engine.absorb.validation import validate
from engine.models.embeddings import DEFAULT_MODEL
from engine.plans.apply import PlanWriter
from engine.store.connection import Store
from engine.store.plans import Plan, PlanItem, mark_plan, save_plan

from benchmarks.synthetic import BATCH, NOW, Made

PLANS_PER_TRANSACTION = 20
REASON = "planned by the benchmark generator (benchmarks.bulk): not classified"


def write(path: Path, made: Made, vectors: Callable[[int, int], np.ndarray], *, actor: str = "bench",
          batch: int = BATCH, log: Callable[[str], None] = print) -> Counter[str]:
    """Write ``made`` into a new store at ``path`` in absorb plans of ``batch`` items; the outcomes written."""
    limits = Settings().memory
    fact_of: dict[int, int] = {}  # generated item index -> fact id
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    store = Store.open(path)
    try:
        size = len(made.items)
        step = batch * PLANS_PER_TRANSACTION
        for first in range(0, size, step):
            last = min(size, first + step)
            block = vectors(first, last)
            with store.transaction() as db:
                for start in range(first, last, batch):
                    stop = min(last, start + batch)
                    items = _plan_items(made, start, stop, fact_of, limits)
                    plan = Plan(None, "absorb", NOW, actor, "draft", items)
                    save_plan(db, plan)
                    own = {it.index: block[start - first + it.index] for it in items}
                    PlanWriter(db, plan, NOW, actor, DEFAULT_MODEL, limits, own).write(items)
                    plan.applied_indexes = [it.index for it in items]
                    mark_plan(db, plan, "applied", NOW)
                    for it in items:
                        fact_of[start + it.index] = it.fact_id
                        outcomes[it.outcome] += 1
            if last % 100_000 == 0 or last == size:
                log(f"  {path.name}: {last:,}/{size:,} facts written, {time.perf_counter() - started:.0f} s")
    finally:
        store.close()
    return outcomes


def _plan_items(made: Made, start: int, stop: int, fact_of: dict[int, int], limits) -> list[PlanItem]:
    items = []
    for index in range(start, stop):
        planned = made.planned[index]
        incoming = validate(made.items[index], limits, scan_secrets=False).to_dict()
        item = PlanItem(index - start, planned.outcome, "generator", REASON, incoming=incoming)
        if planned.target >= 0:
            if planned.target >= start:
                item.target_index = planned.target - start
            else:
                item.target_id = fact_of[planned.target]
            item.target_status = "active"
        items.append(item)
    return items
