"""The CLI contract: names, JSON shapes, exit codes and one-line errors on bad input."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.faces.cli.main import main

from tests.cli.conftest import NOW
FAKE_AWS_KEY = "AKIA" + "IOSFODNN7" + "QWERTYZ"


def _jsonl(path: Path, lines: list) -> Path:
    with path.open("wb") as handle:
        for line in lines:
            handle.write(line if isinstance(line, bytes) else (json.dumps(line, ensure_ascii=False) + "\n").encode())
    return path


def test_absorb_json_contract(run) -> None:
    code, out, _ = run("absorb", "--json", "Maya prefers dark mode in every editor that she uses at work.")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"plan_id", "applied", "items"} and data["applied"] is True
    assert set(data["items"][0]) >= {"index", "outcome", "fact_id", "target_id", "similarity", "decided_by", "reason"}


def test_dry_run_then_apply_by_id(run, db_path: Path) -> None:
    code, out, _ = run("absorb", "--dry-run", "--json", "Northwind Robotics is headquartered in Kazan, Russia.")
    plan = json.loads(out)
    assert code == 0 and plan["applied"] is False and plan["items"][0]["fact_id"] is None
    assert sqlite3.connect(db_path).execute("SELECT count(*) FROM facts").fetchone()[0] == 0
    code, out, _ = run("plan", "list", "--json")
    assert json.loads(out)[0]["status"] == "draft"
    code, out, _ = run("plan", "apply", str(plan["plan_id"]), "--json")
    assert code == 0 and json.loads(out)["items"][0]["fact_id"] == 1
    code, _, err = run("plan", "apply", str(plan["plan_id"]))
    assert code == 1 and "applied" in err and len(err.strip().splitlines()) == 1


def test_search_json_contract_and_batch(run, tmp_path: Path) -> None:
    run("absorb", "--tags", "ui,prefs", "Maya prefers dark mode in every editor that she uses at work.",
        "Northwind Robotics is headquartered in Kazan, next to the river.")
    code, out, _ = run("search", "dark theme", "--json", "--top-k", "1")
    hit = json.loads(out)["results"][0]
    assert code == 0
    assert set(hit) >= {"id", "text", "score", "cosine", "bm25", "freshness", "confidence", "effective_confidence",
                        "scope", "kind", "status", "tags", "created_at", "sources"}
    assert hit["tags"] == ["ui", "prefs"]
    queries = _jsonl(tmp_path / "q.jsonl", [{"qid": "a", "query": "Kazan"}, {"qid": "b", "query": "editor"},
                                            b"not json\n"])
    code, out, _ = run("search", "--batch", str(queries), "--top-k", "1")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line.get("qid") for line in lines] == ["a", "b", None]
    assert "Kazan" in lines[0]["results"][0]["text"] and "error" in lines[2]
    assert code == 3  # answered, with one query refused


def test_changed_three_times_read_back(run, tmp_path: Path) -> None:
    lines = [{"text": f"Maya's preferred editor is {obj} for her backend work at Northwind.",
              "subject": "Maya", "predicate": "preferred_editor", "object": obj} for obj in ("VS Code", "Neovim", "Helix")]
    for k, line in enumerate(lines):
        run("absorb", "--file", str(_jsonl(tmp_path / f"v{k}.jsonl", [line])))
    code, out, _ = run("get", "1", "--json")
    active = json.loads(out)
    assert active["facts"] == [] and active["message"] == "fact 1 is not active: superseded by 2"
    code, out, _ = run("get", "1", "--mode", "latest", "--json")
    assert json.loads(out)["facts"][0]["object"] == "Helix"
    code, out, _ = run("get", "2", "--mode", "full_history", "--json")
    assert [f["object"] for f in json.loads(out)["facts"]] == ["VS Code", "Neovim", "Helix"]
    code, out, _ = run("history", "3")
    assert code == 0 and "3 versions" in out


@pytest.mark.parametrize("payload, expected", [
    (b"\xff\xfe not utf-8\n", "not valid UTF-8"),
    (b'{"text": "has a \x00 NUL byte inside"}\n', "NUL"),
    (b"[1, 2, 3]\n", "expected a JSON object"),
    (b"{not json at all\n", "not valid JSON"),
    (b'{"text": "valid text but an unknown scope here", "scope": "moon"}\n', "scope"),
    (b'{"text": "valid text but an unknown kind here", "kind": "gossip"}\n', "kind"),
    (b'{"text": ""}\n', "empty"),
    (json.dumps({"text": "y" * 1_000_000}).encode() + b"\n", "characters"),
])
def test_bad_jsonl_lines_are_reported_and_others_go_on(run, tmp_path: Path, db_path: Path, payload: bytes,
                                                       expected: str) -> None:
    good = {"text": "Sofia Marques designs the fleet map screens of Atlas Console."}
    other = {"text": "Jonas Becker founded Spreeline Data in Berlin in 2019."}
    path = _jsonl(tmp_path / "in.jsonl", [good, payload, other])
    code, out, err = run("absorb", "--file", str(path))
    assert code == 3  # applied, with one item refused
    assert expected in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.startswith("memlens:")]) == 1
    assert sqlite3.connect(db_path).execute("SELECT count(*) FROM facts").fetchone()[0] == 2


def test_secret_is_rejected_without_echo(run, db_path: Path) -> None:
    code, out, err = run("absorb", "--json", f"The deploy user's key is {FAKE_AWS_KEY} for staging.")
    assert code == 1
    assert FAKE_AWS_KEY not in out + err and "aws-access-key-id" in err
    raw = sqlite3.connect(db_path)
    dump = "\n".join(raw.iterdump())
    assert FAKE_AWS_KEY not in dump


@pytest.mark.parametrize("args, code, message", [
    (["absorb"], 1, "give fact texts"),
    (["absorb", "--scope", "galaxy", "text"], 2, "invalid choice"),
    (["absorb", "--kind", "rumour", "text"], 2, "invalid choice"),
    (["search"], 1, "QUERY"),
    (["get", "abc"], 2, "digits 0-9"),
    (["get", "5"], 1, "no fact 5"),
    (["plan", "show", "9"], 1, "no plan 9"),
    (["plan", "apply", "1", "--only", "x,y"], 2, "comma-separated"),
    (["absorb", "--file", "/nonexistent/in.jsonl"], 1, "no such file"),
    (["import", "/nonexistent/in.jsonl"], 1, "no such file"),
    (["bogus-command"], 2, "invalid choice"),
])
def test_usage_and_user_errors(run, args: list[str], code: int, message: str) -> None:
    run("absorb", "Sofia Marques designs the fleet map screens of Atlas Console.")
    got, _, err = run(*args)
    assert got == code and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_now_is_a_usage_error(db_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--db", str(db_path), "--now", "yesterday", "stats"])
    assert exit_.value.code == 2 and "ISO-8601" in capsys.readouterr().err


def test_not_a_sqlite_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello, these are notes\n")
    assert main(["--db", str(path), "search", "x"]) == 1
    assert "not a SQLite file" in capsys.readouterr().err
    assert path.read_bytes() == b"hello, these are notes\n"


def test_read_only_file(run, db_path: Path) -> None:
    run("absorb", "Sofia Marques designs the fleet map screens of Atlas Console.")
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(db_path) + suffix)
        if p.exists():
            p.chmod(0o444)
    code, _, err = run("absorb", "Jonas Becker founded Spreeline Data in Berlin in 2019.")
    assert code == 1 and "read-only" in err
    code, out, _ = run("search", "Atlas Console", "--json")
    assert code == 0 and json.loads(out)["results"][0]["id"] == 1
    assert sqlite3.connect(f"file:{db_path}?mode=ro", uri=True).execute("SELECT count(*) FROM facts").fetchone()[0] == 1


def test_missing_memory_for_reading(tmp_path: Path, capsys) -> None:
    assert main(["--db", str(tmp_path / "none.sqlite"), "search", "x"]) == 1
    assert "no memory at" in capsys.readouterr().err
    assert not (tmp_path / "none.sqlite").exists()


def test_export_import_round_trip(run, tmp_path: Path) -> None:
    lines = [{"text": f"Maya's preferred editor is {obj} for her backend work at Northwind.",
              "subject": "Maya", "predicate": "preferred_editor", "object": obj,
              "created_at": f"2026-0{k + 1}-01T08:00:00Z", "tags": ["editor"], "source": f"chat:{k}"}
             for k, obj in enumerate(("VS Code", "Neovim", "Helix"))]
    lines.append({"text": "The staging cluster runs 3 replicas of the Ferrite ingest service."})
    lines.append({"text": "The staging cluster runs 5 replicas of the Ferrite ingest service."})
    run("absorb", "--file", str(_jsonl(tmp_path / "in.jsonl", lines)))
    export = tmp_path / "export.jsonl"
    assert run("export", str(export))[0] == 0
    copy_db = tmp_path / "copy.sqlite"
    code = main(["--db", str(copy_db), *NOW, "import", str(export)])
    assert code == 0
    query = ("SELECT id, text, status, created_at, last_reinforced, tags, source FROM facts ORDER BY id",
             "SELECT src_id, dst_id, type, created_at FROM edges ORDER BY id")
    for sql in query:
        original = sqlite3.connect(tmp_path / "memory.sqlite").execute(sql).fetchall()
        assert sqlite3.connect(copy_db).execute(sql).fetchall() == original
    # importing the same export again adds nothing
    code = main(["--db", str(copy_db), *NOW, "import", str(export), "--json"])
    assert code == 0 and sqlite3.connect(copy_db).execute("SELECT count(*) FROM facts").fetchone()[0] == 5


def test_every_command_has_help(capsys) -> None:
    from engine.faces.cli.main import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        assert command.description, f"{name} has no description"
        for action in command._actions:
            if action.dest != "help" and not isinstance(action, type(sub)):
                assert action.help, f"{name} {action.dest} has no help"


def test_real_process_exit_codes_and_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "MEMLENS_DB": str(tmp_path / "m.sqlite")}
    ok = subprocess.run([sys.executable, "-m", "engine.faces.cli.main", "absorb", "--json",
                         "Sofia Marques designs the fleet map screens of Atlas Console."],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0 and json.loads(ok.stdout)["applied"] is True
    bad = subprocess.run([sys.executable, "-m", "engine.faces.cli.main", "get", "77"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 1 and bad.stderr.strip() == "memlens: error: there is no fact 77 in this memory"


def test_stats_says_which_facts_search_cannot_use(run, db_path: Path) -> None:
    assert run("absorb", "Maya prefers dark mode in every editor she uses.",
               "The Ferrite ingest service runs three replicas on staging.")[0] == 0
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE fact_vectors SET vector = x'00' WHERE fact_id = 1")
        db.execute("UPDATE facts SET embedding_model = 'old/model' WHERE id = 2")
    code, out, _ = run("stats")
    assert code == 0 and "search skips facts: 1 need embedding with this model; 1 have a damaged vector" in out


def test_export_onto_the_memory_file_itself_is_refused(run, db_path: Path) -> None:
    run("absorb", "The staging cluster runs 3 replicas of the Ferrite ingest service.")
    before = db_path.read_bytes()
    for target in (db_path, Path(f"{db_path}-wal")):
        code, _out, err = run("export", str(target))
        assert code == 1 and "open here" in err
    assert db_path.read_bytes()[:16] == b"SQLite format 3\x00"
    code, _out, err = run("import", str(db_path))
    assert code == 1 and "open here" in err
    assert len(db_path.read_bytes()) >= len(before) // 2
