"""A row damaged outside MemLens is still read (issue 19): emptied, with a ``damaged`` note, never a traceback.

A raw SQL shell (or a bad disk) can leave a JSON column that is not JSON or not of the shape
the engine writes; get, history, search and export must still answer for that fact.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)


@pytest.mark.parametrize(("column", "value"), [
    ("evidence", '["x"]'), ("evidence", "{not json"), ("metadata", "[1, 2]"), ("tags", '"a string"'),
    ("metadata", '{"entities": "x"}'), ("evidence", '[{"source": 5}]'),
])
def test_reads_survive_a_damaged_json_column(run: Run, db_path: Path, column: str, value: str) -> None:
    run("absorb", "The deploy pipeline runs on the staging cluster every night at two.")
    db = sqlite3.connect(db_path)
    db.execute(f"UPDATE facts SET {column} = ? WHERE id = 1", (value,))  # a raw shell, not MemLens
    db.commit()
    db.close()
    for args in (("get", "1", "--json"), ("history", "1", "--json")):
        code, out, err = run(*args)
        assert code == 0, err
        (fact,) = json.loads(out)["facts"]
        assert any(note.startswith(column) for note in fact["damaged"])
    for args in (("search", "deploy pipeline", "--json"), ("get", "1"), ("export", "-")):
        code, out, err = run(*args)
        assert code == 0, err


def test_reinforcing_a_fact_with_damaged_evidence_keeps_the_column_as_stored(run: Run, db_path: Path) -> None:
    text = "The deploy pipeline runs on the staging cluster every night at two."
    run("absorb", text)
    db = sqlite3.connect(db_path)
    db.execute("UPDATE facts SET evidence = '{not json' WHERE id = 1")
    db.commit()
    line = json.dumps({"text": text, "source": "notes.md#1"}) + "\n"
    code, out, err = run("absorb", "--file", "-", "--json", stdin=line.encode())
    assert code == 0, err
    assert json.loads(out)["items"][0]["outcome"] == "duplicate"
    assert db.execute("SELECT evidence, reinforcement_count FROM facts WHERE id = 1").fetchone() == ("{not json", 1)


def test_a_snapshot_survives_a_fact_with_damaged_tags(run: Run, db_path: Path) -> None:
    run("absorb", "The deploy pipeline runs on the staging cluster every night at two.")
    run("absorb", "- [ ] renew the staging certificate before the end of the month", "--tags", "todo")
    db = sqlite3.connect(db_path)
    db.execute("UPDATE facts SET tags = '{not json' WHERE id = 1")
    db.commit()
    code, out, err = run("snapshot", "--session", "s1", "--json")
    assert code == 0, err
    assert "renew the staging certificate" in json.loads(out)["text"]


def test_a_tag_filter_skips_a_fact_with_damaged_tags_and_says_so_in_json(run: Run, db_path: Path) -> None:
    run("absorb", "The deploy pipeline runs on the staging cluster every night at two.", "--tags", "ops")
    run("absorb", "The staging certificate is renewed by the ops team every ninety days.", "--tags", "ops")
    db = sqlite3.connect(db_path)
    db.execute("UPDATE facts SET tags = '{not json' WHERE id = 1")
    db.commit()
    code, out, err = run("search", "staging", "--tag", "ops", "--json")
    assert code == 0, err
    assert [hit["id"] for hit in json.loads(out)["results"]] == [2]
    code, out, err = run("search", "deploy pipeline", "--json")
    damaged = [hit for hit in json.loads(out)["results"] if hit["id"] == 1]
    assert code == 0 and damaged and damaged[0]["damaged"]
