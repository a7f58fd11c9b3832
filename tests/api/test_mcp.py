"""The MCP server as an agent sees it: a subprocess on stdio, driven by the official client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from engine import Memory, Settings
from tests.mcp_client import over_mcp

SECRET = "AKIAZ5QX3NV7RBK2TW4M"
FACT = "Maya uses Neovim with the LazyVim distribution for all of her Python work."


@pytest.mark.slow
def test_an_agent_lists_and_calls_every_tool(db_path: Path, embedder) -> None:
    async def script(session: ClientSession) -> dict[str, Any]:
        seen: dict[str, Any] = {"tools": {t.name: t for t in (await session.list_tools()).tools}}
        call = session.call_tool
        seen["dry"] = await call("memory_absorb", {"items": [FACT], "dry_run": True})
        seen["search_before"] = await call("memory_search", {"query": "which editor does Maya use"})
        seen["absorb"] = await call("memory_absorb", {"items": [FACT, f"the key is {SECRET} ok"]})
        seen["search"] = await call("memory_search", {"query": "which editor does Maya use", "top_k": 3})
        seen["get"] = await call("memory_get", {"fact_id": 1})
        seen["missing"] = await call("memory_get", {"fact_id": 999})
        seen["snap1"] = await call("memory_snapshot", {"session_id": "agent-1", "query": "editor"})
        await call("memory_absorb", {"items": ["The release train leaves every second Tuesday at noon UTC."]})
        seen["snap2"] = await call("memory_snapshot", {"session_id": "agent-1"})
        seen["bad"] = await call("memory_snapshot", {"session_id": ""})
        return seen

    seen = anyio.run(over_mcp, db_path, script, "--now", "2026-11-30T12:00:00Z")
    tools = seen["tools"]
    assert {"memory_search", "memory_get", "memory_absorb", "memory_snapshot", "memory_version", "memory_archive",
            "memory_tag", "memory_link", "memory_contradictions", "memory_resolve", "memory_timeline",
            "memory_plan_apply", "memory_plan_discard", "memory_plan_revert"} == set(tools)
    assert tools["memory_absorb"].input_schema["required"] == ["items"]
    assert "dry_run" in tools["memory_absorb"].input_schema["properties"]
    assert seen["dry"].structured_content["status"] == "draft"
    assert seen["search_before"].structured_content["results"] == []  # the dry run wrote no fact
    absorbed = seen["absorb"].structured_content
    assert [it["outcome"] for it in absorbed["items"]] == ["new", "rejected"] and SECRET not in str(absorbed)
    assert seen["search"].structured_content["results"][0]["text"] == FACT
    assert seen["get"].structured_content["facts"][0]["text"] == FACT
    assert seen["missing"].is_error and "there is no fact 999" in seen["missing"].content[0].text
    assert "Traceback" not in seen["missing"].content[0].text
    first, second = seen["snap1"].structured_content, seen["snap2"].structured_content
    assert first["created"] and not second["created"] and first["text"] == second["text"]
    assert f'[1] "{FACT}"' in first["text"]  # a quoted record
    # The tool's schema bounds the session id, so the SDK refuses it, naming the field.
    assert seen["bad"].is_error and "session_id" in seen["bad"].content[0].text
    with Memory(db_path, Settings(), embedder=embedder) as memory:  # the agent's writes are in the file
        assert memory.stats()["facts"] == 2
        assert {e.actor for e in memory.journal() if e.action == "absorb"} == {"mcp"}
