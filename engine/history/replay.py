"""What the memory said about a fact at a past moment, replayed from recorded times.

Every status change is a journal row and every edge has the time it was written, so the state
at ``when`` is: the edges written by then, the facts created by then, and each fact's status as
its journal rows up to then set it. Resolving a contradiction today adds rows dated today, so it
never changes the answer for yesterday.

One exception keeps imports readable: a row written by the same plan that created the successor
fact (an import or a backdated absorb carries facts whose ``created_at`` lies before the apply)
counts from that fact's ``created_at``, the time the plan claims for it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engine.errors import NotFound
from engine.history.versions import linked, ordered
from engine.store.edges import version_edges
from engine.store.journal import status_rows
from engine.store.records import Fact, load_facts

MAX_REACH = 500  # facts followed through edges from the asked one; chains are short in practice


@dataclass(frozen=True)
class Replay:
    """The chain of versions written by ``when`` (oldest first), each version's status then, the id
    current then, and the contradictions open then as (older id, newer id) pairs. Asked about a fact
    not written yet, the chain is that of its newest older version written by then."""
    fact_id: int
    when: float
    versions: list[int]
    statuses: dict[int, str | None]  # None: not created yet
    current: int | None
    open_contradictions: list[tuple[int, int]]
    facts: dict[int, Fact]


def _reach(db: sqlite3.Connection, fact_id: int) -> tuple[set[int], list[tuple]]:
    """The fact, every version linked to it by supersedes, and facts contradicting or related to those."""
    ids, explored, frontier, edges = {fact_id}, set(), {fact_id}, {}
    while frontier and len(ids) < MAX_REACH:
        explored |= frontier
        found = version_edges(db, frontier)
        frontier = set()
        for edge in found:
            edges[edge[:3]] = edge
            for end in edge[1:3]:
                # a version reached first through a contradicts edge is still followed for its own
                # versions: which edge came first must not decide what the chain holds
                if end not in explored and edge[0] == "supersedes":
                    frontier.add(end)
                ids.add(end)
    return ids, list(edges.values())


def _effective(at: float, plan_id: int | None, successor: Fact | None) -> float:
    if successor is not None and plan_id is not None and plan_id == successor.plan_id:
        return min(at, successor.created_at)
    return at


def replay(db: sqlite3.Connection, fact_id: int, when: float) -> Replay:
    ids, edges = _reach(db, fact_id)
    facts = load_facts(db, ids)
    if fact_id not in facts:
        raise NotFound(f"there is no fact {fact_id} in this memory")
    dated = [(kind, src, dst, _effective(at, plan, facts.get(src)), edge_id)
             for kind, src, dst, at, plan, edge_id in edges]
    live = [(kind, src, dst) for kind, src, dst, at, _id in dated
            if at <= when and facts.get(src) and facts.get(dst)
            and facts[src].created_at <= when and facts[dst].created_at <= when]
    statuses = _statuses(db, facts, when)
    start = _written_by(fact_id, facts, [(src, dst) for kind, src, dst, _at, _id in dated if kind == "supersedes"], when)
    supersedes = [(src, dst) for kind, src, dst in live if kind == "supersedes"]
    created = {i: f.created_at for i, f in facts.items()}
    versions = [v for v in ordered(linked(start, supersedes), supersedes, created).ids if statuses.get(v) is not None]
    active = [v for v in versions if statuses.get(v) == "active"]
    # A related edge settles a contradiction ("both hold") only when made after it: absorb links
    # close facts related, and a person may find them contradicting later.
    # Edge ids give the order (two edges may share a time under a fixed clock).
    written = set(live)
    settled_by: dict[frozenset[int], int] = {}
    for kind, src, dst, _at, edge_id in dated:
        if kind == "related" and (kind, src, dst) in written:
            pair = frozenset((src, dst))
            settled_by[pair] = max(edge_id, settled_by.get(pair, edge_id))
    chain_ids = set(versions)
    pairs = []
    for kind, src, dst, _at, edge_id in dated:
        if (kind == "contradicts" and (kind, src, dst) in written and (src in chain_ids or dst in chain_ids)
                and statuses.get(src) == "active" and statuses.get(dst) == "active"
                and settled_by.get(frozenset((src, dst)), -1) < edge_id):
            older, newer = sorted((facts[src], facts[dst]), key=lambda f: (f.created_at, f.id))
            pairs.append((older.id, newer.id))
    return Replay(fact_id, when, versions, {v: statuses.get(v) for v in sorted(facts)},
                  active[-1] if active else None, list(dict.fromkeys(pairs)), facts)


def _written_by(fact_id: int, facts: dict[int, Fact], supersedes: list[tuple[int, int]], when: float) -> int:
    """The fact, or when it was not written yet, its newest older version that was: as of a moment
    before fact 41 existed, its history is that of the version 41 later replaced (of several, as a
    fact kept over a contradiction has, the newest written by then)."""
    if facts[fact_id].created_at <= when:
        return fact_id
    older: dict[int, list[int]] = {}
    for new, old in supersedes:
        older.setdefault(new, []).append(old)
    seen, frontier, written = {fact_id}, [fact_id], []
    while frontier:
        nxt = [old for fact in frontier for old in older.get(fact, ()) if old not in seen and old in facts]
        seen.update(nxt)
        written += [old for old in nxt if facts[old].created_at <= when]
        frontier = [old for old in nxt if facts[old].created_at > when]
    return max(written, key=lambda i: (facts[i].created_at, i)) if written else fact_id


def _statuses(db: sqlite3.Connection, facts: dict[int, Fact], when: float) -> dict[int, str | None]:
    """Each fact's status at ``when`` from its journal rows (None when it did not exist yet)."""
    rows = status_rows(db, list(facts))
    status: dict[int, str | None] = {fid: ("active" if f.created_at <= when else None) for fid, f in facts.items()}
    changes: list[tuple[float, int, str]] = []
    for fid, at, plan_id, action, after, imported, by in rows:
        if facts[fid].created_at > when:
            continue
        if action == "import" and imported:
            changes.append((facts[fid].created_at, fid, imported))
        elif after:
            successor = facts.get(by) if isinstance(by, int) else _successor_in_plan(facts, plan_id)
            changes.append((_effective(at, plan_id, successor), fid, after))
    for at, fid, after in sorted(changes, key=lambda change: change[0]):
        if at <= when:
            status[fid] = after
    return status


def _successor_in_plan(facts: dict[int, Fact], plan_id: int | None) -> Fact | None:
    """A fact created by the same plan (the successor an absorb wrote with the supersession)."""
    if plan_id is None:
        return None
    born = [f for f in facts.values() if f.plan_id == plan_id]
    return min(born, key=lambda f: f.created_at) if born else None
