"""Refusing writes a web page makes: the browser says where a request comes from, and we listen.

Without a token, ``memlens serve`` cannot tell a person's script from a page in their browser
that POSTs to ``http://127.0.0.1:8080`` with ``mode: "no-cors"``: the browser sends such a
"simple" request without asking first, the Host check passes (the name really is loopback),
and the write happens even though the page never reads the answer. Browsers label every
request: ``Sec-Fetch-Site`` (cross-site, same-site, same-origin, none) and ``Origin`` on every
POST. A state-changing request is refused when either says it came from another origin;
a request with neither (curl, an HTTP library, an agent) is not a browser's and goes on.
``same-site`` is refused too: a page served by another port of localhost is same-site.
With a token nothing changes: a page cannot send the bearer header without a CORS
preflight, which this server never grants. MCP's endpoint is stricter, as its specification asks:
there every request, reads and the event stream included, token or not, gets the same check.
"""

from __future__ import annotations

from engine import host_and_port

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_ALLOWED_FETCH_SITES = frozenset({b"same-origin", b"none"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
REFUSAL = "cross-origin writes are refused: this server changes memory only for its own pages and for non-browser clients"


def cross_origin_refusal(method: str, scheme: str, headers: dict[str, bytes], *,
                         every_method: bool = False) -> str | None:
    """The one-line refusal for a state-changing request (any request with ``every_method``) a browser
    sent from another origin, else None.

    ``headers`` are lower-cased names; ``host`` has already passed the allow-list."""
    if not every_method and method.upper() in SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in _ALLOWED_FETCH_SITES:
        return REFUSAL
    origin = headers.get("origin")
    if origin is not None and not _same_origin(origin, scheme, headers.get("host", b"")):
        return REFUSAL
    return None


def _same_origin(origin: bytes, scheme: str, host: bytes) -> bool:
    """Whether ``Origin`` names this server: the same scheme, name and port as the request's Host."""
    try:
        origin_text, host_text = origin.decode("ascii").strip(), host.decode("ascii")
        origin_scheme, sep, rest = origin_text.partition("://")
        if not sep or "/" in rest or origin_scheme.lower() != scheme:
            return False  # "null" (a sandboxed page, a file:// page, a redirect) lands here too
        default = _DEFAULT_PORTS.get(scheme)
        origin_name, origin_port = host_and_port(rest)
        host_name, host_port = host_and_port(host_text)
    except (UnicodeDecodeError, ValueError):
        return False
    return origin_name == host_name and (origin_port or default) == (host_port or default)
