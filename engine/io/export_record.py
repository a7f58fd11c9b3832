"""Checking one record of a MemLens export before a restore plans it.

A restore keeps what absorb would recompute (status, counters, times, evidence, edges),
so an export line is more than an absorb item, but it is no more trusted: the fields it
shares with absorb go through ``validation.validate`` (the same rules and the same secret
detector), and every other field is checked for type, shape and size here. The record
returned is rebuilt from checked fields only, so nothing unchecked reaches the plan (which
is stored) or the facts table, and nothing stored can break a read later.
"""

from __future__ import annotations

from typing import Any

from engine.config import MemorySettings
from engine.vocabulary import STATUSES
from engine.errors import InvalidInput, SecretRejected
from engine.store.ids import check_id
from engine.store.migrations import EDGE_TYPES
from engine.absorb.validation import SHORT_LIMIT, check_text, secret_in, shown_name, time_field, validate

# Fields the absorb validator checks (``entities``/``relations`` come from ``metadata``).
_ABSORB_FIELDS = ("text", "scope", "kind", "tags", "subject", "predicate", "object", "confidence",
                  "importance", "session_id", "source", "created_at")
_OWN_FIELDS = ("id", "status", "last_reinforced", "last_accessed", "expires_at", "access_count",
               "reinforcement_count", "evidence", "metadata", "edges")
# Written by older exports or derivable from the rest; accepted and dropped, never stored.
_DERIVED = ("sources", "content_hash", "embedding_model")
_KNOWN = frozenset((*_ABSORB_FIELDS, *_OWN_FIELDS, *_DERIVED))
_METADATA_KEYS = frozenset({"entities", "relations"})
_EVIDENCE_KEYS = frozenset({"text", "source"})
_EDGE_KEYS = frozenset({"type", "to", "at"})
MAX_EVIDENCE = 10_000
MAX_EDGES = 10_000
MAX_COUNT = 1 << 53  # counters beyond what a float holds exactly are not real counts


def check_record(value: Any, limits: MemorySettings) -> dict[str, Any]:
    """The restorable record, or ``InvalidInput``/``SecretRejected`` naming the field and the rule."""
    if not isinstance(value, dict):
        raise InvalidInput("an export record must be a JSON object")
    if unknown := set(value) - _KNOWN:
        raise InvalidInput(f"unknown field {shown_name(sorted(map(str, unknown))[0])} in an export record")
    record_id = check_id(value.get("id"), "an export record's id")
    if value.get("status") not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
    if value.get("created_at") is None:
        raise InvalidInput("an export record needs created_at")
    meta = _metadata(value.get("metadata"))
    item = validate({**{k: value[k] for k in _ABSORB_FIELDS if k in value}, **meta}, limits)
    record: dict[str, Any] = {
        "id": record_id, "text": item.text, "scope": item.scope, "kind": item.kind, "status": value["status"],
        "confidence": item.initial_confidence(), "importance": item.importance, "tags": item.tags,
        "subject": item.subject, "predicate": item.predicate, "object": item.object,
        "session_id": item.session_id, "source": item.source, "created_at": item.created_at,
    }
    for name in ("last_reinforced", "last_accessed", "expires_at"):
        if value.get(name) is not None:
            record[name] = time_field(value[name], name)
    for name in ("access_count", "reinforcement_count"):
        record[name] = _count(value.get(name, 0), name)
    record["evidence"] = _evidence(value.get("evidence"), limits)
    record["metadata"] = {k: v for k, v in (("entities", item.entities), ("relations", item.relations)) if v}
    record["edges"] = _edges(value.get("edges"))
    if any(edge["to"] == record_id for edge in record["edges"]):
        raise InvalidInput(f"an edge of record {record_id} points to the record itself")
    return {k: v for k, v in record.items() if v is not None}


def _metadata(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InvalidInput("metadata must be an object")
    if unknown := set(raw) - _METADATA_KEYS:
        raise InvalidInput(f"metadata holds an unknown key {shown_name(sorted(map(str, unknown))[0])}")
    return {k: raw[k] for k in _METADATA_KEYS if raw.get(k) is not None}


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise InvalidInput(f"{name} must be a whole number from 0 to {MAX_COUNT:,}")
    return value


def _scanned(value: str) -> str:
    if hit := secret_in(value):
        raise SecretRejected(hit.rule, hit.start, hit.end)
    return value


def _evidence(raw: Any, limits: MemorySettings) -> list[dict[str, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_EVIDENCE:
        raise InvalidInput(f"evidence must be a list of at most {MAX_EVIDENCE:,} {{text, source}} objects")
    found = []
    for entry in raw:
        if not isinstance(entry, dict) or not entry or set(entry) - _EVIDENCE_KEYS:
            raise InvalidInput("each evidence entry must be an object with 'text' and/or 'source'")
        checked = {}
        if "text" in entry:
            checked["text"] = _scanned(check_text(entry["text"], limits)[0])
        if "source" in entry:
            source = entry["source"]
            if not isinstance(source, str) or not source.strip() or len(source) > SHORT_LIMIT:
                raise InvalidInput(f"an evidence source must be a string of 1 to {SHORT_LIMIT} characters")
            # check_text's rules (printable, valid UTF-8) with the short limit checked above
            checked["source"] = _scanned(check_text(source, limits)[0])
        found.append(checked)
    return found


def _edges(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_EDGES:
        raise InvalidInput(f"edges must be a list of at most {MAX_EDGES:,} {{type, to, at}} objects")
    found = []
    for edge in raw:
        if not isinstance(edge, dict) or set(edge) - _EDGE_KEYS or edge.get("type") not in EDGE_TYPES:
            raise InvalidInput(f"each edge must be an object {{type, to, at}} with a type among "
                               f"{', '.join(EDGE_TYPES)}")
        checked = {"type": edge["type"], "to": check_id(edge.get("to"), "an edge's 'to'")}
        if edge.get("at") is not None:
            checked["at"] = time_field(edge["at"], "an edge's 'at'")
        found.append(checked)
    return found
