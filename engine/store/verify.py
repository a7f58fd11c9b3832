"""``verify``: is this memory file intact, and has anything been changed behind MemLens's back?

Seven checks, each independent (one that cannot run is itself a problem, and the others
still run): SQLite's own ``PRAGMA integrity_check`` (the file's pages and indexes), the
protecting triggers all present, the tables against the journal's replay (``verify_replay``), each
fact's ``content_hash`` against its text (the text is immutable, so a mismatch is an edit
with the triggers dropped, or damage), the journal's hash chain (``journal_chain``), the
full-text index against the facts (FTS5 ``integrity-check`` with content comparison), and the
import records (no line of an input file applied by two chunks, every chunk's plan present).

Problems name a place (a fact or journal id, a page) and what is wrong, never a fact's text.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from engine.store.journal_chain import broken_links
from engine.store.records import content_hash
from engine.store.verify_replay import missing_triggers, replay_problems

MAX_PER_CHECK = 100  # a badly damaged file would otherwise list every row


@dataclass(frozen=True)
class Problem:
    check: str  # integrity, triggers, facts, journal, replay, fts, imports or cache
    where: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {self.where + ': ' if self.where else ''}{self.message}"

    @property
    def fact_id(self) -> int | None:
        """The fact this problem is about (a fact whose text fails its hash), else None."""
        if self.check == "facts" and self.where and self.where.startswith("fact ") and self.where[5:].isdigit():
            return int(self.where[5:])
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "where": self.where, "message": self.message}


def _integrity(db: sqlite3.Connection) -> list[Problem]:
    rows = [r[0] for r in db.execute(f"PRAGMA integrity_check({MAX_PER_CHECK})")]
    return [] if rows == ["ok"] else [Problem("integrity", None, str(r)) for r in rows]


def _facts(db: sqlite3.Connection) -> list[Problem]:
    problems = []
    cursor = db.execute("SELECT id, text, content_hash FROM facts ORDER BY id")
    while (rows := cursor.fetchmany(2000)) and len(problems) < MAX_PER_CHECK:
        for fact_id, text, stored in rows:
            if not isinstance(text, str) or content_hash(text) != stored:
                problems.append(Problem("facts", f"fact {fact_id}", "its text does not match its content_hash "
                                                                   "(changed outside MemLens, or damaged)"))
    return problems[:MAX_PER_CHECK]


def _journal(db: sqlite3.Connection) -> list[Problem]:
    broken, _ = broken_links(db, MAX_PER_CHECK)
    return [Problem("journal", f"journal {entry_id}", message) for entry_id, message in broken]


def _fts(db: sqlite3.Connection) -> list[Problem]:
    # rank 1: compare the index with the facts table too, not only with itself
    try:
        db.execute("INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.OperationalError as err:
        if "readonly" in str(err) or "read-only" in str(err):
            return []  # the check needs a write statement; a read-only file is checked by the others
        raise
    except sqlite3.DatabaseError:
        return [Problem("fts", None, "the full-text index does not match the facts; search may miss or "
                                     "misreport facts (rebuild it with a copy: INSERT INTO facts_fts(facts_fts) "
                                     "VALUES ('rebuild'))")]
    return []


def _imports(db: sqlite3.Connection) -> list[Problem]:
    problems = []
    orphans = db.execute("SELECT c.plan_id FROM import_chunks c LEFT JOIN plans p ON p.id = c.plan_id "
                         "WHERE p.id IS NULL ORDER BY c.plan_id LIMIT ?", (MAX_PER_CHECK,)).fetchall()
    problems += [Problem("imports", f"plan {plan_id}", "an import chunk names a plan that is not in the file")
                 for (plan_id,) in orphans]
    # Two applied chunks of one file sharing a line wrote that line twice (and reinforced what it said).
    # In line order, a chunk overlaps an earlier one exactly when it starts before the furthest line
    # any earlier chunk reached: one pass, where comparing every pair grew with the square of the chunks.
    overlapping = db.execute(
        "SELECT plan_id FROM (SELECT c.plan_id, c.first_line, max(c.last_line) OVER (PARTITION BY c.sha256, "
        "c.size, c.source ORDER BY c.first_line, c.plan_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) "
        "AS reached FROM import_chunks c JOIN plans p ON p.id = c.plan_id AND p.status = 'applied') "
        "WHERE reached >= first_line ORDER BY plan_id LIMIT ?", (MAX_PER_CHECK,)).fetchall()
    problems += [Problem("imports", f"plan {plan_id}", "an applied import chunk shares lines of its input file "
                                                       "with an earlier applied chunk: those lines were written twice")
                 for (plan_id,) in overlapping]
    return problems[:MAX_PER_CHECK]


def _triggers(db: sqlite3.Connection) -> list[Problem]:
    return [Problem("triggers", name, "a protecting trigger is missing (dropped?): rows it guards can be "
                                      "changed or deleted unseen; re-create it from a fresh file's schema")
            for name in missing_triggers(db)]


def _replay(db: sqlite3.Connection) -> list[Problem]:
    return [Problem("replay", where, message) for where, message in replay_problems(db)]


CHECKS: tuple[tuple[str, Callable[[sqlite3.Connection], list[Problem]]], ...] = (
    ("integrity", _integrity), ("triggers", _triggers), ("facts", _facts), ("journal", _journal),
    ("replay", _replay), ("fts", _fts), ("imports", _imports))


# The full-text check is a write statement (FTS5 takes its commands as inserts): a read-only
# connection cannot run it, and a writing one holds the file's write lock while it runs.
WRITES = frozenset({"fts"})
ORDER = {name: i for i, (name, _check) in enumerate(CHECKS)}


class Stopped(Exception):
    """The caller asked a check under way to stop (the file was closed, or another opened)."""


def verify(db: sqlite3.Connection, names: Iterable[str] | None = None,
           stopped: Callable[[], bool] | None = None) -> list[Problem]:
    """Every problem found by the checks ``names`` (all by default), in check order; an empty list means
    the file is intact as far as can be told. ``stopped`` is polled between checks and, through SQLite's
    progress handler, inside each statement: once it is true, ``Stopped`` is raised."""
    wanted = set(ORDER if names is None else names)
    problems: list[Problem] = []
    if stopped is not None:
        db.set_progress_handler(lambda: int(stopped()), 10_000)
    try:
        for name, check in CHECKS:
            if name not in wanted:
                continue
            try:
                problems += check(db)
            except sqlite3.DatabaseError as err:
                if stopped is not None and stopped():
                    raise Stopped() from None
                problems.append(Problem(name, None, f"could not be checked: {err}"))
            if stopped is not None and stopped():
                raise Stopped()
    finally:
        if stopped is not None:
            db.set_progress_handler(None, 0)
    return problems


@dataclass(frozen=True)
class Verification:
    problems: list[Problem]
    # The newest journal entry's chain hash: kept elsewhere, it shows entries cut from the end.
    journal_head: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"ok": not self.problems, "problems": [p.to_dict() for p in self.problems],
                "journal_head": self.journal_head}

    def adding(self, problems: list[Problem]) -> "Verification":
        """This verdict with the problems of checks run apart, each in its check's place."""
        merged = sorted([*self.problems, *problems], key=lambda p: ORDER.get(p.check, len(ORDER)))
        return Verification(merged, self.journal_head)


def check_file(db: sqlite3.Connection, names: Iterable[str] | None = None,
               stopped: Callable[[], bool] | None = None) -> Verification:
    try:
        row = db.execute("SELECT chain FROM journal ORDER BY id DESC LIMIT 1").fetchone()
        head = None if row is None else row[0]
    except sqlite3.DatabaseError:
        head = None  # the journal check reports why
    return Verification(verify(db, names, stopped), head)
