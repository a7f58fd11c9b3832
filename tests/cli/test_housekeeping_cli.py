"""``memlens gc|consolidate|distill``: dry run, apply by id (whole or --only), JSON, second run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.faces.cli.main import main


@pytest.fixture
def run(db_path: Path, capsys: pytest.CaptureFixture):
    (db_path.parent / "memlens.toml").write_text("[gc]\ngroup_limit = 4\nsummary_size = 3\n", encoding="utf-8")

    def invoke(now: str, *args: str) -> tuple[int, str, str]:
        try:
            code = main(["--db", str(db_path), "--now", now, *args])
        except SystemExit as exit_:
            code = exit_.code
        out, err = capsys.readouterr()
        return code, out, err
    return invoke


def _jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_gc_dry_run_then_apply_by_id(run, tmp_path: Path) -> None:
    assert run("2026-10-01T09:00:00Z", "absorb", "--scope", "run", "--session", "s-0917",
               "Checked the ingest logs for session s-0917; nothing unusual was found there.")[0] == 0
    rows = [{"text": "The staging TLS certificate is valid until the end of this month.", "ttl_days": 20}]
    rows += [{"text": f"Release 4.{n} of the fleet console ships feature number {n} for the warehouse team.",
              "tags": ["release"]} for n in range(6)]
    assert run("2026-11-01T09:00:00Z", "absorb", "--file", _jsonl(tmp_path / "in.jsonl", rows))[0] == 0
    code, out, _ = run("2026-11-30T12:00:00Z", "gc", "--dry-run")
    assert code == 0 and "dry run, nothing written" in out
    assert "[ttl]" in out and "[stale]" in out and "[compact]" in out
    code, out, _ = run("2026-11-30T12:00:00Z", "gc", "--dry-run", "--json")
    plan = json.loads(out)
    assert [it["stage"] for it in plan["items"]] == ["ttl", "stale", "compact", "compact", "compact", "compact"]
    code, out, _ = run("2026-11-30T12:00:00Z", "plan", "apply", str(plan["plan_id"]), "--only", "0,1")
    assert code == 0 and "applied" in out
    code, out, _ = run("2026-11-30T12:00:00Z", "stats", "--json")
    assert json.loads(out)["by_status"] == {"active": 6, "archived": 1, "expired": 1}
    code, out, _ = run("2026-11-30T12:00:00Z", "gc", "--json")  # the compaction is still to do; applied now
    assert [it["stage"] for it in json.loads(out)["items"]] == ["compact"] * 4 and json.loads(out)["applied"]
    code, out, _ = run("2026-11-30T12:00:00Z", "gc")
    assert (code, out.strip()) == (0, "gc: nothing to do")


def test_consolidate_and_distill(run) -> None:
    run("2026-09-01T09:00:00Z", "absorb", "The build server restarts every night at two in the morning.")
    run("2026-11-28T09:00:00Z", "absorb", "--scope", "run", "--session", "s-7",
        "The user asked to keep the weekly report as a PDF attachment.")
    code, out, _ = run("2026-11-30T12:00:00Z", "consolidate", "--dry-run", "--json")
    items = json.loads(out)["items"]
    assert [(it["outcome"], it["target_id"]) for it in items] == [("archive", 1)]
    code, out, _ = run("2026-11-30T12:00:00Z", "distill")
    assert code == 0 and "plan" in out and "distilled_from" in out
    code, out, _ = run("2026-11-30T12:00:00Z", "distill", "--session", "s-7")
    assert out.strip() == "distill: nothing to do (session s-7 has no active run facts)"


def test_abstract_without_and_with_an_llm(run, tmp_path: Path) -> None:
    from tests.llm_server import ScriptedLLM
    rows = [{"text": f"Maya {what} while she works on the backend at Northwind.", "subject": "Maya",
             "predicate": f"habit_{n}", "object": what} for n, what in enumerate(
                 ["prefers dark mode in every editor", "mutes every notification sound", "drinks green tea"])]
    run("2026-11-30T12:00:00Z", "absorb", "--file", _jsonl(tmp_path / "maya.jsonl", rows))
    code, out, _ = run("2026-11-30T12:00:00Z", "abstract", "--dry-run")
    assert code == 0 and out.splitlines()[:2] == [
        "abstract: 1 clusters: 0 derived facts created, 0 reinforced, 0 children pruned; 1 clusters skipped, 0 failed",
        "  skipped  Maya (3 facts): no LLM configured ([llm] base_url and model)"]
    server = ScriptedLLM()
    try:
        config = tmp_path / "llm.toml"
        config.write_text(f'[llm]\nbase_url = "{server.base_url}"\nmodel = "m"\ntimeout = 2\n', encoding="utf-8")
        server.answer(("content", '["Maya keeps a calm, dark and quiet setup for her backend work."]'))
        code, out, _ = run("2026-11-30T12:00:00Z", "--config", str(config), "abstract", "--json")
        data = json.loads(out)
        assert code == 0 and data["created"] == 1 and data["plan"]["status"] == "applied"
        assert server.requests[0]["body"]["temperature"] == 0
    finally:
        server.close()
