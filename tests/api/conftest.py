"""Fixtures for the HTTP and MCP front ends: an app over the test memory, and a free port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

import pytest
from starlette.testclient import TestClient

from engine import Memory
from engine.faces.http import create_app


@pytest.fixture
def app(memory: Memory):
    return create_app(memory, max_body=64_000)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serving(db: Path, *args: str, serve_args: tuple[str, ...] = (),
            env: dict[str, str] | None = None) -> Iterator[str]:
    """``memlens --db DB ARGS serve SERVE_ARGS`` as a real process on a free loopback port; yields its URL."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db), *args, "serve",
                               "--port", str(port), *serve_args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # wait for it to listen (model load included); not a timed assertion
            try:
                httpx.get(url + "/stats", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read().decode()
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
