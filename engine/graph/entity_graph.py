"""The entity graph (DESIGN §6), held in memory as a networkx MultiDiGraph.

Nodes are entities, deduplicated in SQLite by (normalised name, type); a
node's key is ``"type:normalised name"``. Edges are typed relations keyed by
their type, each carrying the ids of the facts that justify it. Nothing is
removed: an edge (or node) whose facts are all inactive is reported inactive,
and queries skip it unless asked not to.

The graph is loaded once per open memory and kept in step through the
journal: every write that adds a fact or changes its status journals that
fact's id, this process's writes and other processes' alike, so ``sync``
re-reads only the facts journaled since the last look.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Iterable

import networkx as nx

from engine.errors import InvalidInput, NotFound
from engine.store import graph_rows
from engine.store.facts_read import statuses
from engine.store.journal import fact_rows_after, high_water
from engine.store.migrations import ENTITY_TYPES
from engine.store.records import normalise_text


def entity_key(entity_type: str, norm_name: str) -> str:
    return f"{entity_type}:{norm_name}"


def relation_type(text: str) -> str:
    """The normal form relation types are stored in (see ``entities.link_entities``)."""
    return normalise_text(text).replace(" ", "_")


@dataclass(frozen=True)
class Entity:
    id: int
    key: str
    name: str
    type: str
    active: bool
    fact_ids: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "key": self.key, "name": self.name, "type": self.type, "active": self.active,
                "fact_ids": list(self.fact_ids)}


@dataclass(frozen=True)
class Relation:
    """One typed edge ``src -type-> dst`` and the facts that justify it."""
    src: Entity
    type: str
    dst: Entity
    fact_ids: tuple[int, ...]
    active: bool

    def to_dict(self) -> dict[str, Any]:
        return {"src": self.src.key, "src_name": self.src.name, "type": self.type, "dst": self.dst.key,
                "dst_name": self.dst.name, "fact_ids": list(self.fact_ids), "active": self.active}


@dataclass
class EntityGraph:
    """Entities and relations of one memory, with the status of every fact behind them."""
    graph: nx.MultiDiGraph = field(default_factory=nx.MultiDiGraph)
    fact_active: dict[int, bool] = field(default_factory=dict)
    by_key: dict[str, int] = field(default_factory=dict)
    by_name: dict[str, list[int]] = field(default_factory=dict)
    journal_mark: int = 0

    @classmethod
    def load(cls, db: sqlite3.Connection) -> "EntityGraph":
        made = cls(journal_mark=high_water(db))
        made._read(db, None)
        return made

    def sync(self, db: sqlite3.Connection) -> None:
        """Take in the facts journaled since the last look (new facts, status changes)."""
        rows = fact_rows_after(db, self.journal_mark)
        if rows:
            self.journal_mark = rows[-1][0]
            facts = sorted({r[1] for r in rows if r[1] is not None})
            for start in range(0, len(facts), 500):
                self._read(db, facts[start:start + 500])

    def _read(self, db: sqlite3.Connection, fact_ids: list[int] | None) -> None:
        """Add the entities, mentions and relations of these facts (all facts when None)."""
        for fact_id, status, ent, name, norm, kind in graph_rows.mentions(db, fact_ids):
            self.fact_active[fact_id] = status == "active"
            self._node(ent, name, norm, kind)["facts"].add(fact_id)
        for src, rel, dst, fact_id in graph_rows.relations(db, fact_ids):
            if src not in self.graph or dst not in self.graph:
                continue  # written by hand without mentions: no node to hang it on
            if not self.graph.has_edge(src, dst, key=rel):
                self.graph.add_edge(src, dst, key=rel, facts=set())
            self.graph.edges[src, dst, rel]["facts"].add(fact_id)
        if fact_ids is not None:  # a fact without entities may still have changed status
            for fact_id, status in statuses(db, fact_ids):
                if fact_id in self.fact_active:
                    self.fact_active[fact_id] = status == "active"

    def _node(self, ent: int, name: str, norm: str, kind: str) -> dict[str, Any]:
        if ent not in self.graph:
            key = entity_key(kind, norm)
            self.graph.add_node(ent, name=name, type=kind, key=key, facts=set())
            self.by_key[key] = ent
            self.by_name.setdefault(norm, []).append(ent)
        return self.graph.nodes[ent]

    # -- reading ---------------------------------------------------------------
    def active_facts(self, facts: Iterable[int]) -> bool:
        return any(self.fact_active.get(f, False) for f in facts)

    def entity(self, node: int) -> Entity:
        data = self.graph.nodes[node]
        return Entity(node, data["key"], data["name"], data["type"], self.active_facts(data["facts"]),
                      tuple(sorted(data["facts"])))

    def relation(self, src: int, dst: int, rel: str) -> Relation:
        facts = self.graph.edges[src, dst, rel]["facts"]
        return Relation(self.entity(src), rel, self.entity(dst), tuple(sorted(facts)), self.active_facts(facts))

    def edge_ok(self, src: int, dst: int, rel: str, include_inactive: bool) -> bool:
        return include_inactive or self.active_facts(self.graph.edges[src, dst, rel]["facts"])

    def resolve(self, name: str, entity_type: str | None = None) -> int:
        """A node from a name (any case or spacing), a ``type:name`` key, or a name plus its type."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("an entity name is needed")
        if entity_type is not None and entity_type not in ENTITY_TYPES:
            raise InvalidInput(f"entity type must be one of {', '.join(ENTITY_TYPES)}")
        prefix, _, rest = name.partition(":")
        if rest and prefix.strip().lower() in ENTITY_TYPES and entity_type is None:
            entity_type, name = prefix.strip().lower(), rest
        norm = normalise_text(name)
        found = [n for n in self.by_name.get(norm, []) if entity_type in (None, self.graph.nodes[n]["type"])]
        if not found:
            kind = f" of type {entity_type}" if entity_type else ""
            raise NotFound(f"no entity named '{name.strip()[:80]}'{kind} in this memory")
        if len(found) > 1:
            types = ", ".join(sorted(self.graph.nodes[n]["type"] for n in found))
            raise InvalidInput(f"'{name.strip()[:80]}' names {len(found)} entities ({types}); give its type, "
                               f"e.g. '{self.graph.nodes[found[0]]['key']}'")
        return found[0]
