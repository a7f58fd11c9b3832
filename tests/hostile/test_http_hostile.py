"""The HTTP server against hostile requests (issue 9): constant-time token check, body size
limits, no path or SQL injection through parameters, CORS closed by default."""

from __future__ import annotations

import inspect

import pytest
from starlette.testclient import TestClient

from engine import Memory
from engine.faces import http
from engine.faces.http import create_app
from tests.api.conftest import app, client  # noqa: F401  (fixtures)


@pytest.fixture
def filled(client: TestClient) -> TestClient:
    r = client.post("/absorb", json={"items": ["The billing deploy runs on Fridays at noon UTC.",
                                                "Maya uses Neovim for every project she touches."]})
    assert r.status_code == 200, r.text
    return client


def test_the_token_is_compared_in_constant_time(memory: Memory) -> None:
    assert "hmac.compare_digest" in inspect.getsource(http.Guard.__call__)
    with TestClient(create_app(memory, token="s3cret-token"), base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as c:
        assert c.get("/stats").status_code == 401
        assert c.get("/stats", headers={"Authorization": "Bearer s3cret-toke"}).status_code == 401
        assert c.get("/stats", headers={"Authorization": "Bearer s3cret-token" + "x" * 10_000}).status_code == 401
        assert c.get("/stats", headers={"Authorization": "bearer s3cret-token"}).status_code == 401
        ok = c.get("/stats", headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200 and "s3cret" not in c.get("/stats").text


def test_bodies_over_the_limit_get_413_with_or_without_length(client: TestClient) -> None:
    big = b'{"items": ["' + b"x" * 70_000 + b'"]}'
    r = client.post("/absorb", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]

    def chunks():
        for _ in range(100):
            yield b"x" * 1_000

    r = client.post("/absorb", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/stats").status_code == 200  # the server keeps serving


@pytest.mark.parametrize("path", ["/facts/..%2f..%2fetc%2fpasswd", "/facts/../../etc/passwd", "/facts/%2e%2e",
                                  "/facts/1%20OR%201=1", "/facts/1;DROP%20TABLE%20facts", "/facts/-1",
                                  "/facts/99999999999999999999999", "/facts/1e3", "/plans/..%2fplans",
                                  "/plans/1'--/apply", "/facts/1/history/%2e%2e", "/profile/..%2f..%2fMEMORY.md",
                                  "/profile/%2e%2e%2fUSER.md", "/facts/%00"])
def test_path_parameters_reject_traversal_and_sql(filled: TestClient, path: str) -> None:
    r = filled.request("PUT" if path.startswith("/profile") else ("POST" if path.endswith("apply") else "GET"),
                       path, json={"text": "x", "expected_version": "absent"})
    assert r.status_code in (400, 404, 405), (path, r.status_code, r.text)
    assert "root:" not in r.text and "Traceback" not in r.text
    assert filled.get("/facts/1").status_code == 200 and filled.get("/stats").json()


@pytest.mark.parametrize("query", ["'; DROP TABLE facts; --", "\" OR 1=1 --", 'deploy" NEAR(a b) OR text:*',
                                   "^billing* AND NOT x", "*", "(", "facts_fts MATCH 'x'", "%00", "\\", "{}"])
def test_query_parameters_are_data(filled: TestClient, query: str) -> None:
    assert filled.post("/search", json={"query": query, "top_k": 5}).status_code == 200
    for r in (filled.get("/graph/neighbors", params={"name": query}),
              filled.get("/graph/path", params={"a": query, "b": query}),
              filled.get("/journal", params={"fact_id": query}),
              filled.get("/plans", params={"status": query})):
        assert r.status_code in (200, 400, 404), (r.request.url, r.status_code, r.text)
    hits = filled.post("/search", json={"query": "billing deploy", "top_k": 5}).json()
    assert hits and filled.get("/facts/1").status_code == 200  # nothing dropped


def test_cors_is_closed_by_default(filled: TestClient) -> None:
    r = filled.get("/stats", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in {k.lower() for k in r.headers}
    pre = filled.options("/absorb", headers={"Origin": "https://evil.example",
                                             "Access-Control-Request-Method": "POST",
                                             "Access-Control-Request-Headers": "content-type"})
    assert pre.status_code >= 400 and "access-control-allow-origin" not in {k.lower() for k in pre.headers}
    r = filled.post("/absorb", json={"items": ["A cross-site write."]},
                    headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in {k.lower() for k in r.headers}
