"""File → Connect an Agent…: each client's configuration for the open file, copyable."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from engine import connection_snippets, memlens_executable
from tests.gui.conftest import WAIT_MS, open_file, settle


def test_connect_is_offered_only_with_a_file_open(qtbot, window, demo_copy) -> None:
    assert not window.connect_action.isEnabled()
    open_file(qtbot, window, demo_copy)
    assert window.connect_action.isEnabled()
    window.session.close()
    qtbot.waitUntil(lambda: not window.connect_action.isEnabled(), timeout=WAIT_MS)


def test_the_dialog_shows_each_client_with_this_files_paths_and_copies_it(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.connect_action.trigger()
    qtbot.waitUntil(lambda: getattr(window, "connect_dialog", None) is not None
                    and window.connect_dialog.isVisible(), timeout=WAIT_MS)
    dialog = window.connect_dialog
    tabs = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    assert tabs == ["Hermes Agent", "Claude Code", "Claude Desktop", "Cursor"]
    expected = {s.client: s.text for s in connection_snippets(demo_copy)}
    for client, page in dialog.pages.items():
        shown = page.text.toPlainText()
        assert shown == expected[client]  # the same text as 'memlens connect'
        assert str(demo_copy.absolute()) in shown and str(memlens_executable()) in shown
    server = json.loads(dialog.pages["Claude Desktop"].text.toPlainText())["mcpServers"]["memlens"]
    assert server["args"] == ["--db", str(demo_copy.absolute()), "mcp"]

    dialog.tabs.setCurrentIndex(3)
    cursor = dialog.pages["Cursor"]
    qtbot.mouseClick(cursor.copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == expected["Cursor"]
    assert cursor.copy.text() == "Copied"
    qtbot.waitUntil(lambda: cursor.copy.text() == "Copy", timeout=WAIT_MS)
    dialog.close()


def test_a_connected_agents_writes_show_its_name_in_the_notice_and_the_journal(qtbot, window, demo_copy,
                                                                               tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    script = textwrap.dedent(f"""
        from engine.faces.hermes import HermesMemory
        from engine.models.embeddings import shared_embedder
        agent = HermesMemory({{"db": {str(demo_copy)!r}}}, embedder=shared_embedder())
        agent.initialize("gui-live", hermes_home={str(tmp_path / "hermes")!r}, platform="cli")
        agent.sync_turn("Lena works at Brightline Labs. Thanks!", "Noted.")
        agent.shutdown()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).parents[2])
    with qtbot.waitSignal(window.session.live_changes, timeout=WAIT_MS) as live:
        pass
    entries, record = live.args
    assert len(record.facts_added) == 1
    assert window.live_notice.isVisible() and window.live_notice.text() == "● 1 new fact from hermes"
    qtbot.waitUntil(lambda: len(window.journal.live_rows()) == len(entries), timeout=WAIT_MS)
    shown = {window.journal.model.texts(row)[2] for row in window.journal.live_rows()}
    assert shown == {"hermes"}  # the actor column of each new Journal row
