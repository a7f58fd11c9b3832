"""Hand-made changes (the GUI's curation) turned into plan items.

``Memory.propose`` passes a list of change dicts here; each becomes one plan
item, checked against the store as it is now. Nothing is written: the plan is
stored as a draft and applied later like any other. A bad change raises
``InvalidInput`` / ``NotFound`` with a one-line message naming the change by
its position, and no part of the list is kept. Texts go through the same
validation and secret check as absorb, so a secret is never stored or echoed.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any, Sequence

from engine.plans.apply import link_direction
from engine.clock import format_time
from engine.config import MemorySettings
from engine.errors import InvalidInput, NotFound, SecretRejected
from engine.store.plans import PlanItem
from engine.store.edges import edge_rows_of, open_contradiction_rows, supersedes_cycle
from engine.store.records import Fact, active_hash_owners, content_hash, fact_columns, load_facts, stored_list
from engine.absorb.secrets import first_secret
from engine.absorb.validation import FIELDS, validate
from engine.vocabulary import CHANGE_ACTIONS, LINK_TYPES

_KIND = re.compile(r"[a-z][a-z0-9_-]{0,31}")
MAX_REASON = 500
MAX_CHANGES = 1000
# What a new version inherits from the fact it replaces unless the change says otherwise: its
# entities, relations and source too, so the graph edges the old text justified stay justified.
# Not the triple, whose object is usually what the new version changes.
_INHERITED = ("scope", "kind", "tags", "session_id", "importance", "source")


@dataclass(frozen=True)
class Edge:
    """A typed, directed edge between two facts."""
    id: int
    type: str
    from_id: int
    to_id: int
    created_at: float
    plan_id: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "from_id": self.from_id, "to_id": self.to_id,
                "created_at": format_time(self.created_at), "plan_id": self.plan_id}


def edges_of(db: sqlite3.Connection, fact_id: int) -> list[Edge]:
    if not fact_columns(db, [fact_id], "status"):
        raise NotFound(f"there is no fact {fact_id} in this memory")
    return [Edge(r[0], r[1], r[2], r[3], r[4], r[5]) for r in edge_rows_of(db, fact_id)]


@dataclass(frozen=True)
class Contradiction:
    """An open ``contradicts`` pair: both facts active, not settled as "both hold" (related)."""
    left: Fact
    right: Fact
    since: float


def open_contradictions(db: sqlite3.Connection, limit: int = 1000) -> list[Contradiction]:
    """Oldest first. A pair a person settled as "both hold" has a ``related`` edge too and drops out;
    "left/right is current" supersedes one side, so it drops out by status."""
    rows = open_contradiction_rows(db, limit)
    facts = load_facts(db, {i for r in rows for i in r[:2]})
    # The older fact on the left, so "left is current" reads as "the old statement still holds".
    return [Contradiction(*sorted((facts[r[0]], facts[r[1]]), key=lambda f: (f.created_at, f.id)), r[2]) for r in rows]


def check_kind(kind: Any) -> str:
    # "import" plans are restored by another writer; a hand-made plan must never be routed there.
    # "revert" plans are recognised as undoing another plan; only ``revert_plan`` makes them.
    if not isinstance(kind, str) or not _KIND.fullmatch(kind) or kind in ("import", "revert"):
        raise InvalidInput("kind must be a short lowercase name such as 'curate' (not 'import' or 'revert')")
    return kind


def check_note(value: Any, name: str = "note") -> str | None:
    """A free text kept in the plan: short, no control characters, never a secret."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    value = value.strip()
    if len(value) > MAX_REASON:
        raise InvalidInput(f"{name} is {len(value):,} characters; the limit is {MAX_REASON}")
    if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", value):
        raise InvalidInput(f"{name} contains control characters")
    if re.search("[\ud800-\udfff]", value):
        raise InvalidInput(f"{name} is not valid UTF-8 (a lone surrogate)")
    if hit := first_secret(value):
        raise SecretRejected(hit.rule, hit.start, hit.end)
    return value or None


def _fact_id(change: dict[str, Any], key: str) -> int:
    value = change.get(key)
    if value is None:
        raise InvalidInput(f"'{key}' is missing")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(f"'{key}' must be a positive integer fact id")
    return value


class ChangePlanner:
    """Turns change dicts into plan items, reading the store but never writing it."""

    def __init__(self, db: sqlite3.Connection, limits: MemorySettings) -> None:
        self.db, self.limits = db, limits
        self._retired: dict[int, int] = {}  # fact id -> the change that already retires it

    def plan(self, changes: Sequence[dict[str, Any]]) -> list[PlanItem]:
        if isinstance(changes, (str, bytes, dict)) or not isinstance(changes, Sequence):
            raise InvalidInput("changes must be a list of change objects")
        if not changes:
            raise InvalidInput("changes is empty: nothing to propose")
        if len(changes) > MAX_CHANGES:
            raise InvalidInput(f"at most {MAX_CHANGES} changes per plan")
        items = []
        for index, change in enumerate(changes):
            try:
                items.append(self._one(index, change))
            except (InvalidInput, NotFound) as err:
                # Same exception (class and fields kept, so a caller still tells a secret or a missing
                # fact apart), its message prefixed with the change's position when there are several
                # (a lone "change 0:" on the app's New version… said nothing but a count from zero).
                if len(changes) > 1:
                    err.args = (f"change {index}: {err}",)
                raise
        return items

    def _one(self, index: int, change: Any) -> PlanItem:
        if not isinstance(change, dict):
            raise InvalidInput("each change must be an object with an 'action'")
        action = change.get("action")
        if action not in CHANGE_ACTIONS:
            raise InvalidInput(f"action must be one of {', '.join(CHANGE_ACTIONS)}")
        return getattr(self, f"_{action}")(index, change)

    def _fact(self, fact_id: int, active: bool = True) -> sqlite3.Row:
        row = fact_columns(self.db, [fact_id], "status, text, tags, scope, kind, session_id, importance, source"
                           ).get(fact_id)
        if row is None:
            raise NotFound(f"there is no fact {fact_id} in this memory")
        if active and row["status"] != "active":
            raise InvalidInput(f"fact {fact_id} is {row['status']}, not active")
        return row

    def _allowed(self, change: dict[str, Any], keys: set[str]) -> None:
        unknown = set(change) - keys - {"action"}
        if unknown:
            raise InvalidInput(f"unknown field '{str(sorted(unknown, key=str)[0])[:40]}' for {change['action']}")

    def _retire_once(self, index: int, fact_id: int) -> None:
        if fact_id in self._retired:
            raise InvalidInput(f"fact {fact_id} is already archived or superseded by change {self._retired[fact_id]}")
        self._retired[fact_id] = index

    def _archive(self, index: int, change: dict[str, Any]) -> PlanItem:
        self._allowed(change, {"fact_id", "reason"})
        fact_id = _fact_id(change, "fact_id")
        self._fact(fact_id)
        self._retire_once(index, fact_id)
        reason = check_note(change.get("reason"), "reason") or "archived by hand"
        return PlanItem(index, "archive", "user", reason, target_id=fact_id, target_status="active")

    def _link(self, index: int, change: dict[str, Any]) -> PlanItem:
        self._allowed(change, {"type", "from_id", "to_id", "reason"})
        edge_type = change.get("type")
        if edge_type not in LINK_TYPES:
            raise InvalidInput(f"link type must be one of {', '.join(LINK_TYPES)}")
        src, dst = _fact_id(change, "from_id"), _fact_id(change, "to_id")
        if src == dst:
            raise InvalidInput(f"a fact cannot be linked to itself (fact {src})")
        self._fact(src)
        self._fact(dst)
        ends = link_direction(self.db, src, dst, edge_type)
        if ends is None:
            raise InvalidInput(f"facts {src} and {dst} are already linked ({edge_type})")
        reason = check_note(change.get("reason"), "reason") or f"{edge_type} by hand"
        # The item names both ends: its fact the edge starts from, its target the fact it points at.
        return PlanItem(index, "link", "user", reason, fact_id=ends[0], target_id=ends[1], target_status="active",
                        edges=[{"type": edge_type, "to_id": ends[1], "to_status": "active"}])

    def _prefer(self, index: int, change: dict[str, Any]) -> PlanItem:
        """Of two active facts (typically a contradicting pair), keep one as current and make the
        other its superseded older version."""
        self._allowed(change, {"keep_id", "retire_id", "reason"})
        keep, retire = _fact_id(change, "keep_id"), _fact_id(change, "retire_id")
        if keep == retire:
            raise InvalidInput(f"keep_id and retire_id are the same fact ({keep})")
        self._fact(keep)
        self._fact(retire)
        if why := supersedes_cycle(self.db, keep, retire):
            raise InvalidInput(why)
        self._retire_once(index, retire)
        reason = check_note(change.get("reason"), "reason") or f"fact {keep} is current; {retire} superseded by hand"
        return PlanItem(index, "prefer", "user", reason, target_id=keep, target_status="active",
                        edges=[{"type": "supersedes", "to_id": retire, "to_status": "active"}])

    def _retag(self, index: int, change: dict[str, Any]) -> PlanItem:
        self._allowed(change, {"fact_id", "tags", "reason"})
        fact_id = _fact_id(change, "fact_id")
        row = self._fact(fact_id, active=False)
        if "tags" not in change:
            raise InvalidInput("'tags' is missing (give [] to clear them)")
        if not isinstance(change["tags"], list):
            raise InvalidInput("tags must be a list of strings")
        # The fact's own (already valid) text carries the new tags through absorb's own checks.
        tags = validate({"text": row["text"], "tags": change["tags"]}, self.limits).tags
        before = stored_list(row["tags"], "tags")  # None when damaged: the new list replaces them
        if tags == before:
            raise InvalidInput(f"fact {fact_id} already has exactly these tags")
        shown = "damaged" if before is None else before
        reason = check_note(change.get("reason"), "reason") or f"tags {shown} -> {tags}"
        return PlanItem(index, "retag", "user", reason, target_id=fact_id, target_status=row["status"],
                        tags=tags, before={"tags": before})

    def _supersede(self, index: int, change: dict[str, Any]) -> PlanItem:
        self._allowed(change, FIELDS | {"fact_id", "reason"})
        fact_id = _fact_id(change, "fact_id")
        old = self._fact(fact_id)
        self._retire_once(index, fact_id)
        reason = check_note(change.get("reason"), "reason") or f"a new version of fact {fact_id}, chosen by hand"
        raw = {k: v for k, v in change.items() if k in FIELDS}
        inherited = {k: old[k] for k in _INHERITED if old[k] not in (None, "[]")}
        if "tags" in inherited:  # damaged tags are not carried into the new version
            inherited["tags"] = stored_list(inherited["tags"], "tags") or []
        # The stored metadata as every read sees it (a damaged column reads as empty, see records.py).
        meta = load_facts(self.db, [fact_id])[fact_id].metadata
        inherited.update({k: meta[k] for k in ("entities", "relations") if isinstance(meta.get(k), list) and meta[k]})
        item = validate(raw, self.limits, inherited)
        digest = content_hash(item.text)
        if digest == content_hash(old["text"]):
            raise InvalidInput(f"the new text is the same as fact {fact_id}'s")
        holders = sorted(active_hash_owners(self.db, [digest]).get(digest, set()))
        if holders:
            raise InvalidInput(f"fact {holders[0]} already says this; archive fact {fact_id} instead")
        return PlanItem(index, "supersede", "user", reason, incoming=item.to_dict(), target_id=fact_id,
                        target_status="active", warnings=item.warnings)

