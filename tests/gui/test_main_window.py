"""The window: welcome state, opening files (good and bad), import by drag and drop, shortcuts, settings."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from engine import Memory, Settings
from gui.main_window import PANES, WELCOME, MainWindow

from tests.gui.conftest import WAIT_MS, open_file, settle


def test_an_empty_memory_shows_the_welcome_and_the_demo_opens(qtbot, window, tmp_path: Path) -> None:
    open_file(qtbot, window, tmp_path / "empty.sqlite", create=True)
    assert window.stack.currentIndex() == WELCOME
    assert "is empty" in window.welcome.notice.text()
    with qtbot.waitSignal(window.session.opened, timeout=WAIT_MS):
        window.welcome.buttons["demo"].click()
    assert window.stack.currentIndex() == PANES
    assert "memlens-demo-" in str(window.session.path)
    assert window.counts_label.text().startswith("76 facts")
    assert window.llm_label.text() == "LLM off"
    settle(qtbot, window)
    assert window.files.recent() == [str(tmp_path / "empty.sqlite")]  # the demo is never remembered


def test_the_status_bar_counts_one_fact_in_the_singular(qtbot, window, tmp_path: Path, embedder) -> None:
    path = tmp_path / "one.sqlite"
    with Memory(path, Settings(), actor="test", embedder=embedder) as memory:
        memory.absorb(["Maya keeps one fact in this file."])
    open_file(qtbot, window, path)
    assert window.counts_label.text() == "1 fact: 1 active"


@pytest.mark.parametrize("content, expected", [
    (b"this is a text file, not a database\n" * 20, "not a MemLens memory"),
    (b"SQLite format 3\x00" + b"\x00" * 200, "damaged"),
])
def test_a_file_that_is_not_a_memory_gets_a_dialog_and_the_app_stays_usable(
        qtbot, window, demo_copy, tmp_path: Path, content: bytes, expected: str) -> None:
    open_file(qtbot, window, demo_copy)
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(content)
    with qtbot.waitSignal(window.session.open_failed, timeout=WAIT_MS):
        window.session.open(bad)
    box = window.files.last_message
    assert box is not None and box.isVisible()
    assert str(bad) in box.text()
    assert window.session.path == demo_copy
    assert bad.read_bytes() == content
    box.accept()
    window.search.query.setText("Northwind")
    settle(qtbot, window)
    assert window.search.model.rowCount() > 0


def test_a_read_only_file_opens_for_reading_only(qtbot, window, demo_copy) -> None:
    os.chmod(demo_copy, stat.S_IRUSR | stat.S_IRGRP)
    open_file(qtbot, window, demo_copy)
    assert "(read-only)" in window.path_label.text()
    window.inspector.show_fact(41)
    qtbot.waitUntil(lambda: window.inspector.details is not None, timeout=WAIT_MS)
    assert not any(b.isEnabled() for b in window.inspector.buttons.values())


def _drop(window: MainWindow, path: Path) -> bool:
    """A real drag-enter then drop, as the platform delivers them (Qt marks the QPoint
    constructor deprecated, but it is the one QDragEnterEvent has)."""
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(QPoint(50, 50), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    return True


@pytest.mark.filterwarnings("ignore:Function.*QDragEnterEvent:DeprecationWarning")
def test_dropping_a_jsonl_file_imports_it_after_review(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    incoming = tmp_path / "more.jsonl"
    rows = [{"text": "Maya's team adopted trunk-based development for the Ferrite repository in November."},
            {"text": "The Ferrite on-call handbook lives in the ops wiki under Runbooks / Ferrite."},
            {"text": ("sk-ant-api03-" + "Zq8vK2mR7tW1xY4nB6cD9fG3hJ5kL0pS8uV2wX7aE1iO4rT6yU3qM9zN5bC2vF8gH" * 2)[:106] + "AA"}]
    incoming.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n", encoding="utf-8")
    assert _drop(window, incoming)
    qtbot.waitUntil(lambda: window.files.last_review is not None, timeout=WAIT_MS)
    review = window.files.last_review
    outcomes = [it.outcome for it in review.plan.items]
    assert len([o for o in outcomes if o in ("new", "related")]) == 2 and outcomes.count("rejected") == 2
    assert "Zq8vK2mR7t" not in " ".join(review.table.item(r, 6).text() for r in range(review.table.rowCount()))
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    assert window.counts_label.text().startswith("78 facts")


@pytest.mark.filterwarnings("ignore:Function.*QDragEnterEvent:DeprecationWarning")
def test_dropping_other_files_is_refused(qtbot, window, tmp_path: Path) -> None:
    other = tmp_path / "picture.png"
    other.write_bytes(b"\x89PNG")
    assert not _drop(window, other)


@pytest.mark.parametrize("payload", [b"\xff\xfe\x00garbage\x00" * 50, b"\x00" * 4096, "ü".encode("latin-1") * 80])
def test_importing_binary_or_wrongly_encoded_files_writes_nothing(qtbot, window, demo_copy, tmp_path: Path,
                                                                  payload: bytes) -> None:
    open_file(qtbot, window, demo_copy)
    before = window.session.stats["facts"]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(payload)
    window.files.import_file(bad)
    qtbot.waitUntil(lambda: window.files.last_review is not None or window.files.last_message is not None,
                    timeout=WAIT_MS)
    if window.files.last_review is not None:
        review = window.files.last_review
        assert all(it.outcome == "rejected" for it in review.plan.items)
        assert not review.apply_button.isEnabled()
    else:
        assert "Import failed" in window.files.last_message.windowTitle()
    settle(qtbot, window)
    assert window.session.stats["facts"] == before


def test_shortcuts_focus_search_and_switch_panes(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentIndex() == 1
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentIndex() == 0
    assert window.search.query.hasFocus()


def test_export_writes_every_fact(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    target = tmp_path / "out.jsonl"
    window.files.export_to(target)
    qtbot.waitUntil(lambda: window.files.last_message is not None, timeout=WAIT_MS)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]).get("memlens_export") == 1
    assert len(lines) == 1 + 76
    assert not (tmp_path / "out.jsonl.partial").exists()


def test_window_state_and_recent_files_are_remembered(qtbot, session, demo_copy, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    first = MainWindow(session, settings)
    qtbot.addWidget(first)
    first.resize(700, 500)
    first.show()
    open_file(qtbot, first, demo_copy)
    size = first.size()
    first.close()
    second = MainWindow(session, QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    assert second.files.recent() == [str(demo_copy)]
    assert second.size() == size
    assert second.welcome.recent.count() == 1


def test_a_file_from_a_newer_memlens_gets_a_dialog(qtbot, window, demo_copy, tmp_path: Path) -> None:
    import sqlite3

    newer = tmp_path / "newer.sqlite"
    newer.write_bytes(demo_copy.read_bytes())
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 999")
    open_file(qtbot, window, demo_copy)
    with qtbot.waitSignal(window.session.open_failed, timeout=WAIT_MS) as failed:
        window.session.open(newer)
    assert "newer" in failed.args[1]
    assert window.files.last_message.isVisible() and window.session.path == demo_copy


def test_a_file_locked_by_another_writer_reads_fine_and_a_write_says_so(qtbot, window, demo_copy) -> None:
    import sqlite3

    holder = sqlite3.connect(demo_copy, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a long write
    try:
        open_file(qtbot, window, demo_copy)  # WAL: readers are not blocked
        window.inspector.show_fact(41)
        qtbot.waitUntil(lambda: window.inspector.details is not None, timeout=WAIT_MS)
        window.inspector.buttons["archive"].click()
        window.inspector.prompt.setTextValue("while locked")
        window.inspector.prompt.accept()
        qtbot.waitUntil(lambda: "lock" in window.inspector.message.text().lower(), timeout=WAIT_MS)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert memory.facts([41])[41].status == "active" and not memory.plans()[0].kind == "curate"


def test_a_long_import_shows_progress_and_cancel_leaves_no_plan(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(json.dumps({"text": f"Robot {n} of the NW-7 fleet reported battery wear level {n % 97} "
                                                 f"in the weekly maintenance check."}) for n in range(400)),
                   encoding="utf-8")
    plans_before = window.session.stats["plans"]
    seen = []
    window.session.runner.progress.connect(lambda label, done, total: seen.append((done, total)))
    window.files.import_file(big)
    qtbot.waitUntil(lambda: any(done > 0 for done, _t in seen), timeout=WAIT_MS)
    assert window.cancel.isVisible() and "/400" in window.busy_label.text()
    window.cancel.click()
    settle(qtbot, window)
    assert window.files.last_review is None
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert memory.stats()["plans"] == plans_before


def test_import_dialog_takes_other_tools_formats(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    dump = tmp_path / "mem0.json"
    dump.write_text(json.dumps([
        {"id": "m-1", "memory": "Maya's team rotates the Ferrite on-call duty every Monday at 09:00 Kazan time.",
         "created_at": "2026-03-02T09:00:00Z", "user_id": "maya"},
        {"id": "m-2", "memory": ""}]), encoding="utf-8")
    window.files.import_dialog()
    dialog = window.files.last_prompt
    dialog.format.setCurrentText("mem0")
    dialog.path.setText(str(tmp_path / "missing.json"))
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert "nothing at" in dialog.note.text() and dialog.isVisible()
    dialog.path.setText(str(dump))
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: window.files.last_review is not None, timeout=WAIT_MS)
    items = window.files.last_review.plan.items
    assert [it.outcome for it in items].count("rejected") == 1 and len(items) == 2
    kept = next(it for it in items if it.outcome != "rejected")
    assert kept.incoming["source"] == "mem0:m-1" and kept.incoming["scope"] == "user"


def test_the_welcome_pages_recent_files_are_file_open_recents(qtbot, window, demo_copy, tmp_path: Path) -> None:
    """Issue 27: the welcome page listed the files of when the window opened, not File → Open Recent's."""
    open_file(qtbot, window, demo_copy)
    empty = tmp_path / "empty.sqlite"
    open_file(qtbot, window, empty, create=True)  # an empty file shows the welcome page again
    assert window.stack.currentIndex() == WELCOME
    window.recent_menu.aboutToShow.emit()  # what opening File → Open Recent fills the menu with
    in_menu = [a.text() for a in window.recent_menu.actions()]
    on_welcome = [window.welcome.recent.item(r).text() for r in range(window.welcome.recent.count())]
    assert on_welcome == in_menu == [str(empty), str(demo_copy)]
    demo_copy.unlink()  # a file that went away leaves both the next time the welcome page shows
    window.session.close()
    qtbot.waitUntil(lambda: window.stack.currentIndex() == WELCOME, timeout=WAIT_MS)
    window.recent_menu.aboutToShow.emit()
    assert [window.welcome.recent.item(r).text() for r in range(window.welcome.recent.count())] == [
        a.text() for a in window.recent_menu.actions()] == [str(empty)]
    item = window.welcome.recent.item(0)
    with qtbot.waitSignal(window.session.opened, timeout=WAIT_MS):
        window.welcome.recent.itemActivated.emit(item)
    assert window.session.path == empty
