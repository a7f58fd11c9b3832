"""Restoring a MemLens export is no side door (issue 19): every field is validated and scanned.

An export line is checked like an absorb item, plus the fields only a restore keeps; a bad
line is one refused item whose reason names the field and the rule, never the value, and
nothing that reaches the draft plan or the facts table can carry a secret or break a read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
GOOD = {"id": 1, "text": "The deploy pipeline runs on the staging cluster every night at two.",
        "scope": "agent", "kind": "explicit", "status": "active", "confidence": 0.8,
        "created_at": "2026-01-01T00:00:00Z"}
SECOND = {**GOOD, "id": 2, "text": "Lisbon was sunny for most of July, the weather log says."}


def export_file(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "export.jsonl"
    lines = [{"memlens_export": 1, "schema": 2}, *records]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def stored_bytes(db_path: Path) -> bytes:
    """Every byte of the memory file and its WAL: a secret must be in neither."""
    return b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))


SECRET_FIELDS = [
    {"tags": ["deploy", TOKEN]},
    {"source": f"notes:{TOKEN}"},
    {"subject": TOKEN, "predicate": "uses", "object": "a token"},
    {"subject": "the deploy", "predicate": "uses", "object": TOKEN},
    {"session_id": TOKEN},
    {"evidence": [{"text": f"the old note said {TOKEN} was the key", "source": "x"}]},
    {"evidence": [{"source": f"file:/home/me/{TOKEN}/notes.md"}]},
    {"metadata": {"entities": [{"name": TOKEN, "type": "technology"}]}},
    {"metadata": {"entities": [{"name": "GitHub", "type": "company"}, {"name": "CI", "type": "technology"}],
                  "relations": [["GitHub", TOKEN, "CI"]]}},
]


@pytest.mark.parametrize("extra", SECRET_FIELDS, ids=lambda e: next(iter(e)))
def test_a_secret_in_any_field_is_refused_and_never_stored(run: Run, tmp_path: Path, db_path: Path,
                                                           extra: dict[str, Any]) -> None:
    code, out, err = run("import", str(export_file(tmp_path, {**GOOD, **extra}, SECOND)), "--dry-run", "--json")
    plan = json.loads(out)
    assert [it["outcome"] for it in plan["items"]] == ["rejected", "new"]
    assert plan["items"][0]["decided_by"] == "secrets"
    assert TOKEN not in out and TOKEN not in err
    assert TOKEN.encode() not in stored_bytes(db_path)  # not in the draft plan either


BAD_SHAPES = [
    ({"evidence": ["x"]}, "evidence entry"),
    ({"evidence": "x"}, "evidence must be a list"),
    ({"edges": [{"type": "supersedes", "to": "2"}]}, "an edge's 'to'"),
    ({"edges": [{"type": "owns", "to": 2}]}, "each edge"),
    ({"metadata": ["x"]}, "metadata must be an object"),
    ({"metadata": {"entities": [{"name": "x"}]}}, "entity type"),
    ({"tags": ["a" * 5000]}, "tag is"),
    ({"tags": [f"t{k}" for k in range(40)]}, "tags must be a list of at most 32"),
    ({"tags": ["bad\x00tag"]}, "control characters"),
    ({"source": "a\x00b"}, "source contains control characters"),
    ({"access_count": -1}, "access_count"),
    ({"last_accessed": "yesterday"}, "last_accessed must be an ISO-8601 time"),
    ({"id": 1 << 63}, "id must be a whole number"),
    ({"colour": "red"}, "unknown field 'colour'"),
]


@pytest.mark.parametrize(("extra", "reason"), BAD_SHAPES, ids=[r for _, r in BAD_SHAPES])
def test_a_malformed_field_is_one_refused_line_with_a_reason(run: Run, tmp_path: Path, extra: dict[str, Any],
                                                             reason: str) -> None:
    code, out, err = run("import", str(export_file(tmp_path, {**GOOD, **extra}, SECOND)), "--json")
    plan = json.loads(out)
    assert [it["outcome"] for it in plan["items"]] == ["rejected", "new"]
    assert reason in plan["items"][0]["reason"]
    assert "Traceback" not in err
    code, out, _ = run("export", "-")
    assert code == 0 and len(out.splitlines()) == 2  # the header and the good line: nothing half-restored


def test_a_record_without_confidence_is_restored_with_the_kinds_default(run: Run, tmp_path: Path) -> None:
    record = {k: v for k, v in GOOD.items() if k != "confidence"}
    code, out, err = run("import", str(export_file(tmp_path, record)), "--json")
    assert code == 0, err
    code, out, _ = run("get", "1", "--json")
    assert 0 < json.loads(out)["facts"][0]["confidence"] <= 1


def test_a_restored_record_round_trips_exactly(run: Run, tmp_path: Path) -> None:
    record = {**GOOD, "tags": ["deploy"], "evidence": [{"text": "An older note on the staging deploys.",
                                                        "source": "notes.md#2"}],
              "edges": [{"type": "related", "to": 2, "at": "2026-01-02T00:00:00Z"}],
              "metadata": {"entities": [{"name": "staging", "type": "technology"}]}}
    run("import", str(export_file(tmp_path, record, SECOND)))
    _, first, _ = run("export", "-")
    (tmp_path / "again").mkdir()
    again = tmp_path / "again" / "export.jsonl"
    again.write_text(first, encoding="utf-8")
    code, _, err = run("--db", str(tmp_path / "again" / "m.sqlite"), "import", str(again))
    assert code == 0, err
    _, second, _ = run("--db", str(tmp_path / "again" / "m.sqlite"), "export", "-")
    assert first.splitlines()[1:] == second.splitlines()[1:]


@pytest.mark.parametrize("record", [
    {**GOOD, "created_at": TOKEN},
    {**GOOD, "metadata": {TOKEN: 1}},
    {**GOOD, TOKEN: 1},
    {**GOOD, "edges": [{"type": "related", "to": 2, "at": TOKEN}]},
], ids=["created_at", "metadata key", "field name", "edge time"])
def test_a_refusal_reason_never_holds_the_value(run: Run, tmp_path: Path, db_path: Path,
                                                record: dict[str, Any]) -> None:
    code, out, err = run("import", str(export_file(tmp_path, record, SECOND)), "--dry-run", "--json")
    assert json.loads(out)["items"][0]["outcome"] == "rejected"
    assert TOKEN not in out + err
    assert TOKEN.encode() not in stored_bytes(db_path)


def test_absorb_reasons_name_the_field_not_the_value(run: Run, db_path: Path) -> None:
    line = json.dumps({"text": "A fact whose creation time is something else entirely.", "created_at": TOKEN})
    line2 = json.dumps({"text": "A fact with an odd extra field named like a token.", TOKEN: "x"})
    code, out, err = run("absorb", "--file", "-", "--dry-run", stdin=(line + "\n" + line2 + "\n").encode())
    assert "created_at must be an ISO-8601 time" in err and "unknown field (name not shown)" in err
    assert TOKEN not in out + err
    assert TOKEN.encode() not in stored_bytes(db_path)
