"""Fact text stays readable from 1024×700 up: the search and plan tables, and the search splitter."""

from __future__ import annotations

import html

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyle, QTableView

from engine import Memory, Settings
from gui.main_window import MainWindow
from gui.models.plan_items import TEXT_COLUMN as PLAN_TEXT_COLUMN
from gui.models.results import TEXT_COLUMN
from gui.resources import style_sheet
from gui.session import Session

from tests.gui.conftest import WAIT_MS, open_file, settle

SIZES = [(1024, 700), (1600, 1000)]
SHARE = 0.4


@pytest.fixture
def styled(qapp):
    """The app's own style sheet (bigger fonts than Qt's default): sizes are what a person sees."""
    qapp.setStyleSheet(style_sheet())
    yield
    qapp.setStyleSheet("")


def _resize(qtbot, window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width and window.height() == height, timeout=WAIT_MS)


def _shown_text(table: QTableView, row: int, column: int) -> str:
    """What the view paints in a cell: the text elided to the column's width, as its delegate does."""
    text = table.model().index(row, column).data()
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    return table.fontMetrics().elidedText(text, table.textElideMode(), table.columnWidth(column) - margin - 8)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_search_results_show_the_fact_text_at_every_size(qtbot, styled, window, demo_copy, size) -> None:
    _resize(qtbot, window, *size)
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS):
        qtbot.keyClicks(window.search.query, "which editor does Maya use")
    table = window.search.table
    qtbot.waitUntil(lambda: table.columnWidth(TEXT_COLUMN) >= SHARE * table.viewport().width() - 1,
                    timeout=WAIT_MS)
    full = window.search.model.index(0, TEXT_COLUMN).data()
    shown = _shown_text(table, 0, TEXT_COLUMN)
    assert len(shown.replace("…", "")) >= 25, shown
    assert shown.startswith(full[:10]) and shown.endswith(full[-5:])  # elided in the middle
    tip = window.search.model.index(0, TEXT_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert html.escape(full) in tip
    assert table.columnWidth(0) > 0 and not table.isColumnHidden(2)  # id and score always stay


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_inspector_gets_a_sane_share_of_the_window(qtbot, styled, window, demo_copy, size) -> None:
    _resize(qtbot, window, *size)
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS):
        qtbot.keyClicks(window.search.query, "which editor does Maya use")
    table = window.search.table
    with qtbot.waitSignal(window.search.fact_selected, timeout=WAIT_MS):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                         pos=table.visualRect(window.search.model.index(0, TEXT_COLUMN)).center())
    settle(qtbot, window)
    assert window.width() == size[0]  # the explanation line and the inspector do not force it wider
    results, inspector = window.search_split.sizes()
    assert 0.3 <= inspector / (results + inspector) <= 0.5


def test_the_splitter_remembers_where_it_was_dragged(qtbot, window, embedder, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.search_split.moveSplitter(700, 1)
    dragged = window.search_split.sizes()
    assert dragged[0] == 700
    window.close()
    session = Session(memory_factory=lambda path, create=True: Memory(path, Settings(), actor="gui",
                                                                        embedder=embedder, create=create))
    again = MainWindow(session, window.settings)
    qtbot.addWidget(again)
    try:
        again.resize(1400, 900)  # offscreen windows do not restore their geometry
        again.show()
        open_file(qtbot, again, demo_copy)
        qtbot.waitUntil(lambda: again.search_split.sizes() == dragged, timeout=WAIT_MS)
    finally:
        again.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_plan_items_show_their_text_column(qtbot, styled, window, demo_copy, size) -> None:
    _resize(qtbot, window, *size)
    open_file(qtbot, window, demo_copy)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.pass_buttons["gc"].click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "gc", timeout=WAIT_MS)
    table = pane.table
    qtbot.waitUntil(lambda: table.columnWidth(PLAN_TEXT_COLUMN) >= SHARE * table.viewport().width() - 1,
                    timeout=WAIT_MS)
    # The gc items name facts: once their texts are quoted, the row shows both ends of the text.
    qtbot.waitUntil(lambda: pane.items.index(0, PLAN_TEXT_COLUMN).data().startswith("#"), timeout=WAIT_MS)
    full = pane.items.index(0, PLAN_TEXT_COLUMN).data()
    shown = _shown_text(table, 0, PLAN_TEXT_COLUMN)
    head, _, tail = shown.partition("…")
    assert full.startswith(head) and full.endswith(tail) and len(shown.replace("…", "")) >= 25, shown
    assert pane.items.index(0, PLAN_TEXT_COLUMN).data(Qt.ItemDataRole.ToolTipRole) == full
    header = table.horizontalHeader()
    title = pane.items.headerData(PLAN_TEXT_COLUMN, Qt.Orientation.Horizontal)
    assert header.fontMetrics().horizontalAdvance(title) < header.sectionSize(PLAN_TEXT_COLUMN)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_revert_review_opens_tall_enough_and_its_rows_follow_a_resize(
        qtbot, styled, window, demo_copy, size) -> None:
    """Issue 27: the revert review opened 1.5 rows high, and rows made tall in a narrow dialog stayed tall."""
    import os

    from gui.dialogs.plan_review import MAX_ROW_LINES

    _resize(qtbot, window, *size)
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    with qtbot.waitSignal(pane.review_opened, timeout=WAIT_MS) as opened:
        pane.revert(1)  # the demo's import: one undo item per fact it wrote
    review = opened.args[0]
    qtbot.waitUntil(review.isVisible, timeout=WAIT_MS)
    table = review.table
    shots = os.environ.get("MEMLENS_SHOTS")
    if shots:
        review.grab().save(f"{shots}/revert-review-{size[0]}x{size[1]}.png")
    rows_seen = table.viewport().height() / table.rowHeight(0)
    assert table.rowCount() > 20 and rows_seen >= 5, rows_seen  # it showed 0.9 rows
    row = min(range(table.rowCount()), key=lambda r: len(table.item(r, 2).text()))  # the shortest fact
    most = MAX_ROW_LINES * table.fontMetrics().lineSpacing() + 8
    review.resize(1200, review.height())
    qtbot.waitUntil(lambda: not review.row_fit.isActive() and table.rowHeight(row) < most, timeout=WAIT_MS)
    wide = table.rowHeight(row)
    review.resize(420, review.height())
    qtbot.waitUntil(lambda: table.rowHeight(row) > wide, timeout=WAIT_MS)  # narrow: the text wraps to more lines
    review.resize(1200, review.height())
    qtbot.waitUntil(lambda: table.rowHeight(row) <= wide, timeout=WAIT_MS)  # wide again: the row shrinks back
    review.reject()
    settle(qtbot, window)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plans_list_and_the_reasons_are_readable(qtbot, styled, window, demo_copy, size) -> None:
    """Issue 27: the Plans list's items column and the plan reasons column were cut off."""
    from PySide6.QtCore import QRect

    from gui.models.plan_items import REASON_COLUMN

    _resize(qtbot, window, *size)
    open_file(qtbot, window, demo_copy)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.pass_buttons["gc"].click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "gc" and pane.list.rowCount() == 2,
                    timeout=WAIT_MS)
    settle(qtbot, window)
    listing = pane.list
    qtbot.waitUntil(lambda: not pane._list_rows_fit.isActive(), timeout=WAIT_MS)
    metrics = listing.fontMetrics()
    assert listing.horizontalScrollBar().maximum() == 0  # nothing to the right of what is shown
    for row in range(listing.rowCount()):
        for column in range(listing.columnCount()):
            text = listing.item(row, column).text()
            room = listing.columnWidth(column) - 8
            needed = metrics.boundingRect(QRect(0, 0, room, 10_000), Qt.TextFlag.TextWordWrap, text)
            assert needed.width() <= room and needed.height() <= listing.rowHeight(row), (text, room)
    assert "supersede" in listing.item(1, 4).text()  # the absorb's last outcome, which was cut off
    table = pane.table
    reason = pane.items.index(4, REASON_COLUMN).data()  # "run fact of session …, untouched for N days"
    if size[0] >= 1600:
        assert _shown_text(table, 4, REASON_COLUMN) == reason  # wide enough: the whole reason
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(pane.items.index(4, 2)).center())
    assert reason in pane.why.text()  # and in full under the table for the chosen item, at any size
