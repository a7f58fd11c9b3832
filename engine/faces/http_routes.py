"""The HTTP API's routes: pydantic request models in, ``engine.faces.serialize`` shapes out.

No SQL and no rules here (STYLE §3): each handler checks the shape of its input, calls one
``Memory`` method and returns the same JSON the CLI prints with ``--json``. Handlers are
plain ``def``s, so FastAPI runs them in its thread pool and the event loop never waits on
SQLite or the embedder; the one shared ``Memory`` serialises them with its store lock.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from engine.faces import serialize
from engine import (KINDS, LINK_TYPES, MAX_ID, MAX_ITEMS, MAX_QUERY_CHARS, MAX_SESSION_ID, MAX_TOP_K, Memory,
                    PLAN_STATUSES, READ_MODES, SCOPES, SNAPSHOT_MAX_CHARS, SNAPSHOT_MIN_CHARS, STATUSES,
                    SearchFilters, parse_time)

Scope = Literal[SCOPES]
Kind = Literal[KINDS]
Status = Literal[STATUSES]
Mode = Literal[READ_MODES]
LinkType = Literal[LINK_TYPES]
Short = Annotated[str, Field(max_length=200)]
FactId = Annotated[int, Path(ge=1, le=MAX_ID, description="fact id")]
PlanId = Annotated[int, Path(ge=1, le=MAX_ID, description="plan id")]
Json = dict[str, Any]

router = APIRouter()


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AbsorbDefaults(Strict):
    scope: Scope | None = None
    kind: Kind | None = None
    tags: list[Short] | None = Field(None, max_length=50)
    session_id: Short | None = None


class AbsorbRequest(Strict):
    items: list[Annotated[str, Field(max_length=100_000)] | dict[str, Any]] = Field(
        min_length=1, max_length=MAX_ITEMS,
        description="fact texts, or objects with 'text' and any field the absorb pipeline accepts")
    dry_run: bool = False
    defaults: AbsorbDefaults | None = None


class SearchRequest(Strict):
    query: str = Field(max_length=MAX_QUERY_CHARS)
    top_k: int = Field(10, ge=1, le=MAX_TOP_K)
    scope: Scope | None = None
    kind: Kind | None = None
    statuses: list[Status] = Field(default_factory=lambda: ["active"], min_length=1, max_length=4)
    tags: list[Short] = Field(default_factory=list, max_length=50)
    since: Short | None = Field(None, description="ISO-8601 time")
    until: Short | None = Field(None, description="ISO-8601 time")
    min_confidence: float | None = Field(None, ge=0, le=1)


class GraphQueryRequest(Strict):
    start: Short
    steps: list[Short] = Field(min_length=1, max_length=4)
    type: Short | None = None
    include_inactive: bool = False


class DryRun(Strict):
    dry_run: bool = False


class DistillRequest(DryRun):
    session_id: Short | None = None


class AbstractRequest(DryRun):
    min_cluster: int = Field(3, ge=2, le=10_000)


class ApplyRequest(Strict):
    only: list[Annotated[int, Field(ge=0, le=1_000_000)]] | None = Field(None, max_length=MAX_ITEMS)


class SnapshotRequest(Strict):
    session_id: str = Field(min_length=1, max_length=MAX_SESSION_ID)
    query: str | None = Field(None, max_length=MAX_QUERY_CHARS)
    max_chars: int | None = Field(None, ge=SNAPSHOT_MIN_CHARS, le=SNAPSHOT_MAX_CHARS)


class ProfileSave(Strict):
    text: str = Field(max_length=65_536)
    expected_version: str = Field(min_length=1, max_length=100,
                                  description="the file's version from GET /profile ('absent' for a new file)")


def memory_of(request: Request) -> Memory:
    return request.app.state.memory


@router.post("/absorb", summary="absorb facts (a plan, applied unless dry_run)")
def absorb(request: Request, body: AbsorbRequest) -> Json:
    defaults = body.defaults.model_dump(exclude_none=True) if body.defaults else {}
    return serialize.plan(memory_of(request).absorb(body.items, dry_run=body.dry_run, defaults=defaults))


@router.post("/search", summary="hybrid search with score parts")
def search(request: Request, body: SearchRequest) -> Json:
    filters = SearchFilters(scope=body.scope, kind=body.kind, statuses=tuple(body.statuses),
                            tags=tuple(body.tags), min_confidence=body.min_confidence,
                            since=parse_time(body.since) if body.since is not None else None,
                            until=parse_time(body.until) if body.until is not None else None)
    hits, timing = memory_of(request).search_timed(body.query, top_k=body.top_k, filters=filters)
    return serialize.hits(hits, timing)


@router.get("/facts/{fact_id}", summary="read a fact: active, latest version, or full history")
def get_fact(request: Request, fact_id: FactId,
             mode: Mode = "active") -> Json:
    return serialize.reading(memory_of(request).get(fact_id, mode))


@router.get("/facts/{fact_id}/history", summary="every version of a fact, oldest first")
def history(request: Request, fact_id: FactId) -> Json:
    return serialize.reading(memory_of(request).history(fact_id))


@router.get("/journal", summary="journal entries, oldest first")
def journal(request: Request, fact_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
            after_id: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
            limit: Annotated[int, Query(ge=1, le=10_000)] = 200) -> list[Json]:
    return serialize.journal(memory_of(request).journal(fact_id, after_id, limit))


@router.get("/stats", summary="counts by status, edges, plans, embedding model")
def stats(request: Request) -> Json:
    return serialize.stats(memory_of(request).stats())


@router.get("/graph/neighbors", summary="entities within 1-4 relations of one entity")
def graph_neighbors(request: Request, name: Annotated[str, Query(max_length=200)],
                    type: Annotated[str | None, Query(max_length=200)] = None,
                    hops: Annotated[int, Query(ge=1, le=4)] = 1, include_inactive: bool = False) -> Json:
    found = memory_of(request).graph_neighbors(name, type=type, hops=hops, include_inactive=include_inactive)
    return serialize.neighbors(name, hops, found)


@router.post("/graph/query", summary="follow a typed path pattern of 1-4 steps")
def graph_query(request: Request, body: GraphQueryRequest) -> Json:
    matches = memory_of(request).graph_query(body.start, body.steps, type=body.type,
                                             include_inactive=body.include_inactive)
    return serialize.matches(body.start, body.steps, matches)


@router.get("/graph/path", summary="a shortest chain of relations between two entities")
def graph_path(request: Request, a: Annotated[str, Query(max_length=200)], b: Annotated[str, Query(max_length=200)],
               include_inactive: bool = False) -> Json:
    found = memory_of(request).graph_path(a, b, include_inactive=include_inactive)
    return serialize.path(a, b, found)


@router.post("/consolidate", summary="archive facts whose decayed confidence fell below the threshold")
def consolidate(request: Request, body: Annotated[DryRun, Body()] = DryRun()) -> Json:
    return serialize.plan(memory_of(request).consolidate(dry_run=body.dry_run))


@router.post("/gc", summary="expire past-TTL facts, archive stale run facts, compact big tag groups")
def gc(request: Request, body: Annotated[DryRun, Body()] = DryRun()) -> Json:
    return serialize.plan(memory_of(request).gc(dry_run=body.dry_run))


@router.post("/distill", summary="turn run facts of finished sessions into agent knowledge")
def distill(request: Request, body: Annotated[DistillRequest, Body()] = DistillRequest()) -> Json:
    return serialize.plan(memory_of(request).distill(session_id=body.session_id, dry_run=body.dry_run))


@router.post("/abstract", summary="derive general facts from same-subject clusters (needs an LLM)")
def abstract(request: Request, body: Annotated[AbstractRequest, Body()] = AbstractRequest()) -> Json:
    return serialize.abstract_report(memory_of(request).abstract(min_cluster=body.min_cluster, dry_run=body.dry_run))


@router.get("/plans", summary="stored plans, newest first")
def plans(request: Request, status: Literal[PLAN_STATUSES] | None = None,
          limit: Annotated[int, Query(ge=1, le=10_000)] = 200) -> list[Json]:
    return serialize.plans(memory_of(request).plans(status, limit))


@router.get("/plans/{plan_id}", summary="one plan with all its items")
def plan(request: Request, plan_id: PlanId) -> Json:
    return serialize.plan(memory_of(request).plan(plan_id))


@router.post("/plans/{plan_id}/apply", summary="apply a draft plan, or only some of its items")
def apply_plan(request: Request, plan_id: PlanId, body: Annotated[ApplyRequest, Body()] = ApplyRequest()) -> Json:
    return serialize.plan(memory_of(request).apply_plan(plan_id, body.only))


@router.post("/plans/{plan_id}/discard", summary="mark a draft plan discarded")
def discard_plan(request: Request, plan_id: PlanId) -> Json:
    return serialize.plan(memory_of(request).discard_plan(plan_id))


@router.post("/snapshot", summary="the session's frozen digest (made by the first call)")
def snapshot(request: Request, body: SnapshotRequest) -> Json:
    return serialize.snapshot(memory_of(request).snapshot(body.session_id, body.query, body.max_chars))


@router.get("/profile", summary="MEMORY.md and USER.md with versions and the budget")
def profile(request: Request) -> Json:
    return serialize.profile(memory_of(request).profile())


@router.put("/profile/{name}", summary="replace a profile file if it is still at expected_version")
def save_profile(request: Request, name: Literal["MEMORY.md", "USER.md"], body: ProfileSave) -> Json:
    return serialize.profile(memory_of(request).save_profile(name, body.text, body.expected_version))


# -- curation: each a plan, applied unless dry_run ------------------------------------------------
Reason = Annotated[str | None, Field(None, max_length=500, description="why; kept in the plan and the journal")]
OtherId = Annotated[int, Field(ge=1, le=MAX_ID, description="the other fact's id")]
TagList = Annotated[list[Short], Field(default_factory=list, max_length=50)]


class VersionRequest(DryRun):
    text: str = Field(max_length=100_000, description="the new version's text")
    reason: Reason = None


class ArchiveRequest(DryRun):
    reason: Reason = None


class TagRequest(DryRun):
    add: TagList
    remove: TagList


class LinkRequest(DryRun):
    to_id: OtherId
    type: LinkType = Field(description="contradicts or related")
    reason: Reason = None


class ResolveRequest(DryRun):
    fact_id: OtherId
    other_id: OtherId
    keep: Annotated[int, Field(ge=1, le=MAX_ID)] | Literal["both"] = Field(
        description="the id that stays current (the other becomes its older version), or 'both'")
    reason: Reason = None


@router.post("/facts/{fact_id}/version", summary="a new version of an active fact (keeps tags, source, entities)")
def version_fact(request: Request, fact_id: FactId, body: VersionRequest) -> Json:
    return serialize.plan(memory_of(request).version_fact(fact_id, body.text, reason=body.reason,
                                                          dry_run=body.dry_run))


@router.post("/facts/{fact_id}/archive", summary="archive an active fact (it stays readable)")
def archive_fact(request: Request, fact_id: FactId, body: Annotated[ArchiveRequest, Body()] = ArchiveRequest()) -> Json:
    return serialize.plan(memory_of(request).archive_fact(fact_id, reason=body.reason, dry_run=body.dry_run))


@router.post("/facts/{fact_id}/tags", summary="add and remove tags")
def tag_fact(request: Request, fact_id: FactId, body: TagRequest) -> Json:
    return serialize.plan(memory_of(request).tag_fact(fact_id, add=body.add, remove=body.remove,
                                                      dry_run=body.dry_run))


@router.post("/facts/{fact_id}/links", summary="link two active facts as contradicting or related")
def link_facts(request: Request, fact_id: FactId, body: LinkRequest) -> Json:
    return serialize.plan(memory_of(request).link_facts(fact_id, body.to_id, body.type, reason=body.reason,
                                                        dry_run=body.dry_run))


@router.get("/facts/{fact_id}/timeline", summary="versions, the current one and open contradictions as of a time")
def timeline(request: Request, fact_id: FactId,
             as_of: Annotated[str | None, Query(max_length=40, description="ISO-8601 time; default now")] = None) -> Json:
    when = parse_time(as_of) if as_of is not None else None
    return serialize.replay(memory_of(request).timeline_as_of(fact_id, when))


@router.get("/contradictions", summary="the open contradicting pairs, oldest first")
def contradictions(request: Request, limit: Annotated[int, Query(ge=1, le=100_000)] = 1000) -> Json:
    return serialize.contradictions(memory_of(request).contradictions(limit))


@router.post("/contradictions/resolve", summary="keep one fact of an open contradicting pair, or both")
def resolve_contradiction(request: Request, body: ResolveRequest) -> Json:
    return serialize.plan(memory_of(request).resolve_contradiction(body.fact_id, body.other_id, body.keep,
                                                                   reason=body.reason, dry_run=body.dry_run))


@router.post("/plans/{plan_id}/revert", summary="a new plan undoing an applied plan (nothing is deleted)")
def revert_plan(request: Request, plan_id: PlanId, body: Annotated[DryRun, Body()] = DryRun()) -> Json:
    return serialize.plan(memory_of(request).revert_plan(plan_id, dry_run=body.dry_run))
