"""Bounded inputs (issue 19): endless streams, ids beyond 64 bits and out-of-range settings are refused.

``import /dev/urandom`` read forever (RSS growing), an id of 2^63 reached SQLite and ended in an
``OverflowError`` traceback, and ``candidates = -5`` loaded silently. Each is now a one-line
error naming the cap, the id or the key, before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.io import jsonl
from engine.config import load_settings
from engine.errors import MemLensError
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

FACT = "The deploy pipeline runs on the staging cluster every night at two."


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_an_endless_stream_is_refused_at_the_byte_cap(run: Run, monkeypatch: pytest.MonkeyPatch, device: str,
                                                      db_path: Path) -> None:
    monkeypatch.setattr(jsonl, "MAX_INPUT_BYTES", 4 << 20)  # the real cap is 128 MiB; same code path
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 64 << 10)
    code, out, err = run("import", device)
    assert code == 1 and "larger than the cap of 4,194,304 bytes" in err
    code, out, _ = run("export", "-")
    assert len(out.splitlines()) <= 1  # nothing was written


def test_a_long_line_is_one_refused_item(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"text": FACT}) + "\n" + json.dumps({"text": "x" * 5000}) + "\n")
    code, out, err = run("absorb", "--file", str(path), "--json")
    assert [it["outcome"] for it in json.loads(out)["items"]] == ["new", "rejected"]
    assert "longer than 1,000 bytes" in err


@pytest.mark.parametrize("args", [
    ("get", "9223372036854775808"), ("get", "-3"), ("history", "99999999999999999999"),
    ("journal", "--fact", "9223372036854775808"), ("plan", "show", "99999999999999999999"),
    ("plan", "apply", "9223372036854775808"), ("plan", "apply", "0"), ("plan", "discard", "-1"),
])
def test_an_id_out_of_range_is_a_one_line_error(run: Run, args: tuple[str, ...]) -> None:
    run("absorb", FACT)
    code, out, err = run(*args)
    assert code == 1 and err.count("\n") == 1 and "must be a whole number from 1 to 9223372036854775807" in err


def test_tags_are_capped_in_count_and_length(run: Run) -> None:
    code, out, err = run("absorb", FACT, "--tags", ",".join(f"t{k}" for k in range(40)))
    assert code == 1 and "at most 32" in err
    code, out, err = run("absorb", FACT, "--tags", "a" * 101)
    assert code == 1 and "longer than 100 characters" in err


@pytest.mark.parametrize(("content", "message"), [
    ("[memory]\ncandidates = -5\n", r"\[memory\] candidates must be between 1 and 1000"),
    ("[memory]\nduplicate_threshold = 1.5\n", "duplicate_threshold must be between 0 and 1"),
    ("[memory]\nfreshness_floor = nan\n", "freshness_floor must be a finite number"),
    ("[memory]\nmin_text_chars = 900\n", "min_text_chars must not exceed max_text_chars"),
    ("[http]\nport = 70000\n", "port must be between 0 and 65535"),
    ("[gc]\nsummary_size = 0\n", "summary_size must be between 2 and 1000"),
    ("[memory]\nghp_a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5abcdef = 1\n", r"unknown key \(name not shown\)"),
])
def test_a_config_value_out_of_range_is_refused_with_its_key(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "memlens.toml"
    path.write_text(content)
    with pytest.raises(MemLensError, match=message) as caught:
        load_settings(path)
    assert "ghp_" not in str(caught.value)


def test_a_config_value_out_of_range_stops_the_cli(run: Run, db_path: Path) -> None:
    (db_path.parent / "memlens.toml").write_text("[memory]\ncandidates = -5\n")
    code, out, err = run("search", "deploy")
    assert code == 1 and "candidates" in err


def test_three_thousand_tag_filters_are_one_line_not_an_sqlite_error(run: Run) -> None:
    args = [part for n in range(3000) for part in ("--tag", f"t{n}")]
    code, out, err = run("search", "anything at all", *args)
    assert code == 1 and "at most 50 tags" in err and err.count("\n") == 1 and "Traceback" not in err


def test_absorb_takes_at_most_a_thousand_items_on_every_face(memory, run: Run, db_path) -> None:
    from engine import InvalidInput
    many = [f"Robot {n} of the NW-7 fleet reported battery wear level {n % 97} at the Kazan depot." for n in range(1001)]
    with pytest.raises(InvalidInput, match="at most 1,000"):
        memory.absorb(many)
    assert memory.stats()["facts"] == 0 and memory.plans() == []
    code, _, err = run("absorb", *many[:1001])
    assert code == 1 and "at most 1,000" in err and err.count("\n") == 1


@pytest.mark.slow
def test_a_long_jsonl_on_stdin_takes_the_import_path(run: Run, db_path) -> None:
    lines = "".join(json.dumps({"text": f"Sensor {n} in hall {n % 7} of the Lisbon plant reads {n * 3} kPa at noon."})
                    + "\n" for n in range(1001))
    code, out, err = run("absorb", "--file", "-", "--json", stdin=lines.encode())
    result = json.loads(out)
    assert code == 0, err
    # Two chunk plans (1,000 items and 1), both applied (issue 18).
    assert [(p["items"], p["status"]) for p in result["plans"]] == [(1000, "applied"), (1, "applied")]
    assert result["items"] == 1001 and result["written"] == 1001 and result["source"]["path"] == "<stdin>"


@pytest.mark.parametrize("args", [("import", "notes\x00.jsonl"), ("absorb", "--file", "a\x00b"),
                                  ("import", "--from", "markdown", "dir\x00")])
def test_a_path_with_a_nul_byte_is_one_line(run: Run, args) -> None:
    code, _, err = run(*args)
    # One line, exit 1 (a folder that cannot exist is reported as missing).
    assert code == 1 and ("NUL byte" in err or "no such file" in err) and "Traceback" not in err
    assert err.count("\n") == 1
