"""The MCP server over raw stdio: malformed JSON-RPC gets the parse error, and the session goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghp_R8vKq2LmXw9TzY4bNc6Hd1Jf5Gs3Ap0EuQiO"


@pytest.mark.slow
def test_garbage_lines_get_a_parse_error_and_the_server_keeps_serving(db_path: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw-test", "version": "0"}}}
    lines = [b"{not json\n", b"\xff\xfe\x00binary\n", json.dumps({"id": TOKEN}).encode() + b"\n",
             json.dumps(init).encode() + b"\n"]
    proc = subprocess.run([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db_path), "mcp"], cwd=ROOT,
                          input=b"".join(lines), capture_output=True, timeout=120)
    replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    errors = [r for r in replies if "error" in r]
    assert [e["error"]["code"] for e in errors] == [-32700, -32700, -32700] and all(e["id"] is None for e in errors)
    assert TOKEN not in proc.stdout.decode() + proc.stderr.decode(errors="replace")
    answer = next(r for r in replies if r.get("id") == 1)
    assert answer["result"]["serverInfo"]["name"] == "memlens" and answer["result"]["serverInfo"]["version"]
