"""The journal's hash chain: tamper evidence for the audit trail.

Triggers stop edits through SQL, but not someone who drops them, edits the file's bytes or
copies rows between files. So each entry stores ``chain``: SHA-256 over the previous entry's
chain and this entry's own content (id, time, actor, action, fact and plan ids, the details
exactly as stored, and the content hash of the fact it names). Changing, removing or
inserting an entry then breaks the chain at that point, and ``verify`` says where.

What it cannot show: entries removed from the end (nothing follows them), or a chain
recomputed from scratch by someone with this code; for those, keep a copy of the latest
chain value elsewhere (``memlens verify --json`` prints it).
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from typing import Any, Iterable, Iterator

from engine.store.json_text import encoder

GENESIS = "0" * 64  # the "previous chain" of the first entry
_BATCH = 5000
JournalRow = tuple[float, str, str, "int | None", "int | None", str]  # at, actor, action, fact_id, plan_id, details
# ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))`` with one encoder for every entry:
# json.dumps builds a new encoder per call when given options (a third of hashing a row); the
# usual entries skip even that (``_content``).
_content_json = encoder(ensure_ascii=False, separators=(",", ":"))
_string = json.encoder.encode_basestring  # what that encoder writes a str with (ensure_ascii=False)
_ID_TYPES = (int, type(None))
_HASH_TYPES = (str, type(None))


def entry_hash(prev: str, entry_id: int, at: float, actor: str, action: str, fact_id: int | None,
               plan_id: int | None, details: str, fact_hash: str | None) -> str:
    # float(at): a time written as an int is read back from the REAL column as a float
    content = _content(entry_id, float(at), actor, action, fact_id, plan_id, details, fact_hash)
    return hashlib.sha256(f"{prev}\n{content}".encode("utf-8", "surrogatepass")).hexdigest()


def _content(entry_id: int, at: float, actor: str, action: str, fact_id: int | None, plan_id: int | None,
             details: str, fact_hash: str | None) -> str:
    """``_content_json`` of the entry's array, written out directly for the usual types (a third of
    hashing a row was the encoder's set-up); anything else goes through the encoder itself."""
    if (type(entry_id) is int and math.isfinite(at) and type(actor) is str and type(action) is str
            and type(fact_id) in _ID_TYPES and type(plan_id) in _ID_TYPES and type(details) is str
            and type(fact_hash) in _HASH_TYPES):
        # The encoder writes ints and finite floats by their repr and strings by encode_basestring.
        return (f"[{entry_id},{float.__repr__(at)},{_string(actor)},{_string(action)},"
                f"{'null' if fact_id is None else fact_id},{'null' if plan_id is None else plan_id},"
                f"{_string(details)},{'null' if fact_hash is None else _string(fact_hash)}]")
    return _content_json([entry_id, at, actor, action, fact_id, plan_id, details, fact_hash])


def _fact_hashes(db: sqlite3.Connection, fact_ids: Iterable[int | None]) -> dict[int, str]:
    wanted = sorted({f for f in fact_ids if f is not None})
    found: dict[int, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        found.update(db.execute(f"SELECT id, content_hash FROM facts WHERE id IN ({','.join('?' * len(chunk))})",
                                chunk).fetchall())
    return found


def append(db: sqlite3.Connection, rows: list[JournalRow],
           known: dict[int, str] | None = None) -> tuple[int, int] | None:
    """Write journal rows in order, each chained to the one before (inside the caller's write transaction);
    returns the ids of the first and last row written (None when there were none).

    Ids are given explicitly because the hash commits to them; the write transaction holds the
    file's write lock, so no other writer can take the next id meanwhile. ``known`` maps fact ids
    to the content hashes the caller has just written or read in this transaction (a fact's
    content_hash never changes); only the others are read.
    """
    if not rows:
        return None
    last = db.execute("SELECT id, chain FROM journal ORDER BY id DESC LIMIT 1").fetchone()
    next_id, prev = (last[0] + 1, last[1] or GENESIS) if last else (1, GENESIS)
    known = known or {}
    hashes = _fact_hashes(db, (r[3] for r in rows if r[3] not in known))
    hashes.update(known)
    values = []
    for offset, (at, actor, action, fact_id, plan_id, details) in enumerate(rows):
        entry_id = next_id + offset
        prev = entry_hash(prev, entry_id, at, actor, action, fact_id, plan_id, details,
                          hashes.get(fact_id) if fact_id is not None else None)
        values.append((entry_id, at, actor, action, fact_id, plan_id, details, prev))
    db.executemany("INSERT INTO journal (id, at, actor, action, fact_id, plan_id, details, chain) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
    return next_id, next_id + len(rows) - 1


def _entries(db: sqlite3.Connection) -> Iterator[sqlite3.Row | tuple[Any, ...]]:
    cursor = db.execute("SELECT j.id, j.at, j.actor, j.action, j.fact_id, j.plan_id, j.details, f.content_hash, "
                        "j.chain FROM journal j LEFT JOIN facts f ON f.id = j.fact_id ORDER BY j.id")
    while rows := cursor.fetchmany(_BATCH):
        yield from rows


def chain_existing(db: sqlite3.Connection) -> None:
    """Compute the chain of every entry, oldest first (the migration; the caller lifted the UPDATE trigger)."""
    prev, updates = GENESIS, []
    for entry_id, at, actor, action, fact_id, plan_id, details, fact_hash, _ in list(_entries(db)):
        prev = entry_hash(prev, entry_id, at, actor, action, fact_id, plan_id, details, fact_hash)
        updates.append((prev, entry_id))
    db.executemany("UPDATE journal SET chain = ? WHERE id = ?", updates)


def broken_links(db: sqlite3.Connection, limit: int = 100) -> tuple[list[tuple[int, str]], str | None]:
    """((entry id, what is wrong) for entries whose chain does not match, up to ``limit``; the head chain).

    Each entry is checked against the chain stored in the one before it, so a change shows at
    the entry changed (and a removal at the entry after the gap) rather than at every later one.
    """
    problems: list[tuple[int, str]] = []
    prev, head = GENESIS, None
    for entry_id, at, actor, action, fact_id, plan_id, details, fact_hash, chain in _entries(db):
        if chain is None:
            problems.append((entry_id, "has no chain hash (written outside MemLens)"))
        elif chain != entry_hash(prev, entry_id, at, actor, action, fact_id, plan_id, details, fact_hash):
            problems.append((entry_id, "does not match its chain hash: it, its fact's text, or the entry "
                                       "before it was changed, removed or inserted"))
        prev = chain or GENESIS
        head = chain
        if len(problems) >= limit:
            break
    return problems, head
