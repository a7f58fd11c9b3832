"""The timeline canvas: one lane per supersedes chain on a time axis.

The selected fact's chain is the top lane; every chain it contradicts gets a
lane below, and related facts a last lane when asked for. Each version is a
marker at its creation time, followed by a bar per status it went through
(thick while active, thin after). A contradiction is a dashed red line between
lanes at the moment it was recorded. The "as of" line recolours the markers
with the status each version had at that moment.

Signals: ``fact_clicked(int)``, ``as_of_dragged(float)``.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QWidget

from engine import Timeline, Version

STATUS_COLOURS = {"active": "#2e8b57", "superseded": "#8a8f98", "archived": "#a0522d", "expired": "#7b4fa0"}
CONTRADICT = "#c0392b"
RELATED = "#3b6fb6"
# Where a version's label sits against its marker (TextItem anchors): above, then below, then higher
# above, so versions written minutes apart on a months-long axis do not print over each other.
LABEL_ROWS = ((0.5, 1.3), (0.5, -0.3), (0.5, 2.4))
LABEL_GAP_PX = 6
SAME_LANE_TICK = 0.3  # half the height of a link drawn between two versions of one lane, in lanes


def lanes_of(line: Timeline, with_related: bool) -> list[tuple[str, list[Version]]]:
    lanes = [(f"#{line.fact_id} versions", line.versions)]
    lanes += [(f"contradicting #{head}", chain) for head, chain in line.others.items()]
    if with_related and line.related_versions:
        lanes.append(("related", line.related_versions))
    return lanes


def _half_width(label: pg.TextItem, seconds_per_px: float) -> float:
    """Half a label's width, with its gap, in seconds of the axis."""
    return (label.textItem.boundingRect().width() / 2 + LABEL_GAP_PX) * seconds_per_px


class TimelinePlot(pg.PlotWidget):
    fact_clicked = Signal(int)
    as_of_dragged = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, axisItems={"bottom": pg.DateAxisItem(utcOffset=0)}, background="w")
        self.setObjectName("timelinePlot")
        self.setMouseEnabled(x=True, y=False)
        self.getPlotItem().hideButtons()
        self.getPlotItem().showGrid(x=True, y=False, alpha=0.15)
        self.getPlotItem().getAxis("left").setWidth(150)
        self.setMenuEnabled(False)
        self.markers = pg.ScatterPlotItem(size=15, hoverable=True, hoverSize=19, tip=self._tip)
        self.markers.setZValue(10)
        self.markers.sigClicked.connect(self._clicked)
        self.as_of_line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#222", width=1.5),
                                          label="as of", labelOpts={"position": 0.96, "color": "#222"})
        self.as_of_line.setZValue(20)
        self.as_of_line.sigPositionChanged.connect(lambda line: self.as_of_dragged.emit(float(line.value())))
        self._versions: dict[int, Version] = {}
        self._lane_of: dict[int, int] = {}
        self._extra: list[pg.GraphicsObject] = []
        self._labels: list[tuple[pg.TextItem, float, int]] = []  # (label, x, lane)
        self.getPlotItem().getViewBox().sigXRangeChanged.connect(self._place_labels)
        self.getPlotItem().getViewBox().sigResized.connect(self._place_labels)
        self.addItem(self.markers)
        self.addItem(self.as_of_line)
        self.selected: int | None = None

    def show_timeline(self, line: Timeline | None, with_related: bool, until: float) -> None:
        for item in self._extra:
            self.removeItem(item)
        self._extra.clear()
        self._labels.clear()
        self._versions, self._lane_of = {}, {}
        self.as_of_line.setVisible(line is not None)  # no fact, no moment to mark
        if line is None:
            self.markers.setData([])
            self.getPlotItem().getAxis("left").setTicks([[]])
            return
        lanes = lanes_of(line, with_related)
        for lane, (_name, versions) in enumerate(lanes):
            for version in versions:
                self._versions[version.fact.id] = version
                self._lane_of[version.fact.id] = -lane
        self.getPlotItem().getAxis("left").setTicks([[(-i, name) for i, (name, _v) in enumerate(lanes)]])
        self._draw_status_bars(until)
        self._draw_links(line)
        self._draw_labels(lanes)
        start, _end = line.span
        self.setXRange(start - 0.03 * (until - start + 1), until + 0.03 * (until - start + 1), padding=0)
        self.setYRange(-(len(lanes) - 1) - 0.6, 0.6, padding=0)
        self._place_labels()

    def _draw_status_bars(self, until: float) -> None:
        segments: dict[str, tuple[list[float], list[float]]] = {}
        for fact_id, version in self._versions.items():
            y = self._lane_of[fact_id]
            changes = version.changes + [(until, "")]
            for (t0, status), (t1, _next) in zip(changes, changes[1:]):
                if status == "superseded" or t1 <= version.joined_at:
                    continue  # its successor's bar carries on from here; before it joined, it was not this version
                t0 = max(t0, version.joined_at)
                xs, ys = segments.setdefault(status, ([], []))
                xs += [t0, max(t0, t1)]
                ys += [y, y]
        for status, (xs, ys) in segments.items():
            width = 7 if status == "active" else 3
            bar = pg.PlotDataItem(xs, ys, connect="pairs", pen=pg.mkPen(STATUS_COLOURS.get(status, "#999"),
                                                                         width=width))
            self._add(bar)

    def _draw_links(self, line: Timeline) -> None:
        for link in line.links:
            if link.src not in self._lane_of or link.dst not in self._lane_of:
                continue
            colour = CONTRADICT if link.type == "contradicts" else RELATED
            ends = [self._lane_of[link.src], self._lane_of[link.dst]]
            if ends[0] == ends[1]:
                # both facts became versions of one chain (a contradiction resolved by keeping one side):
                # a tick across the lane, not a line of no height
                ends = [ends[0] - SAME_LANE_TICK, ends[0] + SAME_LANE_TICK]
            edge = pg.PlotDataItem([link.created_at, link.created_at], ends,
                                   pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine))
            edge.setProperty("link", (link.type, link.src, link.dst))
            self._add(edge)

    def _draw_labels(self, lanes: list[tuple[str, list[Version]]]) -> None:
        for lane, (_name, versions) in enumerate(lanes):
            for number, version in enumerate(versions, 1):
                caption = f"v{number} #{version.fact.id}" if lane == 0 else f"#{version.fact.id}"
                label = pg.TextItem(caption, color="#33475b", anchor=LABEL_ROWS[0])
                label.setProperty("caption", caption)
                label.setPos(version.joined_at, -lane)
                self._add(label)
                self._labels.append((label, version.joined_at, lane))

    def _place_labels(self, *_args: object) -> None:
        """Place each lane's labels at the current zoom (a label keeps its size in pixels while the axis
        stretches): versions close together take rows above and below their markers; when a group is
        too crowded for the rows (several versions written within minutes on a months-long axis), its
        first label says "v4–v8 (5 close together)" and the others wait for a closer zoom."""
        seconds_per_px = self.getPlotItem().getViewBox().viewPixelSize()[0]
        if not seconds_per_px or seconds_per_px != seconds_per_px:  # not laid out yet (0 or NaN)
            return
        lanes: dict[int, list[tuple[float, pg.TextItem]]] = {}
        for label, x, lane in self._labels:
            caption = label.property("caption")
            if label.textItem.toPlainText() != caption:  # runs on each pan and zoom step: touch only what changed
                label.setText(caption)
            label.setVisible(True)
            lanes.setdefault(lane, []).append((x, label))
        for entries in lanes.values():
            entries.sort(key=lambda entry: entry[0])
            row_ends = [-float("inf")] * len(LABEL_ROWS)
            start = 0
            while start < len(entries):
                x0, first = entries[start]
                end = start + 1
                while end < len(entries) and entries[end][0] - x0 < 2 * _half_width(first, seconds_per_px):
                    end += 1
                group = entries[start:end]
                if not self._rows_for(group, row_ends, seconds_per_px):
                    self._collapse(group, row_ends, seconds_per_px)
                start = end

    @staticmethod
    def _rows_for(group: list[tuple[float, pg.TextItem]], row_ends: list[float], seconds_per_px: float) -> bool:
        """Give each label of ``group`` a free row, or change nothing and say it cannot."""
        ends, rows = list(row_ends), []
        for x, label in group:
            half = _half_width(label, seconds_per_px)
            row = next((r for r in range(len(LABEL_ROWS)) if ends[r] <= x - half), None)
            if row is None:
                return False
            ends[row] = x + half
            rows.append(row)
        for (_x, label), row in zip(group, rows):
            label.setAnchor(LABEL_ROWS[row])
        row_ends[:] = ends
        return True

    @staticmethod
    def _collapse(group: list[tuple[float, pg.TextItem]], row_ends: list[float], seconds_per_px: float) -> None:
        (x, shown), rest = group[0], group[1:]
        first, last = shown.property("caption").split(" ")[0], rest[-1][1].property("caption").split(" ")[0]
        shown.setText(f"{first}–{last} ({len(group)} close together)" if first.startswith("v")
                      else f"{shown.property('caption')} +{len(rest)}")
        for _x, label in rest:
            label.setVisible(False)
        half = _half_width(shown, seconds_per_px)
        row = min(range(len(LABEL_ROWS)), key=lambda r: row_ends[r])
        shown.setAnchor(LABEL_ROWS[row])
        row_ends[row] = x + half

    def _add(self, item: pg.GraphicsObject) -> None:
        self.addItem(item)
        self._extra.append(item)

    def set_as_of(self, when: float, statuses: dict[int, str | None] | None = None) -> None:
        """Move the line and colour each marker by its status at ``when`` (hollow: not written yet):
        the replay's ``statuses`` once it has answered, the drawn history's meanwhile."""
        self.as_of_line.blockSignals(True)
        self.as_of_line.setValue(when)
        self.as_of_line.blockSignals(False)
        # Its caption on the side with room: left of the line in the right half of the view ("now" sits
        # at the right edge, where a caption to the right was cut), right of it in the left half.
        (left, right), _y = self.getPlotItem().getViewBox().viewRange()
        side = (1, 0.5) if when > (left + right) / 2 else (0, 0.5)
        self.as_of_line.label.anchors = [side, side]
        self.as_of_line.label.updatePosition()
        spots = []
        for fact_id, version in self._versions.items():
            status = statuses.get(fact_id) if statuses is not None and fact_id in statuses else version.status_at(when)
            colour = STATUS_COLOURS.get(status or "", "#bbb")
            selected = fact_id == self.selected
            spots.append({"pos": (version.joined_at, self._lane_of[fact_id]), "data": fact_id,
                          "brush": pg.mkBrush(colour if status else "#ffffff"),
                          "pen": pg.mkPen("#111" if selected else colour, width=3 if selected else 1.5),
                          "symbol": "o" if status != "superseded" else "s"})
        self.markers.setData(spots)

    def _tip(self, x: float, y: float, data: int) -> str:
        version = self._versions.get(data)
        if version is None:
            return ""
        text = " ".join(version.fact.text.split())
        return f"#{data} ({version.fact.status} now)\n{text[:300]}"

    def _clicked(self, _item: pg.ScatterPlotItem, points: list, _event: object) -> None:
        if len(points):
            self.fact_clicked.emit(int(points[0].data()))
