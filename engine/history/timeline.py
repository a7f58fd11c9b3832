"""A fact's evolution over time: its supersedes chain, the contradictions and
related facts touching it, each version's status history, and its confidence curve.

Status history is rebuilt from the journal (every status change is journaled
with before/after), which is what the GUI draws. "What did the memory say at
time t" has one answer, ``replay`` (``Memory.timeline_as_of``), which the CLI,
HTTP, MCP and the GUI all show. Times are the ones the facts claim: a backdated
import reads as its history says.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from engine.store.decay import decay_rate, effective_confidence
from engine.errors import NotFound
from engine.history.versions import Versions, versions_of
from engine.store import journal as journal_rows
from engine.store.edges import edges_of_types
from engine.store.records import Fact, load_facts

DAY = 86400.0
_FACT_EDGES = ("contradicts", "related")


@dataclass(frozen=True)
class Link:
    """A typed edge between two facts, as of ``created_at``."""
    type: str
    src: int
    dst: int
    created_at: float
    plan_id: int | None = None

    def other(self, fact_id: int) -> int:
        return self.dst if self.src == fact_id else self.src


@dataclass
class Version:
    """One record with its status changes, oldest first: ``[(time, status), ...]``, and when it
    became this version of its chain (``joined_at``): its creation, or for a fact that existed
    before it was made the newer version (a resolved contradiction), the moment it was."""
    fact: Fact
    changes: list[tuple[float, str]]
    joined_at: float = 0.0

    def status_at(self, when: float) -> str | None:
        """The record's status at ``when``, or None if it did not exist yet."""
        times = [t for t, _ in self.changes]
        at = bisect_right(times, when)
        return self.changes[at - 1][1] if at else None


@dataclass
class Timeline:
    fact_id: int
    versions: list[Version]
    links: list[Link]
    others: dict[int, list[Version]] = field(default_factory=dict)
    related_versions: list[Version] = field(default_factory=list)

    @property
    def chain_ids(self) -> list[int]:
        return [v.fact.id for v in self.versions]

    @property
    def contradictions(self) -> list[Link]:
        return [link for link in self.links if link.type == "contradicts"]

    @property
    def related(self) -> list[Link]:
        return [link for link in self.links if link.type == "related"]

    def all_versions(self) -> list[Version]:
        return self.versions + [v for chain_ in self.others.values() for v in chain_] + self.related_versions

    @property
    def span(self) -> tuple[float, float]:
        times = [t for v in self.all_versions() for t, _ in v.changes]
        times += [link.created_at for link in self.links]
        return min(times), max(times)


def _status_changes(db: sqlite3.Connection, facts: dict[int, Fact]) -> dict[int, list[tuple[float, str, int | None]]]:
    """Each fact starts active when created (or with the status an import gave it) and changes
    whenever a journal entry records an ``after.status`` for it: ``(time, status, plan id)``."""
    changes: dict[int, list[tuple[float, str, int | None]]] = {fid: [] for fid in facts}
    if not facts:
        return changes
    rows = journal_rows.status_change_rows(db, list(facts))
    for fact_id, at, action, after_status, imported_status, plan_id in rows:
        if after_status:
            changes[fact_id].append((at, after_status, plan_id))
        elif action == "import" and imported_status:
            changes[fact_id].append((facts[fact_id].created_at, imported_status, plan_id))
    for fact_id, fact in facts.items():
        initial = [(fact.created_at, "active", fact.plan_id)] \
            if not changes[fact_id] or changes[fact_id][0][0] > fact.created_at else []
        changes[fact_id] = sorted(initial + changes[fact_id], key=lambda change: change[0])
    return changes


def _links(db: sqlite3.Connection, fact_ids: list[int]) -> list[Link]:
    return [Link(*row) for row in edges_of_types(db, _FACT_EDGES, fact_ids)]


def build(db: sqlite3.Connection, fact_id: int) -> Timeline:
    """The timeline of ``fact_id``: its chain, the chains its contradictions touch, related facts."""
    own = versions_of(db, fact_id)
    ids = own.ids
    links = _links(db, ids)
    other_versions: dict[int, Versions] = {}
    for link in links:
        other = link.dst if link.src in ids else link.src
        if other not in ids and link.type == "contradicts":
            other_versions.setdefault(other, versions_of(db, other))
    other_chains = {head: v.ids for head, v in other_versions.items()}
    related_ids = [link.dst if link.src in ids else link.src for link in links
                   if link.type == "related" and not (link.src in ids and link.dst in ids)]
    wanted = set(ids) | {i for c in other_chains.values() for i in c} | set(related_ids)
    facts = load_facts(db, wanted)
    if fact_id not in facts:
        raise NotFound(f"there is no fact {fact_id} in this memory")
    changes = _status_changes(db, facts)
    replaced_by = {old: new for v in (own, *other_versions.values()) for old, new in v.newer.items()}
    _date_supersessions(replaced_by, facts, changes)
    links = [_dated(link, facts) for link in links]
    joined = _joined(db, replaced_by, facts)

    def version(i: int) -> Version:
        return Version(facts[i], [(at, status) for at, status, _ in changes[i]], joined.get(i, facts[i].created_at))

    others = {head: [version(i) for i in c] for head, c in other_chains.items()}
    in_chains = set(ids) | {i for c in other_chains.values() for i in c}
    related = [version(i) for i in dict.fromkeys(related_ids) if i not in in_chains]
    return Timeline(fact_id, [version(i) for i in ids], links, others, related)


def _joined(db: sqlite3.Connection, replaced_by: dict[int, int], facts: dict[int, Fact]) -> dict[int, float]:
    """When each newer version joined its chain: the time of its supersedes edge, counted from the
    fact's own creation when the plan that wrote the edge also wrote the fact (as ``replay`` does)."""
    pairs = {(new, old) for old, new in replaced_by.items()}
    joined: dict[int, float] = {}
    if not pairs:
        return joined
    for _type, src, dst, at, plan_id in edges_of_types(db, ("supersedes",), sorted({n for n, _ in pairs})):
        if (src, dst) in pairs:
            born = facts[src].created_at
            at = born if plan_id is not None and plan_id == facts[src].plan_id else max(born, at)
            # a fact kept over a contradiction has a second older version from then; it joined the
            # chain with its first
            joined[src] = min(at, joined.get(src, at))
    return joined


def _date_supersessions(replaced_by: dict[int, int], facts: dict[int, Fact],
                        changes: dict[int, list[tuple[float, str, int | None]]]) -> None:
    """A version stops being current when its successor was written. Imports and backdated
    absorbs are applied later than the facts they carry claim, so a supersession written by the
    plan that created the successor counts from the successor's ``created_at`` when that is
    earlier. A supersession decided later (a person resolving a contradiction) keeps its own time:
    history is never rewritten by a later decision."""
    for old, new in replaced_by.items():
        if old not in facts or new not in facts:
            continue
        successor = facts[new]
        changes[old] = sorted(((max(facts[old].created_at, min(at, successor.created_at))
                                if status == "superseded" and plan is not None and plan == successor.plan_id
                                else at, status, plan) for at, status, plan in changes[old]),
                              key=lambda change: change[0])


def _dated(link: Link, facts: dict[int, Fact]) -> Link:
    """An edge written with the fact it starts from (an import, a backdated absorb) holds from when
    both its facts existed; one added later (by hand, by a later plan) holds from when it was written."""
    source = facts.get(link.src)
    ends = [facts[i].created_at for i in (link.src, link.dst) if i in facts]
    if len(ends) < 2 or source is None or link.plan_id is None or link.plan_id != source.plan_id:
        return link
    return Link(link.type, link.src, link.dst, min(link.created_at, max(ends)), link.plan_id)


@dataclass
class ConfidenceCurve:
    """Effective confidence sampled over time, with the moments it was reinforced."""
    times: np.ndarray
    values: np.ndarray
    reinforced_at: list[float]
    reinforced_to: list[float]


def confidence_curve(db: sqlite3.Connection, fact: Fact, until: float, points: int = 200) -> ConfidenceCurve:
    """Rebuild the curve from the journal: between reinforcements the stored confidence
    decays as ``c·exp(−λ·days)``; each reinforcement resets the clock at a higher ``c``."""
    rows = journal_rows.reinforcements(db, fact.id)
    steps = [(r[0], float(r[1])) for r in rows if r[1] is not None]
    first = fact.confidence if not steps else _initial_confidence(db, fact, steps)
    anchors = [(fact.created_at, first)] + steps
    start, end = fact.created_at, max(until, fact.created_at + DAY)
    times = np.linspace(start, end, points)
    anchor_times = np.array([t for t, _ in anchors])
    which = np.searchsorted(anchor_times, times, side="right") - 1
    base = np.array([c for _, c in anchors])[which]
    days = (times - anchor_times[which]) / DAY
    values = effective_confidence(base, decay_rate(fact.kind), days)
    return ConfidenceCurve(times, np.asarray(values, dtype=float), [t for t, _ in steps], [c for _, c in steps])


def _initial_confidence(db: sqlite3.Connection, fact: Fact, steps: list[tuple[float, float]]) -> float:
    before = journal_rows.confidence_before_reinforcing(db, fact.id)
    return float(before) if before is not None else fact.confidence
