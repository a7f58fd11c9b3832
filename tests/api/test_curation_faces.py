"""Curation over HTTP and MCP, each through a real process: an agent can version, archive, tag,
link, resolve, replay and revert, and bad input gets a one-line error that changes nothing."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from engine import Memory, Settings, fixed_clock, parse_time
from tests.api.conftest import serving

ROOT = Path(__file__).resolve().parents[2]
NOW = ["--now", "2026-11-30T12:00:00Z"]
THREE = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."
FIVE = "The staging cluster runs 5 replicas of the Ferrite ingest service behind nginx."
IVAN = "Ivan Petrov works at Northwind Robotics as a robotics engineer in the Kazan office."
TOKEN = "ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"


@pytest.fixture
def seeded(db_path: Path, embedder) -> dict[str, int]:
    clock = fixed_clock(parse_time(NOW[1]))  # the servers below run at the same fixed time
    with Memory(db_path, Settings(), embedder=embedder, actor="test", clock=clock) as memory:
        three, ivan = (it.fact_id for it in memory.absorb([THREE, IVAN]).items)
        five = memory.absorb([FIVE]).items[0]
        assert five.outcome == "contradict"
        return {"three": three, "five": five.fact_id, "ivan": ivan}


def _counts(db_path: Path, embedder) -> tuple[int, int]:
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        return len(memory.journal(limit=100_000)), len(memory.plans(limit=100_000))


@pytest.fixture
def server(db_path: Path, seeded) -> Iterator[str]:
    with serving(db_path, *NOW) as url:
        yield url


@pytest.mark.slow
def test_an_agent_curates_over_http(server: str, seeded, db_path: Path, embedder) -> None:
    three, five, ivan = seeded["three"], seeded["five"], seeded["ivan"]
    pairs = httpx.get(server + "/contradictions").json()["contradictions"]
    assert [(p["left"]["id"], p["right"]["id"]) for p in pairs] == [(three, five)]
    version = httpx.post(f"{server}/facts/{ivan}/version",
                         json={"text": IVAN.replace("a robotics engineer", "the lead engineer")}).json()
    assert version["status"] == "applied" and version["changes"]["facts_status_changed"] == [ivan]
    new = version["changes"]["facts_added"][0]
    tagged = httpx.post(f"{server}/facts/{new}/tags", json={"add": ["team"]}).json()
    assert tagged["items"][0]["tags"] == ["team"]
    link = httpx.post(f"{server}/facts/{new}/links", json={"to_id": three, "type": "related", "dry_run": True}).json()
    assert link["status"] == "draft"
    resolved = httpx.post(server + "/contradictions/resolve", json={"fact_id": three, "other_id": five, "keep": five})
    assert resolved.status_code == 200 and resolved.json()["changes"]["facts_status_changed"] == [three]
    replay = httpx.get(f"{server}/facts/{five}/timeline").json()
    assert replay["current"] == five and replay["open_contradictions"] == []
    undo = httpx.post(f"{server}/plans/{resolved.json()['plan_id']}/revert", json={"dry_run": True}).json()
    applied = httpx.post(f"{server}/plans/{undo['plan_id']}/apply").json()
    assert applied["status"] == "applied" and httpx.get(server + "/contradictions").json()["contradictions"]
    undone = httpx.get(f"{server}/plans/{resolved.json()['plan_id']}").json()
    assert undone["reverted_by"] == undo["plan_id"] and applied["reverted_by"] is None
    archived = httpx.post(f"{server}/facts/{new}/archive", json={"reason": "moved on"}).json()
    assert archived["changes"]["facts_status_changed"] == [new]

    before = _counts(db_path, embedder)
    for method, path, body, status in (
            ("post", f"/facts/{three}/links", {"to_id": three, "type": "related"}, 400),
            ("post", "/facts/999/archive", {}, 404),
            ("post", f"/facts/{2 ** 63}/archive", {}, 400),
            ("post", f"/facts/{three}/version", {"text": f"The deploy token is {TOKEN} here."}, 400),
            ("post", f"/plans/{resolved.json()['plan_id']}/revert", {}, 409),
            ("post", "/contradictions/resolve", {"fact_id": three, "other_id": ivan, "keep": "both"}, 400),
            ("get", f"/facts/{three}/timeline?as_of=yesterday", None, 400)):
        answer = httpx.request(method, server + path, json=body)
        assert answer.status_code == status, (path, answer.text)
        assert set(answer.json()) == {"error"} and TOKEN not in answer.text and "Traceback" not in answer.text
    assert _counts(db_path, embedder) == before


async def _session(db: Path, script: Any) -> Any:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "engine.faces.cli.main", "--db", str(db), *NOW, "mcp"],
        cwd=str(ROOT), env={k: os.environ[k] for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "PATH", "MEMLENS_CROSS_ENCODER_DEPTH")
             if k in os.environ})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            return info, await script(session)


@pytest.mark.slow
def test_an_agent_curates_over_mcp(seeded, db_path: Path, embedder) -> None:
    three, five, ivan = seeded["three"], seeded["five"], seeded["ivan"]

    async def script(session: ClientSession) -> dict[str, Any]:
        call = session.call_tool
        seen: dict[str, Any] = {"tools": {t.name: t for t in (await session.list_tools()).tools}}
        seen["pairs"] = await call("memory_contradictions", {})
        seen["search"] = await call("memory_search", {"query": "replicas on staging"})
        seen["version"] = await call("memory_version", {"fact_id": ivan, "text": IVAN + " He leads the team."})
        seen["resolve"] = await call("memory_resolve", {"fact_id": three, "other_id": five, "keep": "both"})
        seen["timeline"] = await call("memory_timeline", {"fact_id": five})
        seen["draft"] = await call("memory_archive", {"fact_id": three, "dry_run": True})
        seen["discard"] = await call("memory_plan_discard", {"plan_id": seen["draft"].structured_content["plan_id"]})
        seen["tag_draft"] = await call("memory_tag", {"fact_id": three, "add": ["infra"], "dry_run": True})
        seen["apply"] = await call("memory_plan_apply", {"plan_id": seen["tag_draft"].structured_content["plan_id"]})
        seen["revert"] = await call("memory_plan_revert", {"plan_id": seen["apply"].structured_content["plan_id"]})
        seen["self_link"] = await call("memory_link", {"fact_id": three, "other_id": three, "type": "related"})
        seen["missing"] = await call("memory_archive", {"fact_id": 999})
        seen["typed"] = await call("memory_archive", {"fact_id": three, "dry_run": TOKEN})
        seen["empty"] = await call("memory_absorb", {"items": []})
        seen["too_many"] = await call("memory_absorb", {"items": ["x" * 60] * 1001})
        return seen

    info, seen = anyio.run(_session, db_path, script)
    assert info.server_info.version and info.server_info.version != ""
    absorb_items = seen["tools"]["memory_absorb"].input_schema["properties"]["items"]
    assert absorb_items["maxItems"] == 1000 and absorb_items["minItems"] == 1 and absorb_items["description"]
    for tool in seen["tools"].values():
        assert tool.description and all(p.get("description") or p.get("title") for p in
                                        tool.input_schema["properties"].values())
    assert seen["pairs"].structured_content["contradictions"][0]["left"]["id"] == three
    assert set(seen["search"].structured_content["timing"]) == {"embed_ms", "search_ms", "total_ms"}
    assert seen["version"].structured_content["changes"]["facts_status_changed"] == [ivan]
    assert seen["resolve"].structured_content["items"][0]["outcome"] == "link"
    assert seen["timeline"].structured_content["open_contradictions"] == []
    assert seen["discard"].structured_content["status"] == "discarded"
    assert seen["apply"].structured_content["status"] == "applied"
    assert seen["revert"].structured_content["kind"] == "revert"
    for name, words in (("self_link", "itself"), ("missing", "no fact 999"), ("typed", "dry_run"),
                        ("empty", "items"), ("too_many", "items")):
        result = seen[name]
        text = result.content[0].text
        assert result.is_error and words in text and TOKEN not in text and "\n" not in text.strip(), (name, text)
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        assert memory.facts([three])[three].tags == []  # tagged, then reverted
        assert {e.actor for e in memory.journal(limit=10_000) if e.action == "retag"} == {"mcp"}
