"""Reading what writes did, from the journal: change records for a range of journal rows,
and the journal queries of history (audit listing, a fact's status and confidence over time).

Every write journals each fact it adds or changes in the same transaction, so the rows a
write added say what it changed — for this process's writes and for another process's alike.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Collection, Iterable

from engine.changes import ChangeRecord

ADDING = frozenset({"absorb", "import"})
STATUS_CHANGING = frozenset({"supersede", "archive", "expire", "reactivate"})
TOUCHING = frozenset({"reinforce", "retag"})


def high_water(db: sqlite3.Connection) -> int:
    """The id of the newest journal row (0 for an empty journal)."""
    return db.execute("SELECT coalesce(max(id), 0) FROM journal").fetchone()[0]


def chain_at(db: sqlite3.Connection, entry_id: int) -> str | None:
    """The chain hash of journal row ``entry_id`` (engine/store/journal_chain.py): it commits to that row
    and every row before it, so equal hashes mean the same journal up to there. None when there is
    no such row (or it has no chain)."""
    row = db.execute("SELECT chain FROM journal WHERE id = ?", (entry_id,)).fetchone()
    return row[0] if row else None


def changes_between(db: sqlite3.Connection, after: int, upto: int | None = None) -> ChangeRecord:
    """What the journal rows ``after < id <= upto`` (all newer rows when ``upto`` is None) changed."""
    rows = db.execute("SELECT id, actor, action, fact_id, plan_id, "
                      "CASE WHEN action = 'profile edit' THEN details END FROM journal "
                      "WHERE id > ? AND id <= ? ORDER BY id",
                      (after, upto if upto is not None else 2 ** 63 - 1)).fetchall()
    if not rows:
        return ChangeRecord()
    return _record(db, [row[1:] for row in rows], rows[0][0], rows[-1][0], None)


def changes_written(db: sqlite3.Connection, rows: Iterable[tuple[str, str, int | None, int | None, str | None]],
                    first: int | None, last: int | None, edges: Iterable[int]) -> ChangeRecord:
    """The record of a write this process just made, from what its writer knows rather than read back.

    ``rows`` are the (actor, action, fact_id, plan_id, details) of the journal rows it added, in
    order, with ids ``first`` to ``last`` (None when it added none); ``edges`` the ids of every
    edge row it inserted (the edges of its plan: ``changes_between`` finds them by plan). The
    result equals what ``changes_between`` reads back for the same rows.
    """
    if last is None:
        return ChangeRecord()
    return _record(db, rows, first, last, sorted(edges))


def _record(db: sqlite3.Connection, rows: Iterable[tuple[str, str, int | None, int | None, str | None]],
            first: int, last: int, edges: list[int] | None) -> ChangeRecord:
    """A change record from journal rows; the edges added are looked up by plan unless given."""
    record = ChangeRecord()
    added, status, touched, plans, actors, files = set(), set(), set(), set(), set(), set()
    for actor, action, fact_id, plan_id, details in rows:
        actors.add(actor)
        if plan_id is not None:
            plans.add(plan_id)
        if action == "profile edit" and details:
            files.add(str(json.loads(details).get("file")))
        if fact_id is None:
            continue
        if action in ADDING:
            added.add(fact_id)
        elif action in STATUS_CHANGING:
            status.add(fact_id)
        elif action in TOUCHING:
            touched.add(fact_id)
    record.facts_added = sorted(added)
    # A fact added and superseded by the same write is in both lists: it exists, and not as active.
    record.facts_status_changed = sorted(status)
    record.facts_touched = sorted(touched - status)
    record.edges_added = _edges_of_plans(db, plans) if edges is None else edges
    record.entities_touched = _entities_of(db, added | status)
    record.profile_files = sorted(files)
    record.plans = sorted(plans)
    record.actors = sorted(actors)
    record.journal_first, record.journal_last = first, last
    return record


def _edges_of_plans(db: sqlite3.Connection, plans: set[int]) -> list[int]:
    if not plans:
        return []
    marks = ",".join("?" * len(plans))
    return [r[0] for r in db.execute(f"SELECT id FROM edges WHERE plan_id IN ({marks}) ORDER BY id", sorted(plans))]


def _entities_of(db: sqlite3.Connection, fact_ids: set[int]) -> list[int]:
    """Entities mentioned by these facts: their relations appear, or turn inactive, with them."""
    if not fact_ids:
        return []
    found: set[int] = set()
    ids = sorted(fact_ids)
    for start in range(0, len(ids), 900):  # under SQLite's bound-parameter limit
        chunk = ids[start:start + 900]
        marks = ",".join("?" * len(chunk))
        found.update(r[0] for r in db.execute(
            f"SELECT entity_id FROM entity_mentions WHERE fact_id IN ({marks})", chunk))
    return sorted(found)


def fact_rows_after(db: sqlite3.Connection, after: int) -> list[tuple[int, int | None]]:
    """(journal id, fact id or None) of every journal row newer than ``after``, oldest first."""
    return db.execute("SELECT id, fact_id FROM journal WHERE id > ? ORDER BY id", (after,)).fetchall()


# -- history's reads: audit listing, status and confidence over time --------------------------------

def audit_rows(db: sqlite3.Connection, where: str, params: list[Any], limit: int) -> list[tuple]:
    """(id, at, actor, action, fact_id, plan_id, details) of the rows passing ``where`` (a clause the
    caller builds from constants, e.g. ``AuditFilter.sql()``; values bound in ``params``), newest first."""
    return db.execute(f"SELECT id, at, actor, action, fact_id, plan_id, details FROM journal WHERE {where} "
                      f"ORDER BY id DESC LIMIT ?", [*params, limit]).fetchall()


def actions(db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT DISTINCT action FROM journal ORDER BY action")]


def actors(db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT DISTINCT actor FROM journal ORDER BY actor")]


def status_rows(db: sqlite3.Connection, fact_ids: Collection[int]) -> list[tuple]:
    """(fact_id, at, plan_id, action, after.status, status, by) of these facts' rows with valid details,
    oldest first."""
    marks = ",".join("?" * len(fact_ids))
    return db.execute(
        f"SELECT fact_id, at, plan_id, action, json_extract(details, '$.after.status'), "
        f"json_extract(details, '$.status'), json_extract(details, '$.by') FROM journal "
        f"WHERE fact_id IN ({marks}) AND json_valid(details) ORDER BY id", list(fact_ids)).fetchall()


def status_change_rows(db: sqlite3.Connection, fact_ids: Collection[int]) -> list[tuple]:
    """(fact_id, at, action, after.status, status, plan_id) of these facts' rows with valid details, oldest first."""
    marks = ",".join("?" * len(fact_ids))
    return db.execute(
        f"SELECT fact_id, at, action, json_extract(details, '$.after.status'), json_extract(details, '$.status'), "
        f"plan_id FROM (SELECT * FROM journal WHERE json_valid(details)) WHERE fact_id IN ({marks}) ORDER BY id",
        list(fact_ids)).fetchall()


def reinforcements(db: sqlite3.Connection, fact_id: int) -> list[tuple[float, Any]]:
    """(at, after.confidence) of each reinforcement of one fact, oldest first."""
    return db.execute(
        "SELECT at, json_extract(details, '$.after.confidence') FROM (SELECT * FROM journal WHERE json_valid(details)) "
        "WHERE fact_id = ? AND action = 'reinforce' ORDER BY id", (fact_id,)).fetchall()


def confidence_before_reinforcing(db: sqlite3.Connection, fact_id: int) -> Any:
    """before.confidence of the fact's first reinforcement (None when there is none or it lacks one)."""
    row = db.execute(
        "SELECT json_extract(details, '$.before.confidence') FROM (SELECT * FROM journal WHERE json_valid(details)) "
        "WHERE fact_id = ? AND action = 'reinforce' ORDER BY id LIMIT 1", (fact_id,)).fetchone()
    return row[0] if row else None
