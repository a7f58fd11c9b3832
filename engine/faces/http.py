"""``memlens serve``: the HTTP API, a FastAPI app over one ``Memory`` (DESIGN §11).

One ``Memory`` serves every request. Its SQLite connection is made with
``check_same_thread=False`` and guarded by the store's lock, so the thread pool may share
it; one memory per request would instead re-load the vector index (0.7 s at 100k facts)
and the graph for every search. Other processes (the GUI, the CLI, an MCP server) write to
the same file meanwhile: WAL and the busy timeout order the writes, and the memory catches
up with theirs through the journal before each read.

Security: loopback by default; with a token every request, the schema included, needs
``Authorization: Bearer <token>``; any other address without a token is refused at
start-up. A request whose ``Host`` is not a loopback name, the bound address or one of
``[http] allowed_hosts`` gets 400, token or not (DNS rebinding). Bodies over
``[http] max_body_bytes`` get 413 before they are parsed. Without a token, a state-changing
request a browser labels as coming from another origin (``Origin``, ``Sec-Fetch-Site``)
gets 403 (``http_origin``). Every error is
``{"error": message}`` with its status and never a traceback. Every answer carries
``X-Content-Type-Options: nosniff`` and ``Cache-Control: no-store`` and no CORS header; the
access log has method, path and status, never the query string. There is no ``/docs``:
Swagger UI and ReDoc load from a CDN, which an offline machine cannot reach, and no
installed package ships their assets; ``/openapi.json`` is the schema.
"""

from __future__ import annotations

import copy
import hmac
import ipaddress
import logging
import os
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from engine import (Clock, Conflict, EmbeddingUnavailable, MemLensError, Memory, NotFound, PlanError, Settings,
                    StoreError, host_and_port, system_clock)
from engine.faces.http_origin import cross_origin_refusal
from engine.faces.http_routes import router

log = logging.getLogger("memlens.http")
access_log = logging.getLogger("memlens.http.access")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# nosniff: a browser must not run a JSON answer holding a fact's text as HTML or script;
# no-store: memory contents have no business in a browser's disk cache.
SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store"))
LOGGED_PATH_CHARS = 200
STATUS_OF: tuple[tuple[type[MemLensError], int], ...] = (
    (NotFound, 404), (Conflict, 409), (PlanError, 409), (StoreError, 503), (EmbeddingUnavailable, 503),
    (MemLensError, 400))
ASGI = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]


class ErrorBody(BaseModel):
    error: str


def _json_error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _send_error(send: Callable, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    response = _json_error(status, message, headers)
    await send({"type": "http.response.start", "status": status, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


class HostAllowList:
    """The ``Host`` names this server answers: loopback, plus what the caller adds.

    A name alone admits it on any port (an SSH tunnel or port forward changes the port the
    browser sees, not the name); ``name:port`` admits that port only.
    """

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.any_port: set[str] = set()
        self.on_port: set[tuple[str, int]] = set()
        for entry in (*LOOPBACK_HOSTS, *extra):
            name, port = host_and_port(entry)
            if port is None:
                self.any_port.add(name)
            else:
                self.on_port.add((name, port))

    def admits(self, raw: bytes) -> bool:
        try:
            name, port = host_and_port(raw.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            return False
        return name in self.any_port or (port is not None and (name, port) in self.on_port)


def _shown_path(scope: dict) -> str:
    """The path for the access log: never the query string (it may hold a token or a fact's
    text), control and non-ASCII bytes percent-encoded so a request cannot forge log lines."""
    raw = scope.get("raw_path") or scope.get("path", "").encode("utf-8")
    path = raw.partition(b"?")[0].decode("latin-1")
    shown = "".join(ch if 32 < ord(ch) < 127 else f"%{ord(ch):02X}" for ch in path)
    return shown if len(shown) <= LOGGED_PATH_CHARS else shown[:LOGGED_PATH_CHARS] + "..."


class Guard:
    """Pure ASGI middleware: the Host name first, then the bearer token, then the body size, then the app.

    The body is read here, up to the limit, and replayed to the app: a client that sends
    more (with or without Content-Length) gets 413 and the app never sees a byte of it.
    Every answer, refusals included, gets the security headers and one access-log line.
    """

    def __init__(self, app: ASGI, token: str | None, max_body: int, hosts: HostAllowList | None = None,
                 origin_checked_paths: frozenset[str] = frozenset()) -> None:
        """``origin_checked_paths`` get the cross-origin check on every request, with a token too (MCP's)."""
        self.app, self.token, self.max_body = app, token, max_body
        self.hosts = hosts if hosts is not None else HostAllowList()
        self.origin_checked_paths = origin_checked_paths

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def hardened(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
                client = scope.get("client")
                access_log.info('%s - "%s %s" %d', f"{client[0]}:{client[1]}" if client else "-",
                                scope.get("method", "-"), _shown_path(scope), message["status"])
            await send(message)

        hosts = [value for key, value in scope["headers"] if key.lower() == b"host"]
        if len(hosts) != 1 or not self.hosts.admits(hosts[0]):
            # The name is not echoed: it is whatever a hostile page's DNS made of it.
            return await _send_error(hardened, 400, "this server does not answer to that Host name; "
                                                    "add it to [http] allowed_hosts if it should")
        headers = {k.decode("latin-1").lower(): v for k, v in scope["headers"]}
        if self.token is not None:
            given = headers.get("authorization", b"")
            if not hmac.compare_digest(given, b"Bearer " + self.token.encode()):
                return await _send_error(hardened, 401, "missing or wrong bearer token",
                                         {"WWW-Authenticate": "Bearer"})
        strict = scope.get("path", "") in self.origin_checked_paths
        if (self.token is None or strict) and (refusal := cross_origin_refusal(
                scope.get("method", ""), scope.get("scheme", "http"), headers, every_method=strict)):
            return await _send_error(hardened, 403, refusal)
        length = headers.get("content-length", b"")
        if length.isdigit() and int(length) > self.max_body:
            return await _send_error(hardened, 413, f"the request body is over {self.max_body:,} bytes")
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body:
                return await _send_error(hardened, 413, f"the request body is over {self.max_body:,} bytes")
            if not message.get("more_body"):
                break
        body, replayed = b"".join(chunks), False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, hardened)


def _validation_message(err: RequestValidationError) -> str:
    """The first problem, by place and kind; pydantic's 'input' is left out (it may hold a secret)."""
    first = err.errors()[0] if err.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = len(err.errors()) - 1
    return f"{where}: {first.get('msg', 'invalid request')}" + (f" (and {more} more)" if more > 0 else "")


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(MemLensError)
    async def engine_error(_: Request, err: MemLensError) -> JSONResponse:
        status = next(code for kind, code in STATUS_OF if isinstance(err, kind))
        return _json_error(status, str(err))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        return _json_error(400, _validation_message(err))

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, err: HTTPException) -> JSONResponse:
        return _json_error(err.status_code, str(err.detail), getattr(err, "headers", None))

    @app.exception_handler(Exception)
    async def bug(request: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return _json_error(500, "internal error (a bug in MemLens); the server log has the details")


def _openapi(app: FastAPI, with_token: bool) -> Callable[[], dict[str, Any]]:
    """FastAPI's schema, corrected to what the app really answers: 400 (not 422) with ``ErrorBody``."""
    build = app.openapi

    def schema() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = build()
        for path in doc["paths"].values():
            for operation in path.values():
                operation["responses"].pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            doc.get("components", {}).get("schemas", {}).pop(name, None)
        if with_token:
            doc["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
            doc["security"] = [{"bearer": []}]
        app.openapi_schema = doc
        return doc

    return schema


def create_app(memory: Memory | None, *, token: str | None = None, max_body: int = 1_048_576,
               allowed_hosts: Iterable[str] = (), mcp: bool = True, api: bool = True) -> Any:
    """The ASGI app over ``memory`` (the caller opens and closes it), answering loopback
    ``Host`` names and ``allowed_hosts``: the API's routes unless ``api`` is false, and MCP over
    streamable HTTP at ``/mcp`` when ``mcp`` is true and there is a memory."""
    hosts = HostAllowList(allowed_hosts)
    routes, lifespan, origin_checked = [], None, frozenset()
    if mcp and memory is not None:
        from engine.faces.mcp_http import PATH, mcp_routes
        routes, lifespan = mcp_routes(memory, max_body=max_body)
        origin_checked = frozenset({PATH})
    errors = {400: {"model": ErrorBody, "description": "bad input"},
              413: {"model": ErrorBody, "description": "body too large"},
              503: {"model": ErrorBody, "description": "the memory file is locked, read-only or unusable"}}
    if token is not None:
        errors[401] = {"model": ErrorBody, "description": "missing or wrong bearer token"}
    else:
        errors[403] = {"model": ErrorBody, "description": "a write a browser sent from another origin"}
    # No docs_url / redoc_url: FastAPI's pages load Swagger UI / ReDoc from a CDN (useless
    # offline, and a third party in the page) and no installed package ships the assets.
    app = FastAPI(title="MemLens", version="0.1.0", responses=errors, docs_url=None, redoc_url=None,
                  description="An agent's long-term memory in one SQLite file: absorb, search, history, "
                              "graph, housekeeping plans, session snapshots and the profile.",
                  lifespan=lifespan, openapi_url="/openapi.json" if api else None)
    app.state.memory = memory
    if api:
        app.include_router(router, responses={404: {"model": ErrorBody, "description": "no such fact or plan"},
                                              409: {"model": ErrorBody, "description": "conflict or stale plan"}})
    app.router.routes.extend(routes)
    _install_errors(app)
    app.openapi = _openapi(app, token is not None)  # type: ignore[method-assign]
    return Guard(app, token, max_body, hosts, origin_checked)


def bound_host_names(host: str) -> tuple[str, ...]:
    """The Host name a client uses for the address the server listens on, if it is one.

    0.0.0.0 and :: are not names anyone addresses the server by (a browser that sends them
    is being steered, "0.0.0.0 day"); a client that reaches it by another name lists that
    name in ``[http] allowed_hosts``.
    """
    try:
        if ipaddress.ip_address(host).is_unspecified:
            return ()
    except ValueError:
        pass
    try:
        host_and_port(host)
    except ValueError:
        return ()
    return (host,)


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, with its access log replaced by ``Guard``'s (no query strings)."""
    from uvicorn.config import LOGGING_CONFIG
    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["memlens.http"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


def check_binding(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token."""
    if token is not None:
        return
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise MemLensError(f"refusing to listen on {host} without a token: anyone who can reach it could read "
                           f"and change this memory; set a token with --token-env VAR, or use 127.0.0.1")


def token_from_env(var: str | None) -> str | None:
    if var is None:
        return None
    token = os.environ.get(var, "")
    if not token.strip():
        raise MemLensError(f"--token-env {var}: that environment variable is not set or is empty")
    return token


def run_server(db: Path, settings: Settings, *, host: str, port: int, token_env: str | None,
               clock: Clock = system_clock, api: bool = True, actor: str = "http") -> int:
    """Serve until interrupted: the API and MCP at ``/mcp``, or (``api`` false) MCP alone."""
    import uvicorn
    token = token_from_env(token_env)
    check_binding(host, token)
    if not 0 <= port <= 65535:
        raise MemLensError(f"port must be from 0 to 65535, not {port}")
    with Memory(db, settings, clock=clock, actor=actor) as memory:
        memory.warm_up()
        app = create_app(memory, token=token, max_body=settings.http.max_body_bytes, api=api,
                         allowed_hosts=(*settings.http.allowed_hosts, *bound_host_names(host)))
        uvicorn.run(app, host=host, port=port, log_level="info", server_header=False, access_log=False,
                    log_config=_log_config())
    return 0
