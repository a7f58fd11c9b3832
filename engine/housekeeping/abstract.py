"""abstract (DESIGN §7): derived facts from clusters of same-subject facts, through the LLM.

Active non-derived facts are clustered by normalised subject; a cluster of at
least ``min_cluster`` gets one temperature-0 call returning a JSON array of
at most two derived facts (a fenced block is accepted, prose is not; any
other answer fails that cluster only). Derived texts go through the absorb
pipeline as ``derived`` facts, never matched against their own children, so
a derived fact that is found again is reinforced instead of duplicated; each
carries ``derived_from`` edges to its children. Children of a derived fact
reinforced at least twice are archived (prune). Without an LLM every cluster
is reported skipped and nothing is planned.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from engine.absorb.planner import AbsorbPlanner, RawItem
from engine.config import MemorySettings
from engine.errors import InvalidInput
from engine.models.llm import LLMClient, LLMError
from engine.store.edges import children_of_confirmed
from engine.store.facts_read import active_rows
from engine.store.plans import INSERTING, Plan, PlanItem
from engine.store.records import fact_columns, normalise_text
from engine.search.vectors import VectorIndex

MAX_DERIVED = 2
PRUNE_AFTER = 2  # reinforcements of a derived fact before its children are archived
SYSTEM = (
    "You distil an agent's memory. Given several facts about one subject, write at most 2 general, durable "
    "facts that follow from them taken together; each a self-contained sentence. Answer with one JSON array "
    "of strings only, no prose, e.g. [\"...\"]; answer [] if nothing general follows."
)


@dataclass
class Cluster:
    subject: str
    fact_ids: list[int]
    status: str = "skipped"  # derived | skipped | failed
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "size": len(self.fact_ids), "fact_ids": self.fact_ids,
                "status": self.status, "reason": self.reason}


@dataclass
class Report:
    clusters: list[Cluster]
    items: list[PlanItem] = field(default_factory=list)
    vectors: dict[int, np.ndarray] = field(default_factory=dict)
    plan: Plan | None = None

    def counts(self) -> dict[str, int]:
        by_status = Counter(c.status for c in self.clusters)
        outcomes = Counter((it.stage, it.outcome) for it in self.items)
        return {"clusters": len(self.clusters), "created": sum(n for (s, o), n in outcomes.items()
                                                               if s == "abstract" and o in INSERTING),
                "reinforced": outcomes[("abstract", "duplicate")], "pruned": outcomes[("prune", "archive")],
                "skipped": by_status["skipped"], "failed": by_status["failed"]}

    def summary(self) -> str:
        c = self.counts()
        return (f"{c['clusters']} clusters: {c['created']} derived facts created, {c['reinforced']} reinforced, "
                f"{c['pruned']} children pruned; {c['skipped']} clusters skipped, {c['failed']} failed")

    def to_dict(self) -> dict[str, Any]:
        return {**self.counts(), "summary": self.summary(), "clusters": [c.to_dict() for c in self.clusters],
                "plan": None if self.plan is None else self.plan.to_dict()}


def clusters(db: sqlite3.Connection, min_cluster: int) -> list[Cluster]:
    if isinstance(min_cluster, bool) or not isinstance(min_cluster, int) or min_cluster < 2:
        raise InvalidInput("min_cluster must be a whole number of at least 2")
    groups: dict[str, Cluster] = {}
    for row in active_rows(db, "subject", "kind != 'derived' AND subject IS NOT NULL"):
        key = normalise_text(row["subject"])
        groups.setdefault(key, Cluster(row["subject"], [])).fact_ids.append(row["id"])
    found = [c for c in groups.values() if len(c.fact_ids) >= min_cluster]
    return sorted(found, key=lambda c: (-len(c.fact_ids), normalise_text(c.subject)))


def _derived_texts(answer: Any) -> list[str]:
    if not isinstance(answer, list) or len(answer) > MAX_DERIVED:
        raise LLMError("bad_shape", f"expected a JSON array of at most {MAX_DERIVED} facts")
    texts = [a.get("text") if isinstance(a, dict) else a for a in answer]
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise LLMError("bad_shape", "every derived fact must be a non-empty string")
    return [t.strip() for t in texts]


def plan_abstract(db: sqlite3.Connection, index: VectorIndex, embed: Callable[[list[str]], np.ndarray],
                  limits: MemorySettings, llm: LLMClient, min_cluster: int) -> Report:
    report = Report(clusters(db, min_cluster))
    if not llm.configured:
        for cluster in report.clusters:
            cluster.reason = "no LLM configured ([llm] base_url and model)"
        return report
    texts = {f: row["text"] for f, row in fact_columns(db, [f for c in report.clusters for f in c.fact_ids],
                                                        "text").items()}
    raw, children = [], []
    for cluster in report.clusters:
        listing = "\n".join(f"- {texts[f]}" for f in cluster.fact_ids)
        try:
            derived = _derived_texts(llm.ask_json(SYSTEM, f"SUBJECT: {cluster.subject}\nFACTS:\n{listing}"))
        except LLMError as err:
            if err.kind == "bad_shape":
                llm.stats["bad_shape"] += 1
            cluster.status, cluster.reason = "failed", str(err)
            continue
        cluster.status = "derived"
        cluster.reason = f"{len(derived)} derived fact{'s' if len(derived) != 1 else ''} proposed"
        for text in derived:
            raw.append(RawItem({"text": text, "scope": "agent", "kind": "derived", "source": "abstract"}))
            children.append(cluster.fact_ids)
    if raw:
        planner = AbsorbPlanner(db, index, embed, limits, exclude=frozenset(f for ids in children for f in ids))
        report.items, report.vectors = planner.plan(raw, {})
        for item, kids in zip(report.items, children):
            item.stage = "abstract"
            if item.outcome != "rejected":
                item.edges = [{"type": "derived_from", "to_id": f, "to_status": "active"} for f in kids]
    _prune(db, report.items)
    return report


def _prune(db: sqlite3.Connection, items: list[PlanItem]) -> None:
    """Archive the active children of derived facts already reinforced PRUNE_AFTER times."""
    rows = children_of_confirmed(db, PRUNE_AFTER)
    seen: set[int] = set()
    for row in rows:
        if row["child"] in seen:
            continue
        seen.add(row["child"])
        items.append(PlanItem(len(items), "archive", "abstract", f"derived fact {row['parent']} is confirmed "
                              f"({row['n']} reinforcements): its child is archived", target_id=row["child"],
                              target_status="active", stage="prune"))
