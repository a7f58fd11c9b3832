"""The HTTP API through an ASGI client: every route, its errors, auth and body limits."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from engine import Memory
from engine.faces.http import check_binding, create_app
from engine.errors import MemLensError

SECRET = "AKIAZ5QX3NV7RBK2TW4M"
FACTS = ["The staging cluster runs 3 replicas of the ingest service behind nginx.",
         "Maya uses Neovim with the LazyVim distribution for all of her Python work."]


def test_absorb_dry_run_writes_nothing_then_apply_and_search(client: TestClient, memory: Memory) -> None:
    plan = client.post("/absorb", json={"items": FACTS, "dry_run": True}).json()
    assert plan["status"] == "draft" and plan["counts"] == {"new": 2} and memory.stats()["facts"] == 0
    applied = client.post(f"/plans/{plan['plan_id']}/apply", json={"only": [1]}).json()
    assert applied["status"] == "applied" and memory.stats()["facts"] == 1
    hits = client.post("/search", json={"query": "which editor does Maya use", "top_k": 3}).json()["results"]
    assert hits[0]["text"] == FACTS[1] and {"cosine", "bm25", "freshness", "score"} <= set(hits[0])
    assert client.post(f"/plans/{plan['plan_id']}/apply").status_code == 409  # applied already


def test_absorb_with_defaults_and_a_rejected_item(client: TestClient) -> None:
    body = {"items": [FACTS[0], {"text": f"the key is {SECRET} for the bucket"}, {"text": 5}],
            "defaults": {"scope": "user", "tags": ["infra"]}}
    plan = client.post("/absorb", json=body).json()
    outcomes = [it["outcome"] for it in plan["items"]]
    assert outcomes == ["new", "rejected", "rejected"] and SECRET not in str(plan)
    fact = client.get(f"/facts/{plan['items'][0]['fact_id']}").json()["facts"][0]
    assert fact["scope"] == "user" and fact["tags"] == ["infra"]


def test_reading_history_journal_and_stats(client: TestClient, memory: Memory) -> None:
    memory.absorb([{"text": "The staging cluster runs 3 replicas.", "subject": "staging", "predicate": "replicas",
                    "object": "3"}])
    memory.absorb([{"text": "The staging cluster runs 5 replicas.", "subject": "staging", "predicate": "replicas",
                    "object": "5"}])
    assert "superseded" in client.get("/facts/1").json()["message"]
    assert client.get("/facts/1", params={"mode": "latest"}).json()["facts"][0]["id"] == 2
    assert [f["id"] for f in client.get("/facts/2/history").json()["facts"]] == [1, 2]
    assert client.get("/journal", params={"fact_id": 2}).json()[0]["fact_id"] == 2
    assert client.get("/stats").json()["facts"] == 2
    assert client.get("/facts/1", params={"mode": "sideways"}).status_code == 400
    assert client.get("/facts/999").status_code == 404
    assert client.get(f"/facts/{2**70}").status_code == 400  # beyond SQLite's integers: a 400, not a crash


def test_graph_routes(client: TestClient, memory: Memory) -> None:
    memory.absorb([{"text": "Ivan Petrov works at Northwind, a logistics company based in Kazan.",
                    "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind", "type": "company"},
                                 {"name": "Kazan", "type": "location"}],
                    "relations": [["Ivan Petrov", "works_at", "Northwind"], ["Northwind", "located_in", "Kazan"]]}])
    found = client.get("/graph/neighbors", params={"name": "northwind"}).json()["neighbors"]
    assert {n["name"] for n in found} == {"Ivan Petrov", "Kazan"}
    matches = client.post("/graph/query", json={"start": "Kazan", "steps": ["<located_in", "<works_at"]}).json()
    assert [m["name"] for m in matches["matches"]] == ["Ivan Petrov"]
    path = client.get("/graph/path", params={"a": "Ivan Petrov", "b": "Kazan"}).json()["path"]
    assert path is not None and path["justified_by"] == [1] and path["hops"] == 2
    assert client.get("/graph/neighbors", params={"name": "Nobody"}).status_code == 404


def test_housekeeping_dry_runs_and_plans(client: TestClient, memory: Memory, clock) -> None:
    memory.absorb([{"text": "A run note from session one about the flaky ingest test on CI.", "scope": "run",
                    "session_id": "one", "ttl_days": 1}])
    clock.advance(2)
    gc = client.post("/gc", json={"dry_run": True}).json()
    assert gc["status"] == "draft" and [it["stage"] for it in gc["items"]] == ["ttl"]
    assert memory.facts([1])[1].status == "active"
    assert client.post("/consolidate", json={"dry_run": True}).status_code == 200
    assert client.post("/distill", json={"dry_run": True, "session_id": "one"}).json()["kind"] == "distill"
    report = client.post("/abstract", json={"dry_run": True}).json()
    assert report["created"] == 0
    listed = client.get("/plans", params={"status": "draft"}).json()
    assert gc["plan_id"] in [p["plan_id"] for p in listed]
    assert client.get(f"/plans/{gc['plan_id']}").json()["kind"] == "gc"
    assert client.post(f"/plans/{gc['plan_id']}/discard").json()["status"] == "discarded"
    assert client.get("/plans/424242").status_code == 404


def test_snapshot_and_profile(client: TestClient, memory: Memory) -> None:
    memory.absorb(FACTS)
    profile = client.get("/profile").json()
    assert profile["budget"] == 2048 and profile["files"][1]["version"] == "absent"
    saved = client.put("/profile/USER.md", json={"text": "Maya, platform team.\n", "expected_version": "absent"})
    assert saved.status_code == 200 and saved.json()["total"] == 21
    stale = client.put("/profile/USER.md", json={"text": "x\n", "expected_version": "absent"})
    assert stale.status_code == 409 and "changed since" in stale.json()["error"]
    secret = client.put("/profile/MEMORY.md", json={"text": f"key {SECRET}\n", "expected_version": "absent"})
    assert secret.status_code == 400 and SECRET not in secret.text
    first = client.post("/snapshot", json={"session_id": "s1", "query": "replicas"}).json()
    memory.absorb(["The production cluster runs 7 replicas of the ingest service in Frankfurt."])
    again = client.post("/snapshot", json={"session_id": "s1"}).json()
    assert again["text"] == first["text"] and first["created"] and not again["created"]
    assert "Maya, platform team." in first["text"] and first["cited"]


@pytest.mark.parametrize("method, path, kwargs, status", [
    ("post", "/search", {"content": b"\xff\xfe\x00", "headers": {"content-type": "application/json"}}, 400),
    ("post", "/search", {"content": b"{\"query\": ", "headers": {"content-type": "application/json"}}, 400),
    ("post", "/search", {"json": {"query": "x", "unknown": 1}}, 400),
    ("post", "/search", {"json": {"query": "x", "since": "yesterday"}}, 400),
    ("post", "/absorb", {"json": {"items": []}}, 400),
    ("post", "/absorb", {"json": {"items": "not a list"}}, 400),
    ("post", "/snapshot", {"json": {"session_id": "a\nb"}}, 400),
    ("put", "/profile/NOTES.md", {"json": {"text": "x", "expected_version": "absent"}}, 400),
    ("get", "/nowhere", {}, 404),
    ("delete", "/profile", {}, 405),
])
def test_bad_requests_get_a_json_error_without_traceback(client: TestClient, method, path, kwargs, status) -> None:
    response = getattr(client, method)(path, **kwargs)
    assert response.status_code == status
    assert set(response.json()) == {"error"} and "Traceback" not in response.text


def test_bodies_over_the_limit_get_413_and_write_nothing(client: TestClient, memory: Memory) -> None:
    big = {"items": ["The staging cluster runs 3 replicas of the ingest service. " * 50] * 40}
    response = client.post("/absorb", json=big)
    assert response.status_code == 413 and "over 64,000 bytes" in response.json()["error"]

    def chunks():  # no Content-Length: the limit still holds
        yield b'{"items": ["'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"]}'
    streamed = client.post("/absorb", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413 and memory.stats()["facts"] == 0 and memory.plans() == []


def test_a_token_is_required_on_every_request_when_set(memory: Memory) -> None:
    with TestClient(create_app(memory, token="s3cret-token"), base_url="http://127.0.0.1") as client:
        assert client.get("/stats").status_code == 401
        assert client.get("/openapi.json").status_code == 401
        assert client.get("/stats", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/stats", headers={"Authorization": "s3cret-token"}).status_code == 401
        ok = client.get("/stats", headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200
        schema = client.get("/openapi.json", headers={"Authorization": "Bearer s3cret-token"}).json()
        assert schema["security"] == [{"bearer": []}]


def test_only_loopback_may_go_without_a_token() -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        check_binding(host, None)
    check_binding("0.0.0.0", "a-token")
    for host in ("0.0.0.0", "192.168.1.10", "example.org", "::"):
        with pytest.raises(MemLensError, match="without a token"):
            check_binding(host, None)


def test_the_schema_documents_errors_as_json_and_no_422(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in schema["paths"].values():
        for operation in path.values():
            assert "422" not in operation["responses"]
            assert operation["responses"]["400"]["content"]["application/json"]["schema"] == \
                {"$ref": "#/components/schemas/ErrorBody"}
