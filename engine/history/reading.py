"""Reading a fact by id in the three modes of DESIGN §2.

``supersedes`` edges point from the newer fact to the older one, so "latest"
follows them backwards (towards sources) and the oldest version is the one
nothing older hangs off.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from engine.errors import InvalidInput, NotFound
from engine.history.versions import versions_of
from engine.store.edges import newer_version
from engine.store.records import Fact, edges_touching, load_facts

from engine.vocabulary import READ_MODES as MODES


@dataclass
class Reading:
    """The answer to ``get``: the facts shown, and a sentence when the asked fact is not current."""
    mode: str
    requested: int
    facts: list[Fact]
    message: str | None = None
    superseded_by: int | None = None
    contradicts: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "requested": self.requested, "message": self.message,
                "superseded_by": self.superseded_by, "facts": [f.to_dict() for f in self.facts],
                "contradicts": self.contradicts}


def chain(db: sqlite3.Connection, fact_id: int) -> list[int]:
    """Every version of a fact, oldest first (``versions``: a tree when a contradiction was resolved)."""
    return versions_of(db, fact_id).ids


def _current(facts: dict[int, Fact], versions: list[int]) -> Fact:
    """The newest version, unless it is not active and an older one is: a loop of versions written
    before loops were refused (or by hand) has no real end, and "latest" must not answer with a
    superseded fact while an active one is in its chain."""
    newest = facts[versions[-1]]
    if newest.status == "active":
        return newest
    active = [facts[i] for i in versions if i in facts and facts[i].status == "active"]
    return active[-1] if active else newest


def read(db: sqlite3.Connection, fact_id: int, mode: str) -> Reading:
    if mode not in MODES:
        raise InvalidInput(f"mode must be one of {', '.join(MODES)}")
    fact = load_facts(db, [fact_id]).get(fact_id)
    if fact is None:
        raise NotFound(f"there is no fact {fact_id} in this memory")
    newer = newer_version(db, fact_id)
    if mode == "active":
        if fact.status == "active":
            return Reading(mode, fact_id, [fact])
        because = f"superseded by {newer}" if newer is not None else fact.status
        return Reading(mode, fact_id, [], f"fact {fact_id} is not active: {because}", superseded_by=newer)
    versions = chain(db, fact_id)
    if mode == "latest":
        latest = _current(load_facts(db, versions), versions)
        note = None if latest.id == fact_id else f"fact {fact_id} has a newer version: {latest.id}"
        return Reading(mode, fact_id, [latest], note, superseded_by=newer)
    facts = load_facts(db, versions)
    contradicts = [e for e in edges_touching(db, versions) if e["type"] == "contradicts"]
    return Reading(mode, fact_id, [facts[i] for i in versions], superseded_by=newer, contradicts=contradicts)
