"""MCP over streamable HTTP: the stdio server's tools (``engine.faces.mcp``) at ``/mcp`` (DESIGN §11).

``memlens serve`` mounts it beside the HTTP API and ``memlens mcp --http`` serves it alone; either
way the requests pass the HTTP API's ``Guard`` first, so the same ``Host`` allow-list, bearer token
and body limit hold. The SDK's own DNS-rebinding check is turned off because the ``Guard`` already
does it, with ``[http] allowed_hosts`` honoured the same way as for the API; what the ``Guard`` does
not look at is ``Origin``, which the MCP specification asks a server to check, so a browser page from
another origin is refused here with 403.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Callable

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route

from engine import Memory
from engine.faces.mcp import build_server

PATH = "/mcp"


class OriginCheck:
    """Refuse a request whose ``Origin`` names a host the allow-list would not admit (a web page's
    script); clients that are not browsers send no ``Origin`` and pass."""

    def __init__(self, app: Any, admits: Callable[[bytes], bool]) -> None:
        self.app, self.admits = app, admits

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http":
            origins = [value for key, value in scope["headers"] if key.lower() == b"origin"]
            if origins and not all(self._allowed(origin) for origin in origins):
                body = b'{"error": "requests from a web page on another origin are refused"}'
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

    def _allowed(self, origin: bytes) -> bool:
        scheme, _, rest = origin.partition(b"://")
        return scheme in (b"http", b"https") and bool(rest) and b"/" not in rest and self.admits(rest)


def mcp_routes(memory: Memory, *, max_body: int, admits: Callable[[bytes], bool]
               ) -> tuple[list[Route], Callable[[Any], contextlib.AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route over ``memory`` and the lifespan that runs its session manager (Starlette
    runs a lifespan only for the top-level app, so the caller installs it there)."""
    server = build_server(memory)
    app = server.streamable_http_app(
        streamable_http_path=PATH, max_request_body_size=max_body,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    manager: StreamableHTTPSessionManager = server.session_manager
    routes = [Route(PATH, endpoint=OriginCheck(route.endpoint, admits)) if isinstance(route, Route)
              and route.path == PATH else route for route in app.routes]

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return routes, lifespan
