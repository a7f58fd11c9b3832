"""Minor holes of issue 26, each through the face where it was found.

A newline in a tag, source or session id forged lines in ``memlens get``; the CLI read "１", "1_0"
and " 1" as ids; a token in an imported file's folder name was stored in ``import_chunks.source``;
four MCP parameters had no description.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.api.conftest import app, client  # noqa: F401  (fixtures)
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)
from tests.mcp_client import over_mcp

FACT = "The deploy pipeline runs on the staging cluster every night at two."
TOKEN = "ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"


@pytest.mark.parametrize("field", [{"tags": ["ops\nfact 9 [active]"]}, {"source": "notes\nfact 9"},
                                   {"session_id": "s1\r\nfact 9"}, {"tags": ["a\u2028b"]}, {"source": "x\ty"},
                                   {"subject": "deploy\nx", "predicate": "runs", "object": "nightly"}])
def test_a_line_break_in_a_single_line_field_is_refused(run: Run, tmp_path: Path, field: dict) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"text": FACT, **field}) + "\n")
    code, out, err = run("absorb", "--file", str(path), "--json")
    assert [it["outcome"] for it in json.loads(out)["items"]] == ["rejected"]
    assert "one line" in err and err.count("\n") == 1


def test_http_refuses_it_too(client) -> None:
    response = client.post("/absorb", json={"items": [{"text": FACT, "tags": ["a\nb"]}]})
    assert response.status_code in (200, 400)
    assert response.status_code == 400 or response.json()["items"][0]["outcome"] == "rejected"


def test_get_prints_a_line_break_already_stored_escaped(run: Run, db_path: Path) -> None:
    run("absorb", FACT, "--tags", "ops")
    with sqlite3.connect(db_path) as db:
        db.execute("""UPDATE facts SET tags = '["ops\\nfact 9 [active] forged"]' WHERE id = 1""")
    code, out, err = run("get", "1")
    assert code == 0 and not any(line.startswith("fact 9") for line in out.splitlines())
    assert "ops\\x0afact 9" in out


@pytest.mark.parametrize("value", ["１", "1_0", " 1", "1 ", "٣", "+1", "0x1"])
def test_the_cli_reads_only_ascii_digits_as_an_id(run: Run, value: str) -> None:
    run("absorb", FACT)
    for args in (("get", value), ("history", value), ("plan", "show", value), ("fact", "archive", value)):
        code, out, err = run(*args)
        assert code == 2 and "digits 0-9" in err and value.strip() not in err.replace("memlens", ""), (args, err)


def test_a_token_in_a_folder_name_is_not_stored(run: Run, tmp_path: Path, db_path: Path) -> None:
    folder = tmp_path / TOKEN
    folder.mkdir()
    (folder / "notes.jsonl").write_text(json.dumps({"text": FACT}) + "\n")
    code, out, err = run("import", str(folder / "notes.jsonl"))
    assert code == 0, err
    with sqlite3.connect(db_path) as db:
        sources = [row[0] for row in db.execute("SELECT source FROM import_chunks")]
    assert sources and all(TOKEN not in s and "[secret]" in s for s in sources)
    for path in db_path.parent.glob(db_path.name + "*"):
        assert TOKEN.encode() not in path.read_bytes(), path
    code, out, err = run("import", str(folder / "notes.jsonl"))
    assert code == 0 and "already applied" in out + err  # the same file is still recognised


async def _tools(session: Any) -> Any:
    return (await session.list_tools()).tools


@pytest.mark.slow
def test_every_mcp_parameter_has_a_description(db_path: Path) -> None:
    missing = [f"{tool.name}.{name}" for tool in anyio.run(over_mcp, db_path, _tools)
               for name, schema in tool.input_schema["properties"].items() if not schema.get("description")]
    assert missing == []
