"""A person's scrolling is heard from real input (wheel, keys, the bar), never from the scrolling the
app does itself (rows arriving, a reset, a place restored): issue 24."""

from __future__ import annotations

from typing import Iterator

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QTableView

from gui.widgets.person_scrolling import PersonScrolling

ROWS = 400


@pytest.fixture
def view(qtbot) -> Iterator[tuple[QTableView, QStandardItemModel, list[int]]]:
    model = QStandardItemModel(0, 2)
    for row in range(ROWS):
        model.appendRow([QStandardItem(f"fact {row}"), QStandardItem(str(row))])
    table = QTableView()
    table.setModel(model)
    table.resize(400, 300)
    qtbot.addWidget(table)
    table.show()
    qtbot.waitExposed(table)
    noticed: list[int] = []
    PersonScrolling(table, lambda: noticed.append(1))
    yield table, model, noticed


def test_the_apps_own_scrolling_is_not_a_persons(view) -> None:
    table, model, noticed = view
    bar = table.verticalScrollBar()
    moves: list[int] = []
    bar.valueChanged.connect(moves.append)
    bar.setValue(bar.maximum() // 2)  # a place restored after a refresh
    table.scrollTo(model.index(ROWS - 1, 0))  # a fact selected from another pane
    table.scrollToTop()
    bar.setValue(bar.maximum())
    model.removeRows(0, ROWS - 5)  # rows going away (a reset to a shorter listing) clamp the bar
    for row in range(ROWS):  # rows arriving
        model.appendRow([QStandardItem(f"more {row}"), QStandardItem(str(row))])
    table.scrollToBottom()
    QApplication.processEvents()
    assert len(moves) >= 5  # the view did move, each time
    assert noticed == []


def test_a_wheel_turned_over_the_rows_is_a_person(view) -> None:
    table, _model, noticed = view
    viewport, bar = table.viewport(), table.verticalScrollBar()
    at = QPointF(viewport.rect().center())
    wheel = QWheelEvent(at, QPointF(viewport.mapToGlobal(at.toPoint())), QPoint(), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, wheel)
    assert bar.value() > 0 and noticed


def test_keys_that_move_through_the_rows_are_a_person(view) -> None:
    table, model, noticed = view
    table.setCurrentIndex(model.index(0, 0))
    QTest.keyClick(table, Qt.Key.Key_PageDown)
    assert table.verticalScrollBar().value() > 0 and noticed


def test_a_drag_of_the_scroll_bar_is_a_person(view) -> None:
    table, _model, noticed = view
    bar = table.verticalScrollBar()
    # The handle sits at the top of the bar's groove, just under the up arrow (which is as tall as the bar is wide).
    grip = QPoint(bar.width() // 2, bar.width() + 4)
    QTest.mousePress(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grip)
    QTest.mouseMove(bar, grip + QPoint(0, bar.height() // 3))
    QTest.mouseRelease(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grip + QPoint(0, bar.height() // 3))
    assert bar.value() > 0 and noticed


def test_a_click_on_the_scroll_bar_below_its_handle_is_a_person(view) -> None:
    table, _model, noticed = view
    bar = table.verticalScrollBar()
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(bar.width() // 2, bar.height() - bar.width() - 4))
    assert bar.value() > 0 and noticed
