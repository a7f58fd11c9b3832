"""``verify`` reads the journal as the truth: what its rows replay to must be what the tables hold.

The journal is hash-chained (``journal_chain``), so a raw SQL shell cannot rewrite it unseen; the
facts, edges and plans tables can be (with the triggers dropped, or through the columns the
triggers leave writable: a fact's status, tags, confidence, kind and triple, a plan's status).
Replaying every row in order gives each fact's status, tags, confidence, kind, triple and the
digests of its exact text and vector bytes, the set of edges, and what each applied plan wrote;
any difference is an edit made outside MemLens.

Rows written before MemLens recorded a field (older files: an ``absorb`` row with no ``tags``,
``confidence``, ``triple``, ``text_sha256`` or ``vector_sha256``; an import with no ``link`` rows
for its edges) leave that field unchecked until a later row sets it (a retag sets the tags, a
reinforcement the confidence); statuses, journal rows for every fact, and every other edge are
checked in any file.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator

from engine.store.plans import INSERTING, STATUS_CHANGES, PlanItem
from engine.store.records import content_hash, exact_digest

MAX_PROBLEMS = 100
EDGE_OF_OUTCOME = {"supersede": "supersedes", "contradict": "contradicts", "related": "related"}
_ADDING = ("absorb", "import")
_REPLAYED = ("tags", "confidence", "kind", "triple", "text_sha256", "vector_sha256")


@dataclass
class _Journal:
    """What the journal's rows other than the adding ones say, kept sparse: most facts are only added
    (their adding row is read beside the fact itself, through the journal's index on fact ids)."""
    status: dict[int, str] = field(default_factory=dict)  # the last status a row set
    tags: dict[int, Any] = field(default_factory=dict)  # the last retag's tags
    confidence: dict[int, Any] = field(default_factory=dict)  # the last reinforcement's confidence
    edges: set[tuple[int, int, str]] = field(default_factory=set)
    plans_with_rows: set[int] = field(default_factory=set)
    legacy_import_plans: set[int] = field(default_factory=set)


def replay_problems(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """(where, what is wrong) for every difference between the tables and the journal's replay."""
    replayed = _replay(db)
    problems: list[tuple[str, str]] = []
    for found in (_facts(db, replayed), _edges(db, replayed), _plans(db, replayed)):
        for problem in found:
            problems.append(problem)
            if len(problems) >= MAX_PROBLEMS:
                return problems
    return problems


def _details(raw: Any) -> dict:
    try:
        value = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {}  # the journal check reports a row whose bytes no longer match its chain
    return value if isinstance(value, dict) else {}


def _replay(db: sqlite3.Connection) -> _Journal:
    state = _Journal()
    state.plans_with_rows = {r[0] for r in db.execute("SELECT DISTINCT plan_id FROM journal WHERE plan_id IS NOT NULL")}
    for action, fact_id, plan_id, raw in db.execute(
            "SELECT action, fact_id, plan_id, details FROM journal WHERE action NOT IN ('absorb', 'import') "
            "ORDER BY id"):
        details = _details(raw)
        if action == "link":
            if {"from", "to", "type"} <= details.keys():
                state.edges.add((details["from"], details["to"], details["type"]))
            continue
        after = details.get("after")
        if fact_id is None or not isinstance(after, dict):
            continue
        if "status" in after:
            state.status[fact_id] = after["status"]
        if action == "retag" and "tags" in after:
            state.tags[fact_id] = after["tags"]
        if action == "reinforce" and "confidence" in after:
            state.confidence[fact_id] = after["confidence"]
    return state


def _facts(db: sqlite3.Connection, replayed: _Journal) -> Iterator[tuple[str, str]]:
    """Each fact beside its adding row (absorb or import), then what later rows changed."""
    cursor = db.execute(
        "SELECT f.id, f.status, f.tags, f.confidence, f.kind, f.subject, f.predicate, f.object, f.text, v.vector, "
        "j.action, j.plan_id, j.details FROM facts f LEFT JOIN fact_vectors v ON v.fact_id = f.id "
        "LEFT JOIN journal j ON j.fact_id = f.id AND j.action IN ('absorb', 'import') ORDER BY f.id, j.id")
    previous = None
    while rows := cursor.fetchmany(1000):
        for (fact_id, status, tags, confidence, kind, subject, predicate, obj, text, embedding,
             action, plan_id, raw) in rows:
            if fact_id == previous:
                continue  # a second adding row of one fact: the first one said what was written
            previous = fact_id
            if action is None:
                yield f"fact {fact_id}", "no journal row records it being added (inserted outside MemLens)"
                continue
            details = _details(raw)
            if action == "import" and "text_sha256" not in details and plan_id is not None:
                replayed.legacy_import_plans.add(plan_id)  # its edges were not journaled then
            edge = EDGE_OF_OUTCOME.get(details.get("outcome"))
            if edge and details.get("target") is not None:
                replayed.edges.add((fact_id, details["target"], edge))
            known = {k: details[k] for k in _REPLAYED if k in details}
            if fact_id in replayed.tags:
                known["tags"] = replayed.tags[fact_id]
            if fact_id in replayed.confidence:
                known["confidence"] = replayed.confidence[fact_id]
            expected = replayed.status.get(fact_id, details.get("status", "active") if action == "import" else "active")
            wrong = []
            if status != expected:
                wrong.append(f"status is {status}, the journal says {expected}")
            if "tags" in known and _json_list(tags) != known["tags"]:
                wrong.append("its tags differ from the journal's")
            if "confidence" in known and not _same_number(confidence, known["confidence"]):
                wrong.append("its confidence differs from the journal's")
            if "kind" in known and kind != known["kind"]:
                wrong.append("its kind differs from the journal's")
            if "triple" in known and [subject, predicate, obj] != known["triple"]:
                wrong.append("its subject/predicate/object differ from the journal's")
            if "text_sha256" in known and exact_digest(text) != known["text_sha256"]:
                wrong.append("its text's bytes differ from the journal's digest")
            if "vector_sha256" in known and exact_digest(embedding) != known["vector_sha256"]:
                wrong.append("its vector differs from the one written (swapped?)")
            if wrong:
                yield f"fact {fact_id}", "; ".join(wrong) + " (changed outside MemLens)"


def _json_list(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _same_number(stored: Any, journaled: Any) -> bool:
    return (isinstance(stored, (int, float)) and isinstance(journaled, (int, float))
            and math.isclose(stored, journaled, rel_tol=1e-12, abs_tol=1e-12))


def _edges(db: sqlite3.Connection, replayed: _Journal) -> Iterator[tuple[str, str]]:
    stored = set()
    for edge_id, src, dst, edge_type, plan_id in db.execute(
            "SELECT id, src_id, dst_id, type, plan_id FROM edges ORDER BY id"):
        stored.add((src, dst, edge_type))
        if (src, dst, edge_type) in replayed.edges or plan_id in replayed.legacy_import_plans:
            continue
        yield f"edge {edge_id}", f"{edge_type} from fact {src} to fact {dst} has no journal row (inserted outside MemLens)"
    for src, dst, edge_type in sorted(replayed.edges - stored):
        yield f"fact {src}", f"the journal's {edge_type} edge to fact {dst} is not in the edges table (deleted outside MemLens)"


def _plans(db: sqlite3.Connection, replayed: _Journal) -> Iterator[tuple[str, str]]:
    for plan_id, status, items_text, applied_text in db.execute(
            "SELECT id, status, items, applied_items FROM plans ORDER BY id"):
        items, applied = _plan_items(items_text), _applied(applied_text)
        if items is None or applied is None:
            yield f"plan {plan_id}", "its items or applied items do not parse (damaged, or edited outside MemLens)"
            continue
        if status != "applied":
            if plan_id in replayed.plans_with_rows and _wrote_something(db, plan_id):
                yield f"plan {plan_id}", f"it is {status}, but the journal holds what it wrote (applied)"
            continue
        for item in items:
            if str(item.index) not in applied:
                continue
            if why := _item_against_journal(db, plan_id, item, applied[str(item.index)]):
                yield f"plan {plan_id}", f"item {item.index}: {why}"
                break


def _wrote_something(db: sqlite3.Connection, plan_id: int) -> bool:
    return db.execute("SELECT 1 FROM journal WHERE plan_id = ? AND (action IN ('absorb', 'import') "
                      "OR json_extract(details, '$.after') IS NOT NULL) LIMIT 1", (plan_id,)).fetchone() is not None


def _plan_items(text: Any) -> list[PlanItem] | None:
    try:
        return [PlanItem(**value) for value in json.loads(text)]
    except (TypeError, ValueError):
        return None


def _applied(text: Any) -> dict[str, Any] | None:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _rows_of(db: sqlite3.Connection, fact_id: Any, plan_id: int) -> list[tuple[str, dict]]:
    """The journal rows of one fact written by one plan (through the index on fact ids)."""
    if not isinstance(fact_id, int):
        return []
    return [(action, _details(raw)) for action, raw in db.execute(
        "SELECT action, details FROM journal WHERE fact_id = ? AND plan_id = ? ORDER BY id", (fact_id, plan_id))]


def _item_against_journal(db: sqlite3.Connection, plan_id: int, item: PlanItem, fact_id: Any) -> str | None:
    """Why the journal contradicts this applied item, if it does (only outcomes that always write a row)."""
    if item.outcome in INSERTING:
        row = next((details for action, details in _rows_of(db, fact_id, plan_id) if action in _ADDING), None)
        if row is None:
            return "marked applied, but the journal has no row of the fact it added"
        text = (item.incoming or {}).get("text")
        if "content_hash" in row and (not isinstance(text, str) or content_hash(text) != row["content_hash"]):
            return "its text differs from what was written (items edited outside MemLens)"
        if "outcome" in row and row["outcome"] != item.outcome:
            return f"its outcome is {item.outcome}, the journal says {row['outcome']}"
        if "kind" in row and (item.incoming or {}).get("kind", row["kind"]) != row["kind"]:
            return "its kind differs from what was written (items edited outside MemLens)"
    elif item.outcome in STATUS_CHANGES or item.outcome == "retag":
        if not any(action == item.outcome for action, _ in _rows_of(db, item.target_id, plan_id)):
            return f"marked applied, but the journal has no {item.outcome} of fact {item.target_id}"
    elif item.outcome == "prefer":
        for edge in item.edges:
            if not any(action == "supersede" for action, _ in _rows_of(db, edge.get("to_id"), plan_id)):
                return "marked applied, but the journal has no supersede of the fact it retired"
    return None


@lru_cache(maxsize=1)
def expected_triggers() -> frozenset[str]:
    """The protecting triggers a file of the current schema has: those the migrations create."""
    from engine.store.migrations import migrate  # local: verify is loaded by the migrations' users
    scratch = sqlite3.connect(":memory:")
    try:
        migrate(scratch, 0)
        return frozenset(r[0] for r in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
    finally:
        scratch.close()


def missing_triggers(db: sqlite3.Connection) -> list[str]:
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    return sorted(expected_triggers() - present)
