"""MCP over streamable HTTP: the stdio server's tools (``engine.faces.mcp``) at ``/mcp`` (DESIGN §11).

``memlens serve`` mounts it beside the HTTP API and ``memlens mcp --http`` serves it alone; either
way the requests pass the HTTP API's ``Guard`` first, so the same ``Host`` allow-list, bearer token
and body limit hold. The SDK's own DNS-rebinding check is turned off because the ``Guard`` already
does it, with ``[http] allowed_hosts`` honoured the same way as for the API. The MCP specification asks
a server to check ``Origin`` on every request: the ``Guard`` does, for this path, on reads and with a
token too (``http_origin``), so a browser page from another origin gets 403.
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


def mcp_routes(memory: Memory, *, max_body: int
               ) -> tuple[list[Route], Callable[[Any], contextlib.AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route over ``memory`` and the lifespan that runs its session manager (Starlette
    runs a lifespan only for the top-level app, so the caller installs it there)."""
    server = build_server(memory)
    app = server.streamable_http_app(
        streamable_http_path=PATH, max_request_body_size=max_body,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    manager: StreamableHTTPSessionManager = server.session_manager
    routes = list(app.routes)

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return routes, lifespan
