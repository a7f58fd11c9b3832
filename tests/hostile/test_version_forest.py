"""Versions stay a forest (issue 26): no loop of supersedes edges through any path.

``contradictions resolve 1 2 --keep 1``, ``plan revert``, ``contradictions resolve 1 2 --keep 2``
left the edges 1 -> 2 and 2 -> 1: ``get 1 --mode latest`` answered with a superseded fact, the
history and the timelines disagreed. A restore accepted self-edges and loops, and tracebacked on
two records with one id. Each is now refused with one line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)
from tests.mcp_client import over_mcp

THREE = "The staging cluster runs 3 replicas of the Ferrite ingest service behind nginx."
FIVE = "The staging cluster runs 5 replicas of the Ferrite ingest service behind nginx."
HEADER = {"memlens_export": 1, "schema": 6, "exported_at": "2026-11-30T12:00:00Z", "facts": 2, "edges": 1}


def _pair(run: Run) -> tuple[int, int]:
    code, out, _ = run("absorb", THREE, "--json")
    three = json.loads(out)["items"][0]["fact_id"]
    code, out, _ = run("--now", "2026-12-01T12:00:00Z", "absorb", FIVE, "--json")
    item = json.loads(out)["items"][0]
    assert code == 0 and item["outcome"] == "contradict"
    return three, item["fact_id"]


def _supersedes(db_path: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT src_id, dst_id FROM edges WHERE type = 'supersedes' ORDER BY id").fetchall()


def test_resolve_revert_resolve_the_other_way_is_refused(run: Run, db_path: Path) -> None:
    three, five = _pair(run)
    code, out, err = run("contradictions", "resolve", str(three), str(five), "--keep", str(three), "--json")
    assert code == 0, err
    resolved = json.loads(out)["plan_id"]
    code, out, err = run("plan", "revert", str(resolved))
    assert code == 0, err
    code, out, err = run("contradictions", "resolve", str(three), str(five), "--keep", str(five))
    assert code == 1 and err.count("\n") == 1 and "loop" in err
    assert _supersedes(db_path) == [(three, five)]
    for fact in (three, five):
        code, out, err = run("get", str(fact), "--mode", "latest", "--json")
        assert json.loads(out)["facts"][0]["status"] == "active"
    code, out, err = run("contradictions", "resolve", str(three), str(five), "--keep", "both")
    assert code == 0, err  # the pair can still be settled


def test_latest_never_answers_with_a_superseded_fact_when_a_loop_is_already_there(run: Run, db_path: Path) -> None:
    """A file from before the rule (or edited by hand) that holds a loop: latest reaches the active one."""
    three, five = _pair(run)
    run("contradictions", "resolve", str(three), str(five), "--keep", str(three))
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO edges (src_id, dst_id, type, created_at) VALUES (?, ?, 'supersedes', 1.8e9)",
                   (five, three))
    for fact in (three, five):
        code, out, err = run("get", str(fact), "--mode", "latest", "--json")
        assert code == 0 and json.loads(out)["facts"][0]["id"] == three, err


@pytest.mark.slow
def test_mcp_resolve_the_other_way_is_a_tool_error(run: Run, db_path: Path) -> None:
    three, five = _pair(run)
    code, out, _ = run("contradictions", "resolve", str(three), str(five), "--keep", str(three), "--json")
    run("plan", "revert", str(json.loads(out)["plan_id"]))

    async def script(session: ClientSession) -> dict[str, Any]:
        return {"resolve": await session.call_tool("memory_resolve", {"fact_id": three, "other_id": five,
                                                                      "keep": str(five)}),
                "get": await session.call_tool("memory_get", {"fact_id": three, "mode": "latest"})}

    seen = anyio.run(over_mcp, db_path, script)
    assert seen["resolve"].is_error and "loop" in seen["resolve"].content[0].text
    assert seen["get"].structured_content["facts"][0]["status"] == "active"
    assert _supersedes(db_path) == [(three, five)]


def _restore(run: Run, tmp_path: Path, records: list[dict]) -> tuple[int, str, str]:
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [HEADER, *records]) + "\n")
    return run("import", str(path))


def _record(fact_id: int, text: str, status: str = "active", edges: list | None = None) -> dict:
    return {"id": fact_id, "text": text, "status": status, "created_at": "2026-01-01T00:00:00Z",
            "edges": edges or []}


@pytest.mark.parametrize("edge_type", ["supersedes", "contradicts", "related"])
def test_a_restore_refuses_a_self_edge(run: Run, tmp_path: Path, edge_type: str) -> None:
    code, out, err = _restore(run, tmp_path, [_record(1, THREE, edges=[{"type": edge_type, "to": 1}])])
    assert code == 1 and "points to the record itself" in err and "Traceback" not in err
    run("absorb", FIVE)  # the file exists; no "1 <-> 1" waits in the review queue
    code, out, _ = run("contradictions", "--json")
    assert json.loads(out)["contradictions"] == []


def test_a_restore_refuses_a_loop_of_versions(run: Run, tmp_path: Path, db_path: Path) -> None:
    records = [_record(1, THREE, "superseded", [{"type": "supersedes", "to": 2}]),
               _record(2, FIVE, "superseded", [{"type": "supersedes", "to": 1}]),
               _record(3, "Maya prefers tea to coffee in the morning before standup.")]
    code, out, err = _restore(run, tmp_path, records)
    assert code == 3 and err.count("loop of versions") == 2 and "Traceback" not in err
    assert _supersedes(db_path) == []


def test_a_restore_refuses_a_second_record_with_the_same_id(run: Run, tmp_path: Path) -> None:
    code, out, err = _restore(run, tmp_path, [_record(1, THREE), _record(1, FIVE)])
    assert code == 3 and "a second record with id 1" in err and err.count("\n") == 1
    assert "Traceback" not in err
    code, out, _ = run("export", "-")
    assert len(out.splitlines()) == 2
