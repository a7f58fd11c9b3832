"""``memlens classify --batch``: what absorb would decide per pair, in input order, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Run

TOKEN = "ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"
PAIRS = [
    {"id": "replicas", "stored": "The staging cluster runs 3 replicas of the Ferrite ingest service.",
     "incoming": "The staging cluster runs 5 replicas of the Ferrite ingest service."},
    {"id": "branch", "stored": "The user asked to rename branch feature/alpha before the release.",
     "incoming": "The user asked to rename branch feature/beta before the release."},
    {"id": "same", "stored": "Maya drinks green tea every morning before she starts work.",
     "incoming": "Maya drinks green tea every morning before she starts work."},
    {"id": "unrelated", "stored": "Jonas Becker founded Spreeline Data in Berlin in 2019.",
     "incoming": "The cafeteria serves lentil soup on Thursdays in winter."},
    {"id": "secret", "stored": "The deploy key for staging lives in the vault.", "incoming": f"The key is {TOKEN}."},
]


def test_each_pair_gets_what_absorb_would_decide(run: Run, tmp_path: Path, db_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in PAIRS) + "\n{not json\n", encoding="utf-8")
    code, out, err = run("classify", "--batch", str(path), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 3  # decided, with two lines refused
    assert [line["id"] for line in lines] == ["replicas", "branch", "same", "unrelated", "secret", None]
    by_id = {line["id"]: line for line in lines}
    assert by_id["replicas"]["outcome"] == "contradict" and by_id["replicas"]["similarity"] > 0.8
    assert by_id["branch"]["outcome"] not in ("duplicate", "merged")  # a different name is a different fact
    assert by_id["same"]["outcome"] == "duplicate" and by_id["unrelated"]["outcome"] == "new"
    assert set(by_id["replicas"]) == {"id", "outcome", "similarity", "reason", "decided_by"}
    assert "secret" in by_id["secret"]["error"] and TOKEN not in out + err
    assert not db_path.exists()  # nothing read or written


def test_a_batch_of_nothing_but_bad_lines_exits_1(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\n[1, 2]\n', encoding="utf-8")
    code, out, _ = run("classify", "--batch", str(path))
    assert code == 1 and out.count("refused") == 2
