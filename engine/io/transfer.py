"""Export to JSONL and restore from it, keeping texts, statuses, edges and times.

An export starts with a header line ``{"memlens_export": 1, ...}`` followed by
one line per fact (with its outgoing edges). Restoring one is a plan of kind
``import``: each record is validated and scanned for secrets like any
absorb, every other field checked for shape (``export_record``), exact duplicates of stored facts are skipped, and the rest keep
their status and timestamps. Into an empty memory the ids are kept too, so
a round trip is exact; otherwise new ids are given and edges remapped.
"""

from __future__ import annotations

import sqlite3
from typing import IO, Any, Iterable, Iterator

import numpy as np

from engine.clock import format_time, parse_time
from engine.config import MemorySettings
from engine.errors import InvalidInput, PlanError, SecretRejected
from engine.io.export_record import check_record
from engine.io.jsonl import dumps
from engine.plans.apply import Changes
from engine.store.entities import link_entities
from engine.store.migrations import LATEST_VERSION
from engine.store.plans import Plan, PlanItem
from engine.store.edges import all_edges, supersedes_cycle
from engine.store.facts_read import all_facts
from engine.store.records import (content_hash, fact_from_row, insert_edge, insert_fact, journal, stored_by_hash,
                                  written_state)
from engine.store.stats import fact_and_edge_counts, fact_count

EXPORT_FORMAT = 1


def export_lines(db: sqlite3.Connection, now: float) -> Iterator[str]:
    counts = fact_and_edge_counts(db)
    yield dumps({"memlens_export": EXPORT_FORMAT, "schema": LATEST_VERSION, "exported_at": format_time(now),
                 "facts": counts[0], "edges": counts[1]})
    edges: dict[int, list[dict[str, Any]]] = {}
    for src, dst, edge_type, at in all_edges(db):
        edges.setdefault(src, []).append({"type": edge_type, "to": dst, "at": format_time(at)})
    for row in all_facts(db):
        fact = fact_from_row(row).to_dict()
        for key in ("sources", "content_hash", "embedding_model"):
            fact.pop(key)
        fact["edges"] = edges.get(fact["id"], [])
        yield dumps(fact)


def is_export_header(value: Any) -> bool:
    return isinstance(value, dict) and "memlens_export" in value


def plan_restore(db: sqlite3.Connection, entries: Iterable[tuple[int, Any, str | None]],
                 limits: MemorySettings) -> list[PlanItem]:
    """Items of an import plan from (index, parsed record, read error) entries, read once."""
    items, valid = [], []
    for index, value, error in entries:
        try:
            if error:
                raise InvalidInput(error)
            valid.append((index, check_record(value, limits)))
        except SecretRejected as err:
            items.append(PlanItem(index, "rejected", "secrets", str(err)))
        except InvalidInput as err:
            items.append(PlanItem(index, "rejected", "validation", str(err)))
    valid = _without_duplicate_ids_or_loops(valid, items)
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


def _without_duplicate_ids_or_loops(valid: list[tuple[int, dict[str, Any]]],
                                    refused: list[PlanItem]) -> list[tuple[int, dict[str, Any]]]:
    """The records whose id is the first of its kind and whose supersedes edges close no loop;
    each other one becomes a rejected item (edges and ids are what a restore keeps, so two
    records with one id or versions in a loop would break every read of the file)."""
    kept: list[tuple[int, dict[str, Any]]] = []
    older: dict[int, set[int]] = {}
    seen: set[int] = set()
    for index, record in valid:
        if record["id"] in seen:
            refused.append(PlanItem(index, "rejected", "validation", f"a second record with id {record['id']}"))
            continue
        seen.add(record["id"])
        kept.append((index, record))
        for edge in record["edges"]:
            if edge["type"] == "supersedes":
                older.setdefault(record["id"], set()).add(edge["to"])
    looping = _on_a_loop(older)
    for index, record in list(kept):
        if record["id"] in looping:
            kept.remove((index, record))
            refused.append(PlanItem(index, "rejected", "validation",
                                    f"record {record['id']}'s supersedes edges form a loop of versions"))
    return kept


def _on_a_loop(older: dict[int, set[int]]) -> set[int]:
    """The ids on a cycle of the graph id -> older ids (iterative, so a long chain cannot overflow)."""
    state: dict[int, int] = {}  # 1 on the current path, 2 finished
    looping: set[int] = set()
    for root in older:
        if root in state:
            continue
        path, stack = [root], [iter(older.get(root, ()))]
        state[root] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                looping.update(path[path.index(step):])
            elif step not in state:
                state[step] = 1
                path.append(step)
                stack.append(iter(older.get(step, ())))
    return looping


_COPIED = ("text", "scope", "kind", "subject", "predicate", "object", "confidence", "importance", "tags", "status",
           "session_id", "created_at", "last_reinforced", "last_accessed", "access_count", "reinforcement_count",
           "expires_at", "source", "evidence", "metadata")


def restore(db: sqlite3.Connection, plan: Plan, selected: list[PlanItem], vectors: dict[int, np.ndarray],
            model_id: str, now: float, actor: str) -> Changes:
    """Write an import plan's selected items; ids are kept when the memory was empty."""
    keep_ids = fact_count(db) == 0
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
        journal(db, now, actor, "import", fact_id, plan.id, {"exported_id": record["id"], "status": record["status"],
                                                             **written_state(values, vectors[it.index])})
    for it in selected:
        for edge in it.incoming.get("edges") or []:
            if edge["to"] in new_id and it.outcome == "new":
                at = edge.get("at")
                if isinstance(at, str):  # a draft planned before times were parsed at planning
                    at = parse_time(at)
                if edge["type"] == "supersedes" and (why := supersedes_cycle(db, it.fact_id, new_id[edge["to"]])):
                    raise PlanError(why)
                if insert_edge(db, it.fact_id, new_id[edge["to"]], edge["type"], now if at is None else at,
                               plan.id) is not None:  # each edge has its journal row, as a plan's links do
                    journal(db, now, actor, "link", it.fact_id, plan.id,
                            {"type": edge["type"], "from": it.fact_id, "to": new_id[edge["to"]]})
    return changes


def write_export(stream: IO[str], db: sqlite3.Connection, now: float) -> int:
    count = 0
    for line in export_lines(db, now):
        stream.write(line + "\n")
        count += 1
    return count - 1
