"""MCP over streamable HTTP as an agent sees it: ``memlens serve`` and ``memlens mcp --http`` as real
processes, driven by the official MCP client, behind the same Host allow-list and bearer token as the API."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from engine import Memory, Settings
from tests.api.conftest import ROOT, free_port

TOKEN = "s3cret-token-for-the-test-only"
FACT = "Maya uses Neovim with the LazyVim distribution for all of her Python work."
SCRIPTED = "The nightly backup job copies the wiki database to the offsite bucket at three."
OTHER = "The release train leaves every second Tuesday at noon UTC from the main branch."
EVERY_TOOL = {"memory_search", "memory_get", "memory_absorb", "memory_snapshot", "memory_version", "memory_archive",
              "memory_tag", "memory_link", "memory_contradictions", "memory_resolve", "memory_timeline",
              "memory_plan_apply", "memory_plan_discard", "memory_plan_revert"}


@contextmanager
def running(db: Path, *command: str, token: str | None = None) -> Iterator[str]:
    """``memlens --db DB COMMAND --port P`` on loopback; yields its /mcp URL once it accepts connections."""
    port = free_port()
    env = {**os.environ, "MEMLENS_TEST_TOKEN": token} if token else dict(os.environ)
    server = subprocess.Popen([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db),
                               "--now", "2026-11-30T12:00:00Z", *command, "--port", str(port),
                               *(["--token-env", "MEMLENS_TEST_TOKEN"] if token else [])],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for it to listen (model load included); not a timed assertion
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read().decode()
                assert time.monotonic() < deadline, "the server did not start listening within 60 s"
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


async def _session(url: str, script: Any, headers: dict[str, str] | None = None) -> Any:
    with anyio.fail_after(120):
        async with httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(60)) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await script(session)


async def _every_tool(session: ClientSession) -> dict[str, Any]:
    seen: dict[str, Any] = {"tools": {t.name for t in (await session.list_tools()).tools}}

    async def call(name: str, **arguments: Any) -> Any:
        result = await session.call_tool(name, arguments)
        seen.setdefault("called", []).append(name)
        seen[name] = result
        return result.structured_content

    draft = await call("memory_absorb", items=[FACT], dry_run=True)
    seen["discarded"] = await call("memory_plan_discard", plan_id=draft["plan_id"])
    draft = await call("memory_absorb", items=[FACT, OTHER], dry_run=True)
    seen["applied"] = await call("memory_plan_apply", plan_id=draft["plan_id"])
    seen["hits"] = await call("memory_search", query="which editor does Maya use", top_k=3)
    seen["got"] = await call("memory_get", fact_id=1)
    seen["snapshot"] = await call("memory_snapshot", session_id="http-1", query="editor")
    seen["tagged"] = await call("memory_tag", fact_id=2, add=["release"])
    seen["versioned"] = await call("memory_version", fact_id=1, text="Maya now uses Helix for all of her Python "
                                                                    "work, after years of Neovim and LazyVim.")
    new_id = seen["versioned"]["items"][0]["fact_id"]
    seen["timeline"] = await call("memory_timeline", fact_id=new_id)
    await call("memory_link", fact_id=new_id, other_id=2, type="contradicts", reason="test")
    seen["open"] = await call("memory_contradictions")
    seen["resolved"] = await call("memory_resolve", fact_id=new_id, other_id=2, keep="both")
    archived = await call("memory_archive", fact_id=2, reason="the train was cancelled")
    seen["reverted"] = await call("memory_plan_revert", plan_id=archived["plan_id"])
    seen["error"] = await session.call_tool("memory_get", {"fact_id": 999})
    return seen


@pytest.mark.slow
def test_the_official_client_runs_every_tool_over_serve_with_a_token(db_path: Path, embedder) -> None:
    with running(db_path, "serve", token=TOKEN) as url:
        seen = anyio.run(_session, url, _every_tool, {"Authorization": f"Bearer {TOKEN}"})
        # The API beside it still answers on the same server, behind the same token.
        base = url.removesuffix("/mcp")
        assert httpx.get(base + "/stats", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        by_api = httpx.post(base + "/absorb", json={"items": [SCRIPTED]}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert by_api.status_code == 200, by_api.text
    assert seen["tools"] == EVERY_TOOL and set(seen["called"]) == EVERY_TOOL
    assert not any(seen[name].is_error for name in EVERY_TOOL), [seen[n] for n in EVERY_TOOL if seen[n].is_error]
    assert seen["discarded"]["status"] == "discarded"
    assert seen["applied"]["status"] == "applied" and [it["outcome"] for it in seen["applied"]["items"]] == ["new"] * 2
    assert seen["hits"]["results"][0]["text"] == FACT
    assert seen["got"]["facts"][0]["text"] == FACT
    assert "[1]" in seen["snapshot"]["text"]
    assert [v["text"] for v in seen["timeline"]["versions"]][0] == FACT
    assert len(seen["open"]["contradictions"]) == 1
    assert seen["reverted"]["status"] == "applied"
    assert seen["error"].is_error and "there is no fact 999" in seen["error"].content[0].text
    assert "Traceback" not in seen["error"].content[0].text
    with Memory(db_path, Settings(), embedder=embedder) as memory:  # the agent's writes are in the file
        (train,) = memory.get(2).facts
        assert train.status == "active" and "release" in train.tags  # tagged, archived, then reverted
        # Both faces share one Memory in `serve`; the journal says which one wrote.
        absorbed = [e for e in memory.journal(limit=10_000) if e.action == "absorb" and e.fact_id is not None]
        by_text = {memory.get(e.fact_id, "full_history", count_access=False).facts[0].text: e.actor for e in absorbed}
        assert by_text.pop(SCRIPTED) == "http" and set(by_text.values()) == {"mcp"}


@pytest.mark.slow
def test_a_missing_or_wrong_token_a_foreign_host_and_a_huge_body_are_refused(db_path: Path) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "probe", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    with running(db_path, "serve", token=TOKEN) as url:
        missing = httpx.post(url, json=initialize, headers=accept)
        wrong = httpx.post(url, json=initialize, headers={**accept, "Authorization": "Bearer nope"})
        foreign = httpx.post(url, json=initialize, headers={**accept, "Authorization": f"Bearer {TOKEN}",
                                                             "Host": "attacker.example"})
        huge = httpx.post(url, content=b'{"jsonrpc": "2.0", "pad": "' + b"x" * 1_100_000 + b'"}',
                          headers={**accept, "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        with pytest.raises(Exception):  # the official client, without the token, gets nowhere
            anyio.run(_session, url, lambda s: s.list_tools())
    assert (missing.status_code, wrong.status_code, foreign.status_code) == (401, 401, 400)
    assert huge.status_code == 413  # [http] max_body_bytes (1 MiB), as for the API
    assert "attacker.example" not in foreign.text and TOKEN not in missing.text


@pytest.mark.slow
def test_mcp_http_alone_answers_loopback_refuses_a_web_page_and_has_no_api(db_path: Path) -> None:
    async def tools(session: ClientSession) -> set[str]:
        return {t.name for t in (await session.list_tools()).tools}

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "probe", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    with running(db_path, "mcp", "--http") as url:
        listed = anyio.run(_session, url, tools)
        foreign = httpx.post(url, json=initialize, headers={**accept, "Host": "rebound.example:80"})
        page = httpx.post(url, json=initialize, headers={**accept, "Origin": "http://evil.example"})
        api = httpx.get(url.removesuffix("/mcp") + "/stats")
    assert listed == EVERY_TOOL
    assert foreign.status_code == 400 and page.status_code == 403
    assert api.status_code == 404  # mcp --http serves MCP alone
