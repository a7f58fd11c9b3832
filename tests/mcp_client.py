"""The tests reach MemLens as an agent does: the official MCP client, over stdio, to ``memlens mcp``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
PASSED_ON = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "PATH", "MEMLENS_CROSS_ENCODER_DEPTH")


async def over_mcp(db: Path, script: Callable[[ClientSession], Awaitable[Any]], *options: str) -> Any:
    """Run ``script`` on a session with ``memlens --db DB [options] mcp``; ``options`` go before ``mcp``
    (e.g. ``--now 2026-11-30T12:00:00Z``). Use with ``anyio.run(over_mcp, db, script)``."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "engine.faces.cli.main", "--db", str(db), *options, "mcp"],
        cwd=str(ROOT), env={k: os.environ[k] for k in PASSED_ON if k in os.environ})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)
