"""The entity-graph canvas: typed nodes, typed edges, dragging, picking and highlights.

Edges are drawn as one line item per (type, active) with ``connect="pairs"``,
so 5,000 edges are a handful of items; nodes are one scatter item. Labels
ignore the zoom (they stay readable) and are drawn for at most ``MAX_LABELS``
nodes in view, refreshed shortly after each pan or zoom: the highlighted and
selected ones first, then the best connected, so zooming in names more nodes.

Signals: ``node_clicked(str)``, ``node_double_clicked(str)``, ``edge_clicked(int)``
(index into the relations given), ``node_moved(str)`` (a drag ended: the node is pinned),
``node_menu_requested(str, QPoint)`` (a right click on a node, at this global position).
"""

from __future__ import annotations

import math
import time
import zlib
from collections import Counter
from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from engine import Entity, Relation

TYPE_STYLE = {"person": ("#3b6fb6", "o"), "company": ("#e08a1e", "s"), "project": ("#2e8b57", "d"),
              "technology": ("#7b4fa0", "t"), "role": ("#8a8f98", "h"), "location": ("#c0392b", "p"),
              "event": ("#b8860b", "star"), "product": ("#16a085", "t1")}
# Edge colours are keyed by the relation's name, never by its rank among the types on screen: the
# same relation keeps its colour when a filter, a find or an expand changes which types are shown.
EDGE_STYLE = {"works_at": "#c98a3a", "located_in": "#5d7ea6", "uses": "#4f9a6b", "member_of": "#9b6bb3",
              "has_role": "#4a90a4", "leads": "#b05a5a", "reports_to": "#8b3a62", "makes": "#3c8d8d",
              "founded": "#a0785a", "attended": "#d4a017", "lives_in": "#2f4f8f", "sponsors": "#6b8e23"}
# Any other type takes one of these by its name's checksum; none is a colour of the fixed types.
MORE_COLOURS = ["#7a7a2a", "#c0607f", "#5a5ac0", "#2e6b4f", "#b3742d", "#6d5a8a", "#a04040", "#1f7a8c",
                "#8c6d1f", "#4d7a2e", "#a3589c", "#3f5f7f"]
NODE_SYMBOLS = ["o", "s", "d", "t", "h", "p", "star", "t1"]
# A path answer's nodes and edges: a hue no type uses (orange read as "works_at", the company colour).
HIGHLIGHT = "#e6007e"
ANSWER_LEGEND = "path answer"
MAX_LABELS = 120
PICK_PIXELS = 6.0
MIN_FIT_SPAN = 0.4  # layout units; the spring layout spreads a graph over about 2


def _pick(name: str, choices: list[str]) -> str:
    """A choice fixed by the name alone (crc32, not hash(): Python salts str hashes per process)."""
    return choices[zlib.crc32(name.encode("utf-8")) % len(choices)]


def edge_colour(kind: str) -> str:
    return EDGE_STYLE.get(kind) or _pick(kind, MORE_COLOURS)


def node_style(kind: str) -> tuple[str, str]:
    return TYPE_STYLE.get(kind) or (_pick(kind, MORE_COLOURS), _pick(kind, NODE_SYMBOLS))


class LabelLayer(pg.GraphicsObject):
    """Every node label in one item, drawn in screen pixels under its node: one item painting
    a hundred strings costs a fraction of a hundred text items, which made panning stutter."""

    def __init__(self) -> None:
        super().__init__()
        self._labels: list[tuple[float, float, str, bool]] = []
        self._bounds = QRectF()
        self.painted: list[tuple[str, QRectF]] = []  # what the last paint drew, and where (device pixels)
        self.covered: Callable[[], list[QRectF]] = lambda: []  # device pixels no label may go (the legend)
        self.setZValue(15)

    def set_labels(self, labels: list[tuple[float, float, str, bool]]) -> None:
        self.prepareGeometryChange()
        self._labels = labels
        if labels:
            xs, ys = [x for x, _y, _t, _b in labels], [y for _x, y, _t, _b in labels]
            self._bounds = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        else:
            self._bounds = QRectF()
        self.update()

    def dataBounds(self, *_args, **_kwargs) -> None:
        return None  # labels never widen the auto-range

    def boundingRect(self) -> QRectF:
        # Text reaches some pixels past its anchor; a generous margin in data units keeps it unclipped.
        margin = max(self._bounds.width(), self._bounds.height(), 1e-9) * 0.5 + 1.0
        return self._bounds.adjusted(-margin, -margin, margin, margin)

    def paint(self, painter: QPainter, *_args) -> None:
        """Labels in priority order, each under, above, right or left of its node, whichever is free;
        one that would cover a label already drawn is left out (zooming in gives it room)."""
        transform = painter.transform()
        painter.resetTransform()
        metrics = painter.fontMetrics()
        self.painted = []
        covered = self.covered()
        for x, y, text, bold in self._labels:
            at = transform.map(QPointF(x, y))
            box = next((b for b in _label_places(at, metrics.horizontalAdvance(text), metrics.height())
                        if not any(b.intersects(other) for _t, other in self.painted)
                        and not any(b.intersects(other) for other in covered)), None)
            if box is None:
                continue
            self.painted.append((text, box))
            painter.setPen(QColor("#1d2b3a" if bold else "#33475b"))
            painter.drawText(QPointF(box.left(), box.top() + metrics.ascent()), text)


def _label_places(at: QPointF, width: float, height: float) -> list[QRectF]:
    """Where a label may go, in device pixels, best first: clear of the node's marker (about 9 px)."""
    gap = 9.0
    return [QRectF(at.x() - width / 2, at.y() + gap, width, height),
            QRectF(at.x() - width / 2, at.y() - gap - height, width, height),
            QRectF(at.x() + gap + 2, at.y() - height / 2, width, height),
            QRectF(at.x() - gap - 2 - width, at.y() - height / 2, width, height)]


class NodeItem(pg.ScatterPlotItem):
    """A scatter item whose points can be dragged."""

    def __init__(self, canvas: "GraphCanvas") -> None:
        super().__init__(size=14, hoverable=True, hoverSize=18, tip=canvas.node_tip)
        self.canvas = canvas
        self._dragging: int | None = None

    def mouseDragEvent(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            found = self.pointsAt(ev.buttonDownPos())
            if len(found) == 0:
                ev.ignore()
                return
            self._dragging = int(found[0].data())
        elif self._dragging is None:
            ev.ignore()
            return
        self.canvas.move_node(self._dragging, ev.pos().x(), ev.pos().y(), finished=ev.isFinish())
        if ev.isFinish():
            self._dragging = None
        ev.accept()


class GraphCanvas(pg.PlotWidget):
    node_clicked = Signal(str)
    node_double_clicked = Signal(str)
    edge_clicked = Signal(int)
    node_moved = Signal(str)
    node_menu_requested = Signal(str, QPoint)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w")
        self.setObjectName("graphCanvas")
        item = self.getPlotItem()
        item.hideAxis("left")
        item.hideAxis("bottom")
        item.hideButtons()
        self.setMenuEnabled(False)
        self.setAspectLocked(True)
        self.entities: list[Entity] = []
        self.relations: list[Relation] = []
        self.positions = np.zeros((0, 2))
        self.index: dict[str, int] = {}
        self.selected: str | None = None
        self.highlighted: set[str] = set()
        self.highlighted_edges: set[int] = set()
        self._edge_items: list[pg.PlotDataItem] = []
        self._edge_legend: list[str] = []
        self._last_click: tuple[str | None, float] = (None, 0.0)
        self._by_degree: list[int] = []  # entity indexes, best connected first
        self._relabel = QTimer(self, singleShot=True, interval=60)
        self._relabel.timeout.connect(self._draw_labels)
        self.labels = LabelLayer()
        self.nodes = NodeItem(self)
        self.nodes.setZValue(10)
        self.nodes.sigClicked.connect(self._clicked)
        self.addItem(self.nodes)
        self.addItem(self.labels)
        self.legend = item.addLegend(offset=(10, 10), labelTextColor="#33475b", brush=pg.mkBrush(255, 255, 255, 220))
        for kind, (colour, symbol) in TYPE_STYLE.items():
            self.legend.addItem(pg.ScatterPlotItem(symbol=symbol, brush=pg.mkBrush(colour), pen=None, size=10), kind)
        # A label under the legend cannot be read: it goes beside its node, or waits for a zoom.
        self.labels.covered = lambda: [QRectF(self.mapFromScene(self.legend.sceneBoundingRect()).boundingRect())]
        self.scene().sigMouseClicked.connect(self._scene_clicked)
        item.getViewBox().sigRangeChanged.connect(lambda *_: self._relabel.start())

    # -- data -------------------------------------------------------------------------------
    def set_graph(self, entities: list[Entity], relations: list[Relation],
                  positions: dict[str, tuple[float, float]]) -> None:
        self.entities = [e for e in entities if e.key in positions]
        self.index = {e.key: i for i, e in enumerate(self.entities)}
        self.relations = [r for r in relations if r.src.key in self.index and r.dst.key in self.index]
        self.positions = np.array([positions[e.key] for e in self.entities], dtype=float).reshape(-1, 2)
        degree = Counter(k for r in self.relations for k in (r.src.key, r.dst.key))
        self._by_degree = sorted(range(len(self.entities)), key=lambda i: -degree[self.entities[i].key])
        self.highlighted, self.highlighted_edges = set(), set()
        self.redraw()
        if len(self.entities):
            self.autoRange(padding=0.08)

    def edge_types(self) -> list[str]:
        return sorted({r.type for r in self.relations})

    def redraw(self) -> None:
        self._draw_edges()
        self._draw_nodes()
        self._draw_labels()

    def _draw_edges(self) -> None:
        for item in self._edge_items:
            self.removeItem(item)
        self._edge_items.clear()
        colours = {t: edge_colour(t) for t in self.edge_types()}
        self._legend_edges(colours)
        groups: dict[tuple[str, bool, bool], list[int]] = {}
        for n, r in enumerate(self.relations):
            groups.setdefault((r.type, r.active, n in self.highlighted_edges), []).append(n)
        for (kind, active, lit), members in groups.items():
            ends = np.array([[self.index[self.relations[n].src.key], self.index[self.relations[n].dst.key]]
                             for n in members]).reshape(-1)
            xy = self.positions[ends]
            pen = pg.mkPen(HIGHLIGHT if lit else colours[kind], width=3.5 if lit else 1.4,
                           style=Qt.PenStyle.SolidLine if active else Qt.PenStyle.DashLine)
            # Antialiased lines cost ~10x to draw; past a few hundred edges the picture is dense anyway.
            line = pg.PlotDataItem(xy[:, 0], xy[:, 1], connect="pairs", pen=pen, antialias=len(self.relations) <= 800)
            line.setZValue(5 if lit else 1)
            self.addItem(line)
            self._edge_items.append(line)

    def _legend_edges(self, colours: dict[str, str]) -> None:
        for name in self._edge_legend:
            self.legend.removeItem(name)
        self._edge_legend = list(colours)
        for kind, colour in colours.items():
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(colour, width=2)), kind)
        if colours:
            self._edge_legend.append("inactive relation")
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#777", width=2, style=Qt.PenStyle.DashLine)),
                                "inactive relation")
        if self.highlighted_edges:
            self._edge_legend.append(ANSWER_LEGEND)
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(HIGHLIGHT, width=3.5)), ANSWER_LEGEND)

    def _draw_nodes(self) -> None:
        spots = []
        for i, entity in enumerate(self.entities):
            colour, symbol = node_style(entity.type)
            lit, chosen = entity.key in self.highlighted, entity.key == self.selected
            spots.append({"pos": tuple(self.positions[i]), "data": i, "symbol": symbol,
                          "brush": pg.mkBrush(colour if entity.active else "#ffffff"),
                          "pen": pg.mkPen("#111" if chosen else HIGHLIGHT if lit else colour,
                                          width=3 if (chosen or lit) else 1.5),
                          "size": 18 if (chosen or lit) else 13})
        self.nodes.setData(spots)

    def _draw_labels(self) -> None:
        """Labels for the nodes in view: selected and highlighted first, then the best connected."""
        box = self.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = box.viewRange()
        inside = ((self.positions[:, 0] >= x0) & (self.positions[:, 0] <= x1) & (self.positions[:, 1] >= y0)
                  & (self.positions[:, 1] <= y1)) if len(self.entities) else np.zeros(0, bool)
        # dict.fromkeys: the selected node is often highlighted too, and gets one label.
        first = list(dict.fromkeys(k for k in (self.selected, *sorted(self.highlighted)) if k in self.index))
        rest = [self.entities[i].key for i in self._by_degree if inside[i] and self.entities[i].key not in first]
        shown = (first + rest)[:MAX_LABELS]
        self.labels.set_labels([(*self.positions[self.index[k]], self.entities[self.index[k]].name, k in first)
                                for k in shown])

    def highlight(self, keys: set[str], relation_indexes: set[int]) -> None:
        self.highlighted, self.highlighted_edges = set(keys), set(relation_indexes)
        self.redraw()

    def select(self, key: str | None) -> None:
        self.selected = key
        self._draw_nodes()
        self._draw_labels()

    def fit(self, keys: set[str] | None = None) -> None:
        """Show these nodes (all of them without keys), with a margin; one node gets its surroundings."""
        chosen = [self.index[k] for k in keys if k in self.index] if keys else list(range(len(self.entities)))
        if not chosen:
            return
        xy = self.positions[chosen]
        (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
        grow = max(0.0, MIN_FIT_SPAN - (x1 - x0)) / 2, max(0.0, MIN_FIT_SPAN - (y1 - y0)) / 2
        self.setRange(xRange=(x0 - grow[0], x1 + grow[0]), yRange=(y0 - grow[1], y1 + grow[1]), padding=0.12)

    def center_on(self, key: str) -> None:
        if key in self.index:
            x, y = self.positions[self.index[key]]
            view = self.getPlotItem().getViewBox().viewRange()
            half_w, half_h = (view[0][1] - view[0][0]) / 2, (view[1][1] - view[1][0]) / 2
            self.setRange(xRange=(x - half_w, x + half_w), yRange=(y - half_h, y + half_h), padding=0)

    def position_of(self, key: str) -> tuple[float, float]:
        x, y = self.positions[self.index[key]]
        return float(x), float(y)

    # -- interaction -----------------------------------------------------------------------------
    def node_tip(self, x: float, y: float, data: int) -> str:
        entity = self.entities[int(data)]
        state = "" if entity.active else " (inactive)"
        return f"{entity.name} · {entity.type}{state}\n{len(entity.fact_ids)} fact(s)"

    def move_node(self, i: int, x: float, y: float, finished: bool) -> None:
        self.positions[i] = (x, y)
        self._draw_nodes()
        if finished:
            self._draw_edges()
            self._draw_labels()
            self.node_moved.emit(self.entities[i].key)

    def _clicked(self, _item: pg.ScatterPlotItem, points: list, ev) -> None:
        if len(points):
            self._node_click(self.entities[int(points[0].data())].key, ev.double())

    def _node_click(self, key: str, double: bool) -> None:
        """A second click on the same node within the double-click interval counts as a double
        click too: pyqtgraph drops the double flag when a press precedes it (as synthetic input does)."""
        now = time.monotonic()
        quick = self._last_click[0] == key and now - self._last_click[1] < QApplication.doubleClickInterval() / 1000
        if double or quick:
            self._last_click = (None, 0.0)
            self.node_double_clicked.emit(key)
        else:
            self._last_click = (key, now)
            self.node_clicked.emit(key)

    def _scene_clicked(self, ev) -> None:
        if ev.isAccepted() or not len(self.entities):
            return
        box = self.getPlotItem().getViewBox()
        point = box.mapSceneToView(ev.scenePos())
        found = self.nodes.pointsAt(point)
        if ev.button() == Qt.MouseButton.RightButton:
            if len(found):
                self.node_menu_requested.emit(self.entities[int(found[0].data())].key, ev.screenPos().toPoint())
            return
        if len(found):  # the scatter item did not take the click (it can miss right after a redraw)
            self._node_click(self.entities[int(found[0].data())].key, ev.double())
            return
        edge = self.nearest_edge(point, box.viewPixelSize()) if self.relations else None
        if edge is not None:
            self.edge_clicked.emit(edge)

    def nearest_edge(self, point: QPointF, pixel: tuple[float, float]) -> int | None:
        """The relation whose segment passes within a few pixels of ``point``, if any."""
        src = self.positions[[self.index[r.src.key] for r in self.relations]]
        dst = self.positions[[self.index[r.dst.key] for r in self.relations]]
        scale = np.array(pixel, dtype=float)
        p = np.array([point.x(), point.y()]) / scale
        a, b = src / scale, dst / scale
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12), 0, 1)
        distance = np.linalg.norm(a + ab * t[:, None] - p, axis=1)
        best = int(np.argmin(distance))
        return best if distance[best] <= PICK_PIXELS and not math.isnan(distance[best]) else None
