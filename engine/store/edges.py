"""Reads of the ``edges`` table (fact -> fact links: supersedes, contradicts, related, ...).

records.py holds the edge writer (``insert_edge``) and ``edges_touching``; the
other edge queries of history, plans and export are here.
"""

from __future__ import annotations

import sqlite3
from typing import Collection, Iterator


def newer_version(db: sqlite3.Connection, fact_id: int) -> int | None:
    """The fact that superseded ``fact_id`` (the latest such edge), if any."""
    row = db.execute("SELECT src_id FROM edges WHERE dst_id = ? AND type = 'supersedes' ORDER BY id DESC LIMIT 1",
                     (fact_id,)).fetchone()
    return None if row is None else row[0]


def supersedes_touching(db: sqlite3.Connection, ids: Collection[int]) -> list[tuple[int, int]]:
    """(newer, older) of the supersedes edges with either end in ``ids``."""
    marks = ",".join("?" * len(ids))
    return db.execute(f"SELECT src_id, dst_id FROM edges WHERE type = 'supersedes' "
                      f"AND (src_id IN ({marks}) OR dst_id IN ({marks}))", [*ids, *ids]).fetchall()


MAX_WALK = 100_000  # facts visited looking for a cycle; a real chain of versions is a handful


def supersedes_reaches(db: sqlite3.Connection, start: int, goal: int) -> bool:
    """Whether ``goal`` is ``start`` or one of its older versions (following supersedes edges new -> old)."""
    seen, frontier = {start}, [start]
    while frontier and len(seen) < MAX_WALK:
        if goal in frontier:
            return True
        marks = ",".join("?" * len(frontier))
        older = [row[0] for row in db.execute(
            f"SELECT dst_id FROM edges WHERE type = 'supersedes' AND src_id IN ({marks})", frontier)]
        frontier = [fact for fact in older if fact not in seen]
        seen.update(frontier)
    return goal in seen


def supersedes_cycle(db: sqlite3.Connection, newer: int, older: int) -> str | None:
    """Why ``newer`` may not supersede ``older`` (the versions would form a loop), else None.

    Versions must stay a forest: "latest" walks newer edges to an end, and a loop has none.
    The usual way to one is a decision undone and taken the other way: resolve keeping 1,
    revert that, resolve keeping 2 (the first edge is permanent)."""
    if newer == older:
        return f"fact {newer} cannot supersede itself"
    if supersedes_reaches(db, older, newer):
        return (f"fact {newer} cannot supersede fact {older}: fact {older} already supersedes it (directly or "
                f"through older versions), and versions may not form a loop; keep both, or archive fact {older}")
    return None


def version_edges(db: sqlite3.Connection, ids: Collection[int]) -> list[tuple[str, int, int, float, int | None, int]]:
    """(type, src, dst, created_at, plan id, edge id) of the supersedes, contradicts and related edges
    touching ``ids``."""
    marks = ",".join("?" * len(ids))
    return db.execute(f"SELECT type, src_id, dst_id, created_at, plan_id, id FROM edges WHERE type IN "
                      f"('supersedes', 'contradicts', 'related') AND (src_id IN ({marks}) OR dst_id IN ({marks})) "
                      f"ORDER BY id", [*ids, *ids]).fetchall()


def edges_of_types(db: sqlite3.Connection, types: Collection[str],
                   fact_ids: list[int]) -> list[tuple[str, int, int, float, int | None]]:
    """(type, src, dst, created_at, plan id) of the edges of these types touching ``fact_ids``, oldest first."""
    marks = ",".join("?" * len(fact_ids))
    return db.execute(
        f"SELECT type, src_id, dst_id, created_at, plan_id FROM edges "
        f"WHERE type IN ({','.join('?' * len(types))}) AND (src_id IN ({marks}) OR dst_id IN ({marks})) "
        f"ORDER BY id", [*types, *fact_ids, *fact_ids]).fetchall()


def children_of_confirmed(db: sqlite3.Connection, min_reinforcements: int) -> list[sqlite3.Row]:
    """(parent, n, child) rows: active children (``derived_from`` targets) of active derived facts
    reinforced at least ``min_reinforcements`` times, by parent then child."""
    return db.execute(
        "SELECT d.id AS parent, d.reinforcement_count AS n, c.id AS child FROM facts d "
        "JOIN edges e ON e.src_id = d.id AND e.type = 'derived_from' JOIN facts c ON c.id = e.dst_id "
        "WHERE d.status = 'active' AND d.kind = 'derived' AND d.reinforcement_count >= ? AND c.status = 'active' "
        "ORDER BY d.id, c.id", (min_reinforcements,)).fetchall()


def has_edge(db: sqlite3.Connection, src: int, dst: int, edge_type: str, both_ways: bool) -> bool:
    """An edge of this type from ``src`` to ``dst`` (or, when ``both_ways``, from ``dst`` to ``src``)."""
    row = db.execute("SELECT 1 FROM edges WHERE type = ? AND ((src_id = ? AND dst_id = ?) OR "
                     "(? AND src_id = ? AND dst_id = ?)) LIMIT 1",
                     (edge_type, src, dst, both_ways, dst, src)).fetchone()
    return row is not None


def edge_rows_of(db: sqlite3.Connection, fact_id: int) -> list[tuple[int, str, int, int, float, int | None]]:
    """(id, type, src, dst, created_at, plan id) of every edge from or to the fact, oldest first."""
    return db.execute("SELECT id, type, src_id, dst_id, created_at, plan_id FROM edges "
                      "WHERE src_id = ? OR dst_id = ? ORDER BY id", (fact_id, fact_id)).fetchall()


# A contradicts edge ``e`` that a related edge made after it (either way) settles as "both hold".
# A related edge from before (absorb links close facts so) said only that the two were close.
_SETTLED_LATER = ("EXISTS (SELECT 1 FROM edges r WHERE r.type = 'related' AND r.id > e.id AND "
                  "((r.src_id = e.src_id AND r.dst_id = e.dst_id) OR (r.src_id = e.dst_id AND r.dst_id = e.src_id)))")
_OPEN = ("FROM edges e JOIN facts a ON a.id = e.src_id JOIN facts b ON b.id = e.dst_id "
         f"WHERE e.type = 'contradicts' AND a.status = 'active' AND b.status = 'active' AND NOT {_SETTLED_LATER}")


def open_contradiction_rows(db: sqlite3.Connection, limit: int) -> list[tuple[int, int, float]]:
    """(src, dst, created_at) of the ``contradicts`` edges between two active facts that no ``related``
    edge made after it settles as "both hold", oldest first."""
    return db.execute(f"SELECT e.src_id, e.dst_id, e.created_at {_OPEN} ORDER BY e.id LIMIT ?", (limit,)).fetchall()


def contradiction_open(db: sqlite3.Connection, a: int, b: int) -> bool:
    """A ``contradicts`` edge joins ``a`` and ``b`` (either way) and no ``related`` edge made after it settles it."""
    return db.execute(
        "SELECT 1 FROM edges e WHERE e.type = 'contradicts' AND ((e.src_id = ? AND e.dst_id = ?) OR "
        f"(e.src_id = ? AND e.dst_id = ?)) AND NOT {_SETTLED_LATER} LIMIT 1", (a, b, b, a)).fetchone() is not None


def open_contradiction_count(db: sqlite3.Connection) -> int:
    """How many pairs ``open_contradiction_rows`` would list without a limit."""
    return db.execute(f"SELECT count(*) {_OPEN}").fetchone()[0]


def all_edges(db: sqlite3.Connection) -> Iterator[tuple[int, int, str, float]]:
    """(src, dst, type, created_at) of every edge, oldest first, streamed from the cursor."""
    return db.execute("SELECT src_id, dst_id, type, created_at FROM edges ORDER BY id")
