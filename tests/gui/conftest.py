"""GUI fixtures: the demo memory built once, a fresh copy per test, a window over it.

The window runs the real engine and the real offline model; only the file is
copied, so each test can write freely.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest
from PySide6.QtCore import QSettings

from engine import Memory, Settings, resource_path
from gui.main_window import MainWindow
from gui.session import Session

WAIT_MS = 20_000


@pytest.fixture(scope="session")
def demo_file(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with Memory(path, Settings(), actor="test", embedder=embedder) as memory:
        memory.import_file(resource_path("demo", "memory.jsonl"))
    return path


@pytest.fixture
def demo_copy(demo_file: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "memory.sqlite"
    shutil.copy(demo_file, copy)
    return copy


@pytest.fixture
def session(qtbot, embedder) -> Iterator[Session]:
    def factory(path: Path, create: bool = True) -> Memory:
        return Memory(path, Settings(), actor="gui", embedder=embedder, create=create)

    session = Session(memory_factory=factory)
    yield session
    session.shutdown()


@pytest.fixture
def window(qtbot, session: Session, tmp_path: Path) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    yield window
    window.close()


def open_file(qtbot, window: MainWindow, path: Path, **kwargs) -> None:
    with qtbot.waitSignal(window.session.opened, timeout=WAIT_MS):
        window.session.open(path, **kwargs)


def settle(qtbot, window: MainWindow) -> None:
    """Wait until no engine job is queued or running (the model and vectors loading included)."""
    qtbot.waitUntil(lambda: not window.session.runner.busy and not window.session.loader.busy
                    and not window.search._debounce.isActive(), timeout=WAIT_MS)

