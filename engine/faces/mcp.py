"""``memlens mcp``: a Model Context Protocol server on stdio over one ``Memory`` (DESIGN §11).

Built with the official ``mcp`` package (``MCPServer``). An agent gets the same store and the
same acts every other face has: search, read, absorb, snapshot, and curation — a new version,
archive, tags, links, the contradiction queue and its resolution, the timeline as of a time,
and plans (apply or discard a draft, revert an applied one). Results have the shapes of
``engine.faces.serialize``, the same as the CLI's ``--json`` and the HTTP API. A user error comes
back as a tool error carrying the engine's one-line message; anything else is reported by the
SDK as a generic failure, so no traceback reaches the agent.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, TypeVar

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from engine import (Clock, LINK_TYPES, MAX_ID, MAX_ITEMS, MAX_QUERY_CHARS, MAX_TOP_K, MemLensError, Memory,
                    READ_MODES, SCOPES, SearchFilters, Settings, acting_as, parse_time, system_clock)
from engine.faces import serialize

T = TypeVar("T")
INSTRUCTIONS = (
    "Long-term memory. Call memory_snapshot once when a session starts and keep its text as a stable prefix; "
    "memory_search to recall facts by meaning and words; memory_get to read a fact by the [id] shown; "
    "memory_absorb to store new self-contained facts (50-500 characters each; secrets are refused). "
    "When a fact changed, memory_version it; when it no longer holds, memory_archive it; review "
    "memory_contradictions and settle them with memory_resolve. Every write is a plan: pass dry_run to "
    "review it, then memory_plan_apply or memory_plan_discard."
)
FactId = Annotated[int, Field(ge=1, le=MAX_ID, description="a fact id, as shown in [brackets] by search and snapshot")]
PlanId = Annotated[int, Field(ge=1, le=MAX_ID, description="a plan id, as returned by a write")]
DryRun = Annotated[bool, Field(description="only draft the plan (returned with its id) and write nothing else")]
Reason = Annotated[str | None, Field(max_length=500, description="why; kept in the plan and the journal")]
Tag = Annotated[str, Field(min_length=1, max_length=100)]


def _engine(call: Callable[[], T]) -> T:
    """Run a facade call as the ``mcp`` face (also when ``serve`` shares its Memory with the API); a
    user-facing error becomes the tool's error message."""
    try:
        with acting_as("mcp"):
            return call()
    except MemLensError as err:
        raise ToolError(str(err)) from None


def _version() -> str:
    try:
        return metadata.version("memlens")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


class _Server(MCPServer):
    """The SDK quotes a rejected argument's value in its validation error; an agent's wrong-typed
    argument may be a secret, so the error names the fields and the rules only."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                                 for err in exc.__cause__.errors(include_input=False, include_url=False))
            raise ToolError(f"invalid arguments for {name}: {problems}") from None


def build_server(memory: Memory) -> MCPServer:
    server = _Server("memlens", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")
    _reading_tools(server, memory)
    _writing_tools(server, memory)
    _curation_tools(server, memory)
    return server


def _reading_tools(server: MCPServer, memory: Memory) -> None:
    @server.tool()
    def memory_search(query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                                                  description="the question or keywords")],
                      top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="how many hits")] = 10,
                      scope: Annotated[Literal[SCOPES] | None, Field(description="only this scope")] = None,
                      tags: Annotated[list[Tag] | None, Field(max_length=50, description="only facts with all of "
                                                                                           "these tags")] = None,
                      ) -> dict[str, Any]:
        """Hybrid search (meaning and words, times freshness) over active facts; each hit has its id and score parts."""
        filters = _engine(lambda: SearchFilters(scope=scope, tags=tuple(tags or ())))
        return serialize.hits(*_engine(lambda: memory.search_timed(query, top_k=top_k, filters=filters)))

    @server.tool()
    def memory_get(fact_id: FactId, mode: Annotated[Literal[READ_MODES], Field(
            description="'active' (the record, or why it is not active), 'latest' (the newest version), "
                        "'full_history' (every version, oldest first)")] = "active") -> dict[str, Any]:
        """Read a fact by id."""
        return serialize.reading(_engine(lambda: memory.get(fact_id, mode)))

    @server.tool()
    def memory_snapshot(session_id: Annotated[str, Field(min_length=1, max_length=200,
                                                         description="the session this digest is for")],
                        query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS,
                                                           description="what the session is about")] = None,
                        max_chars: Annotated[int | None, Field(
                            ge=200, le=100_000, description="the digest's size budget in characters; "
                                                            "default [memory] snapshot_max_chars")] = None
                        ) -> dict[str, Any]:
        """The session's digest (profile, relevant facts, open TODOs, recent facts), frozen by the first call:
        later calls for the same session return the same text byte for byte."""
        return serialize.snapshot(_engine(lambda: memory.snapshot(session_id, query, max_chars)))

    @server.tool()
    def memory_timeline(fact_id: FactId, as_of: Annotated[str | None, Field(
            max_length=40, description="an ISO-8601 time; default now")] = None) -> dict[str, Any]:
        """A fact's versions (oldest first), the version current at a time and the contradictions open then,
        replayed from recorded times."""
        when = _engine(lambda: parse_time(as_of)) if as_of is not None else None
        return serialize.replay(_engine(lambda: memory.timeline_as_of(fact_id, when)))

    @server.tool()
    def memory_contradictions(limit: Annotated[int, Field(
            ge=1, le=10_000, description="at most this many pairs, oldest first")] = 100) -> dict[str, Any]:
        """The open contradicting pairs (both facts active, not settled), oldest first."""
        return serialize.contradictions(_engine(lambda: memory.contradictions(limit)))


def _writing_tools(server: MCPServer, memory: Memory) -> None:
    @server.tool()
    def memory_absorb(items: Annotated[list[Annotated[str, Field(max_length=100_000)] | dict[str, Any]], Field(
            min_length=1, max_length=MAX_ITEMS,
            description="fact texts, or objects with 'text' and optional scope, kind, tags, subject/predicate/"
                        "object, entities, relations, session_id, source")],
                      dry_run: DryRun = False) -> dict[str, Any]:
        """Store facts through the absorb pipeline (validation, secret rejection, dedup, supersede, contradict)."""
        return serialize.plan(_engine(lambda: memory.absorb(items, dry_run=dry_run)))

    @server.tool()
    def memory_plan_apply(plan_id: PlanId, only: Annotated[list[Annotated[int, Field(ge=0, le=1_000_000)]] | None,
                                                           Field(max_length=MAX_ITEMS,
                                                                 description="item indexes to apply; default all")]
                          = None) -> dict[str, Any]:
        """Apply a draft plan (made with dry_run), or only some of its items."""
        return serialize.plan(_engine(lambda: memory.apply_plan(plan_id, only)))

    @server.tool()
    def memory_plan_discard(plan_id: PlanId) -> dict[str, Any]:
        """Mark a draft plan discarded; nothing else changes."""
        return serialize.plan(_engine(lambda: memory.discard_plan(plan_id)))

    @server.tool()
    def memory_plan_revert(plan_id: PlanId, dry_run: DryRun = False) -> dict[str, Any]:
        """Undo an applied plan by a new plan (facts it added are archived, facts it retired made active again);
        nothing is deleted."""
        return serialize.plan(_engine(lambda: memory.revert_plan(plan_id, dry_run=dry_run)))


def _curation_tools(server: MCPServer, memory: Memory) -> None:
    @server.tool()
    def memory_version(fact_id: FactId, text: Annotated[str, Field(min_length=1, max_length=100_000,
                                                                   description="the new version's text")],
                       reason: Reason = None, dry_run: DryRun = False) -> dict[str, Any]:
        """Write a new version of an active fact; the old one becomes superseded. Scope, kind, tags, source,
        entities and relations carry over."""
        return serialize.plan(_engine(lambda: memory.version_fact(fact_id, text, reason=reason, dry_run=dry_run)))

    @server.tool()
    def memory_archive(fact_id: FactId, reason: Reason = None, dry_run: DryRun = False) -> dict[str, Any]:
        """Archive an active fact that no longer holds (it stays readable; search skips it)."""
        return serialize.plan(_engine(lambda: memory.archive_fact(fact_id, reason=reason, dry_run=dry_run)))

    @server.tool()
    def memory_tag(fact_id: FactId, add: Annotated[list[Tag], Field(
                       max_length=50, description="tags to add (kept once, compared without case)")] = [],  # noqa: B006
                   remove: Annotated[list[Tag], Field(
                       max_length=50, description="tags to remove, compared without case")] = [],  # noqa: B006
                   dry_run: DryRun = False) -> dict[str, Any]:
        """Add and remove a fact's tags."""
        return serialize.plan(_engine(lambda: memory.tag_fact(fact_id, add=add, remove=remove, dry_run=dry_run)))

    @server.tool()
    def memory_link(fact_id: FactId, other_id: FactId, type: Annotated[Literal[LINK_TYPES], Field(
            description="contradicts (they cannot both hold) or related")],
                    reason: Reason = None, dry_run: DryRun = False) -> dict[str, Any]:
        """Link two active facts."""
        return serialize.plan(_engine(lambda: memory.link_facts(fact_id, other_id, type, reason=reason,
                                                                dry_run=dry_run)))

    @server.tool()
    def memory_resolve(fact_id: FactId, other_id: FactId,
                       keep: Annotated[int | Literal["both"], Field(
                           description="the id that stays current (the other becomes its older version), "
                                       "or 'both' when both hold")],
                       reason: Reason = None, dry_run: DryRun = False) -> dict[str, Any]:
        """Settle an open contradiction between two facts."""
        return serialize.plan(_engine(lambda: memory.resolve_contradiction(fact_id, other_id, keep, reason=reason,
                                                                           dry_run=dry_run)))


def run_stdio(db: Path, settings: Settings, *, clock: Clock = system_clock) -> None:
    """Serve until the client closes stdin."""
    with Memory(db, settings, clock=clock, actor="mcp") as memory:
        anyio.run(_serve_stdio, build_server(memory))


async def _serve_stdio(server: MCPServer) -> None:
    """The SDK's stdio loop, except that a line that is not a JSON-RPC message gets the JSON-RPC
    parse error (-32700) the specification asks for, where the SDK would drop it without a word."""
    async with stdio_server() as (incoming, outgoing):
        checked_send, checked = anyio.create_memory_object_stream[Any](0)

        async def answer_garbage() -> None:
            async with checked_send:
                async for item in incoming:
                    if isinstance(item, Exception):
                        await outgoing.send(SessionMessage(mcp_types.JSONRPCError(
                            jsonrpc="2.0", id=None, error=mcp_types.ErrorData(
                                code=mcp_types.PARSE_ERROR, message="parse error: not a JSON-RPC 2.0 message"))))
                        continue
                    await checked_send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(answer_garbage)
            lowlevel = server._lowlevel_server  # the SDK's own run_stdio_async does the same
            await lowlevel.run(checked, outgoing, lowlevel.create_initialization_options())
