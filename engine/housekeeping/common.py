"""Housekeeping passes (DESIGN §7): each one only proposes, as plan items.

Every pass reads the store and returns plan items with a reason each; the
facade stores them as a draft plan and applies it unless it is a dry run.
Nothing is deleted: facts are archived or expired, summaries and distilled
facts are new records linked to their sources. This module holds
``consolidate`` and the helpers the other passes share; gc, distill and
abstract have their own modules.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.clock import SECONDS_PER_DAY, format_time
from engine.config import MemorySettings
from engine.store.decay import age_days, decay_rate, effective_confidence
from engine.store.facts_read import active_rows
from engine.store.plans import PlanItem


@dataclass
class ItemMaker:
    """Numbers plan items in order and makes sure no fact is retired twice in one plan."""
    decided_by: str
    items: list[PlanItem]
    retired: set[int]

    @classmethod
    def start(cls, decided_by: str) -> "ItemMaker":
        return cls(decided_by, [], set())

    def add(self, outcome: str, reason: str, **fields: Any) -> PlanItem:
        item = PlanItem(len(self.items), outcome, self.decided_by, reason, **fields)
        self.items.append(item)
        return item

    def retire(self, outcome: str, fact_id: int, reason: str, stage: str | None = None,
               after: int | None = None, before: dict[str, Any] | None = None) -> PlanItem | None:
        """archive / expire one active fact.

        ``after``: an item that must be applied with this one; ``before``: the column values the
        reason rests on (a plan is refused if they changed by the time it is applied).
        """
        if fact_id in self.retired:
            return None
        self.retired.add(fact_id)
        return self.add(outcome, reason, target_id=fact_id, target_status="active", stage=stage,
                        target_index=after, before=before)


def days_text(seconds: float) -> str:
    days = seconds / SECONDS_PER_DAY
    return f"{days:.0f} days" if days >= 2 else f"{seconds / 3600:.0f} hours"


def consolidate(db: sqlite3.Connection, limits: MemorySettings, now: float) -> list[PlanItem]:
    """Archive active facts whose decayed confidence fell below ``archive_below`` (DESIGN §5)."""
    rows = active_rows(db, "confidence, kind, last_reinforced")
    if not rows:
        return []
    confidence = np.array([r["confidence"] for r in rows])
    rates = np.array([decay_rate(r["kind"]) for r in rows])
    days = age_days(now, np.array([r["last_reinforced"] for r in rows]))
    effective = effective_confidence(confidence, rates, days)
    maker = ItemMaker.start("consolidate")
    for row, value, rate, age in zip(rows, effective, rates, days):
        if value < limits.archive_below:
            maker.retire("archive", row["id"], (
                f"effective confidence {value:.3f} < {limits.archive_below}: {row['confidence']:.2f} "
                f"x exp(-{rate:g} x {age:.0f} days since {format_time(row['last_reinforced'])[:10]}, {row['kind']})"),
                before={"confidence": row["confidence"], "last_reinforced": row["last_reinforced"]})
    return maker.items
