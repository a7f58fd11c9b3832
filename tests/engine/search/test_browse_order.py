"""A listing in an order SQLite computes: every field a table header can sort by, both directions."""

from __future__ import annotations

import pytest

from engine import InvalidInput, Memory, SearchFilters

FACTS = [
    {"text": "zebra crossings near the office are repainted every spring", "kind": "episodic", "scope": "run",
     "session_id": "s1"},
    {"text": "Maya prefers the Helix editor with a dark theme", "kind": "user_preference", "scope": "user"},
    {"text": "apples from the north orchard ship on Thursdays", "kind": "explicit", "scope": "agent"},
    {"text": "Build servers reboot at 03:00 UTC on Sundays", "kind": "derived", "scope": "agent"},
    {"text": "the quarterly report goes to Ines before the fifth", "kind": "explicit", "scope": "user"},
]


@pytest.fixture
def listed(memory: Memory, clock) -> dict[int, object]:
    ids = []
    for item in FACTS:  # one absorb per fact, a day apart, so created_at differs
        ids.append(memory.absorb([item]).items[0].fact_id)
        clock.advance(1)
    return memory.facts(ids)


@pytest.mark.parametrize("field", ["id", "created_at", "confidence", "scope", "kind", "status", "text"])
@pytest.mark.parametrize("descending", [False, True])
def test_browse_orders_by_each_field_with_ties_by_id(memory: Memory, listed, field: str, descending: bool) -> None:
    def key(fact_id: int):
        value = getattr(listed[fact_id], field) if field != "id" else fact_id
        return (value.lower() if field == "text" else value, fact_id)

    expected = sorted(listed, key=key, reverse=descending)
    assert memory.browse(order_by=field, descending=descending) == expected


def test_browse_default_is_still_newest_first_and_filters_still_apply(memory: Memory, listed) -> None:
    assert memory.browse() == sorted(listed, reverse=True)
    users = [i for i, f in listed.items() if f.scope == "user"]
    assert memory.browse(SearchFilters(scope="user"), order_by="text", descending=False) == sorted(
        users, key=lambda i: listed[i].text.lower())
    assert memory.browse(order_by="text", descending=False)[0] == next(
        i for i, f in listed.items() if f.text.startswith("apples"))  # "Build" does not sort before "apples"


@pytest.mark.parametrize("bad", ["score", "id; DROP TABLE facts", "", None, 3, "TEXT"])
def test_browse_refuses_an_unknown_order(memory: Memory, listed, bad) -> None:
    with pytest.raises(InvalidInput, match="cannot order a listing"):
        memory.browse(order_by=bad)


@pytest.mark.parametrize("descending", [False, True])
def test_browse_by_effective_confidence_follows_the_decayed_value_a_listing_shows(
        memory: Memory, listed, clock, descending: bool) -> None:
    # Kinds decay at different rates: a sure episode falls below a less sure explicit fact.
    memory.absorb([{"text": "the deploy of build 812 failed at noon", "kind": "episodic", "confidence": 0.99,
                    "scope": "run", "session_id": "s2"},
                   {"text": "Ines owns the release calendar", "kind": "explicit", "confidence": 0.6}])
    clock.advance(200)
    ids = memory.browse()
    shown = {h.fact.id: h.effective_confidence for h in memory.describe(ids)}
    expected = sorted(ids, key=lambda i: (shown[i], i), reverse=descending)
    assert memory.browse(order_by="effective_confidence", descending=descending) == expected
    assert expected != memory.browse(order_by="confidence", descending=descending)
    floor = sorted(shown.values())[2]
    assert memory.browse(SearchFilters(min_confidence=floor), order_by="effective_confidence",
                         descending=descending) == [i for i in expected if shown[i] >= floor]


def test_an_entity_filter_keeps_the_facts_that_mention_it_in_listings_and_searches(memory: Memory) -> None:
    memory.absorb([{"text": "Ines works at Northwind in Kazan", "entities": [
                       {"name": "Ines", "type": "person"}, {"name": "Northwind", "type": "company"}]},
                   {"text": "Northwind opened a second office", "entities": [{"name": "Northwind", "type": "company"}]},
                   {"text": "Ines prefers tea in the morning", "entities": [{"name": "Ines", "type": "person"}]},
                   "An unrelated fact about the staging cluster"])
    mentioning = {f.id for f in memory.entity_facts("company:northwind")}
    assert len(mentioning) == 2
    only = SearchFilters(entity="company:northwind")
    assert set(memory.browse(only)) == mentioning
    assert {h.fact.id for h in memory.search("office Northwind tea staging", filters=only)} <= mentioning
    assert memory.browse(SearchFilters(entity="company:nobody")) == []
    for bad in ("northwind", "spaceship:northwind", 3):
        with pytest.raises(InvalidInput, match="entity filter"):
            SearchFilters(entity=bad)
