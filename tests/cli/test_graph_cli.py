"""``memlens graph``: the Kazan question, paths and neighbours, text and JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Run
LINES = [
    {"text": "Ivan Petrov works at Northwind Robotics as a firmware engineer on the arm team.",
     "entities": [{"name": "Ivan Petrov", "type": "person"}, {"name": "Northwind Robotics", "type": "company"}],
     "relations": [["Ivan Petrov", "works_at", "Northwind Robotics"]]},
    {"text": "Northwind Robotics is headquartered in Kazan, next to the Kazanka river.",
     "entities": [{"name": "Northwind Robotics", "type": "company"}, {"name": "Kazan", "type": "location"}],
     "relations": [["Northwind Robotics", "located_in", "Kazan"]]},
    {"text": "Jonas Becker works at Spreeline Data, an analytics firm based in Berlin.",
     "entities": [{"name": "Jonas Becker", "type": "person"}, {"name": "Spreeline Data", "type": "company"},
                  {"name": "Berlin", "type": "location"}],
     "relations": [["Jonas Becker", "works_at", "Spreeline Data"], ["Spreeline Data", "located_in", "Berlin"]]},
]


@pytest.fixture
def run(run: Run, tmp_path: Path) -> Run:
    """The CLI's ``run`` on a memory holding LINES."""
    source = tmp_path / "graph.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    assert run("absorb", "--file", str(source))[0] == 0
    return run


def test_who_works_at_companies_in_kazan(run) -> None:
    code, out, _ = run("graph", "query", "kazan", "<located_in", "<works_at")
    assert code == 0
    assert "Kazan <-located_in- Northwind Robotics <-works_at- Ivan Petrov" in out and "Jonas" not in out
    code, out, _ = run("graph", "query", "Kazan", "<located_in", "<works_at:person", "--json")
    data = json.loads(out)
    assert [(m["name"], m["type"], m["justified_by"]) for m in data["matches"]] == [("Ivan Petrov", "person", [1, 2])]


def test_path_and_neighbors(run) -> None:
    code, out, _ = run("graph", "path", "Ivan Petrov", "location:kazan")
    assert code == 0 and out.startswith("2 hops: Ivan Petrov -works_at-> Northwind Robotics -located_in-> Kazan")
    code, out, _ = run("graph", "path", "Ivan Petrov", "Berlin", "--json")
    assert code == 0 and json.loads(out)["path"] is None
    code, out, _ = run("graph", "neighbors", "Spreeline Data", "--json")
    assert sorted(n["name"] for n in json.loads(out)["neighbors"]) == ["Berlin", "Jonas Becker"]
    code, out, _ = run("graph", "neighbors", "Kazan", "--hops", "2")
    assert code == 0 and "Ivan Petrov" in out


def test_errors_are_one_line(run) -> None:
    code, _, err = run("graph", "neighbors", "Atlantis")
    assert code == 1 and err.strip() == "memlens: error: no entity named 'Atlantis' in this memory"
    code, _, err = run("graph", "query", "Kazan", "<a", "<b", "<c", "<d", "<e")
    assert code == 1 and "1 to 4 steps" in err and len(err.strip().splitlines()) == 1
    code, _, err = run("graph", "neighbors", "Kazan", "--hops", "9")
    assert code == 1 and "hops" in err
    code, _, _ = run("graph", "query", "Kazan")
    assert code == 2
