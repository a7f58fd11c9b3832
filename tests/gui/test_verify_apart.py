"""The file check runs beside the window's work, not in front of it (issue 18): a search typed while
the file is being checked gets its results first, and a check of a file no longer open says nothing."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from engine import Memory, Settings, Verification
from gui.main_window import MainWindow
from gui.session import Session
from tests.gui.conftest import WAIT_MS, open_file, settle


class HeldMemory(Memory):
    """A memory whose background check waits, once it has started, until the test releases it."""

    started: threading.Event
    release: threading.Event
    returned: threading.Event

    def verify_apart(self, stopped: Callable[[], bool] = lambda: False) -> Verification | None:
        self.stopped = stopped
        self.started.set()
        assert self.release.wait(WAIT_MS / 1000)
        try:
            return super().verify_apart(stopped)
        finally:
            self.returned.set()


@pytest.fixture
def held(qtbot, embedder, tmp_path: Path) -> Iterator[tuple[MainWindow, dict[Path, HeldMemory]]]:
    opened: dict[Path, HeldMemory] = {}

    def factory(path: Path, create: bool = True) -> Memory:
        memory = HeldMemory(path, Settings(), actor="gui", embedder=embedder, create=create)
        memory.started, memory.release, memory.returned = threading.Event(), threading.Event(), threading.Event()
        opened[path] = memory
        return memory

    def release_all(_window: MainWindow) -> None:
        for memory in opened.values():
            memory.release.set()

    session = Session(memory_factory=factory)
    window = MainWindow(session, QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    # pytest-qt closes the window before this fixture's teardown runs, and closing waits for the check:
    # a check still held would keep it waiting until the release's own deadline.
    qtbot.addWidget(window, before_close_func=release_all)
    window.resize(1400, 900)
    window.show()
    yield window, opened
    release_all(window)
    window.close()
    session.shutdown()


def test_a_search_typed_while_the_file_is_checked_gets_its_results_first(qtbot, held, demo_copy: Path) -> None:
    window, opened = held
    order: list[str] = []
    window.session.verified.connect(lambda _v: order.append("verified"))
    open_file(qtbot, window, demo_copy)
    memory = opened[demo_copy]
    qtbot.waitUntil(memory.started.is_set, timeout=WAIT_MS)  # the check is under way, and held there
    window.search.query.setFocus()
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS,
                          check_params_cb=lambda _n: window.search.query.text() == "Maya editor"):
        QTest.keyClicks(window.search.query, "Maya editor")
    order.append("searched")
    assert window.search.model.rowCount() > 0
    assert window.integrity_label.text() == "verifying…"
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS) as verified:
        memory.release.set()
    assert order == ["searched", "verified"]
    assert not verified.args[0].problems and window.integrity_label.text() == "✓ verified"


def test_a_check_of_the_previous_file_never_shows_its_verdict(qtbot, held, demo_copy: Path, tmp_path: Path) -> None:
    window, opened = held
    tampered = tmp_path / "tampered.sqlite"
    shutil.copy(demo_copy, tampered)
    db = sqlite3.connect(tampered)
    db.execute("DROP TRIGGER facts_immutable")
    db.execute("UPDATE facts SET text = 'Maya prefers Emacs.' WHERE id = 41")
    db.commit()
    db.close()
    verdicts: list[Verification] = []
    window.session.verified.connect(verdicts.append)
    open_file(qtbot, window, tampered)
    qtbot.waitUntil(opened[tampered].started.is_set, timeout=WAIT_MS)
    open_file(qtbot, window, demo_copy)  # while the tampered file's check is held
    opened[tampered].release.set()  # it finishes (or stops) now, after the switch
    assert opened[tampered].returned.wait(WAIT_MS / 1000)
    qtbot.wait(100)  # any answer of the first file's check, queued to the UI thread, arrives meanwhile
    assert verdicts == [] and window.integrity_label.text() == "verifying…"
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS):
        opened[demo_copy].release.set()
    assert len(verdicts) == 1 and not verdicts[0].problems
    assert window.integrity_label.text() == "✓ verified"


def test_the_tampered_file_still_reports_through_the_check_apart(qtbot, held, demo_copy: Path) -> None:
    db = sqlite3.connect(demo_copy)
    db.execute("DROP TRIGGER facts_immutable")
    db.execute("UPDATE facts SET text = 'Maya prefers Emacs.' WHERE id = 41")
    db.commit()
    db.close()
    window, opened = held
    open_file(qtbot, window, demo_copy)
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS) as verified:
        opened[demo_copy].release.set()
    # Since issue 26 the dropped trigger and the replay (the exact text's digest) are reported too.
    problems = [(p.check, p.where) for p in verified.args[0].problems]
    assert problems[0] == ("triggers", "facts_immutable") and ("facts", "fact 41") in problems
    assert problems[-1] == ("fts", None)
    assert "integrity problem" in window.integrity_label.text() and "41" in window.integrity_label.toolTip()


def _poll(memory: HeldMemory) -> tuple[threading.Thread, list[bool]]:
    """The check's next poll, made from a thread of its own: a poll that waits never holds the test."""
    answers: list[bool] = []
    polling = threading.Thread(target=lambda: answers.append(memory.stopped()), daemon=True)
    polling.start()
    return polling, answers


def _turn_the_wheel(window: MainWindow) -> None:
    viewport = window.search.table.viewport()
    at = QPointF(viewport.rect().center())
    QApplication.sendEvent(viewport, QWheelEvent(at, QPointF(viewport.mapToGlobal(at.toPoint())), QPoint(),
                                                 QPoint(0, -120), Qt.MouseButton.NoButton,
                                                 Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))


@pytest.mark.parametrize("person", ["types", "scrolls"])
def test_the_check_waits_while_a_person_types_or_scrolls(qtbot, held, demo_copy: Path, monkeypatch,
                                                         person: str) -> None:
    import gui.session
    monkeypatch.setattr(gui.session, "INTERACTION_QUIET_S", 3600.0)  # "a moment" that lasts until the check is stopped
    window, opened = held
    window.resize(1024, 700)  # the demo's listing is taller than the table: it can scroll
    open_file(qtbot, window, demo_copy)
    memory = opened[demo_copy]
    qtbot.waitUntil(memory.started.is_set, timeout=WAIT_MS)
    settle(qtbot, window)  # the first rows are in: the app has laid out and scrolled its own way
    polling, answers = _poll(memory)
    polling.join(WAIT_MS / 1000)
    assert answers == [False]  # nobody has typed or scrolled yet: the check goes on
    bar = window.search.table.verticalScrollBar()
    if person == "types":
        window.search.query.setFocus()
        QTest.keyClicks(window.search.query, "M")
    else:
        qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
        _turn_the_wheel(window)
        assert bar.value() > 0
    polling, answers = _poll(memory)
    polling.join(0.2)
    assert polling.is_alive() and not answers  # the check's next poll waits
    window.session.close()  # closing the file stops the check, waiting or not
    polling.join(WAIT_MS / 1000)
    assert answers == [True]


def test_the_apps_own_scrolling_does_not_hold_the_check(qtbot, held, demo_copy: Path, monkeypatch) -> None:
    """Rows loading, a fact brought into view, the place restored after a write: the view scrolls, and
    the check goes on as if nobody were there (it took them for a person's: issue 24)."""
    import gui.session
    monkeypatch.setattr(gui.session, "INTERACTION_QUIET_S", 3600.0)
    window, opened = held
    window.resize(1024, 700)
    open_file(qtbot, window, demo_copy)
    memory = opened[demo_copy]
    qtbot.waitUntil(memory.started.is_set, timeout=WAIT_MS)
    pane = window.search
    bar = pane.table.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    moves: list[int] = []
    bar.valueChanged.connect(moves.append)
    oldest = pane.model.data(pane.model.index(pane.model.rowCount() - 1, 0), Qt.ItemDataRole.UserRole)  # newest first
    assert pane.select_fact(oldest)  # as the graph or the timeline asks: the view scrolls to it
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        window.session.write(lambda m: m.absorb(["Maya keeps her dotfiles in a private repository."]))
    settle(qtbot, window)  # the listing came again, with the place restored
    assert moves and bar.value() == moves[0]
    polling, answers = _poll(memory)
    polling.join(WAIT_MS / 1000)
    assert answers == [False]
