"""The entity graph: dedup, typed multi-hop patterns, paths, inactive edges, staying in step with writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import InvalidInput, Memory, NotFound, Settings


def fact(text: str, *relations: tuple[str, str, str, str, str]) -> dict:
    """A fact with relations given as (src, src_type, relation, dst, dst_type)."""
    entities = {}
    for src, st, _, dst, dt in relations:
        entities[(src, st)] = {"name": src, "type": st}
        entities[(dst, dt)] = {"name": dst, "type": dt}
    return {"text": text, "entities": list(entities.values()),
            "relations": [[src, rel, dst] for src, _, rel, dst, _ in relations]}


WORLD = [
    fact("Ivan Petrov works at Northwind Robotics as a firmware engineer on the arm team.",
         ("Ivan Petrov", "person", "works_at", "Northwind Robotics", "company")),
    fact("Northwind Robotics is headquartered in Kazan, next to the Kazanka river.",
         ("Northwind Robotics", "company", "located_in", "Kazan", "location")),
    fact("Anna Smirnova joined Volga Soft in March and works from their office downtown.",
         ("anna  SMIRNOVA", "person", "works at", "Volga Soft", "company")),
    fact("Volga Soft keeps its only office in Kazan, on Baumana street.",
         ("Volga Soft", "company", "located_in", "KAZAN", "location")),
    fact("Jonas Becker works at Spreeline Data, an analytics firm based in Berlin.",
         ("Jonas Becker", "person", "works_at", "Spreeline Data", "company"),
         ("Spreeline Data", "company", "located_in", "Berlin", "location")),
    fact("IVAN PETROV leads Project Atlas, the warehouse fleet console at Northwind.",
         ("IVAN PETROV", "person", "leads", "Project Atlas", "project")),
]


@pytest.fixture
def world(memory: Memory) -> list[int]:
    return [it.fact_id for it in memory.absorb(WORLD).items]


def _names(results) -> list[str]:
    return [r.entity.name for r in results]


def test_nodes_are_deduplicated_by_normalised_name_and_type(memory: Memory, world: list[int]) -> None:
    keys = sorted(e.key for e in memory.graph_entities())
    assert keys.count("person:ivan petrov") == 1 and keys.count("location:kazan") == 1
    assert "person:anna smirnova" in keys
    memory.absorb([fact("Иван Петров возглавляет отдел прошивок в компании Northwind Robotics.",
                        ("Иван Петров", "person", "leads", "Northwind Robotics", "company"))])
    assert {e.key for e in memory.graph_entities()} - set(keys) == {"person:иван петров"}  # its own node
    ivan = [e for e in memory.fact_entities(world[0]) if e.type == "person"][0]
    assert ivan.fact_ids == (world[0], world[5])


def test_who_works_at_companies_in_kazan(memory: Memory, world: list[int]) -> None:
    matches = memory.graph_query("Kazan", ["<located_in", "<works_at"])
    assert _names(matches) == ["anna  SMIRNOVA", "Ivan Petrov"]
    anna = matches[0]
    assert [(r.src.name, r.type, r.dst.name) for r in anna.paths[0]] == [
        ("Volga Soft", "located_in", "Kazan"), ("anna  SMIRNOVA", "works_at", "Volga Soft")]
    assert anna.fact_ids == [world[2], world[3]]
    assert anna.to_dict()["walks"] == ["Kazan <-located_in- Volga Soft <-works_at- anna  SMIRNOVA"]
    # Forwards, and with entity-type filters on the steps.
    assert _names(memory.graph_query("ivan petrov", ["works_at", "located_in:location"])) == ["Kazan"]
    assert _names(memory.graph_query("Kazan", ["<located_in:person"])) == []
    assert _names(memory.graph_query("Project Atlas", ["<leads"])) == ["Ivan Petrov"]
    assert _names(memory.graph_query("Kazan", ["<*", "<*", "leads"])) == ["Project Atlas"]


def test_neighbors_and_paths(memory: Memory, world: list[int]) -> None:
    near = memory.graph_neighbors("Northwind Robotics")
    assert sorted(_names(near)) == ["Ivan Petrov", "Kazan"]  # a node keeps the name it was first seen with
    two = memory.graph_neighbors("Northwind Robotics", hops=2)
    assert {(n.entity.name, n.hops) for n in two} >= {("Volga Soft", 2), ("Project Atlas", 2)}
    path = memory.graph_path("Project Atlas", "anna smirnova")
    assert [r.type for r in path.relations] == ["leads", "works_at", "located_in", "located_in", "works_at"]
    assert path.to_dict()["walk"].startswith("Project Atlas <-leads- Ivan Petrov -works_at-> Northwind Robotics")
    assert memory.graph_path("Ivan Petrov", "Berlin") is None


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m.graph_query("Kazan", ["<located_in"] * 5), InvalidInput, "1 to 4 steps"),
    (lambda m: m.graph_query("Kazan", []), InvalidInput, "1 to 4 steps"),
    (lambda m: m.graph_query("Kazan", ["<"]), InvalidInput, "names no relation"),
    (lambda m: m.graph_query("Kazan", ["works_at:planet"]), InvalidInput, "entity type"),
    (lambda m: m.graph_neighbors("Kazan", hops=5), InvalidInput, "hops"),
    (lambda m: m.graph_neighbors("Atlantis"), NotFound, "no entity named 'Atlantis'"),
    (lambda m: m.graph_neighbors("Kazan", type="person"), NotFound, "of type person"),
    (lambda m: m.graph_path("Kazan", "kazan"), InvalidInput, "two different"),
    (lambda m: m.fact_entities(999), NotFound, "no fact 999"),
])
def test_bad_graph_questions(memory: Memory, world: list[int], call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(memory)


def test_an_ambiguous_name_asks_for_its_type(memory: Memory, world: list[int]) -> None:
    memory.absorb([fact("The Kazan product line covers small autonomous forklifts for cold stores.",
                        ("Kazan", "product", "made_by", "Northwind Robotics", "company"))])
    with pytest.raises(InvalidInput, match="names 2 entities"):
        memory.graph_neighbors("Kazan")
    assert _names(memory.graph_neighbors("product:kazan")) == ["Northwind Robotics"]
    assert _names(memory.graph_neighbors("Kazan", type="location")) == ["Northwind Robotics", "Volga Soft"]


def test_an_edge_whose_facts_are_inactive_is_shown_inactive_not_removed(memory: Memory, world: list[int]) -> None:
    memory.apply_plan(memory.propose([{"action": "archive", "fact_id": world[3]}]).id)
    assert _names(memory.graph_query("Kazan", ["<located_in", "<works_at"])) == ["Ivan Petrov"]
    assert _names(memory.graph_query("Kazan", ["<located_in", "<works_at"], include_inactive=True)) == [
        "anna  SMIRNOVA", "Ivan Petrov"]
    volga = {(r.src.name, r.type): r for r in memory.graph_relations()}[("Volga Soft", "located_in")]
    assert volga.active is False and volga.fact_ids == (world[3],)
    assert ("Volga Soft", "located_in") not in {(r.src.name, r.type) for r in memory.graph_relations(
        include_inactive=False)}
    # A new version told to drop the entities and relations leaves the old relation inactive too
    # (by default a new version keeps them: see test_a_new_version_keeps_entities_relations_source_and_tags).
    memory.apply_plan(memory.propose([{"action": "supersede", "fact_id": world[5], "entities": [], "relations": [],
                                       "text": "Ivan Petrov handed Project Atlas over to the new console team."}]).id)
    assert memory.graph_query("Project Atlas", ["<leads"]) == []
    assert [f.status for f in memory.entity_facts("project:project atlas")] == ["superseded"]


def test_the_graph_follows_other_processes_writes(memory: Memory, world: list[int], db_path: Path, clock,
                                                  embedder) -> None:
    loaded = memory.entity_graph.current()  # loaded once ...
    with Memory(db_path, Settings(), clock=clock, actor="other", embedder=embedder) as other:
        other.absorb([fact("Dmitri Orlov works at Volga Soft as its head of quality assurance.",
                           ("Dmitri Orlov", "person", "works_at", "Volga Soft", "company"))])
        other.apply_plan(other.propose([{"action": "archive", "fact_id": world[0]}]).id)
    assert _names(memory.graph_query("Kazan", ["<located_in", "<works_at"])) == ["anna  SMIRNOVA", "Dmitri Orlov"]
    assert memory.entity_graph.current() is loaded  # ... and kept in step, not rebuilt


def test_fact_entities_relations_and_entity_facts(memory: Memory, world: list[int], tmp_path: Path) -> None:
    assert [e.key for e in memory.fact_entities(world[4])] == [
        "person:jonas becker", "company:spreeline data", "location:berlin"]
    assert [(r.src.key, r.type, r.dst.key) for r in memory.fact_relations(world[4])] == [
        ("person:jonas becker", "works_at", "company:spreeline data"),
        ("company:spreeline data", "located_in", "location:berlin")]
    plain = memory.absorb(["The staging cluster runs three replicas of the ingest service."]).items[0].fact_id
    assert memory.fact_entities(plain) == [] and memory.fact_relations(plain) == []
    assert [f.id for f in memory.entity_facts("company:Northwind Robotics")] == [world[1], world[0]]
    # Entities come along through JSONL import (an export restored into a new file).
    export = tmp_path / "export.jsonl"
    with export.open("w", encoding="utf-8") as stream:
        memory.export(stream)
    with Memory(tmp_path / "copy.sqlite", Settings(), embedder=memory.embedder) as copy:
        copy.import_file(export)
        assert _names(copy.graph_query("Kazan", ["<located_in", "<works_at"])) == ["anna  SMIRNOVA", "Ivan Petrov"]
        assert json.dumps(copy.graph_path("Jonas Becker", "Berlin").to_dict())
