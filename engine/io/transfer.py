"""Export to JSONL and restore from it, keeping texts, statuses, edges and times.

An export starts with a header line ``{"memlens_export": 1, ...}`` followed by
one line per fact (with its outgoing edges). Restoring one is a plan of kind
``import``: each record is validated and scanned for secrets like any
absorb, exact duplicates of stored facts are skipped, and the rest keep
their status and timestamps. Into an empty memory the ids are kept too, so
a round trip is exact; otherwise new ids are given and edges remapped.
"""

from __future__ import annotations

import sqlite3
from typing import IO, Any, Iterator

import numpy as np

from engine.plans.apply import Changes
from engine.clock import format_time, parse_time
from engine.config import MemorySettings
from engine.store.decay import KINDS, SCOPES, STATUSES
from engine.store.entities import link_entities
from engine.errors import InvalidInput, SecretRejected
from engine.io.jsonl import dumps
from engine.store.migrations import EDGE_TYPES, LATEST_VERSION
from engine.store.plans import Plan, PlanItem
from engine.store.records import (FACT_COLUMNS, content_hash, fact_from_row, insert_edge, insert_fact, journal, stored_by_hash)
from engine.absorb.secrets import first_secret
from engine.absorb.validation import check_text, parse_entities, parse_relations

EXPORT_FORMAT = 1
_TIME_FIELDS = ("created_at", "last_reinforced", "last_accessed", "expires_at")


def export_lines(db: sqlite3.Connection, now: float) -> Iterator[str]:
    counts = db.execute("SELECT (SELECT count(*) FROM facts), (SELECT count(*) FROM edges)").fetchone()
    yield dumps({"memlens_export": EXPORT_FORMAT, "schema": LATEST_VERSION, "exported_at": format_time(now),
                 "facts": counts[0], "edges": counts[1]})
    edges: dict[int, list[dict[str, Any]]] = {}
    for src, dst, edge_type, at in db.execute("SELECT src_id, dst_id, type, created_at FROM edges ORDER BY id"):
        edges.setdefault(src, []).append({"type": edge_type, "to": dst, "at": format_time(at)})
    for row in db.execute(f"SELECT {FACT_COLUMNS} FROM facts ORDER BY id"):
        fact = fact_from_row(row).to_dict()
        for key in ("sources", "content_hash", "embedding_model"):
            fact.pop(key)
        fact["edges"] = edges.get(fact["id"], [])
        yield dumps(fact)


def is_export_header(value: Any) -> bool:
    return isinstance(value, dict) and "memlens_export" in value


def _record(value: Any, limits: MemorySettings) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("id"), int):
        raise InvalidInput("an export record needs an integer 'id'")
    text, _ = check_text(value.get("text"), limits)
    if hit := first_secret(text):
        raise SecretRejected(hit.rule, hit.start, hit.end)
    for name, allowed in (("scope", SCOPES), ("kind", KINDS), ("status", STATUSES)):
        if value.get(name) not in allowed:
            raise InvalidInput(f"{name} must be one of {', '.join(allowed)}")
    record = dict(value, text=text)
    for name in _TIME_FIELDS:
        if record.get(name) is not None:
            record[name] = parse_time(record[name])
    if record.get("created_at") is None:
        raise InvalidInput("an export record needs created_at")
    edges = record.get("edges") or []
    if not isinstance(edges, list) or any(not isinstance(e, dict) or e.get("type") not in EDGE_TYPES
                                          or not isinstance(e.get("to"), int) for e in edges):
        raise InvalidInput("edges must be a list of {type, to} with a known type and an integer id")
    meta = record.get("metadata") or {}
    if not isinstance(meta, dict):
        raise InvalidInput("metadata must be an object")
    entities = parse_entities(meta.get("entities", []))
    record["metadata"] = {k: v for k, v in (("entities", entities),
                                            ("relations", parse_relations(meta.get("relations", []), entities))) if v}
    for name in ("confidence", "importance"):
        number = record.get(name, 0.5)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 <= number <= 1:
            raise InvalidInput(f"{name} must be a number between 0 and 1")
    return record


def plan_restore(db: sqlite3.Connection, entries: list[tuple[int, Any, str | None]], limits: MemorySettings) -> list[PlanItem]:
    """Items of an import plan from (index, parsed record, read error) entries."""
    items, valid = [], []
    for index, value, error in entries:
        try:
            if error:
                raise InvalidInput(error)
            valid.append((index, _record(value, limits)))
        except SecretRejected as err:
            items.append(PlanItem(index, "rejected", "secrets", str(err)))
        except InvalidInput as err:
            items.append(PlanItem(index, "rejected", "validation", str(err)))
    known = stored_by_hash(db, [content_hash(r["text"]) for _, r in valid])
    for index, record in valid:
        found = known.get(content_hash(record["text"]))
        if found is not None:
            items.append(PlanItem(index, "duplicate", "hash", f"already in this memory as fact {found[0]}",
                                  incoming=record, target_id=found[0], target_status=found[1], similarity=1.0))
        else:
            items.append(PlanItem(index, "new", "import", f"exported fact {record['id']} ({record['status']})",
                                  incoming=record))
    return sorted(items, key=lambda it: it.index)


_COPIED = ("text", "scope", "kind", "subject", "predicate", "object", "confidence", "importance", "tags", "status",
           "session_id", "created_at", "last_reinforced", "last_accessed", "access_count", "reinforcement_count",
           "expires_at", "source", "evidence", "metadata")


def restore(db: sqlite3.Connection, plan: Plan, selected: list[PlanItem], vectors: dict[int, np.ndarray],
            model_id: str, now: float, actor: str) -> Changes:
    """Write an import plan's selected items; ids are kept when the memory was empty."""
    keep_ids = db.execute("SELECT count(*) FROM facts").fetchone()[0] == 0
    changes = Changes(plan_id=plan.id)
    new_id: dict[int, int] = {}
    for it in selected:
        record = it.incoming
        if it.outcome == "duplicate":
            new_id[record["id"]] = it.fact_id = it.target_id
            continue
        values = {k: record.get(k) for k in _COPIED if record.get(k) is not None}
        values.setdefault("last_reinforced", values["created_at"])
        values.update(content_hash=content_hash(record["text"]), plan_id=plan.id)
        if keep_ids:
            values["id"] = record["id"]
        fact_id = insert_fact(db, values, vectors[it.index], model_id)
        new_id[record["id"]] = it.fact_id = fact_id
        changes.inserted.append(fact_id)
        meta = record.get("metadata") or {}
        link_entities(db, fact_id, meta.get("entities", []), meta.get("relations", []), now)
        journal(db, now, actor, "import", fact_id, plan.id, {"exported_id": record["id"], "status": record["status"]})
    for it in selected:
        for edge in it.incoming.get("edges") or []:
            if edge["to"] in new_id and it.outcome == "new":
                at = parse_time(edge["at"]) if isinstance(edge.get("at"), str) else now
                insert_edge(db, it.fact_id, new_id[edge["to"]], edge["type"], at, plan.id)
    return changes


def write_export(stream: IO[str], db: sqlite3.Connection, now: float) -> int:
    count = 0
    for line in export_lines(db, now):
        stream.write(line + "\n")
        count += 1
    return count - 1
