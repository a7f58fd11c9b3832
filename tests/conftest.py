"""Shared fixtures: a fixed clock, a real embedder loaded once, and memories closed after each test.

The tests use the real offline embedding model (what users get); it loads
once per test session in ~0.3 s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

# The GUI tests render offscreen; set before any QApplication exists.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Search's cross-encoder pass costs ~0.1-0.5 s a search: tests not about it run without it (subprocesses
# inherit this); tests/engine/search/test_cross_rerank.py and the faces' tests of it turn it on.
os.environ["MEMLENS_CROSS_ENCODER_DEPTH"] = "0"

from engine import Memory, Settings, fixed_clock, parse_time
from engine.models.embeddings import shared_embedder

NOW = parse_time("2026-11-30T12:00:00Z")
DAY = 86_400.0


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's memory or config."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.delenv("MEMLENS_DB", raising=False)


@pytest.fixture(scope="session")
def embedder():
    return shared_embedder()


class Clock:
    """A settable clock for tests that move time forward."""

    def __init__(self, at: float = NOW) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at

    def advance(self, days: float) -> None:
        self.at += days * DAY


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.sqlite"


@pytest.fixture
def memory(db_path: Path, clock: Clock, embedder) -> Iterator[Memory]:
    with Memory(db_path, Settings(), clock=clock, actor="test", embedder=embedder) as mem:
        yield mem


def texts_of(plan) -> list[str]:
    return [it.outcome for it in plan.items]
