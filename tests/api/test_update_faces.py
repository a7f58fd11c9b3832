"""An update said in plain text supersedes the fact it updates, through HTTP and MCP (each a real
process): the old fact superseded, the new one active, the timeline showing the chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession

from tests.api.conftest import serving
from tests.mcp_client import over_mcp

NOW = ["--now", "2026-11-30T12:00:00Z"]
OLD = "Lena works at Brightline Labs."
NEW = "Lena now works at Corvid Systems."
SYNC_OLD = "The weekly sync is on Tuesdays at 10:00."
SYNC_NEW = "The weekly sync moved to Thursdays at 10:00."


@pytest.mark.slow
def test_an_update_supersedes_over_http(db_path: Path, embedder) -> None:
    with serving(db_path, *NOW) as server:
        first = httpx.post(server + "/absorb", json={"items": [OLD, SYNC_OLD]}).json()["items"]
        old, sync_old = (it["fact_id"] for it in first)
        items = httpx.post(server + "/absorb", json={"items": [NEW, SYNC_NEW]}).json()["items"]
        assert [(it["outcome"], it["target_id"]) for it in items] == [("supersede", old), ("supersede", sync_old)]
        for before, item in zip((old, sync_old), items):
            timeline = httpx.get(f"{server}/facts/{item['fact_id']}/timeline").json()
            assert [v["id"] for v in timeline["versions"]] == [before, item["fact_id"]]
            assert [v["status_then"] for v in timeline["versions"]] == ["superseded", "active"]
            assert timeline["current"] == item["fact_id"]
            assert httpx.get(f"{server}/facts/{before}").json()["superseded_by"] == item["fact_id"]


@pytest.mark.slow
def test_an_update_supersedes_over_mcp(db_path: Path, embedder) -> None:
    async def script(session: ClientSession) -> dict[str, Any]:
        seen = {"first": await session.call_tool("memory_absorb", {"items": [OLD]})}
        seen["update"] = await session.call_tool("memory_absorb", {"items": [NEW]})
        new = seen["update"].structured_content["items"][0]["fact_id"]
        seen["timeline"] = await session.call_tool("memory_timeline", {"fact_id": new})
        seen["old"] = await session.call_tool("memory_get", {"fact_id": seen["first"].structured_content["items"][0]
                                                             ["fact_id"]})
        return seen

    seen = anyio.run(over_mcp, db_path, script, *NOW)
    old = seen["first"].structured_content["items"][0]["fact_id"]
    item = seen["update"].structured_content["items"][0]
    assert (item["outcome"], item["target_id"]) == ("supersede", old)
    timeline = seen["timeline"].structured_content
    assert [v["id"] for v in timeline["versions"]] == [old, item["fact_id"]]
    assert [v["status_then"] for v in timeline["versions"]] == ["superseded", "active"]
    assert seen["old"].structured_content["superseded_by"] == item["fact_id"]
