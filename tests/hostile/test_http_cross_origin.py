"""A web page cannot write through ``memlens serve`` (issue 26).

Without a token, ``fetch(url, {method: "POST", mode: "no-cors"})`` from any page archived facts,
applied and reverted plans and ran gc: the Host was 127.0.0.1, so the rebinding check passed, and
nothing looked at ``Origin`` or ``Sec-Fetch-Site``. Such a request now gets 403 and changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from engine import Memory
from engine.faces.http import create_app
from tests.api.conftest import app, client, serving  # noqa: F401  (fixtures)

FACTS = ["The deploy pipeline runs on the staging cluster every night at two.",
         "Maya prefers tea to coffee in the morning before standup."]
WRITES = ["/facts/1/archive", "/plans/1/apply", "/plans/1/revert", "/gc", "/consolidate", "/plans/1/discard"]
# What browsers send for a no-cors POST from another page: one header, the other, or both.
FOREIGN = [
    {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},
    {"Origin": "https://evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://127.0.0.1:3000", "Sec-Fetch-Site": "same-site"},  # another port of this machine
    {"Origin": "null"},  # a sandboxed iframe or a file:// page
    {"Origin": "http://127.0.0.1.evil.example"},
]


@pytest.fixture
def filled(client: TestClient) -> TestClient:
    assert client.post("/absorb", json={"items": FACTS}).status_code == 200
    return client


@pytest.mark.parametrize("headers", FOREIGN)
def test_a_foreign_page_gets_403_on_every_write_and_nothing_changes(filled: TestClient, headers: dict,
                                                                   memory: Memory) -> None:
    before = memory.stats()
    journal = len(memory.journal())
    for path in WRITES:
        response = filled.post(path, headers=headers)
        assert response.status_code == 403, (path, response.text)
        assert "cross-origin" in response.json()["error"] and "\n" not in response.json()["error"]
    response = filled.post("/absorb", json={"items": ["An injected fact from a web page."]}, headers=headers)
    assert response.status_code == 403
    response = filled.put("/profile/memory", json={"text": "pwned", "expected_version": 0}, headers=headers)
    assert response.status_code == 403
    assert memory.stats() == before and len(memory.journal()) == journal
    assert filled.get("/facts/1", headers=headers).status_code == 200  # reads stay open (no CORS header)


@pytest.mark.parametrize("headers", [
    {}, {"Origin": "http://127.0.0.1"}, {"Sec-Fetch-Site": "same-origin", "Origin": "http://127.0.0.1"},
    {"Sec-Fetch-Site": "none"}, {"Origin": "http://127.0.0.1:80"},
])
def test_its_own_origin_and_non_browser_clients_still_write(filled: TestClient, headers: dict) -> None:
    response = filled.post("/facts/1/archive", headers=headers)
    assert response.status_code == 200, response.text


def test_with_a_token_the_bearer_decides_as_before(memory: Memory) -> None:
    app_with_token = create_app(memory, token="s3cret-token-value", max_body=64_000)
    with TestClient(app_with_token, base_url="http://127.0.0.1", raise_server_exceptions=False) as with_token:
        bearer = {"Authorization": "Bearer s3cret-token-value"}
        assert with_token.post("/absorb", json={"items": FACTS}, headers=bearer).status_code == 200
        assert with_token.post("/gc", headers={"Origin": "https://evil.example"}).status_code == 401
        assert with_token.post("/facts/1/archive", headers={**bearer, "Origin": "https://tool.example"}).status_code == 200


@pytest.mark.slow
def test_a_served_process_refuses_a_no_cors_post(db_path: Path) -> None:
    with serving(db_path) as url:
        assert httpx.post(url + "/absorb", json={"items": FACTS}, timeout=60).status_code == 200
        response = httpx.post(url + "/facts/1/archive", timeout=30,
                              headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
        assert response.status_code == 403 and response.headers["content-type"] == "application/json"
        assert httpx.get(url + "/facts/1", timeout=30).json()["facts"][0]["status"] == "active"


MCP_INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "probe", "version": "0"}}}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("headers", FOREIGN)
def test_mcp_refuses_a_foreign_page_on_reads_and_with_a_token_too(memory: Memory, headers: dict) -> None:
    # MCP's specification asks for the Origin check on every request: its GET opens the event stream.
    app_with_token = create_app(memory, token="s3cret-token-value", max_body=64_000)
    bearer = {"Authorization": "Bearer s3cret-token-value"}
    with TestClient(app_with_token, base_url="http://127.0.0.1", raise_server_exceptions=False) as with_token:
        post = with_token.post("/mcp", json=MCP_INITIALIZE, headers={**MCP_ACCEPT, **bearer, **headers})
        get = with_token.get("/mcp", headers={**MCP_ACCEPT, **bearer, **headers})
        api_read = with_token.get("/stats", headers={**bearer, **headers})
    assert (post.status_code, get.status_code) == (403, 403)
    assert "cross-origin" in post.json()["error"]
    assert api_read.status_code == 200  # the API's reads stay as they were


@pytest.mark.parametrize("token", [None, "s3cret-token-value"])
def test_mcp_answers_its_own_origin_and_clients_that_send_none(memory: Memory, token: str | None) -> None:
    bearer = {"Authorization": f"Bearer {token}"} if token else {}
    with TestClient(create_app(memory, token=token, max_body=64_000), base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as served:
        plain = served.post("/mcp", json=MCP_INITIALIZE, headers={**MCP_ACCEPT, **bearer})
        own = served.post("/mcp", json=MCP_INITIALIZE,
                          headers={**MCP_ACCEPT, **bearer, "Origin": "http://127.0.0.1"})
    assert (plain.status_code, own.status_code) == (200, 200), (plain.text, own.text)
