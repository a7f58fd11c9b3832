"""Every search answer says where its time went: embedding the query, the engine's search, the whole."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from engine import Memory
from engine.faces.http import create_app
from tests.cli.conftest import Run

FACT = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."


def _check(timing: dict) -> None:
    assert set(timing) == {"embed_ms", "search_ms", "total_ms"}
    assert all(value >= 0 for value in timing.values())
    assert timing["embed_ms"] + timing["search_ms"] <= timing["total_ms"] + 0.01


def test_search_json_single_and_batch_carry_timing(run: Run, tmp_path: Path) -> None:
    run("absorb", FACT)
    code, out, _ = run("search", "how many replicas", "--json")
    assert code == 0
    _check(json.loads(out)["timing"])
    code, out, _ = run("search", "how many replicas")
    assert "ms, search" in out.splitlines()[-1]
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"qid": "a", "query": "replicas"}\n{"qid": "b", "query": 7}\n', encoding="utf-8")
    code, out, _ = run("search", "--batch", str(batch))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 3 and lines[1] == {"qid": "b", "error": "line 2: 'query' must be a string"}
    _check(lines[0]["timing"])


def test_http_search_carries_timing(memory: Memory) -> None:
    memory.absorb([FACT])
    with TestClient(create_app(memory), base_url="http://127.0.0.1") as client:
        answer = client.post("/search", json={"query": "replicas"}).json()
    assert answer["results"][0]["text"] == FACT
    _check(answer["timing"])
