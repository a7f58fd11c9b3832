"""A key with an unmistakable provider prefix and a low-entropy body (issue 27) and the prose forms
of issue 26, refused on every path through the CLI: absorb (dry run too), profile save, import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)
from tests.engine.absorb.secret_forms_round2 import DEV, LOOK_ALIKES_DEV

LOW_ENTROPY_KEY = "sk-ant-api03-" + "A" * 100 + "-AAAAAAAA"
FACT = "The deploy pipeline runs on the staging cluster every night at two."


def _nowhere(db_path: Path, value: str) -> None:
    for path in db_path.parent.glob(db_path.name + "*"):  # the file, its WAL, its cache
        if path.is_file():
            assert value.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("args", [("absorb", "--dry-run"), ("absorb",)])
def test_absorb_refuses_the_low_entropy_key(run: Run, db_path: Path, args: tuple[str, ...]) -> None:
    run("absorb", FACT)
    code, out, err = run(*args, f"our Anthropic key is {LOW_ENTROPY_KEY}", "--json")
    assert [it["outcome"] for it in json.loads(out)["items"]] == ["rejected"]
    assert "provider-prefix" in err and LOW_ENTROPY_KEY not in out + err
    _nowhere(db_path, LOW_ENTROPY_KEY)


def test_the_profile_refuses_it(run: Run, db_path: Path) -> None:
    run("absorb", FACT)
    code, out, err = run("profile", "edit", "MEMORY.md", "--from", "-",
                         stdin=f"- key {LOW_ENTROPY_KEY}\n".encode())
    assert code == 1 and "secret" in err.lower() and LOW_ENTROPY_KEY not in out + err
    code, out, _ = run("profile", "show", "--json")
    assert LOW_ENTROPY_KEY not in out
    _nowhere(db_path, LOW_ENTROPY_KEY)


def test_import_refuses_it_and_the_prose_forms(run: Run, tmp_path: Path, db_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    lines = [{"text": f"key {LOW_ENTROPY_KEY}"}, *({"text": t} for t in DEV), *({"text": t} for t in LOOK_ALIKES_DEV)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    code, out, err = run("import", str(path), "--json")
    assert code == 3, err
    outcomes = [it["outcome"] for it in json.loads(out)["items"]]
    assert outcomes.count("rejected") == 1 + len(DEV) and len(outcomes) == len(lines)
    _nowhere(db_path, LOW_ENTROPY_KEY)
