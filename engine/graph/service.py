"""Entity-graph questions of one open memory, over a graph loaded once and kept in step."""

from __future__ import annotations

from typing import Any, Sequence

from engine.errors import NotFound
from engine.graph.entity_graph import Entity, EntityGraph, Relation
from engine.graph.queries import GraphPath, Match, Neighbor, neighbors, query, shortest_path
from engine.store.context import Context
from engine.store.facts_read import fact_exists
from engine.store.graph_rows import entities_mentioned_by
from engine.store.records import Fact, load_facts


class GraphService:
    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._graph: EntityGraph | None = None

    def current(self) -> EntityGraph:
        """Call with the store guarded: the graph, loaded once, then brought up to date."""
        if self._graph is None:
            self._graph = EntityGraph.load(self._ctx.store.db)
        else:
            self._graph.sync(self._ctx.store.db)
        return self._graph

    def neighbors(self, name: str, *, type: str | None = None, hops: int = 1,
                  include_inactive: bool = False) -> list[Neighbor]:
        with self._ctx.store.guard():
            graph = self.current()
            return neighbors(graph, graph.resolve(name, type), hops, include_inactive)

    def query(self, start: str, steps: Sequence[Any], *, type: str | None = None,
              include_inactive: bool = False) -> list[Match]:
        with self._ctx.store.guard():
            graph = self.current()
            return query(graph, graph.resolve(start, type), steps, include_inactive)

    def path(self, a: str, b: str, *, include_inactive: bool = False) -> GraphPath | None:
        with self._ctx.store.guard():
            graph = self.current()
            return shortest_path(graph, graph.resolve(a), graph.resolve(b), include_inactive)

    def entities(self, *, include_inactive: bool = True) -> list[Entity]:
        with self._ctx.store.guard():
            graph = self.current()
            found = [graph.entity(n) for n in graph.graph.nodes]
            return [e for e in found if include_inactive or e.active]

    def relations(self, *, include_inactive: bool = True) -> list[Relation]:
        with self._ctx.store.guard():
            graph = self.current()
            return [graph.relation(u, v, k) for u, v, k in graph.graph.edges(keys=True)
                    if graph.edge_ok(u, v, k, include_inactive)]

    def fact_entities(self, fact_id: int) -> list[Entity]:
        with self._ctx.store.guard():
            graph = self.current()
            return [graph.entity(n) for n in self._mentioned(graph, fact_id)]

    def fact_relations(self, fact_id: int) -> list[Relation]:
        with self._ctx.store.guard():
            graph = self.current()
            nodes = self._mentioned(graph, fact_id)
            return [graph.relation(u, v, k) for u in nodes for _, v, k, facts in
                    graph.graph.out_edges(u, keys=True, data="facts") if fact_id in facts]

    def entity_facts(self, entity_key: str) -> list[Fact]:
        with self._ctx.store.guard():
            graph = self.current()
            node = graph.resolve(entity_key)
            facts = load_facts(self._ctx.store.db, graph.graph.nodes[node]["facts"])
            return sorted(facts.values(), key=lambda f: -f.id)

    def _mentioned(self, graph: EntityGraph, fact_id: int) -> list[int]:
        db = self._ctx.store.db
        found = entities_mentioned_by(db, fact_id)
        if not found and not fact_exists(db, fact_id):
            raise NotFound(f"there is no fact {fact_id} in this memory")
        return [e for e in found if e in graph.graph]
