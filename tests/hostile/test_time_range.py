"""Times that leave years 1-9999 once moved to UTC (issue 26, critical).

``created_at: "9999-12-31T23:59:59-01:00"`` is a valid ISO-8601 time, but in UTC it is in year
10000, which Python cannot print: one such item broke export, search, get and the timeline on every
face for good. Every parsed time is now bounded where it enters, with one line, on every face.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from engine import Memory
from engine.clock import LATEST, format_time
from tests.api.conftest import app, client  # noqa: F401  (fixtures)
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)
from tests.mcp_client import over_mcp

FACT = "The deploy pipeline runs on the staging cluster every night at two."
EDGES = ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:60Z", "10000-01-01T00:00:00Z"]
IN_RANGE = ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00-01:00"]


@pytest.mark.parametrize("when", EDGES)
def test_the_cli_refuses_an_unprintable_time_in_an_item_and_in_as_of(run: Run, tmp_path: Path, when: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"text": FACT, "created_at": when}) + "\n")
    code, out, err = run("absorb", "--file", str(path), "--json")
    assert code in (1, 3) and [it["outcome"] for it in json.loads(out)["items"]] == ["rejected"]
    assert "created_at" in err and "Traceback" not in err
    run("absorb", FACT)
    code, out, err = run("timeline", "1", "--as-of", when)
    assert code == 2 and "Traceback" not in err and err.strip()
    code, out, err = run("export", "-")
    assert code == 0 and len(out.splitlines()) == 2  # the header and the one fact


@pytest.mark.parametrize("when", IN_RANGE)
def test_the_edges_themselves_are_kept_and_read_back(run: Run, tmp_path: Path, when: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"text": FACT, "created_at": when}) + "\n")
    code, out, err = run("absorb", "--file", str(path))
    assert code == 0, err
    for args in (("export", "-"), ("get", "1"), ("timeline", "1", "--as-of", when), ("search", "deploy pipeline")):
        code, out, err = run(*args)
        assert code == 0 and "Traceback" not in err, (args, err)


def test_a_restore_line_out_of_range_is_refused(run: Run, tmp_path: Path) -> None:
    line = {"id": 1, "text": FACT, "status": "active", "created_at": "2026-01-01T00:00:00Z",
            "last_accessed": "9999-12-31T23:59:59-01:00"}
    path = tmp_path / "export.jsonl"
    header = {"memlens_export": 1, "schema": 6, "exported_at": "2026-11-30T12:00:00Z", "facts": 1, "edges": 0}
    path.write_text(json.dumps(header) + "\n" + json.dumps(line) + "\n")
    code, out, err = run("import", str(path))
    assert code in (1, 3) and "last_accessed" in err and "Traceback" not in err
    code, out, err = run("export", "-")
    assert code == 0 and len(out.splitlines()) == 1  # the header only


def test_a_file_that_already_holds_such_a_time_still_reads(memory: Memory, run: Run, db_path: Path) -> None:
    """A file written before the bound: the fact prints in ISO-8601's expanded form and can be archived."""
    memory.absorb([FACT])
    memory.close()
    with sqlite3.connect(db_path) as raw:
        names = [r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='trigger' AND tbl_name='facts'")]
        for name in names:
            raw.execute(f"DROP TRIGGER {name}")
        raw.execute("UPDATE facts SET created_at = ?", (LATEST + 3600,))
    assert format_time(LATEST + 3600) == "+10000-01-01T00:59:59Z"
    for args in (("export", "-"), ("get", "1", "--json"), ("search", "deploy pipeline")):
        code, out, err = run(*args)
        assert "Traceback" not in err and "out of range" not in err, (args, err)


def test_http_refuses_it_with_400(client) -> None:
    for when in EDGES:
        response = client.post("/absorb", json={"items": [{"text": FACT, "created_at": when}]})
        assert response.status_code in (200, 400), response.text
        if response.status_code == 200:
            assert [it["outcome"] for it in response.json()["items"]] == ["rejected"]
    assert client.post("/absorb", json={"items": [FACT]}).status_code == 200
    for when in EDGES:
        response = client.get("/facts/1/timeline", params={"as_of": when})
        assert response.status_code == 400 and "error" in response.json(), response.text
        response = client.post("/search", json={"query": "deploy", "since": when})
        assert response.status_code == 400, response.text
    assert client.post("/search", json={"query": "deploy pipeline"}).status_code == 200
    assert client.get("/facts/1").status_code == 200


@pytest.mark.slow
def test_mcp_refuses_it_as_a_tool_error_and_keeps_serving(db_path: Path) -> None:
    async def script(session: ClientSession) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        seen["bad"] = await session.call_tool("memory_absorb", {"items": [
            {"text": FACT, "created_at": "9999-12-31T23:59:59-01:00"}]})
        seen["good"] = await session.call_tool("memory_absorb", {"items": [FACT]})
        seen["as_of"] = await session.call_tool("memory_timeline", {"fact_id": 1, "as_of": "0001-01-01T00:00:00+01:00"})
        seen["search"] = await session.call_tool("memory_search", {"query": "deploy pipeline"})
        seen["get"] = await session.call_tool("memory_get", {"fact_id": 1})
        return seen

    seen = anyio.run(over_mcp, db_path, script)
    bad = seen["bad"]
    assert bad.is_error or [it["outcome"] for it in bad.structured_content["items"]] == ["rejected"]
    assert seen["as_of"].is_error and "years 1-9999" in seen["as_of"].content[0].text
    assert not seen["search"].is_error and seen["search"].structured_content["results"][0]["id"] == 1
    assert not seen["get"].is_error
