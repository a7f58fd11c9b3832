"""Entity metadata of absorbed facts: nodes deduplicated by (normalised name, type).

Nodes and typed relations are written in the same transaction as the fact
that declares them; each relation points at its justifying fact. Queries
over the graph are the graph module's job.
"""

from __future__ import annotations

import sqlite3

from engine.store.records import normalise_text


def entity_id(db: sqlite3.Connection, name: str, entity_type: str, at: float) -> int:
    """The node of (normalised name, type), created with this spelling the first time it is named."""
    norm = normalise_text(name)
    # Look first: most names are known already, and then this is the only statement.
    found = db.execute("SELECT id FROM entities WHERE norm_name = ? AND type = ?", (norm, entity_type)).fetchone()
    if found is not None:
        return int(found[0])
    return int(db.execute("INSERT INTO entities (name, norm_name, type, created_at) VALUES (?, ?, ?, ?)",
                          (name, norm, entity_type, at)).lastrowid)


def link_entities(db: sqlite3.Connection, fact_id: int, entities: list[dict[str, str]],
                  relations: list[list[str]], at: float) -> None:
    ids: dict[str, int] = {}
    for entity in entities:
        node = entity_id(db, entity["name"], entity["type"], at)
        ids.setdefault(normalise_text(entity["name"]), node)
        db.execute("INSERT OR IGNORE INTO entity_mentions (fact_id, entity_id) VALUES (?, ?)", (fact_id, node))
    for src, edge_type, dst in relations:
        db.execute("INSERT OR IGNORE INTO relations (src_entity, type, dst_entity, fact_id, created_at) "
                   "VALUES (?, ?, ?, ?, ?)",
                   (ids[normalise_text(src)], normalise_text(edge_type).replace(" ", "_"), ids[normalise_text(dst)],
                    fact_id, at))
