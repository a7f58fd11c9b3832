"""``memlens mcp``: a Model Context Protocol server on stdio over one ``Memory`` (DESIGN §11).

Built with the official ``mcp`` package (``MCPServer``, formerly FastMCP). An agent gets four
tools over the same store every other front end uses: ``memory_search``, ``memory_get``,
``memory_absorb`` (with ``dry_run``) and ``memory_snapshot``. A user error comes back as a
tool error carrying the engine's one-line message; anything else is reported by the SDK as
a generic failure, so no traceback reaches the agent. (The module is not called ``mcp.py``,
which would shadow the SDK package inside ``engine``.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from engine.faces.cli.render import plan_json
from engine.clock import Clock, system_clock
from engine.config import Settings
from engine.errors import MemLensError
from engine.memory import Memory
from engine.search.hybrid import SearchFilters

T = TypeVar("T")
INSTRUCTIONS = (
    "Long-term memory. Call memory_snapshot once when a session starts and keep its text as a stable prefix; "
    "memory_search to recall facts by meaning and words; memory_get to read a fact by the [id] shown; "
    "memory_absorb to store new self-contained facts (50-500 characters each; secrets are refused)."
)


def _engine(call: Callable[[], T]) -> T:
    """Run a facade call; a user-facing error becomes the tool's error message."""
    try:
        return call()
    except MemLensError as err:
        raise ToolError(str(err)) from None


def build_server(memory: Memory) -> MCPServer:
    server = MCPServer("memlens", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def memory_search(query: str, top_k: int = 10, scope: Literal["agent", "user", "run"] | None = None,
                      tags: list[str] | None = None) -> dict[str, Any]:
        """Hybrid search (meaning and words, times freshness) over active facts; each hit has its id and score parts."""
        filters = _engine(lambda: SearchFilters(scope=scope, tags=tuple(tags or ())))
        hits = _engine(lambda: memory.search(query, top_k=top_k, filters=filters))
        return {"results": [h.to_dict() for h in hits]}

    @server.tool()
    def memory_get(fact_id: int, mode: Literal["active", "latest", "full_history"] = "active") -> dict[str, Any]:
        """Read a fact by id: 'active' (or why not), 'latest' (newest version), 'full_history' (every version)."""
        return _engine(lambda: memory.get(fact_id, mode)).to_dict()

    @server.tool()
    def memory_absorb(items: list[str | dict[str, Any]], dry_run: bool = False) -> dict[str, Any]:
        """Store facts through the absorb pipeline (dedup, supersede, contradict). Items are texts or objects with
        'text' and optional scope, kind, tags, subject/predicate/object, session_id. dry_run only plans."""
        return plan_json(_engine(lambda: memory.absorb(items, dry_run=dry_run)))

    @server.tool()
    def memory_snapshot(session_id: str, query: str | None = None, max_chars: int | None = None) -> dict[str, Any]:
        """The session's digest (profile, relevant facts, open TODOs, recent facts), frozen by the first call:
        later calls for the same session return the same text byte for byte."""
        return _engine(lambda: memory.snapshot(session_id, query, max_chars)).to_dict()

    return server


def run_stdio(db: Path, settings: Settings, *, clock: Clock = system_clock) -> None:
    """Serve until the client closes stdin."""
    with Memory(db, settings, clock=clock, actor="mcp") as memory:
        build_server(memory).run("stdio")
