"""Fixtures for the HTTP and MCP front ends: an app over the test memory, and a free port."""

from __future__ import annotations

import socket
from typing import Iterator

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
