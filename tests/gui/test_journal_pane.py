"""The journal pane over a model (issue 18): the rows and tooltips a person sees, each row formatted
only when it is first painted, so opening a file with a long journal does not stall the window."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

import gui.models.journal as journal_model
from gui.panes.journal import MEASURED_ROWS
from engine import Memory, Settings
from tests.gui.conftest import WAIT_MS, open_file, settle


def _lengthen_journal(path: Path, embedder, facts: int = 160) -> list:
    with Memory(path, Settings(), actor="mcp", embedder=embedder, create=False) as memory:
        memory.absorb([f"Release {n} of the ingest service shipped on day {n}." for n in range(facts)])
        return memory.audit(limit=2000)


def test_the_journal_shows_every_row_and_formats_only_those_painted(qtbot, window, demo_copy, embedder,
                                                                      monkeypatch) -> None:
    expected = _lengthen_journal(demo_copy, embedder)
    assert len(expected) > MEASURED_ROWS + 100
    formatted: list[int] = []
    real = journal_model.row_texts
    monkeypatch.setattr(journal_model, "row_texts", lambda entry: (formatted.append(entry.id), real(entry))[1])
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("journal"))
    pane, model = window.journal, window.journal.model
    qtbot.waitUntil(lambda: len(pane.entries) == len(expected), timeout=WAIT_MS)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: pane.table.isVisible() and pane.table.rowAt(0) == 0, timeout=WAIT_MS)
    qtbot.wait(50)  # paints
    assert [e.id for e in pane.entries] == [e.id for e in expected]  # newest first, none missing
    assert pane.status.text() == f"{len(expected):,} entries, newest first"

    # The newest rows, on screen, were formatted; the oldest, never painted, were not.
    on_screen = pane.table.rowAt(pane.table.viewport().height() - 1)
    assert on_screen > 5 and expected[on_screen].id in formatted
    assert expected[-1].id not in formatted
    assert len(set(formatted)) < len(expected) - 50

    def cell(row: int, column: int, role: Qt.ItemDataRole = Qt.ItemDataRole.DisplayRole):
        return model.data(model.index(row, column), role)

    first, last = expected[0], expected[-1]
    assert [cell(0, c) for c in range(7)] == list(journal_model.row_texts(first))
    assert cell(0, 0) == str(first.id) and cell(0, 3) == first.action
    assert cell(0, 6, Qt.ItemDataRole.ToolTipRole) == json.dumps(first.details, ensure_ascii=False, indent=1)[:4000]
    fact_row = next(r for r, e in enumerate(expected) if e.fact_id is not None)
    assert cell(fact_row, 4) == f"#{expected[fact_row].fact_id}"
    assert cell(fact_row, 4, Qt.ItemDataRole.ToolTipRole) == "Double-click to open"
    assert cell(0, 1, Qt.ItemDataRole.ToolTipRole) is None

    # Scrolling to the end paints, and so formats, the oldest row.
    pane.table.scrollToBottom()
    qtbot.waitUntil(lambda: last.id in formatted, timeout=WAIT_MS)
    last_row = len(expected) - 1
    assert cell(last_row, 0) == str(last.id) and cell(last_row, 2) == last.actor
    assert cell(last_row, 6, Qt.ItemDataRole.ToolTipRole) == json.dumps(last.details, ensure_ascii=False,
                                                                         indent=1)[:4000]


def test_a_selected_row_stays_selected_when_the_journal_is_reread(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("journal"))
    pane = window.journal
    qtbot.waitUntil(lambda: len(pane.entries) > 5, timeout=WAIT_MS)
    settle(qtbot, window)
    chosen = pane.entries[3].id
    pane.table.selectRow(3)
    pane.refresh()
    settle(qtbot, window)
    rows = [i.row() for i in pane.table.selectionModel().selectedRows()]
    assert [pane.entries[r].id for r in rows] == [chosen]


def test_double_clicking_a_fact_cell_opens_the_fact(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("journal"))
    pane = window.journal
    qtbot.waitUntil(lambda: len(pane.entries) > 5, timeout=WAIT_MS)
    row = next(r for r, e in enumerate(pane.entries) if e.fact_id is not None)
    with qtbot.waitSignal(pane.fact_selected, timeout=WAIT_MS) as chosen:
        pane.table.doubleClicked.emit(pane.model.index(row, 4))
    assert chosen.args == [pane.entries[row].fact_id]
