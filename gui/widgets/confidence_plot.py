"""A small plot of a fact's effective confidence over time, reinforcements marked."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from engine import ConfidenceCurve

LINE = "#3b6fb6"
EVENT = "#e08a1e"


class ConfidencePlot(pg.PlotWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, axisItems={"bottom": pg.DateAxisItem(utcOffset=0)}, background="w")
        self.setObjectName("confidencePlot")
        self.setMinimumHeight(150)
        self.setMaximumHeight(190)
        self.setMouseEnabled(x=True, y=False)
        self.setYRange(0, 1, padding=0.02)
        self.getPlotItem().setLabel("left", "confidence")
        self.getPlotItem().showGrid(x=False, y=True, alpha=0.25)
        self.getPlotItem().hideButtons()
        self.curve = self.plot(pen=pg.mkPen(LINE, width=2))
        self.events = pg.ScatterPlotItem(symbol="t1", size=11, brush=pg.mkBrush(EVENT), pen=pg.mkPen("w"))
        self.addItem(self.events)
        self.floor = pg.InfiniteLine(pos=0.05, angle=0, pen=pg.mkPen("#c0392b", style=pg.QtCore.Qt.PenStyle.DashLine),
                                     label="archive below 0.05", labelOpts={"position": 0.85, "color": "#c0392b"})
        self.addItem(self.floor)

    def show_curve(self, curve: ConfidenceCurve | None) -> None:
        if curve is None:
            self.curve.setData([], [])
            self.events.setData([], [])
            return
        self.curve.setData(curve.times, curve.values)
        self.events.setData(curve.reinforced_at, curve.reinforced_to,
                            tip=lambda x, y, data: f"reinforced to {y:.2f}")
        self.setXRange(float(curve.times[0]), float(curve.times[-1]), padding=0.02)
        self.setYRange(0, 1, padding=0.02)
