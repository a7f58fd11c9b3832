"""The cross-encoder's pass as each face gives it: on by default (the test suite turns it off for the
rest), the answer first, and its own time in the answer's timing."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from starlette.testclient import TestClient

from engine import Memory, Settings
from engine.config import CROSS_ENCODER_DEPTH, CROSS_ENCODER_ENV, settings_from_dict
from engine.errors import MemLensError
from engine.faces.http import create_app
from tests.cli.conftest import Run, run  # noqa: F401  (the CLI fixture, used here too)
from tests.engine.search.test_cross_rerank import ANSWER, OTHERS, QUESTION, STUFFED
from tests.mcp_client import over_mcp

FACTS = [STUFFED, ANSWER, *OTHERS]


@pytest.fixture
def pass_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CROSS_ENCODER_ENV)


def test_on_by_default_and_the_environment_can_turn_it_off(monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv(CROSS_ENCODER_ENV)
    assert Settings().memory.cross_encoder_depth == CROSS_ENCODER_DEPTH > 1
    monkeypatch.setenv(CROSS_ENCODER_ENV, "0")
    assert Settings().memory.cross_encoder_depth == 0
    for bad in ("ten", "-1", "5000", "1e3"):  # a bad variable never stops an open: the default, and a warning
        monkeypatch.setenv(CROSS_ENCODER_ENV, bad)
        with caplog.at_level(logging.WARNING, logger="engine.config"):
            assert Settings().memory.cross_encoder_depth == CROSS_ENCODER_DEPTH
        assert CROSS_ENCODER_ENV in caplog.text
        caplog.clear()
    # A config file's value wins over the variable, bad or not.
    assert settings_from_dict({"memory": {"cross_encoder_depth": 5}}).memory.cross_encoder_depth == 5
    with pytest.raises(MemLensError, match="cross_encoder_depth must be int"):
        settings_from_dict({"memory": {"cross_encoder_depth": "5"}})


def test_cli_search_single_and_batch(pass_on, run: Run, tmp_path: Path) -> None:
    assert run("absorb", *FACTS)[0] == 0
    code, out, _ = run("search", QUESTION, "--json")
    answer = json.loads(out)
    assert code == 0 and answer["results"][0]["text"] == ANSWER
    assert answer["timing"]["rerank_ms"] > 0 and "cross_encoder" in answer["results"][0]
    code, out, _ = run("search", QUESTION)
    assert code == 0 and "cross-encoder" in out.splitlines()[-1]
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"qid": "a", "query": QUESTION}) + "\n", encoding="utf-8")
    code, out, _ = run("search", "--batch", str(batch))
    line = json.loads(out)
    assert code == 0 and line["results"][0]["text"] == ANSWER and line["timing"]["rerank_ms"] > 0


def test_http_search(pass_on, db_path: Path, clock, embedder) -> None:
    with Memory(db_path, Settings(), clock=clock, actor="test", embedder=embedder) as memory:
        memory.absorb(FACTS)
        with TestClient(create_app(memory), base_url="http://127.0.0.1") as client:
            answer = client.post("/search", json={"query": QUESTION, "top_k": 3}).json()
    assert [r["text"] for r in answer["results"]][:2] == [ANSWER, STUFFED] and len(answer["results"]) == 3
    assert answer["timing"]["rerank_ms"] > 0


def test_a_config_file_turns_it_off(pass_on, run: Run, tmp_path: Path) -> None:
    config = tmp_path / "memlens.toml"
    config.write_text("[memory]\ncross_encoder_depth = 0\n", encoding="utf-8")
    run("absorb", *FACTS)
    code, out, _ = run("--config", str(config), "search", QUESTION, "--json")
    answer = json.loads(out)
    assert code == 0 and answer["results"][0]["text"] == STUFFED and "rerank_ms" not in answer["timing"]
    config.write_text("[memory]\ncross_encoder_depth = -3\n", encoding="utf-8")
    code, _, err = run("--config", str(config), "search", QUESTION)
    assert code != 0 and "cross_encoder_depth" in err


@pytest.mark.slow
def test_mcp_search(pass_on, db_path: Path, embedder) -> None:
    with Memory(db_path, replace(Settings()), embedder=embedder) as memory:
        memory.absorb(FACTS)

    async def script(session: ClientSession):
        return await session.call_tool("memory_search", {"query": QUESTION, "top_k": 3})

    found = anyio.run(over_mcp, db_path, script, "--now", "2026-11-30T12:00:00Z").structured_content
    assert found["results"][0]["text"] == ANSWER and found["timing"]["rerank_ms"] > 0
