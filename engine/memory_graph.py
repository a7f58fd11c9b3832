"""The facade's entity-graph methods (a mixin of ``Memory``).

The graph is loaded on first use and then synced through the journal before
each question, so it follows this process's applies and other processes'
writes without being rebuilt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from engine.errors import NotFound
from engine.graph.entity_graph import Entity, EntityGraph, Relation
from engine.graph.queries import GraphPath, Match, Neighbor, neighbors, query, shortest_path
from engine.store.records import Fact, load_facts

if TYPE_CHECKING:
    from engine.memory import Memory


class GraphMethods:
    """Entity graph questions: neighbours, typed patterns, paths, and facts <-> entities."""

    _entity_graph: EntityGraph | None = None

    def _graph(self: "Memory") -> EntityGraph:
        """Call with the store guarded: the graph, loaded once, then brought up to date."""
        if self._entity_graph is None:
            self._entity_graph = EntityGraph.load(self._store.db)
        else:
            self._entity_graph.sync(self._store.db)
        return self._entity_graph

    def graph_neighbors(self: "Memory", name: str, *, type: str | None = None, hops: int = 1,
                        include_inactive: bool = False) -> list[Neighbor]:
        """Entities within ``hops`` (1-4) relations of the named entity, nearest first."""
        with self._store.guard():
            graph = self._graph()
            return neighbors(graph, graph.resolve(name, type), hops, include_inactive)

    def graph_query(self: "Memory", start: str, steps: Sequence[Any], *, type: str | None = None,
                    include_inactive: bool = False) -> list[Match]:
        """Entities reached from ``start`` by a typed path pattern of 1-4 steps.

        A step is ``"works_at"`` (forwards), ``"<works_at"`` (backwards), ``"*"`` (any type), each
        optionally ending in ``":company"`` to require the entity type reached. Who works at companies
        in Kazan: ``graph_query("Kazan", ["<located_in", "<works_at"])``.
        """
        with self._store.guard():
            graph = self._graph()
            return query(graph, graph.resolve(start, type), steps, include_inactive)

    def graph_path(self: "Memory", a: str, b: str, *, include_inactive: bool = False) -> GraphPath | None:
        """A shortest path between two entities (any direction per hop), or None when unconnected."""
        with self._store.guard():
            graph = self._graph()
            return shortest_path(graph, graph.resolve(a), graph.resolve(b), include_inactive)

    def graph_entities(self: "Memory", *, include_inactive: bool = True) -> list[Entity]:
        with self._store.guard():
            graph = self._graph()
            found = [graph.entity(n) for n in graph.graph.nodes]
            return [e for e in found if include_inactive or e.active]

    def graph_relations(self: "Memory", *, include_inactive: bool = True) -> list[Relation]:
        with self._store.guard():
            graph = self._graph()
            return [graph.relation(u, v, k) for u, v, k in graph.graph.edges(keys=True)
                    if graph.edge_ok(u, v, k, include_inactive)]

    def fact_entities(self: "Memory", fact_id: int) -> list[Entity]:
        """The entities a fact mentions (any status of the fact)."""
        with self._store.guard():
            graph = self._graph()
            return [graph.entity(n) for n in self._mentioned(graph, fact_id)]

    def fact_relations(self: "Memory", fact_id: int) -> list[Relation]:
        """The relations a fact justifies."""
        with self._store.guard():
            graph = self._graph()
            nodes = self._mentioned(graph, fact_id)
            return [graph.relation(u, v, k) for u in nodes for _, v, k, facts in
                    graph.graph.out_edges(u, keys=True, data="facts") if fact_id in facts]

    def entity_facts(self: "Memory", entity_key: str) -> list[Fact]:
        """Every fact mentioning an entity (``"type:name"`` key, or an unambiguous name), newest first."""
        with self._store.guard():
            graph = self._graph()
            node = graph.resolve(entity_key)
            facts = load_facts(self._store.db, graph.graph.nodes[node]["facts"])
            return sorted(facts.values(), key=lambda f: -f.id)

    def _mentioned(self: "Memory", graph: EntityGraph, fact_id: int) -> list[int]:
        rows = self._store.db.execute("SELECT entity_id FROM entity_mentions WHERE fact_id = ? ORDER BY entity_id",
                                      (fact_id,)).fetchall()
        if not rows and self._store.db.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is None:
            raise NotFound(f"there is no fact {fact_id} in this memory")
        return [r[0] for r in rows if r[0] in graph.graph]
