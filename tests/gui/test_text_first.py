"""A large file's first search does not wait for the model and the vectors (issue 29): the words answer
at once, the pane says so, and once the vectors are loaded the same query is asked again by meaning too.

The model's load is held back by an event the test sets: the real offline embedder, behind a gate.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from engine import Memory, Settings
from gui.main_window import MainWindow
from gui.panes.search import TEXT_ONLY_NOTE
from gui.session import Session
from tests.gui.conftest import WAIT_MS, open_file


class HeldBackModel:
    """The real embedder, not ``ready`` (so still loading, as far as search can tell) until ``gate`` is set."""

    def __init__(self, real, gate: threading.Event) -> None:
        self.real, self.gate = real, gate
        self.model_id, self.dim = real.model_id, real.dim

    @property
    def ready(self) -> bool:
        return self.gate.is_set()

    def embed(self, texts) -> np.ndarray:
        assert self.gate.wait(WAIT_MS / 1000), "the test never let the model load"
        return self.real.embed(texts)


@pytest.fixture
def gated(qtbot, embedder, tmp_path: Path) -> Iterator[tuple[MainWindow, threading.Event]]:
    gate = threading.Event()
    model = HeldBackModel(embedder, gate)
    session = Session(memory_factory=lambda path, create=True: Memory(path, Settings(), actor="gui", embedder=model,
                                                                      create=create))
    window = MainWindow(session, QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    yield window, gate
    gate.set()  # whatever happened, the loader thread must be able to finish
    window.close()
    session.shutdown()


def test_the_first_search_is_answered_by_the_words_while_the_vectors_load(qtbot, gated, demo_copy) -> None:
    window, gate = gated
    open_file(qtbot, window, demo_copy)
    qtbot.waitUntil(lambda: window.session.loader.busy, timeout=WAIT_MS)  # the warm-up started, and waits
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS):
        window.search.query.setText("Northwind warehouse robots")
    assert window.search.text_only and not gate.is_set()
    assert TEXT_ONLY_NOTE in window.search.status.text()
    hits = [window.search.model.hit(row) for row in range(window.search.model.rowCount())]
    assert hits and all(h.cosine == 0.0 and h.bm25 > 0 for h in hits)
    assert any("Northwind" in h.fact.text for h in hits)

    # The model loads: the pane asks the same query again, by meaning too, and drops the note.
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS):
        gate.set()
    assert not window.search.text_only
    assert TEXT_ONLY_NOTE not in window.search.status.text()
    hits = [window.search.model.hit(row) for row in range(window.search.model.rowCount())]
    assert hits and any(h.cosine > 0 for h in hits)
