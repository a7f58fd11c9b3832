"""``memlens connect``: each client's configuration for this file, and each one, pasted as shown,
starts a server that works (the official MCP client lists the tools and stores a fact through it)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from engine import Memory, Settings, connection_snippets, memlens_executable
from engine.faces.cli.main import main

FACT = "The staging cluster is rebuilt from scratch every Sunday night at 02:00 UTC."
CLIENTS = ["Hermes Agent", "Claude Code", "Claude Desktop", "Cursor"]


def _snippets(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, str]]:
    assert main(["--db", str(db), "connect", "--json"]) == 0
    return {s["client"]: s for s in json.loads(capsys.readouterr().out)}


def test_connect_names_every_client_with_absolute_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    relative = Path(os.path.relpath(tmp_path / "sub")) / ".." / "my memory.sqlite"  # a ".." is folded away
    found = _snippets(relative, capsys)
    assert list(found) == CLIENTS
    exe = str(memlens_executable())
    for snippet in found.values():
        assert str((tmp_path / "my memory.sqlite").absolute()) in snippet["text"].replace("'", "")
        assert exe in snippet["text"].replace("'", "")  # shell snippets quote a path only when it needs it
    server = json.loads(found["Cursor"]["text"])["mcpServers"]["memlens"]
    assert Path(server["command"]).is_absolute() and server["args"][-1] == "mcp"
    assert main(["--db", str(relative), "connect", "--client", "cursor"]) == 0
    assert capsys.readouterr().out.strip() == found["Cursor"]["text"]  # ready to paste, nothing around it


def _stdio_command(snippet: dict[str, str]) -> list[str]:
    """What the client runs, read from the snippet the way that client reads it."""
    if snippet["language"] == "json":
        server = json.loads(snippet["text"])["mcpServers"]["memlens"]
        return [server["command"], *server["args"]]
    return shlex.split(snippet["text"].split(" -- ", 1)[1])  # claude mcp add ... -- COMMAND ARGS


async def _use(command: list[str], fact: str) -> tuple[set[str], Any]:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd="/",
                                   env={k: os.environ[k] for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "HOME")
                                        if k in os.environ})
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                return tools, await session.call_tool("memory_absorb", {"items": [fact]})


@pytest.mark.slow
@pytest.mark.parametrize("client", ["Claude Code", "Claude Desktop", "Cursor"])
def test_each_mcp_snippet_as_shown_starts_a_working_server(client: str, tmp_path: Path, embedder,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "agent memory.sqlite"
    tools, absorbed = anyio.run(_use, _stdio_command(_snippets(db, capsys)[client]), FACT)
    assert {"memory_search", "memory_absorb", "memory_snapshot"} <= tools
    assert not absorbed.is_error and absorbed.structured_content["items"][0]["outcome"] == "new"
    with Memory(db, Settings(), embedder=embedder, create=False) as memory:
        assert [f.text for f in memory.facts([1]).values()] == [FACT]


@pytest.mark.slow
def test_the_hermes_snippet_as_shown_installs_and_selects_the_provider(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    hermes = Path(sys.executable).parent / "hermes"
    if not hermes.exists():
        pytest.skip("hermes-agent is not installed (pip install -e '.[dev]')")
    db = tmp_path / "memory.sqlite"
    home = tmp_path / "hermes-home"
    env = {**os.environ, "HERMES_HOME": str(home), "HOME": str(tmp_path),
           "PATH": f"{hermes.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in _snippets(db, capsys)["Hermes Agent"]["text"].splitlines():
        done = subprocess.run(shlex.split(line), env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, (line, done.stderr[-2000:])
    assert (home / "plugins" / "memlens" / "__init__.py").is_file()
    assert json.loads((home / "plugins" / "memlens" / "memlens.json").read_text())["db"] == str(db)
    assert "provider: memlens" in (home / "config.yaml").read_text()
