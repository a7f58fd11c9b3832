"""Fact, edge and journal rows: the SQL that reads and writes them, in one place.

Nothing here decides anything; absorb, plans and housekeeping call these
helpers inside their own transactions.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from engine.clock import format_time
from engine.errors import InvalidInput
from engine.store import journal_chain
from engine.store.ids import MAX_ID, check_id
from engine.store.json_text import encoder



def normalise_text(text: str) -> str:
    """NFKC, casefold, collapsed whitespace: what 'the same text' means for dedup."""
    # split()/join is the regex "\s+" -> " " plus strip() (same whitespace, every code point
    # checked) at a quarter of the cost; stored hashes depend on this staying identical.
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(text: str) -> str:
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()


@dataclass
class Fact:
    id: int
    text: str
    scope: str
    kind: str
    status: str
    confidence: float
    importance: float
    tags: list[str]
    created_at: float
    last_reinforced: float
    last_accessed: float | None
    access_count: int
    reinforcement_count: int
    expires_at: float | None
    session_id: str | None
    source: str | None
    evidence: list[dict[str, Any]]
    metadata: dict[str, Any]
    subject: str | None
    predicate: str | None
    object: str | None
    content_hash: str
    embedding_model: str | None
    plan_id: int | None = None
    # What could not be read as stored (a column of bad JSON or of the wrong shape): the fact is
    # still shown, with the column emptied and this note, rather than failing every read.
    damaged: list[str] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        """The fact's own source and those of the facts merged into it."""
        found = [self.source] if self.source else []
        found += [e["source"] for e in self.evidence if e.get("source")]
        return list(dict.fromkeys(found))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "text": self.text, "scope": self.scope, "kind": self.kind,
            "status": self.status, "confidence": round(self.confidence, 4),
            "importance": self.importance, "tags": self.tags,
            "subject": self.subject, "predicate": self.predicate, "object": self.object,
            "created_at": format_time(self.created_at), "last_reinforced": format_time(self.last_reinforced),
            "last_accessed": format_time(self.last_accessed), "access_count": self.access_count,
            "reinforcement_count": self.reinforcement_count, "expires_at": format_time(self.expires_at),
            "session_id": self.session_id, "source": self.source, "sources": self.sources,
            "evidence": self.evidence, "metadata": self.metadata,
            "content_hash": self.content_hash, "embedding_model": self.embedding_model,
            **({"damaged": self.damaged} if self.damaged else {}),
        }


FACT_COLUMNS = (
    "id, text, scope, kind, status, confidence, importance, tags, created_at, last_reinforced, "
    "last_accessed, access_count, reinforcement_count, expires_at, session_id, source, evidence, "
    "metadata, subject, predicate, object, content_hash, embedding_model, plan_id"
)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_evidence(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _is_metadata(value: Any) -> bool:
    entities, relations = value.get("entities", []), value.get("relations", [])
    return (isinstance(entities, list) and all(isinstance(e, dict) and _is_text(e.get("name"))
                                               and _is_text(e.get("type")) for e in entities)
            and isinstance(relations, list)
            and all(isinstance(r, list) and len(r) == 3 and all(map(_is_text, r)) for r in relations))


# column -> (empty value, check of one element (lists) or of the whole (objects))
_JSON_COLUMNS = (("tags", [], _is_text), ("evidence", [], _is_evidence), ("metadata", {}, _is_metadata))


def _json_column(text: Any, empty: list | dict, valid: Any) -> tuple[Any, str | None]:
    """(value, None), or (empty, what is wrong) for a column a read cannot use as stored."""
    if not text or text == "[]" or text == "{}":  # most facts: no JSON parse (a third of loading one)
        return type(empty)(), None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return type(empty)(), "is not valid JSON"
    if not isinstance(value, type(empty)):
        return type(empty)(), f"is not a JSON {'list' if isinstance(empty, list) else 'object'}"
    if not (all(map(valid, value)) if isinstance(value, list) else valid(value)):
        return type(empty)(), "has entries of an unexpected shape"
    return value, None


def stored_list(text: Any, column: str) -> list | None:
    """A stored tags or evidence list for a write to build on; None when damaged (leave it as it is)."""
    empty, valid = {"tags": ([], _is_text), "evidence": ([], _is_evidence)}[column]
    value, problem = _json_column(text, empty, valid)
    return None if problem else value


def fact_from_row(row: sqlite3.Row) -> Fact:
    """A fact from its row; damaged JSON columns are emptied and named in ``damaged``, never raised."""
    values = dict(row)
    damaged = []
    for key, empty, valid in _JSON_COLUMNS:
        values[key], problem = _json_column(values[key], empty, valid)
        if problem:
            damaged.append(f"{key} {problem}; shown empty")
    return Fact(**values, damaged=damaged)


# ``FACT_COLUMNS`` are ``Fact``'s fields in order, so a plain row tuple fills a Fact positionally.
_FIELDS = tuple(name.strip() for name in FACT_COLUMNS.split(","))
_JSON_AT = tuple((_FIELDS.index(key), key, empty, valid) for key, empty, valid in _JSON_COLUMNS)


def _fact_from_tuple(row: tuple) -> Fact:
    """``fact_from_row`` for a plain tuple of ``FACT_COLUMNS``: no dict per row, no keywords (half the time)."""
    values = list(row)
    damaged = []
    for at, key, empty, valid in _JSON_AT:
        values[at], problem = _json_column(values[at], empty, valid)
        if problem:
            damaged.append(f"{key} {problem}; shown empty")
    return Fact(*values, damaged=damaged)


def load_facts(db: sqlite3.Connection, ids: Iterable[int]) -> dict[int, Fact]:
    wanted = [check_id(i, "a fact id") for i in dict.fromkeys(int(i) for i in ids)]
    cursor = db.cursor()
    cursor.row_factory = None  # tuples: sqlite3.Row -> dict is a third of reading a fact
    found: dict[int, Fact] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        for row in cursor.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE id IN ({','.join('?' * len(chunk))})",
                                  chunk):
            found[row[0]] = _fact_from_tuple(row)
    return found


def fact_columns(db: sqlite3.Connection, ids: Iterable[int], columns: str) -> dict[int, sqlite3.Row]:
    """Some columns of some facts by id (``columns`` is a constant of the caller, never user text)."""
    wanted = [check_id(i, "a fact id") for i in dict.fromkeys(ids)]
    found: dict[int, sqlite3.Row] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        for row in db.execute(f"SELECT id, {columns} FROM facts WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            found[row["id"]] = row
    return found


def vector_columns(db: sqlite3.Connection, ids: Iterable[int], columns: str = "") -> dict[int, sqlite3.Row]:
    """``fact_columns`` with the fact's vector as ``embedding`` (None when it has none), from ``fact_vectors``."""
    wanted = [check_id(i, "a fact id") for i in dict.fromkeys(ids)]
    found: dict[int, sqlite3.Row] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        for row in db.execute(f"SELECT facts.id AS id, {columns + ', ' if columns else ''}"
                              f"fact_vectors.vector AS embedding FROM facts "
                              f"LEFT JOIN fact_vectors ON fact_vectors.fact_id = facts.id "
                              f"WHERE facts.id IN ({','.join('?' * len(chunk))})", chunk):
            found[row["id"]] = row
    return found


def candidate_rows(db: sqlite3.Connection, ids: Iterable[int]) -> dict[int, sqlite3.Row]:
    """The few columns the classifier needs, without parsing JSON columns."""
    return fact_columns(db, ids, "text, scope, status, subject, predicate, object")


# ``json.dumps(value, ensure_ascii=False)`` without building an encoder per call (three per inserted fact).
_to_json = encoder(ensure_ascii=False)


def insert_fact(db: sqlite3.Connection, values: dict[str, Any], vector: np.ndarray | None, model_id: str | None) -> int:
    row = dict(values)
    for key in ("tags", "evidence", "metadata"):
        row[key] = _to_json(row.get(key) or ([] if key != "metadata" else {}))
    row["embedding_model"] = model_id if vector is not None else None
    columns = ", ".join(row)
    marks = ", ".join(f":{k}" for k in row)
    fact_id = int(db.execute(f"INSERT INTO facts ({columns}) VALUES ({marks})", row).lastrowid)
    if vector is not None:
        db.execute("INSERT INTO fact_vectors (fact_id, vector) VALUES (?, ?)",
                   (fact_id, np.asarray(vector, dtype=np.float32).tobytes()))
    return fact_id


def exact_digest(data: bytes | str | None) -> str | None:
    """SHA-256 of exact bytes (a fact's text as stored, a vector's BLOB), for the journal."""
    if data is None:
        return None
    return hashlib.sha256(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data).hexdigest()


def written_state(values: dict[str, Any], vector: np.ndarray | None) -> dict[str, Any]:
    """What a new fact's journal row records beside its content hash, so ``verify`` can replay the
    fact from the journal alone: the mutable columns as written (tags, confidence, kind, triple) and
    digests of the exact text and vector bytes (the content hash is over case-folded text)."""
    return {"tags": list(values.get("tags") or []), "confidence": values.get("confidence"), "kind": values.get("kind"),
            "triple": [values.get("subject"), values.get("predicate"), values.get("object")],
            "text_sha256": exact_digest(values["text"]),
            "vector_sha256": exact_digest(None if vector is None else np.asarray(vector, dtype=np.float32).tobytes())}


def update_fact(db: sqlite3.Connection, fact_id: int, changes: dict[str, Any]) -> None:
    sets = ", ".join(f"{k} = :{k}" for k in changes)
    values = {k: (_to_json(v) if isinstance(v, (list, dict)) else v) for k, v in changes.items()}
    db.execute(f"UPDATE facts SET {sets} WHERE id = :_id", {**values, "_id": fact_id})


def write_reinforcements(db: sqlite3.Connection, rows: list[tuple[float, int, float, str | None, int]]) -> None:
    """(confidence, reinforcement_count, last_reinforced, evidence column, id) of reinforced facts, in one batch."""
    db.executemany(
        "UPDATE facts SET confidence = ?, reinforcement_count = ?, last_reinforced = ?, evidence = ? WHERE id = ?",
        rows)


def stored_by_hash(db: sqlite3.Connection, hashes: list[str]) -> dict[str, tuple[int, str]]:
    """content_hash -> (id, status) of the fact with it, preferring an active one, then the newest."""
    return stored_matches(db, hashes)[0]


def stored_matches(db: sqlite3.Connection, hashes: list[str]) -> tuple[dict[str, tuple[int, str]], set[str]]:
    """``stored_by_hash``, and the exact texts of the stored facts with those hashes, in one pass.

    Absorb needs both (the texts skip a second secret scan); one read of the facts
    rows serves both, and the aliases are only searched for hashes with no active fact.
    """
    found: dict[str, tuple[int, str]] = {}
    texts: set[str] = set()
    for start in range(0, len(hashes), 500):
        chunk = hashes[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for h, fact_id, status, text in db.execute(
                f"SELECT content_hash, id, status, text FROM facts WHERE content_hash IN ({marks}) "
                f"ORDER BY status = 'active', id", chunk):
            found[h] = (fact_id, status)  # the last row per hash wins: active first, else newest
            texts.add(text)
        # An alias only matters where no active fact holds the text itself.
        open_hashes = [h for h in dict.fromkeys(chunk) if h not in found or found[h][1] != "active"]
        if not open_hashes:
            continue
        for h, fact_id, status in db.execute(
                f"SELECT a.content_hash, f.id, f.status FROM text_aliases a JOIN facts f ON f.id = a.fact_id "
                f"WHERE a.content_hash IN ({','.join('?' * len(open_hashes))}) ORDER BY f.status = 'active', f.id",
                open_hashes):
            if h not in found or (found[h][1] != "active" and status == "active"):
                found[h] = (fact_id, status)
    return found, texts


def active_hash_owners(db: sqlite3.Connection, hashes: list[str]) -> dict[str, set[int]]:
    """content_hash -> ids of the active facts holding that text, as their own text or a merged alias."""
    found: dict[str, set[int]] = {}
    for start in range(0, len(hashes), 500):
        chunk = hashes[start:start + 500]
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT content_hash, id FROM facts WHERE status = 'active' AND content_hash IN ({marks}) UNION "
            # CROSS JOIN keeps SQLite from planning facts first, which scanned every active fact.
            f"SELECT a.content_hash, f.id FROM text_aliases a CROSS JOIN facts f ON f.id = a.fact_id "
            f"WHERE f.status = 'active' AND a.content_hash IN ({marks})", chunk + chunk)
        for h, fact_id in rows:
            found.setdefault(h, set()).add(fact_id)
    return found


def add_aliases(db: sqlite3.Connection, fact_id: int, texts: Iterable[str]) -> None:
    db.executemany("INSERT OR IGNORE INTO text_aliases (content_hash, fact_id) VALUES (?, ?)",
                   [(content_hash(t), fact_id) for t in texts])


def active_with_triple(db: sqlite3.Connection, subject: str, predicate: str) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT id, object, scope FROM facts WHERE status = 'active' AND subject = ? AND predicate = ? "
        "ORDER BY last_reinforced DESC, id DESC", (subject, predicate)).fetchall()


def insert_edge(db: sqlite3.Connection, src: int, dst: int, edge_type: str, at: float,
                plan_id: int | None) -> int | None:
    """The new edge's id, or None when the same edge (ends and type) was there already."""
    cursor = db.execute("INSERT OR IGNORE INTO edges (src_id, dst_id, type, created_at, plan_id) "
                        "VALUES (?, ?, ?, ?, ?)", (src, dst, edge_type, at, plan_id))
    return cursor.lastrowid if cursor.rowcount == 1 else None


def edges_touching(db: sqlite3.Connection, fact_ids: Iterable[int]) -> list[dict[str, Any]]:
    ids = list(dict.fromkeys(fact_ids))
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT id, src_id, dst_id, type, created_at, plan_id FROM edges "
        f"WHERE src_id IN ({marks}) OR dst_id IN ({marks}) ORDER BY id", ids + ids).fetchall()
    return [{"id": r["id"], "src": r["src_id"], "dst": r["dst_id"], "type": r["type"],
             "created_at": format_time(r["created_at"]), "plan_id": r["plan_id"]} for r in rows]


def journal(db: sqlite3.Connection, at: float, actor: str, action: str, fact_id: int | None,
            plan_id: int | None, details: dict[str, Any]) -> None:
    journal_chain.append(db, [(at, actor, action, fact_id, plan_id,
                               json.dumps(details, ensure_ascii=False, sort_keys=True))])


@dataclass
class JournalEntry:
    id: int
    at: float
    actor: str
    action: str
    fact_id: int | None
    plan_id: int | None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "at": format_time(self.at), "actor": self.actor, "action": self.action,
                "fact_id": self.fact_id, "plan_id": self.plan_id, "details": self.details}


def read_journal(db: sqlite3.Connection, fact_id: int | None, after_id: int, limit: int) -> list[JournalEntry]:
    if isinstance(after_id, bool) or not isinstance(after_id, int) or not 0 <= after_id <= MAX_ID:
        raise InvalidInput(f"after_id must be a whole number from 0 to {MAX_ID}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ID:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_ID}")
    where, params = "id > ?", [after_id]
    if fact_id is not None:
        where += " AND fact_id = ?"
        params.append(check_id(fact_id, "a fact id"))
    rows = db.execute(f"SELECT id, at, actor, action, fact_id, plan_id, details FROM journal WHERE {where} "
                      f"ORDER BY id LIMIT ?", params + [limit]).fetchall()
    entries = []
    for r in rows:
        try:
            details = json.loads(r["details"])
        except (TypeError, json.JSONDecodeError):
            details = {"error": f"journal row {r['id']}: details are not valid JSON"}
        if not isinstance(details, dict):
            details = {"error": f"journal row {r['id']}: details are not a JSON object", "value": details}
        entries.append(JournalEntry(r["id"], r["at"], r["actor"], r["action"], r["fact_id"], r["plan_id"], details))
    return entries
