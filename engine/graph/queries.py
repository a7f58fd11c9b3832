"""Questions over the entity graph: neighbours, typed multi-hop patterns, shortest paths.

A pattern is a start entity and up to four steps; each step names a
relation type and a direction, optionally the type of entity it must reach.
"Who works at companies in Kazan" is ``Kazan <located_in <works_at``: from
Kazan, follow ``located_in`` backwards (to what is located in Kazan), then
``works_at`` backwards (to who works there). Only active relations count
unless ``include_inactive`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import networkx as nx

from engine.errors import InvalidInput
from engine.graph.entity_graph import Entity, EntityGraph, Relation, relation_type
from engine.store.migrations import ENTITY_TYPES

MAX_HOPS = 4
MAX_PATHS = 20  # witness paths kept per matched entity; the match itself is never dropped


@dataclass(frozen=True)
class Step:
    """One hop of a pattern: ``type`` None matches any relation; ``node_type`` filters where it lands."""
    type: str | None
    backwards: bool = False
    node_type: str | None = None

    @classmethod
    def parse(cls, text: Any) -> "Step":
        """``works_at``, ``>works_at`` (forwards), ``<works_at`` (backwards), ``*``; ``:company`` filters."""
        if isinstance(text, Step):
            return text
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("a step is a relation type such as 'works_at' or '<located_in'")
        body = text.strip()
        backwards = body.startswith("<")
        body = body.lstrip("<>").strip()
        body, _, node_type = body.partition(":")
        node_type = node_type.strip().lower() or None
        if node_type is not None and node_type not in ENTITY_TYPES:
            raise InvalidInput(f"step '{text[:40]}': entity type must be one of {', '.join(ENTITY_TYPES)}")
        if not body:
            raise InvalidInput(f"step '{text[:40]}' names no relation type (use * for any)")
        return cls(None if body == "*" else relation_type(body), backwards, node_type)

    def __str__(self) -> str:
        return ("<" if self.backwards else "") + (self.type or "*") + (f":{self.node_type}" if self.node_type else "")


def walk_text(start: Entity, relations: Sequence[Relation]) -> str:
    """Relations in walking order as text, each arrow pointing the way the relation reads."""
    text, at = start.name, start.id
    for rel in relations:
        if rel.src.id == at:
            text, at = f"{text} -{rel.type}-> {rel.dst.name}", rel.dst.id
        else:
            text, at = f"{text} <-{rel.type}- {rel.src.name}", rel.src.id
    return text


def _fact_ids(relations: Sequence[Relation]) -> list[int]:
    return sorted({f for rel in relations for f in rel.fact_ids})


@dataclass(frozen=True)
class Neighbor:
    start: Entity
    entity: Entity
    hops: int
    via: tuple[Relation, ...]  # the relations along one shortest way there, in walking order

    def to_dict(self) -> dict[str, Any]:
        return {**self.entity.to_dict(), "hops": self.hops, "via": [r.to_dict() for r in self.via],
                "walk": walk_text(self.start, self.via)}


@dataclass(frozen=True)
class Match:
    """An entity a pattern reaches, with the paths (lists of relations, walking order) that reach it."""
    start: Entity
    entity: Entity
    paths: tuple[tuple[Relation, ...], ...]

    @property
    def fact_ids(self) -> list[int]:
        return _fact_ids([rel for path in self.paths for rel in path])

    def to_dict(self) -> dict[str, Any]:
        return {**self.entity.to_dict(), "paths": [[r.to_dict() for r in p] for p in self.paths],
                "walks": [walk_text(self.start, p) for p in self.paths], "justified_by": self.fact_ids}


@dataclass(frozen=True)
class GraphPath:
    start: Entity
    end: Entity
    relations: tuple[Relation, ...]

    @property
    def fact_ids(self) -> list[int]:
        return _fact_ids(self.relations)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start.key, "end": self.end.key, "hops": len(self.relations),
                "relations": [r.to_dict() for r in self.relations], "walk": walk_text(self.start, self.relations),
                "justified_by": self.fact_ids}


def _hops(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_HOPS:
        raise InvalidInput(f"hops must be a whole number from 1 to {MAX_HOPS}")
    return value


def _undirected(eg: EntityGraph, include_inactive: bool) -> nx.Graph:
    view = nx.subgraph_view(eg.graph, filter_edge=lambda u, v, k: eg.edge_ok(u, v, k, include_inactive))
    return view.to_undirected(as_view=True)


def _between(eg: EntityGraph, a: int, b: int, include_inactive: bool) -> list[Relation]:
    """Every usable relation joining a and b, in either direction."""
    found = []
    for src, dst in ((a, b), (b, a)):
        for rel in (eg.graph.get_edge_data(src, dst) or {}):
            if eg.edge_ok(src, dst, rel, include_inactive):
                found.append(eg.relation(src, dst, rel))
    return found


def neighbors(eg: EntityGraph, start: int, hops: int = 1, include_inactive: bool = False) -> list[Neighbor]:
    """Entities within ``hops`` relations of ``start`` (either direction), nearest first."""
    ways = nx.single_source_shortest_path(_undirected(eg, include_inactive), start, cutoff=_hops(hops))
    found = []
    for node, way in ways.items():
        if node == start:
            continue
        via = tuple(r for a, b in zip(way, way[1:]) for r in _between(eg, a, b, include_inactive)[:1])
        found.append(Neighbor(eg.entity(start), eg.entity(node), len(way) - 1, via))
    return sorted(found, key=lambda n: (n.hops, n.entity.type, n.entity.name.casefold()))


def query(eg: EntityGraph, start: int, steps: Sequence[Any], include_inactive: bool = False) -> list[Match]:
    """Follow the steps from ``start`` along simple paths; every entity reached by the last step."""
    parsed = [Step.parse(s) for s in steps]
    if not 1 <= len(parsed) <= MAX_HOPS:
        raise InvalidInput(f"a pattern has 1 to {MAX_HOPS} steps")
    frontier: dict[int, list[tuple[tuple[int, int, str], ...]]] = {start: [()]}
    for step in parsed:
        reached: dict[int, list[tuple[tuple[int, int, str], ...]]] = {}
        for node, paths in frontier.items():
            edges = (eg.graph.in_edges(node, keys=True) if step.backwards
                     else eg.graph.out_edges(node, keys=True))
            for src, dst, rel in edges:
                other = src if step.backwards else dst
                if step.type not in (None, rel) or not eg.edge_ok(src, dst, rel, include_inactive):
                    continue
                if step.node_type not in (None, eg.graph.nodes[other]["type"]):
                    continue
                for path in paths:
                    seen = {start, *(n for hop in path for n in hop[:2])}
                    if other not in seen and len(reached.setdefault(other, [])) < MAX_PATHS:
                        reached[other].append(path + ((src, dst, rel),))
        frontier = {n: p for n, p in reached.items() if p}
    matches = [Match(eg.entity(start), eg.entity(n), tuple(tuple(eg.relation(*hop) for hop in p) for p in paths))
               for n, paths in frontier.items()]
    return sorted(matches, key=lambda m: (m.entity.name.casefold(), m.entity.type))


def shortest_path(eg: EntityGraph, a: int, b: int, include_inactive: bool = False) -> GraphPath | None:
    """One shortest path from a to b (either direction per hop); None if they are not connected."""
    if a == b:
        raise InvalidInput("a path needs two different entities")
    try:
        way = nx.shortest_path(_undirected(eg, include_inactive), a, b)
    except nx.NetworkXNoPath:
        return None
    return GraphPath(eg.entity(a), eg.entity(b),
                     tuple(_between(eg, x, y, include_inactive)[0] for x, y in zip(way, way[1:])))
