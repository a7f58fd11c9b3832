"""distill (DESIGN §7): run facts of finished sessions become durable agent knowledge.

Each active ``run`` fact of a finished session (no fact added or reinforced
for ``[gc] finished_session_hours``, or the session named explicitly) is
re-absorbed as an ``agent`` fact through the absorb pipeline, so it is
classified against agent knowledge like any new input: a duplicate
reinforces what is known, a new value supersedes, a disagreement is recorded
as a contradiction. The originals themselves are never matched. Every
re-absorbed item carries a ``distilled_from`` edge to its original, and the
original is archived by an item that can only be applied together with it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable

import numpy as np

from engine.absorb.planner import AbsorbPlanner, RawItem
from engine.absorb.classify import classify
from engine.clock import format_time
from engine.config import GCSettings, MemorySettings
from engine.errors import InvalidInput
from engine.housekeeping.common import days_text
from engine.store.facts_read import active_rows, run_sessions
from engine.store.plans import PlanItem
from engine.store.records import stored_list
from engine.search.vectors import VectorIndex

# Episodes decay in days; once distilled, what they taught is ordinary knowledge.
_KIND_AFTER = {"episodic": "explicit"}
_KEPT = ("tags", "subject", "predicate", "object", "importance", "source")


def finished_sessions(db: sqlite3.Connection, settings: GCSettings, now: float,
                      session_id: str | None) -> list[tuple[str, float]]:
    """(session id, last activity) of the sessions to distill: the named one, else every finished one."""
    rows = run_sessions(db)
    if session_id is not None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidInput("session must be a non-empty string")
        return [(r[0], r[1]) for r in rows if r[0] == session_id.strip()]
    cutoff = now - settings.finished_session_hours * 3600
    return [(r[0], r[1]) for r in rows if r[1] <= cutoff]


def _metadata(text: str | None) -> dict[str, Any]:
    """The stored metadata object; a damaged column reads as empty, as every other read does."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _incoming(row: sqlite3.Row, session: str) -> dict[str, Any]:
    value = {"text": row["text"], "scope": "agent", "kind": _KIND_AFTER.get(row["kind"], row["kind"]),
             "created_at": format_time(row["created_at"])}
    for key in _KEPT:
        if row[key] not in (None, "[]"):
            value[key] = (stored_list(row[key], "tags") or []) if key == "tags" else row[key]
    value.setdefault("source", f"session:{session}")
    metadata = _metadata(row["metadata"])
    for key in ("entities", "relations"):
        if metadata.get(key):
            value[key] = metadata[key]
    return value


def distill(db: sqlite3.Connection, index: VectorIndex, embed: Callable[[list[str]], np.ndarray],
            limits: MemorySettings, settings: GCSettings, now: float, session_id: str | None = None,
            classifier: Callable[..., Any] | None = None) -> tuple[list[PlanItem], dict[int, np.ndarray], list[str]]:
    """Plan items, their vectors (for an immediate apply) and one line per session distilled."""
    sessions = finished_sessions(db, settings, now, session_id)
    if not sessions:
        return [], {}, []
    names = [s for s, _ in sessions]
    marks = ",".join("?" * len(names))
    originals = active_rows(db, "text, kind, tags, subject, predicate, object, importance, source, metadata, "
                                "created_at, session_id", f"scope = 'run' AND session_id IN ({marks})", names)
    planner = AbsorbPlanner(db, index, embed, limits, exclude=frozenset(r["id"] for r in originals),
                            classifier=classifier or classify)
    items, vectors = planner.plan([RawItem(_incoming(r, r["session_id"])) for r in originals], {})
    for item, original in zip(items, originals):  # absorb keeps one item per input, in input order
        item.stage = "distill"
        if item.outcome != "rejected":
            item.edges = [{"type": "distilled_from", "to_id": original["id"], "to_status": "active"}]
    for item, original in zip(list(items), originals):
        if item.outcome == "rejected":
            continue  # the original stays as it is, active, for a person to look at
        items.append(PlanItem(len(items), "archive", "distill", f"distilled into agent knowledge by item "
                              f"{item.index} (session {original['session_id']})", target_id=original["id"],
                              target_status="active", target_index=item.index, stage="distill"))
    counts = {s: sum(r["session_id"] == s for r in originals) for s in names}
    lines = [f"session {s}: {counts[s]} run facts, last activity {days_text(now - last)} ago"
             for s, last in sessions]
    return items, vectors, lines
