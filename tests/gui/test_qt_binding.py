"""The Qt binding itself: a known PySide6 bug would crash long sessions, so it is checked here."""

from __future__ import annotations

import gc
import sys

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication


def test_making_and_dropping_plot_items_does_not_drain_none(qtbot) -> None:
    """PySide6 6.12.0 (Python 3.11) took a reference away from None each time a wrapped Qt object was
    destroyed; the app makes and drops plot items all day, so None's count reached zero and the
    interpreter aborted. Creating a few hundred items must leave None's count where it was."""
    def churn() -> None:
        for _ in range(50):
            widget = pg.PlotWidget()
            widget.addItem(pg.ScatterPlotItem([1, 2], [3, 4]))
            widget.addItem(pg.TextItem("label"))
            widget.deleteLater()
        QApplication.processEvents()
        gc.collect()

    churn()  # warm caches (first-use allocations hold None legitimately)
    before = sys.getrefcount(None)
    churn()
    assert sys.getrefcount(None) >= before - 50, "the Qt binding is releasing None: see pyproject.toml"
