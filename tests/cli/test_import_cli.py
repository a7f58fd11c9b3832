"""``memlens import --from FORMAT PATH``: the formats end to end, dry run, exit codes and messages."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

FAKE_AWS_KEY = "AKIA" + "IOSFODNN7" + "QWERTYZ"


def _count(db: Path, table: str = "facts") -> int:
    return sqlite3.connect(db).execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_mem0_dry_run_json_reports_rejections_and_writes_only_the_plan(run, db_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps([
        {"id": "m1", "memory": "Alice prefers green tea over coffee in the morning before work.",
         "user_id": "alice", "created_at": "2024-07-20T01:21:41-07:00"},
        {"id": "m2", "user_id": "alice"},
        {"id": "m3", "memory": f"The mirror deploy key is {FAKE_AWS_KEY} for the nightly sync."},
    ]), encoding="utf-8")
    code, out, err = run("import", "--from", "mem0", str(path), "--dry-run", "--json")
    plan = json.loads(out)
    # A dry run that produced its plan is done (exit 0), refused items and all; each refusal is a line.
    assert code == 0 and plan["applied"] is False and plan["counts"] == {"new": 1, "rejected": 2}
    assert "item 1 refused: mem0 entry 2: no 'memory' text" in err and FAKE_AWS_KEY not in out + err
    assert _count(db_path) == 0 and _count(db_path, "journal") == 0 and _count(db_path, "plans") == 1
    assert run("plan", "apply", str(plan["plan_id"]))[0] == 3  # applied; two of its items were refused
    code, out, _ = run("search", "green tea", "--json")
    hit = json.loads(out)["results"][0]
    assert hit["sources"] == ["mem0:m1"] and hit["scope"] == "user" and hit["created_at"] == "2024-07-20T08:21:41Z"


def test_hermes_and_markdown_folders(run, db_path: Path, tmp_path: Path) -> None:
    hermes = tmp_path / "memories"
    hermes.mkdir()
    (hermes / "USER.md").write_text("The user prefers dark mode in every editor they use.\n§\n"
                                    "The user lives in Kazan and works at Northwind Robotics.", encoding="utf-8")
    code, out, err = run("import", "--from", "hermes", str(hermes), "--as-profile")
    assert code == 0 and "2 items: 2 new" in out and "profile" in err
    assert (db_path.parent / "USER.md").read_text(encoding="utf-8") == (hermes / "USER.md").read_text(encoding="utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Team\n\n- Maya leads the backend team and reviews schema changes.\n"
                                "- The user lives in Kazan and works at Northwind Robotics.\n", encoding="utf-8")
    code, out, _ = run("import", "--from", "markdown", str(notes), "--json")
    outcomes = [it["outcome"] for it in json.loads(out)["items"]]
    assert code == 0 and outcomes == ["new", "duplicate"]  # the Hermes fact is reinforced, not copied
    assert _count(db_path) == 3


def test_plain_import_is_still_jsonl(run, db_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"text": "The staging cluster runs three replicas of the ingest service."}) + "\n",
                    encoding="utf-8")
    code, out, _ = run("import", str(path), "--json")
    assert code == 0 and json.loads(out)["counts"] == {"new": 1} and _count(db_path) == 1


def test_bad_format_file_and_option_errors(run, db_path: Path, tmp_path: Path) -> None:
    code, _, err = run("import", "--from", "letta", str(tmp_path))
    assert code == 2 and "invalid choice: 'letta'" in err
    path = tmp_path / "mem0.json"
    path.write_text("{not json", encoding="utf-8")
    code, out, err = run("import", "--from", "mem0", str(path))
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "not valid JSON" in err
    code, _, err = run("import", "--from", "markdown", str(tmp_path / "nowhere"))
    assert code == 1 and "no such file or folder" in err
    code, _, err = run("import", "--from", "jsonl", str(path), "--as-profile")
    assert code == 1 and "needs format hermes" in err
    assert _count(db_path, "plans") == 0


# -- chunked import (issue 18) ------------------------------------------------------------------

def _bulk(path: Path, count: int, bad_line: int | None = None) -> None:
    lines = [json.dumps({"text": f"Ticket {n:04d}: the backup job in hall {n % 9} moved to rack {n * 7 % 113}."})
             for n in range(count)]
    if bad_line is not None:
        lines[bad_line] = '{"text": 5}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_chunked_import_prints_each_plan_and_resumes(run, db_path: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.io import stream
    monkeypatch.setattr(stream, "CHUNK_ITEMS", 10)
    path = tmp_path / "bulk.jsonl"
    _bulk(path, 25, bad_line=12)
    code, out, err = run("import", str(path))
    assert code == 3 and _count(db_path) == 24
    assert out.count("(applied): lines") == 3 and "25 items in 3 plans" in out and "24 written" in out
    assert err.strip() == "memlens: line 13 refused: text must be a string"
    code, out, err = run("import", str(path), "--json")  # the same file again: nothing left
    result = json.loads(out)
    assert code == 0 and result["resumed"] == 25 and result["plans"] == [] and _count(db_path) == 24
    assert "resumed: 25 items from an earlier run were already applied" in result["summary"]


def test_a_dry_run_of_a_chunked_import_plans_its_first_chunk(run, db_path: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.io import stream
    monkeypatch.setattr(stream, "CHUNK_ITEMS", 10)
    path = tmp_path / "bulk.jsonl"
    _bulk(path, 25)
    code, out, _ = run("absorb", "--file", str(path), "--dry-run")
    assert code == 0 and _count(db_path) == 0 and "planned lines 1–10 only, of 25" in out
    plan_id = int(out.split("memlens plan apply ")[1].split("`")[0])
    assert run("plan", "apply", str(plan_id))[0] == 0
    code, out, _ = run("absorb", "--file", str(path))
    assert code == 0 and "resumed: 10 items" in out and _count(db_path) == 25


def test_ctrl_c_stops_between_chunks_and_the_same_import_resumes(run, db_path: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import signal
    import threading
    from engine.io import stream
    monkeypatch.setattr(stream, "CHUNK_ITEMS", 10)
    path = tmp_path / "bulk.jsonl"
    _bulk(path, 60)
    seen_a_chunk = threading.Event()

    def press_ctrl_c_after_the_first_chunk() -> None:
        while not seen_a_chunk.wait(0.01):
            try:
                applied = sqlite3.connect(db_path).execute(
                    "SELECT count(*) FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
                    "WHERE p.status = 'applied'").fetchone()[0]
            except sqlite3.Error:
                continue  # the file or its tables are not there yet
            if applied:
                seen_a_chunk.set()
                os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c_after_the_first_chunk, daemon=True)
    presser.start()
    code, out, err = run("import", str(path), "--json")
    presser.join(5)
    result = json.loads(out)
    assert code == 130 and result["cancelled"] and "stopping after the chunk being written" in err
    written = result["written"]
    assert 10 <= written < 60 and written % 10 == 0 and _count(db_path) == written
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the CLI put Python's own back
    code, out, _ = run("import", str(path), "--json")
    again = json.loads(out)
    assert code == 0 and again["resumed"] == written and again["written"] == 60 - written
    reinforced = sqlite3.connect(db_path).execute("SELECT sum(reinforcement_count) FROM facts").fetchone()[0]
    assert _count(db_path) == 60 and reinforced == 0


def test_ctrl_c_is_left_alone_when_ignored_or_when_nothing_is_chunked() -> None:
    import signal
    from engine.faces.cli.interrupt import stop_between_chunks
    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job: Ctrl-C must stay ignored
        with stop_between_chunks():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with stop_between_chunks(chunked=False):  # hermes, mem0, markdown: one plan, nothing to stop between
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with stop_between_chunks():
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
