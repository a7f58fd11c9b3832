"""A real ``memlens serve`` against what a hostile web page or a curious log reader can do
(issue 19, HTTP side): DNS rebinding through the Host header, secrets in the access log,
API docs that load from a CDN, and the headers a browser acts on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.api.conftest import free_port
from tests.cli.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "t0ken-for-served-tests"
FOREIGN = "rebind-attacker.example"
pytestmark = pytest.mark.slow


class Served:
    def __init__(self, proc: subprocess.Popen, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.url = f"http://127.0.0.1:{port}"

    def raw(self, request: bytes) -> bytes:
        """One request as bytes on a socket, for headers httpx will not send (none, or two Hosts)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            sock.sendall(request)
            chunks = []
            while chunk := sock.recv(65_536):
                chunks.append(chunk)
        return b"".join(chunks)


def _serve(tmp: Path, *args: str, config: str = "", env: dict[str, str] | None = None) -> Iterator[Served]:
    db, log, port = tmp / "memory.sqlite", tmp / "server.log", free_port()
    if config:
        (tmp / "memlens.toml").write_text(config, encoding="utf-8")
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db), *NOW, "serve",
                                 "--port", str(port), *args], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONPATH": str(ROOT), "MEMLENS_TOKEN": TOKEN, **(env or {})})
    served = Served(proc, port, log)
    try:
        deadline = time.monotonic() + 180  # start-up includes loading the model; not a timed assertion
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                httpx.get(served.url + "/openapi.json", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        yield served
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Tokenless, loopback, no config: the default a user gets from ``memlens serve``."""
    yield from _serve(tmp_path_factory.mktemp("open"))


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(tmp_path_factory.mktemp("token"), "--host", "127.0.0.1", "--token-env", "MEMLENS_TOKEN",
                      config='[http]\nallowed_hosts = ["memlens.lan", "box.lan:9000"]\nmax_body_bytes = 4096\n')


@pytest.mark.parametrize("host", [FOREIGN, f"{FOREIGN}:{{port}}", "127.0.0.1.rebind-attacker.example",
                                  "localhost.rebind-attacker.example:{port}", "[::2]:{port}", "0.0.0.0:{port}",
                                  "127.0.0.1:{port}@rebind-attacker.example", "127.1:{port}"])
def test_a_tokenless_server_refuses_a_foreign_host_name(open_server: Served, host: str) -> None:
    host = host.format(port=open_server.port)
    facts = httpx.get(open_server.url + "/stats").json()["facts"]
    for r in (httpx.get(open_server.url + "/stats", headers={"Host": host}),
              httpx.post(open_server.url + "/absorb", headers={"Host": host}, json={"items": ["A rebound write."]}),
              httpx.get(open_server.url + "/openapi.json", headers={"Host": host})):
        assert r.status_code == 400 and set(r.json()) == {"error"}, (host, r.status_code, r.text)
        assert "rebind-attacker" not in r.text and host not in r.text
    assert httpx.get(open_server.url + "/stats").json()["facts"] == facts  # the write never landed


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:{port}", "localhost", "LOCALHOST:{port}", "localhost.",
                                  "[::1]", "[::1]:{port}"])
def test_loopback_names_are_answered_with_or_without_the_port(open_server: Served, host: str) -> None:
    r = httpx.get(open_server.url + "/stats", headers={"Host": host.format(port=open_server.port)})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("request_bytes", [b"GET /stats HTTP/1.0\r\n\r\n",
                                           b"GET /stats HTTP/1.0\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n"])
def test_no_host_or_two_hosts_are_refused(open_server: Served, request_bytes: bytes) -> None:
    answer = open_server.raw(request_bytes)
    assert answer.startswith(b"HTTP/1.1 400") and b'"facts"' not in answer and b"evil" not in answer


def test_with_a_token_the_host_is_checked_too(token_server: Served) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    url = token_server.url + "/stats"
    foreign = httpx.get(url, headers={**auth, "Host": f"{FOREIGN}:{token_server.port}"})
    assert foreign.status_code == 400 and FOREIGN not in foreign.text
    assert httpx.get(url, headers={"Host": FOREIGN}).status_code == 400  # refused before the token is looked at
    assert httpx.get(url, headers=auth).status_code == 200
    assert httpx.get(url, headers={**auth, "Host": "memlens.lan:4000"}).status_code == 200
    assert httpx.get(url, headers={**auth, "Host": "box.lan:9000"}).status_code == 200
    assert httpx.get(url, headers={**auth, "Host": "box.lan:9001"}).status_code == 400
    assert httpx.get(url, headers={"Host": "memlens.lan"}).status_code == 401


def test_the_access_log_has_no_query_strings(open_server: Served) -> None:
    secret = "ghp_" + "".join(chr(ord("A") + (i * 7) % 26) for i in range(36))
    fact_words = "Maya-private-diagnosis"
    answers = [httpx.get(open_server.url + "/journal", params={"fact_id": 1, "x": secret}),
               httpx.get(open_server.url + "/graph/neighbors", params={"name": fact_words, "token": secret}),
               httpx.get(open_server.url + "/stats", headers={"Host": FOREIGN}, params={"q": secret})]
    log = open_server.log.read_text(encoding="utf-8", errors="replace")
    assert secret not in log and fact_words not in log and "fact_id=" not in log
    lines = log.splitlines()
    assert not [line for line in lines if '"GET ' in line and "?" in line]
    assert answers[2].status_code == 400
    # Still an access log: each request has its method, path and status.
    for method_path, status in (("GET /journal", answers[0].status_code),
                                ("GET /graph/neighbors", answers[1].status_code), ("GET /stats", 400)):
        assert any(method_path in line and line.rstrip().endswith(str(status)) for line in lines), (method_path, log)


def test_no_api_page_loads_from_another_host(open_server: Served) -> None:
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        r = httpx.get(open_server.url + path)
        assert r.status_code == 404 and "http" not in r.text, (path, r.text)
    schema = httpx.get(open_server.url + "/openapi.json")
    assert schema.status_code == 200 and schema.json()["paths"]


def _hardened(r: httpx.Response) -> None:
    assert r.headers.get("x-content-type-options") == "nosniff", (r.request.url, r.headers)
    assert r.headers.get("cache-control") == "no-store"
    assert not [k for k in r.headers if k.lower().startswith("access-control-")], r.headers


def test_every_answer_is_nosniff_and_carries_no_cors(open_server: Served) -> None:
    origin = {"Origin": "https://evil.example"}
    answers = [
        httpx.get(open_server.url + "/stats", headers=origin),
        httpx.post(open_server.url + "/absorb", headers=origin, json={"items": ["A cross-site write."]}),
        httpx.options(open_server.url + "/absorb", headers={**origin, "Access-Control-Request-Method": "POST",
                                                          "Access-Control-Request-Headers": "content-type"}),
        httpx.get(open_server.url + "/facts/99999", headers=origin),
        httpx.post(open_server.url + "/search", headers=origin, json={"query": 5}),
    ]
    # A cross-origin POST is refused since issue 26 (it was a write any web page could make).
    assert [r.status_code for r in answers] == [200, 403, 405, 404, 403]
    for r in answers:
        _hardened(r)


def test_the_guards_own_refusals_are_nosniff_too(open_server: Served, token_server: Served) -> None:
    origin, auth = {"Origin": "https://evil.example"}, {"Authorization": f"Bearer {TOKEN}"}
    refused = [httpx.get(open_server.url + "/stats", headers={**origin, "Host": FOREIGN}),
               httpx.get(token_server.url + "/stats", headers=origin),
               httpx.post(token_server.url + "/absorb", content=b"x" * 10_000, headers={**origin, **auth})]
    assert [r.status_code for r in refused] == [400, 401, 413]
    for r in refused:
        _hardened(r)
