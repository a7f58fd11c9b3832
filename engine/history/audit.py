"""The journal as an audit trail: filtered, newest first, for the GUI's journal pane and scripts."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidInput
from engine.store import journal as journal_rows
from engine.store.records import JournalEntry

MAX_ROWS = 5000


@dataclass(frozen=True)
class AuditFilter:
    action: str | None = None
    actor: str | None = None
    fact_id: int | None = None
    plan_id: int | None = None
    since: float | None = None
    until: float | None = None

    def sql(self) -> tuple[str, list[Any]]:
        """A WHERE clause over ``journal``: pure string building; store/journal.py's ``audit_rows`` runs it."""
        clauses, params = ["1"], []
        for column, value in (("action", self.action), ("actor", self.actor), ("fact_id", self.fact_id),
                              ("plan_id", self.plan_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.since is not None:
            clauses.append("at >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append("at <= ?")
            params.append(self.until)
        return " AND ".join(clauses), params


def entries(db: sqlite3.Connection, wanted: AuditFilter, limit: int) -> list[JournalEntry]:
    """Newest first; a row whose details are not valid JSON is shown with an ``error`` detail, not dropped."""
    if not 1 <= limit <= MAX_ROWS:
        raise InvalidInput(f"limit must be between 1 and {MAX_ROWS}")
    where, params = wanted.sql()
    rows = journal_rows.audit_rows(db, where, params, limit)
    found = []
    for r in rows:
        try:
            details = json.loads(r[6]) if r[6] else {}
        except (TypeError, json.JSONDecodeError):
            details = {"error": "details are not valid JSON"}
        found.append(JournalEntry(r[0], r[1], r[2], r[3], r[4], r[5], details if isinstance(details, dict)
                                  else {"value": details}))
    return found


def vocabulary(db: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """The actions and actors present in the journal, for filter menus."""
    return journal_rows.actions(db), journal_rows.actors(db)
