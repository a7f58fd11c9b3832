"""A fact's versions: every record linked to it by ``supersedes`` edges, oldest first.

Versions form a tree, not always a line: resolving a contradiction by keeping one side makes the
other side an older version of the kept fact, which may already have one ("Lena works at
Brightline" <- "Lena now works at Corvid" -> kept over "Lena works at Quarry Bank"). Following one
older edge per fact showed two versions of three, and the timeline list and its replayed chart
followed different ones. Every reader (the timeline, the replay at a moment, "latest" and
"full_history") takes its versions from here.
"""

from __future__ import annotations

import heapq
import sqlite3
from dataclasses import dataclass
from typing import Iterable

from engine.store.edges import supersedes_touching
from engine.store.records import fact_columns

MAX_VERSIONS = 10_000  # a guard against edges written by hand into a huge component


@dataclass(frozen=True)
class Versions:
    ids: list[int]          # oldest first: each older version before the one that replaced it
    newer: dict[int, int]   # old id -> the id of the version that replaced it

    @property
    def newest(self) -> int:
        return self.ids[-1]


def linked(start: int, supersedes: Iterable[tuple[int, int]]) -> set[int]:
    """``start`` and every fact joined to it through (new, old) supersedes pairs, either way."""
    neighbours: dict[int, set[int]] = {}
    for new, old in supersedes:
        neighbours.setdefault(new, set()).add(old)
        neighbours.setdefault(old, set()).add(new)
    found, frontier = {start}, [start]
    while frontier and len(found) < MAX_VERSIONS:
        nxt = []
        for fact in frontier:
            for other in neighbours.get(fact, ()):
                if other not in found:
                    found.add(other)
                    nxt.append(other)
        frontier = nxt
    return found


def ordered(ids: set[int], supersedes: Iterable[tuple[int, int]], created: dict[int, float]) -> Versions:
    """``ids`` oldest first: an older version before the one that replaced it, and versions no edge
    orders by creation time (then id). A cycle written by hand ends the order where it starts."""
    newer: dict[int, int] = {}
    waiting = {i: 0 for i in ids}
    after: dict[int, list[int]] = {i: [] for i in ids}
    for new, old in supersedes:
        if new in ids and old in ids and new != old and (old, new) not in newer.items():
            newer[old] = new
            after[old].append(new)
            waiting[new] += 1
    key = {i: (created.get(i, 0.0), i) for i in ids}
    ready = [key[i] for i in ids if waiting[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, fact = heapq.heappop(ready)
        order.append(fact)
        for successor in after[fact]:
            waiting[successor] -= 1
            if waiting[successor] == 0:
                heapq.heappush(ready, key[successor])
    placed = set(order)
    order += sorted((i for i in ids if i not in placed), key=key.__getitem__)  # a cycle's members
    return Versions(order, newer)


def versions_of(db: sqlite3.Connection, fact_id: int) -> Versions:
    """The versions of ``fact_id`` as stored now."""
    found, frontier, pairs = {fact_id}, {fact_id}, set()
    while frontier and len(found) < MAX_VERSIONS:
        rows = [pair for start in range(0, len(frontier), 500)
                for pair in supersedes_touching(db, sorted(frontier)[start:start + 500])]
        frontier = set()
        for new, old in rows:
            pairs.add((new, old))
            for end in (new, old):
                if end not in found:
                    found.add(end)
                    frontier.add(end)
    created = {fact: row["created_at"] for fact, row in fact_columns(db, found, "created_at").items()}
    return ordered(found, sorted(pairs), created)
