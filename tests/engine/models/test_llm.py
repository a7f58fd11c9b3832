"""The optional LLM against a real local chat-completions server with scripted answers.

Valid JSON, fenced JSON, prose, truncated JSON, HTTP 500 and a timeout: every bad answer
degrades to the no-LLM path, is counted, and never reaches the store.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from engine import Memory, Settings
from engine.config import LLMSettings
from engine.models.llm import LLMClient, LLMError
from tests.llm_server import ScriptedLLM

EDITOR = "Maya uses Vim as her main editor for all of her backend work at Northwind."
# A wording the heuristic stays unsure of (the frame reading finds no subject), so the LLM is asked; "Maya now uses
# Helix as her main editor …" is read without it as a newer value of the same frame.
EDITOR_NEW = "All of the backend work Maya does at Northwind happens in Helix."


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM()
    yield server
    server.close()


def _settings(llm: ScriptedLLM, **memory: object) -> Settings:
    base = Settings()
    return replace(base, llm=LLMSettings(base_url=llm.base_url, model="test-model", api_key_env="MEMLENS_TEST_KEY",
                                         timeout=0.5),
                   memory=replace(base.memory, **memory))


@pytest.fixture
def smart(llm: ScriptedLLM, db_path: Path, clock, embedder, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    monkeypatch.setenv("MEMLENS_TEST_KEY", "test-key-123")
    with Memory(db_path, _settings(llm, rerank=True), clock=clock, actor="test", embedder=embedder) as mem:
        yield mem


def _facts(db_path: Path) -> list[tuple]:
    return sqlite3.connect(db_path).execute("SELECT id, status, kind FROM facts ORDER BY id").fetchall()


@pytest.mark.parametrize("answer, expected", [
    (("content", '{"outcome": "new"}'), {"outcome": "new"}),
    (("content", '```json\n[1, 2]\n```'), [1, 2]),
    (("content", "```\n{\"a\": 1}\n```"), {"a": 1}),
])
def test_client_parses_json_and_fenced_json(llm: ScriptedLLM, monkeypatch, answer, expected) -> None:
    monkeypatch.setenv("MEMLENS_TEST_KEY", "test-key-123")
    client = LLMClient(_settings(llm).llm)
    llm.answer(answer)
    assert client.ask_json("system text", "user text") == expected
    request = llm.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer test-key-123"
    assert request["body"]["temperature"] == 0 and request["body"]["model"] == "test-model"
    assert [m["role"] for m in request["body"]["messages"]] == ["system", "user"]


@pytest.mark.parametrize("answer, kind", [
    (("content", 'Sure! Here is the JSON: {"outcome": "new"}'), "not_json"),
    (("content", '{"outcome": "supersede", "candidate": 1, "reas'), "truncated"),
    (("status", 500), "http_error"),
    (("raw", b"<html>gateway</html>"), "bad_response"),
    (("hang", None), "timeout"),
])
def test_client_failures_are_errors_of_a_kind_and_counted(llm: ScriptedLLM, monkeypatch, answer, kind) -> None:
    monkeypatch.setenv("MEMLENS_TEST_KEY", "k")
    client = LLMClient(_settings(llm).llm)
    llm.answer(answer)
    with pytest.raises(LLMError) as err:
        client.ask_json("system", "user")
    assert err.value.kind == kind and "\n" not in str(err.value)
    assert client.stats["calls"] == 1 and client.stats[kind] == 1


def test_missing_api_key_and_unreachable_server(llm: ScriptedLLM, monkeypatch) -> None:
    monkeypatch.delenv("MEMLENS_TEST_KEY", raising=False)
    with pytest.raises(LLMError, match="MEMLENS_TEST_KEY is not set"):
        LLMClient(_settings(llm).llm).chat("s", "u")
    closed = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", timeout=0.5)
    with pytest.raises(LLMError) as err:
        LLMClient(closed).chat("s", "u")
    assert err.value.kind == "unreachable"
    assert not LLMClient(LLMSettings()).configured


def test_the_llm_classifier_decides_and_the_plan_says_so(smart: Memory, llm: ScriptedLLM) -> None:
    old = smart.absorb([EDITOR]).items[0]
    assert old.decided_by == "heuristic" and llm.requests == []  # nothing close: no call made
    llm.answer(("content", json.dumps({"outcome": "supersede", "candidate": 1, "reason": "Maya switched editors"})))
    item = smart.absorb([EDITOR_NEW]).items[0]
    assert (item.outcome, item.decided_by, item.target_id) == ("supersede", "llm", old.fact_id)
    assert item.reason == f"LLM: Maya switched editors (fact {old.fact_id})"
    assert "1. " + EDITOR in llm.requests[0]["body"]["messages"][1]["content"]
    assert smart.facts([old.fact_id])[old.fact_id].status == "superseded"


@pytest.mark.parametrize("answer, kind", [
    (("content", "I think this one supersedes the first."), "not_json"),
    (("content", '{"outcome": "supersede", "candidate": 7, "reason": "x"}'), "bad_shape"),
    (("content", '{"outcome": "merge", "candidate": 1, "reason": "x"}'), "bad_shape"),
    (("content", '{"outcome": "duplicate", "candid'), "truncated"),
    (("status", 500), "http_error"),
    (("hang", None), "timeout"),
])
def test_bad_classifier_answers_fall_back_to_the_heuristic(smart: Memory, llm: ScriptedLLM, db_path: Path,
                                                           answer, kind) -> None:
    smart.absorb([EDITOR])
    llm.answer(answer)
    item = smart.absorb([EDITOR_NEW]).items[0]
    assert item.decided_by == "heuristic" and item.reason.endswith(f"(LLM not used: {kind})")
    assert item.outcome in ("related", "contradict", "new")  # the heuristic's own call, not the LLM's garbage
    assert smart.llm_stats()[kind] == 1
    assert [row[1] for row in _facts(db_path)] == ["active", "active"]


def test_rerank_reorders_the_expanded_pool_or_keeps_the_engine_order(smart: Memory, llm: ScriptedLLM) -> None:
    texts = ["Northwind Robotics builds warehouse robots in its factory in Kazan.",
             "The Kazan office of Northwind has a rooftop garden and a small gym.",
             "Northwind's robots are tested in a cold store near Kazan every winter.",
             "Volga Soft keeps its only office in Kazan, on Baumana street."]
    smart.absorb(texts)
    requests = len(llm.requests)
    rerank_on = smart.settings
    smart.settings = replace(rerank_on, memory=replace(rerank_on.memory, rerank=False))
    engine_order = [h.fact.id for h in smart.search("robots in Kazan", top_k=4)]
    smart.settings = rerank_on
    assert len(llm.requests) == requests  # rerank off: no call
    llm.answer(("content", "[3, 1]"))
    reranked = [h.fact.id for h in smart.search("robots in Kazan", top_k=2)]
    assert reranked == [engine_order[2], engine_order[0]]
    assert llm.requests[-1]["body"]["messages"][1]["content"].count("\n") == 5  # question, header, 4 results
    llm.answer(("content", "The third one, clearly."))
    assert [h.fact.id for h in smart.search("robots in Kazan", top_k=2)] == engine_order[:2]
    assert smart.llm_stats()["not_json"] == 1

