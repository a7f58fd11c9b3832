"""abstract: skipped without an LLM; with one, derived facts linked to their children, reinforced, pruned."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from engine import InvalidInput, Memory, Settings
from engine.config import LLMSettings
from tests.llm_server import ScriptedLLM

DERIVED = "Maya prefers a quiet, dark and uninterrupted working environment at Northwind."
FACTS = [
    ("Maya prefers dark mode in every editor and terminal that she uses at work.", "Maya", "prefers", "dark mode"),
    ("Maya turns off all notification sounds on her laptop while she is working.", "maya", "disables", "sounds"),
    ("Maya asks for her meetings to be scheduled after lunch, never in the morning.", "Maya", "meetings", "after lunch"),
    ("Northwind Robotics is headquartered in Kazan, next to the Kazanka river.", "Northwind", "hq", "Kazan"),
    ("Northwind Robotics builds warehouse robots for cold stores and big depots.", "Northwind", "builds", "robots"),
    ("Northwind Robotics employs about 120 people across its two offices in Russia.", "Northwind", "staff", "120"),
    ("Ivan Petrov leads the firmware team of the robot arm project at Northwind.", "Ivan", "leads", "firmware"),
]


def _absorb(memory: Memory) -> list[int]:
    return [it.fact_id for it in memory.absorb(
        [{"text": t, "subject": s, "predicate": p, "object": o} for t, s, p, o in FACTS]).items]


def _counts(db_path: Path) -> tuple[int, ...]:
    raw = sqlite3.connect(db_path)
    return tuple(raw.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("facts", "edges", "journal", "plans"))


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture
def smart(llm: ScriptedLLM, db_path: Path, clock, embedder) -> Iterator[Memory]:
    settings = replace(Settings(), llm=LLMSettings(base_url=llm.base_url, model="m", timeout=0.5))
    with Memory(db_path, settings, clock=clock, actor="test", embedder=embedder) as mem:
        yield mem


def test_without_an_llm_every_cluster_is_skipped_and_nothing_changes(memory: Memory, db_path: Path) -> None:
    _absorb(memory)
    before = _counts(db_path)
    report = memory.abstract(min_cluster=3)
    assert [(c.subject, len(c.fact_ids), c.status) for c in report.clusters] == [
        ("Maya", 3, "skipped"), ("Northwind", 3, "skipped")]
    assert report.counts() == {"clusters": 2, "created": 0, "reinforced": 0, "pruned": 0, "skipped": 2, "failed": 0}
    assert report.plan is None and _counts(db_path) == before
    assert len(memory.abstract(min_cluster=1 + 1).clusters) == 2
    with pytest.raises(InvalidInput, match="min_cluster"):
        memory.abstract(min_cluster=1)


def test_abstract_creates_reinforces_then_prunes(smart: Memory, llm: ScriptedLLM, db_path: Path) -> None:
    ids = _absorb(smart)
    maya = ids[:3]
    llm.answer(("content", f'```json\n["{DERIVED}"]\n```'), ("content", "Northwind is a robotics company."))
    before = _counts(db_path)
    dry = smart.abstract(dry_run=True)
    assert _counts(db_path)[:3] == before[:3] and dry.plan.status == "draft"
    assert [(c.status, c.reason) for c in dry.clusters] == [
        ("derived", "1 derived fact proposed"),
        ("failed", "LLM not_json: the answer is not the JSON asked for (Expecting value at 0)")]
    assert dry.counts()["created"] == 1 and dry.counts()["failed"] == 1
    item = dry.plan.items[0]
    assert (item.outcome, item.stage, item.incoming["kind"]) == ("new", "abstract", "derived")
    assert sorted(e["to_id"] for e in item.edges) == maya
    smart.apply_plan(dry.plan.id)
    derived = smart.plan(dry.plan.id).items[0].fact_id
    assert sorted(e.to_id for e in smart.edges(derived) if e.type == "derived_from") == maya
    # Found again twice (garbage for Northwind both times): the derived fact is reinforced, not duplicated.
    for garbage in (("content", '["a", "b", "c"]'), ("status", 500)):
        llm.answer(("content", f'["{DERIVED}"]'), garbage)
        report = smart.abstract()
        assert report.counts()["reinforced"] == 1 and report.counts()["failed"] == 1
    assert smart.facts([derived])[derived].reinforcement_count == 2
    assert len(smart.edges(derived)) == 3  # the same edges, not added again
    llm.answer(("content", f'["{DERIVED}"]'), ("content", "[]"))
    report = smart.abstract()
    assert report.counts()["pruned"] == 3
    assert [smart.facts([f])[f].status for f in maya] == ["archived"] * 3
    assert smart.facts([derived])[derived].status == "active"
    llm.answer(("content", "[]"))
    last = smart.abstract()  # Maya's cluster is gone; Northwind yields nothing: nothing left to do
    assert [c.subject for c in last.clusters] == ["Northwind"] and last.plan is None
    assert smart.llm_stats()["not_json"] == 1 and smart.llm_stats()["bad_shape"] == 1
