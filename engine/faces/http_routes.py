"""The HTTP API's routes: pydantic request models in, the facade's ``to_dict`` shapes out.

No SQL and no rules here (STYLE §3): each handler checks the shape of its input, calls one
``Memory`` method and returns the same JSON the CLI prints with ``--json``. Handlers are
plain ``def``s, so FastAPI runs them in its thread pool and the event loop never waits on
SQLite or the embedder; the one shared ``Memory`` serialises them with its store lock.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from engine.faces.cli.render import plan_json
from engine.clock import parse_time
from engine.memory import Memory
from engine.search.service import MAX_QUERY_CHARS, MAX_TOP_K
from engine.search.hybrid import SearchFilters
from engine.agents.snapshot import MAX_CHARS, MAX_SESSION_ID, MIN_CHARS

MAX_ITEMS = 1000
MAX_ID = 2**63 - 1  # SQLite's INTEGER range: a larger id is a 400, never an overflow
Scope = Literal["agent", "user", "run"]
Kind = Literal["explicit", "user_preference", "episodic", "derived"]
Status = Literal["active", "superseded", "archived", "expired"]
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
    max_chars: int | None = Field(None, ge=MIN_CHARS, le=MAX_CHARS)


class ProfileSave(Strict):
    text: str = Field(max_length=65_536)
    expected_version: str = Field(min_length=1, max_length=100,
                                  description="the file's version from GET /profile ('absent' for a new file)")


def memory_of(request: Request) -> Memory:
    return request.app.state.memory


@router.post("/absorb", summary="absorb facts (a plan, applied unless dry_run)")
def absorb(request: Request, body: AbsorbRequest) -> Json:
    defaults = body.defaults.model_dump(exclude_none=True) if body.defaults else {}
    return plan_json(memory_of(request).absorb(body.items, dry_run=body.dry_run, defaults=defaults))


@router.post("/search", summary="hybrid search with score parts")
def search(request: Request, body: SearchRequest) -> Json:
    filters = SearchFilters(scope=body.scope, kind=body.kind, statuses=tuple(dict.fromkeys(body.statuses)),
                            tags=tuple(body.tags), min_confidence=body.min_confidence,
                            since=parse_time(body.since) if body.since is not None else None,
                            until=parse_time(body.until) if body.until is not None else None)
    hits = memory_of(request).search(body.query, top_k=body.top_k, filters=filters)
    return {"results": [h.to_dict() for h in hits]}


@router.get("/facts/{fact_id}", summary="read a fact: active, latest version, or full history")
def get_fact(request: Request, fact_id: FactId,
             mode: Literal["active", "latest", "full_history"] = "active") -> Json:
    return memory_of(request).get(fact_id, mode).to_dict()


@router.get("/facts/{fact_id}/history", summary="every version of a fact, oldest first")
def history(request: Request, fact_id: FactId) -> Json:
    return memory_of(request).history(fact_id).to_dict()


@router.get("/journal", summary="journal entries, oldest first")
def journal(request: Request, fact_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
            after_id: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
            limit: Annotated[int, Query(ge=1, le=10_000)] = 200) -> list[Json]:
    return [e.to_dict() for e in memory_of(request).journal(fact_id, after_id, limit)]


@router.get("/stats", summary="counts by status, edges, plans, embedding model")
def stats(request: Request) -> Json:
    return memory_of(request).stats()


@router.get("/graph/neighbors", summary="entities within 1-4 relations of one entity")
def graph_neighbors(request: Request, name: Annotated[str, Query(max_length=200)],
                    type: Annotated[str | None, Query(max_length=200)] = None,
                    hops: Annotated[int, Query(ge=1, le=4)] = 1, include_inactive: bool = False) -> Json:
    found = memory_of(request).graph_neighbors(name, type=type, hops=hops, include_inactive=include_inactive)
    return {"entity": name, "hops": hops, "neighbors": [n.to_dict() for n in found]}


@router.post("/graph/query", summary="follow a typed path pattern of 1-4 steps")
def graph_query(request: Request, body: GraphQueryRequest) -> Json:
    matches = memory_of(request).graph_query(body.start, body.steps, type=body.type,
                                             include_inactive=body.include_inactive)
    return {"start": body.start, "steps": body.steps, "matches": [m.to_dict() for m in matches]}


@router.get("/graph/path", summary="a shortest chain of relations between two entities")
def graph_path(request: Request, a: Annotated[str, Query(max_length=200)], b: Annotated[str, Query(max_length=200)],
               include_inactive: bool = False) -> Json:
    found = memory_of(request).graph_path(a, b, include_inactive=include_inactive)
    return {"a": a, "b": b, "path": None if found is None else found.to_dict()}


@router.post("/consolidate", summary="archive facts whose decayed confidence fell below the threshold")
def consolidate(request: Request, body: Annotated[DryRun, Body()] = DryRun()) -> Json:
    return plan_json(memory_of(request).consolidate(dry_run=body.dry_run))


@router.post("/gc", summary="expire past-TTL facts, archive stale run facts, compact big tag groups")
def gc(request: Request, body: Annotated[DryRun, Body()] = DryRun()) -> Json:
    return plan_json(memory_of(request).gc(dry_run=body.dry_run))


@router.post("/distill", summary="turn run facts of finished sessions into agent knowledge")
def distill(request: Request, body: Annotated[DistillRequest, Body()] = DistillRequest()) -> Json:
    return plan_json(memory_of(request).distill(session_id=body.session_id, dry_run=body.dry_run))


@router.post("/abstract", summary="derive general facts from same-subject clusters (needs an LLM)")
def abstract(request: Request, body: Annotated[AbstractRequest, Body()] = AbstractRequest()) -> Json:
    return memory_of(request).abstract(min_cluster=body.min_cluster, dry_run=body.dry_run).to_dict()


@router.get("/plans", summary="stored plans, newest first")
def plans(request: Request, status: Literal["draft", "applied", "refused", "discarded"] | None = None,
          limit: Annotated[int, Query(ge=1, le=10_000)] = 200) -> list[Json]:
    return [p.to_dict() for p in memory_of(request).plans(status, limit)]


@router.get("/plans/{plan_id}", summary="one plan with all its items")
def plan(request: Request, plan_id: PlanId) -> Json:
    return memory_of(request).plan(plan_id).to_dict()


@router.post("/plans/{plan_id}/apply", summary="apply a draft plan, or only some of its items")
def apply_plan(request: Request, plan_id: PlanId, body: Annotated[ApplyRequest, Body()] = ApplyRequest()) -> Json:
    return plan_json(memory_of(request).apply_plan(plan_id, body.only))


@router.post("/plans/{plan_id}/discard", summary="mark a draft plan discarded")
def discard_plan(request: Request, plan_id: PlanId) -> Json:
    return memory_of(request).discard_plan(plan_id).to_dict()


@router.post("/snapshot", summary="the session's frozen digest (made by the first call)")
def snapshot(request: Request, body: SnapshotRequest) -> Json:
    return memory_of(request).snapshot(body.session_id, body.query, body.max_chars).to_dict()


@router.get("/profile", summary="MEMORY.md and USER.md with versions and the budget")
def profile(request: Request) -> Json:
    return memory_of(request).profile().to_dict()


@router.put("/profile/{name}", summary="replace a profile file if it is still at expected_version")
def save_profile(request: Request, name: Literal["MEMORY.md", "USER.md"], body: ProfileSave) -> Json:
    return memory_of(request).save_profile(name, body.text, body.expected_version).to_dict()
