"""Entity-graph view: find an entity, expand its neighbourhood, ask typed path questions.

The whole graph is shown when it is small; a big one starts from its best
connected entities and grows as you find and expand. Layout runs on its own
worker (it never touches the memory file) and is cached per file; dragged
nodes stay pinned. Selecting a node lists the facts that mention it; clicking
an edge lists the facts that justify it; double-clicking either opens the fact.
A right click on a node offers expand, hide, path from here and its facts.
The view fits what was just asked for (a find, an expand, a path answer), and
a new find starts clean: no old answer, every edge type shown.

Signals: ``fact_selected(int)``, ``entity_facts_requested(str, str)`` (key, name: "Show its facts"
lists them in the search pane, filtered to that entity).
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QCheckBox, QCompleter, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QMenu, QPushButton, QSpinBox, QSplitter, QToolButton, QVBoxLayout, QWidget)

from engine import Entity, Fact, Match, Neighbor, Relation

from gui import graph_layout
from gui.ops import BACKGROUND, OpRunner
from gui.session import Session
from gui.widgets.graph_canvas import GraphCanvas

ALL_TYPES = "all edge types"
SHOW_ALL_UP_TO = 600  # nodes; a bigger graph starts from its best connected ones
START_WITH = 200


class GraphPane(QWidget):
    fact_selected = Signal(int)
    entity_facts_requested = Signal(str, str)
    laid_out = Signal()

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.layout_runner = OpRunner(self)
        self.entities: dict[str, Entity] = {}
        self.relations: list[Relation] = []
        self.visible: set[str] = set()
        self.positions: dict[str, tuple[float, float]] = {}
        self.pinned: set[str] = set()
        self._pending_highlight: tuple[set[str], set[tuple[str, str, str]]] = (set(), set())
        self._fit_next = False
        self.find = QLineEdit(placeholderText="find an entity (name, or type:name)", clearButtonEnabled=True)
        self.find.returnPressed.connect(self.find_entity)
        self.completer = QCompleter([], self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.find.setCompleter(self.completer)
        self.hops = QSpinBox(minimum=1, maximum=4, value=1, toolTip="Neighbourhood size when finding an entity")
        self.edge_button = QToolButton(toolTip="Edge types to show (tick several)", text=ALL_TYPES)
        self.edge_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.edge_menu = QMenu(self.edge_button)
        self.edge_button.setMenu(self.edge_menu)
        self.edge_actions: dict[str, QAction] = {}
        self.node_menu: QMenu | None = None
        self.inactive = QCheckBox("inactive edges", toolTip="Also show edges whose facts are no longer active "
                                                             "(dashed)", checked=True)
        self.inactive.toggled.connect(lambda _on: self._draw())
        self.show_all = QPushButton("Show all", toolTip="Every entity (may be slow to lay out on a huge graph)")
        self.show_all.clicked.connect(self.show_everything)
        self.relayout = QPushButton("Re-layout", toolTip="Lay the graph out again (pinned nodes stay)")
        self.relayout.clicked.connect(lambda: self._layout(fresh=True))
        self.steps = QLineEdit(placeholderText="path steps, e.g.  <located_in <works_at", clearButtonEnabled=True)
        self.steps.setToolTip("From the found entity, follow these relation types: 'works_at' forwards, "
                              "'<works_at' backwards, '*' any; up to 4 steps, optionally ':type' at the end")
        self.steps.returnPressed.connect(self.run_query)
        self.run = QPushButton("Run query")
        self.run.clicked.connect(self.run_query)
        self.answer = QLabel("")
        self.answer.setWordWrap(True)
        self.canvas = GraphCanvas()
        self.canvas.node_clicked.connect(self.select_entity)
        self.canvas.node_double_clicked.connect(self.expand)
        self.canvas.edge_clicked.connect(self.select_relation)
        self.canvas.node_moved.connect(self._pinned)
        self.canvas.node_menu_requested.connect(self._node_menu)
        self.side_title = QLabel("Select a node or an edge.")
        self.side_title.setWordWrap(True)
        self.side_title.setObjectName("inspectorTitle")
        self.facts = QListWidget()
        # A fact is a sentence or three: wrapped in the side list, not cut at its right edge.
        self.facts.setWordWrap(True)
        self.facts.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.facts.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.facts.itemDoubleClicked.connect(self._open_fact)
        self.status = QLabel("")

        top = QHBoxLayout()
        top.addWidget(self.find, 2)
        for label, widget in (("hops", self.hops), (None, self.edge_button), (None, self.inactive),
                              (None, self.show_all), (None, self.relayout)):
            if label:
                top.addWidget(QLabel(label))
            top.addWidget(widget)
        query = QHBoxLayout()
        query.addWidget(QLabel("Path query from the found entity:"))
        query.addWidget(self.steps, 2)
        query.addWidget(self.run)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.side_title)
        side_layout.addWidget(self.facts, 1)
        side_layout.addWidget(self.answer)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.canvas)
        self.splitter.addWidget(side)
        self.splitter.setSizes([1000, 380])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addLayout(query)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.status)
        self._unloaded: bool | None = None  # a load waiting for the pane to be shown (True: a new file's)
        session.opened.connect(lambda _s: (self.forget_file(), self._reload_when_shown(first=True)))
        session.store_changed.connect(lambda _c: self._reload_when_shown())
        session.closed.connect(lambda: (self.forget_file(), self._loaded(([], []))))

    # -- loading and layout -----------------------------------------------------------------------
    def _reload_when_shown(self, first: bool = False) -> None:
        """Load now if the pane is on screen, else when it is next shown: at 1M facts the graph's load
        held the engine's one worker for 8-47 s right after opening, and the first search waited behind
        it (issue 29)."""
        if self.isVisible():
            self._unloaded = None
            self.reload(first)
        else:
            self._unloaded = first or bool(self._unloaded)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._unloaded is not None:
            first, self._unloaded = self._unloaded, None
            self.reload(first)

    def reload(self, first: bool = False) -> None:
        if first and self.session.path is not None:
            self.positions, self.pinned = graph_layout.load(self.session.path)
            self.visible = set()
        self.session.call(lambda m: (m.graph_entities(), m.graph_relations()), self._loaded, lane="graph",
                          label="Loading the entity graph", priority=BACKGROUND)

    def _loaded(self, data: tuple[list[Entity], list[Relation]]) -> None:
        entities, self.relations = data
        self.entities = {e.key: e for e in entities}
        self.completer.model().setStringList(sorted({e.name for e in entities} | set(self.entities)))  # type: ignore
        self._fill_edge_menu(sorted({r.type for r in self.relations}))
        self.visible &= set(self.entities)
        if not self.visible:
            degree = Counter(k for r in self.relations for k in (r.src.key, r.dst.key))
            ranked = sorted(self.entities, key=lambda k: (-degree[k], k))
            self.visible = set(ranked if len(ranked) <= SHOW_ALL_UP_TO else ranked[:START_WITH])
        self._layout()

    def show_everything(self) -> None:
        self._fit_next = True  # the whole graph is what was asked for
        self._set_visible(set(self.entities))

    def _set_visible(self, keys: set[str]) -> None:
        self.visible = keys & set(self.entities)
        self._layout()

    def _layout(self, fresh: bool = False) -> None:
        nodes = sorted(self.visible)
        edges = [(r.src.key, r.dst.key) for r in self.relations
                 if r.src.key in self.visible and r.dst.key in self.visible]
        missing = [n for n in nodes if n not in self.positions]
        if not missing and not fresh:
            self._draw()
            self.laid_out.emit()
            return
        known = {k: v for k, v in self.positions.items() if not fresh or k in self.pinned}
        pinned = set(self.pinned)
        self.status.setText(f"Laying out {len(nodes):,} entities…")
        self.layout_runner.submit(lambda _p: graph_layout.compute(nodes, edges, known, pinned), self._placed,
                                  lane="layout", label="Layout", on_error=lambda msg: self.status.setText(f"⚠ {msg}"))

    def _placed(self, positions: dict[str, tuple[float, float]]) -> None:
        self.positions.update(positions)
        if self.session.path is not None:
            graph_layout.save(self.session.path, self.positions, self.pinned)
        self._draw(fit=True)
        self.laid_out.emit()

    def shown_relations(self) -> list[Relation]:
        kinds = self.shown_edge_types()
        return [r for r in self.relations if r.src.key in self.visible and r.dst.key in self.visible
                and r.type in kinds and (r.active or self.inactive.isChecked())]

    # -- the edge-type filter ---------------------------------------------------------------------
    def _fill_edge_menu(self, types: list[str]) -> None:
        """One checkable entry per type; a type that was unticked stays unticked across reloads."""
        hidden = {t for t, a in self.edge_actions.items() if not a.isChecked()}
        self.edge_menu.clear()
        self.edge_menu.addAction("Show every type", lambda: self.set_edge_types(None))
        self.edge_menu.addSeparator()
        self.edge_actions = {}
        for kind in types:
            action = self.edge_menu.addAction(kind)
            action.setCheckable(True)
            action.setChecked(kind not in hidden)
            action.toggled.connect(lambda _on: self._edge_types_changed())
            self.edge_actions[kind] = action
        self._label_edge_button()

    def shown_edge_types(self) -> set[str]:
        return {t for t, a in self.edge_actions.items() if a.isChecked()}

    def set_edge_types(self, kinds: set[str] | None) -> None:
        """Show exactly these edge types (every type with None)."""
        for kind, action in self.edge_actions.items():
            action.blockSignals(True)
            action.setChecked(kinds is None or kind in kinds)
            action.blockSignals(False)
        self._edge_types_changed()

    def _edge_types_changed(self) -> None:
        self._label_edge_button()
        self._draw()

    def _label_edge_button(self) -> None:
        shown = sorted(self.shown_edge_types())
        if len(shown) == len(self.edge_actions):
            self.edge_button.setText(ALL_TYPES)
        else:
            names = ", ".join(shown[:2]) + (f" +{len(shown) - 2}" if len(shown) > 2 else "")
            self.edge_button.setText(f"edges: {names or 'none'}")

    def _draw(self, fit: bool = False) -> None:
        fit, self._fit_next = fit or self._fit_next, False
        shown = [self.entities[k] for k in sorted(self.visible) if k in self.positions]
        rels = self.shown_relations()
        keep_view = not fit and len(self.canvas.entities)
        view = self.canvas.getPlotItem().getViewBox().viewRange()
        self.canvas.set_graph(shown, rels, self.positions)
        keys, on_path = self._pending_highlight
        if keys:  # the path answer stays lit while its "N answers" is shown, through expands and filters
            edges = {i for i, r in enumerate(self.canvas.relations) if (r.src.key, r.type, r.dst.key) in on_path}
            self.canvas.highlight(keys, edges)
        if keep_view:
            self.canvas.setRange(xRange=view[0], yRange=view[1], padding=0)
        self.status.setText(f"{len(shown):,} of {len(self.entities):,} entities, {len(rels):,} edges shown"
                            + (f" · {len(self.pinned)} pinned" if self.pinned else ""))

    def _pinned(self, key: str) -> None:
        self.pinned.add(key)
        self.positions[key] = self.canvas.position_of(key)
        if self.session.path is not None:
            graph_layout.save(self.session.path, self.positions, self.pinned)
        self.status.setText(f"{key} pinned where you dropped it; Re-layout keeps it there")

    # -- finding and expanding --------------------------------------------------------------------
    def find_entity(self) -> None:
        name, hops = self.find.text().strip(), self.hops.value()
        if not name:
            return
        self.session.call(lambda m: m.graph_neighbors(name, hops=hops, include_inactive=True),
                          lambda found: self._found(name, found), lane="graph-find",
                          on_error=lambda msg: self.status.setText(f"⚠ {msg}"))

    def _found(self, name: str, neighbours: list[Neighbor]) -> None:
        start = neighbours[0].start.key if neighbours else self._key_for(name)
        if start is None:
            self.status.setText(f"⚠ no entity named '{name}'")
            return
        self._clear_answer()
        self.visible = {start, *(n.entity.key for n in neighbours)}
        self.canvas.selected = start
        self._fit_next = True
        self._layout()
        self.select_entity(start)

    def forget_file(self) -> None:
        """Another file is open: nothing found, selected or answered in the last one may stay on screen."""
        self._clear_answer()
        self.canvas.selected = None
        self.find.clear()
        self.steps.clear()
        self.facts.clear()
        self.side_title.setText("Select a node or an edge.")
        self.status.setText("")

    def _clear_answer(self) -> None:
        """A new search starts clean: the last path answer and any edge-type filter belong to the old one."""
        self._pending_highlight = (set(), set())
        self.answer.setText("")
        if len(self.shown_edge_types()) != len(self.edge_actions):
            self.set_edge_types(None)

    def _key_for(self, name: str) -> str | None:
        wanted = name.strip().casefold()
        return next((k for k, e in self.entities.items() if k.casefold() == wanted or e.name.casefold() == wanted),
                    None)

    def expand(self, key: str) -> None:
        def found(neighbours: list[Neighbor]) -> None:
            self._fit_next = True
            self._set_visible(self.visible | {n.entity.key for n in neighbours} | {key})

        self.session.call(lambda m: m.graph_neighbors(key, hops=1, include_inactive=True), found,
                          lane="graph-expand", on_error=lambda msg: self.status.setText(f"⚠ {msg}"))

    def hide(self, key: str) -> None:
        if self.canvas.selected == key:
            self.canvas.selected = None
        self._set_visible(self.visible - {key})
        self.status.setText(self.status.text() + f" · {self.entities[key].name if key in self.entities else key}"
                                                 " hidden")

    def path_from(self, key: str) -> None:
        """Make this node the start of a path question; run it at once if steps are typed."""
        self.select_entity(key)
        if self.steps.text().split():
            self.run_query()
        else:
            self.answer.setText(f"Type the steps to follow from {self.side_title.text()}, then Run query.")
            self.steps.setFocus(Qt.FocusReason.OtherFocusReason)

    def _node_menu(self, key: str, at: QPoint) -> None:
        menu = QMenu(self)
        name = self.entities[key].name if key in self.entities else key
        menu.addAction(f"Expand {name}", lambda: self.expand(key))
        menu.addAction("Hide", lambda: self.hide(key))
        menu.addAction("Path from here", lambda: self.path_from(key))
        menu.addAction("Show its facts", lambda: self.show_facts(key))
        self.node_menu = menu
        menu.popup(at)

    def show_facts(self, key: str) -> None:
        """Its facts in the side list here, and listed in the search pane filtered to it (first one opened)."""
        self.select_entity(key)
        self.entity_facts_requested.emit(key, self.entities[key].name if key in self.entities else key)

    # -- path questions -----------------------------------------------------------------------------
    def run_query(self) -> None:
        start = self.canvas.selected or self.find.text().strip()
        steps = self.steps.text().split()
        if not start or not steps:
            self.answer.setText("Find or select the starting entity, and type one to four steps.")
            return
        self.session.call(lambda m: m.graph_query(start, steps, include_inactive=self.inactive.isChecked()),
                          self._answered, lane="graph-query",
                          on_error=lambda msg: self.answer.setText(f"⚠ {msg}"))

    def _answered(self, matches: list[Match]) -> None:
        on_path = {(r.src.key, r.type, r.dst.key) for m in matches for path in m.paths for r in path}
        keys = {m.entity.key for m in matches} | {k for s, _t, d in on_path for k in (s, d)}
        names = ", ".join(sorted(m.entity.name for m in matches))
        self.answer.setText(f"{len(matches)} answer{'s' * (len(matches) != 1)}: {names}" if matches else
                            "No entity matches that path.")
        self.visible |= keys
        self._pending_highlight = (keys, on_path)
        if all(k in self.positions for k in self.visible):
            self._apply_highlight()
        else:
            self.laid_out.connect(self._apply_highlight, Qt.ConnectionType.SingleShotConnection)
            self._layout()

    def _apply_highlight(self) -> None:
        self._draw()  # draws the answer lit
        self.canvas.fit(self._pending_highlight[0] or None)  # the answer (and the path to it) is what the person asked to see

    # -- details ------------------------------------------------------------------------------------
    def select_entity(self, key: str) -> None:
        self.canvas.select(key)
        entity = self.entities.get(key)
        self.side_title.setText(f"{entity.name} ({entity.type})" if entity else key)
        self.session.call(lambda m: m.entity_facts(key), self._list_facts, lane="graph-facts",
                          on_error=lambda msg: self.side_title.setText(f"⚠ {msg}"))

    def select_relation(self, index: int) -> None:
        relation = self.canvas.relations[index]
        state = "" if relation.active else " (inactive: none of its facts is active)"
        self.side_title.setText(f"{relation.src.name} —{relation.type}→ {relation.dst.name}{state}")
        ids = list(relation.fact_ids)
        self.session.call(lambda m: [h.fact for h in m.describe(ids)], self._list_facts, lane="graph-facts")

    def _open_fact(self, item: QListWidgetItem) -> None:
        fact_id = item.data(Qt.ItemDataRole.UserRole)
        if fact_id is not None:
            self.fact_selected.emit(int(fact_id))

    def _list_facts(self, facts: list[Fact]) -> None:
        self.facts.clear()
        for fact in facts:
            item = QListWidgetItem(f"#{fact.id} [{fact.status}] {' '.join(fact.text.split())}")
            item.setData(Qt.ItemDataRole.UserRole, fact.id)
            item.setToolTip(fact.text)
            self.facts.addItem(item)
        if not facts:
            self.facts.addItem("(no facts)")
