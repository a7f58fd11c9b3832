"""The Plans pane over damaged plan rows (issue 26): it lists and shows them with a note instead of
"unexpected error (JSONDecodeError)"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine import Memory, Settings
from tests.gui.conftest import WAIT_MS, open_file, settle


def test_the_plans_pane_shows_a_damaged_plan(qtbot, window, tmp_path: Path, embedder) -> None:
    path = tmp_path / "memory.sqlite"
    with Memory(path, Settings(), actor="test", embedder=embedder) as memory:
        memory.absorb(["The deploy pipeline runs on the staging cluster every night at two.",
                       "Maya prefers tea to coffee in the morning before standup."])
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER plans_immutable")
        db.execute("UPDATE plans SET summary = 'oops', items = 'oops'")
    open_file(qtbot, window, path)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.refresh()
    qtbot.waitUntil(lambda: pane.list.rowCount() == 1, timeout=WAIT_MS)
    pane.list.selectRow(0)
    qtbot.waitUntil(lambda: pane.plan is not None, timeout=WAIT_MS)
    settle(qtbot, window)
    assert "damaged: items" in pane.heading.text()
    assert "unexpected error" not in window.statusBar().currentMessage()
    assert "unexpected error" not in pane.message.text()
