"""The entity-graph view: find, expand, path questions, node and edge details, pinning."""

from __future__ import annotations

import json

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, Qt

from gui import graph_layout
from gui.widgets.graph_canvas import HIGHLIGHT

from tests.gui.conftest import WAIT_MS, open_file, settle


def _graph(qtbot, window, demo_copy):
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("graph"))
    pane = window.graph
    qtbot.waitUntil(lambda: len(pane.canvas.entities) > 0, timeout=WAIT_MS)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not pane.layout_runner.busy, timeout=WAIT_MS)
    return pane


def _find(qtbot, pane, name: str, hops: int) -> None:
    pane.hops.setValue(hops)
    pane.find.setText(name)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        qtbot.keyClick(pane.find, Qt.Key.Key_Return)


def _click_at(qtbot, pane, x: float, y: float, double: bool = False) -> None:
    box = pane.canvas.getPlotItem().getViewBox()
    at = pane.canvas.mapFromScene(box.mapViewToScene(QPointF(x, y)))
    qtbot.mouseMove(pane.canvas.viewport(), at)  # pyqtgraph routes a click to the item last hovered
    qtbot.wait(50)
    # Two quick clicks: QTest's double click is a lone DblClick event, which pyqtgraph never completes.
    for _ in range(2 if double else 1):
        qtbot.mouseClick(pane.canvas.viewport(), Qt.MouseButton.LeftButton, pos=at)


def test_small_graph_is_shown_whole_with_typed_nodes(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    assert len(pane.canvas.entities) == len(pane.entities) == 34
    assert {"works_at", "located_in"} <= set(pane.canvas.edge_types())
    assert "34 of 34 entities" in pane.status.text()


def test_find_then_expand_two_hops(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    one_hop = set(pane.visible)
    assert "location:kazan" in one_hop and 1 < len(one_hop) < 34
    assert "Kazan (location)" in pane.side_title.text()
    company = "company:northwind robotics"
    assert company in one_hop
    x, y = pane.canvas.position_of(company)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        _click_at(qtbot, pane, x, y, double=True)
    assert one_hop < pane.visible
    assert "person:maya lindqvist" in pane.visible


def test_path_query_highlights_the_answer(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    qtbot.keyClicks(pane.steps, "<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    assert pane.answer.text().startswith("5 answers")
    assert {"person:maya lindqvist", "company:northwind robotics", "location:kazan"} <= pane.canvas.highlighted
    lit = [pane.canvas.relations[i] for i in pane.canvas.highlighted_edges]
    assert {r.type for r in lit} == {"located_in", "works_at"}
    # The answer has its own colour, named in the legend, not one a relation type has.
    legend = _legend_colours(pane.canvas)
    assert legend["path answer"] == HIGHLIGHT
    assert HIGHLIGHT not in {colour for kind, colour in legend.items() if kind != "path answer"}
    pane.steps.setText("<no_such_relation")
    pane.run.click()
    qtbot.waitUntil(lambda: "No entity matches" in pane.answer.text() or "⚠" in pane.answer.text(),
                    timeout=WAIT_MS)


def test_clicking_an_edge_lists_the_facts_that_justify_it(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    canvas = pane.canvas
    index = next(i for i, r in enumerate(canvas.relations) if r.type == "located_in"
                 and r.src.key == "company:northwind robotics")
    (x1, y1), (x2, y2) = (canvas.position_of(canvas.relations[index].src.key),
                          canvas.position_of(canvas.relations[index].dst.key))
    with qtbot.waitSignal(canvas.edge_clicked, timeout=WAIT_MS) as clicked:
        _click_at(qtbot, pane, (x1 + x2) / 2, (y1 + y2) / 2)
    assert canvas.relations[clicked.args[0]].type == "located_in"
    qtbot.waitUntil(lambda: pane.facts.count() > 0 and "#1 " in pane.facts.item(0).text(), timeout=WAIT_MS)
    with qtbot.waitSignal(pane.fact_selected, timeout=WAIT_MS) as opened:
        pane._open_fact(pane.facts.item(0))
    assert opened.args == [1]


def test_a_dragged_node_is_pinned_and_the_layout_is_cached(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    key = "location:kazan"
    pane.canvas.move_node(pane.canvas.index[key], 5.0, -5.0, finished=True)
    assert key in pane.pinned
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        pane.relayout.click()
    assert pane.positions[key] == (5.0, -5.0)
    cached = json.loads(graph_layout.cache_file(demo_copy).read_text(encoding="utf-8"))
    assert key in cached["pinned"] and cached["positions"][key] == [5.0, -5.0]


def test_unknown_entities_are_explained(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    pane.find.setText("Atlantis")
    qtbot.keyClick(pane.find, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "no entity named 'Atlantis'" in pane.status.text(), timeout=WAIT_MS)


def _legend_colours(canvas) -> dict[str, str]:
    """The edge colours as the legend shows them, by relation type."""
    return {label.text: sample.item.opts["pen"].color().name() for sample, label in canvas.legend.items
            if isinstance(sample.item, pg.PlotDataItem)}


def _in_view(pane, key: str) -> bool:
    (x0, x1), (y0, y1) = pane.canvas.getPlotItem().getViewBox().viewRange()
    x, y = pane.canvas.position_of(key)
    return x0 <= x <= x1 and y0 <= y <= y1


def _edge_menu_pick(qtbot, pane, wanted: set[str]) -> None:
    """Tick exactly these edge types in the menu, one click per entry, as a person would."""
    for kind, action in pane.edge_actions.items():
        if action.isChecked() != (kind in wanted):
            action.trigger()


def _right_click_menu(qtbot, pane, key: str, entry: str) -> None:
    x, y = pane.canvas.position_of(key)
    box = pane.canvas.getPlotItem().getViewBox()
    at = pane.canvas.mapFromScene(box.mapViewToScene(QPointF(x, y)))
    qtbot.mouseMove(pane.canvas.viewport(), at)
    qtbot.mouseClick(pane.canvas.viewport(), Qt.MouseButton.RightButton, pos=at)
    qtbot.waitUntil(lambda: pane.node_menu is not None and pane.node_menu.isVisible(), timeout=WAIT_MS)
    menu = pane.node_menu
    action = next(a for a in menu.actions() if a.text().startswith(entry))
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_edge_colours_stay_with_their_type_across_views(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    everything = _legend_colours(pane.canvas)
    assert {"works_at", "located_in", "uses"} <= set(everything)
    _find(qtbot, pane, "Kazan", hops=1)
    near_kazan = _legend_colours(pane.canvas)
    assert "works_at" in near_kazan and len(near_kazan) < len(everything)
    assert all(near_kazan[kind] == everything[kind] for kind in near_kazan if kind in everything)
    _edge_menu_pick(qtbot, pane, {"works_at", "uses"})
    filtered = _legend_colours(pane.canvas)
    assert all(filtered[kind] == everything[kind] for kind in filtered if kind in everything)
    assert len(set(everything.values())) == len(everything)  # and the types tell apart


def test_edge_types_can_be_combined(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _edge_menu_pick(qtbot, pane, {"works_at", "located_in"})
    assert set(pane.canvas.edge_types()) == {"works_at", "located_in"}
    assert pane.edge_button.text() == "edges: located_in, works_at"
    next(a for a in pane.edge_menu.actions() if a.text() == "Show every type").trigger()
    assert set(pane.canvas.edge_types()) == set(pane.edge_actions)


def test_find_expand_and_answers_are_brought_into_view(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    box = pane.canvas.getPlotItem().getViewBox()
    _find(qtbot, pane, "Kazan", hops=1)
    assert all(_in_view(pane, k) for k in pane.visible)
    company = "company:northwind robotics"
    box.scaleBy((0.05, 0.05), center=QPointF(*pane.canvas.position_of(company)))  # zoomed right in
    qtbot.waitUntil(lambda: not _in_view(pane, "location:kazan"), timeout=WAIT_MS)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        _click_at(qtbot, pane, *pane.canvas.position_of(company), double=True)
    assert "person:maya lindqvist" in pane.visible
    assert all(_in_view(pane, k) for k in pane.visible)
    box.scaleBy((0.05, 0.05), center=QPointF(*pane.canvas.position_of("location:kazan")))
    pane.select_entity("location:kazan")
    qtbot.keyClicks(pane.steps, "<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    assert all(_in_view(pane, k) for k in pane.canvas.highlighted)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        pane.show_all.click()
    assert all(_in_view(pane, k) for k in pane.visible) and len(pane.visible) == 34
    _find(qtbot, pane, "Kazan", hops=1)
    pane.steps.setText("<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    pane.canvas.grab()
    names = [text for text, _box in pane.canvas.labels.painted]
    assert names.count("Kazan") == 1  # selected and an end of the path: still one label


def test_a_new_find_clears_the_old_answer_and_edge_filter(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    qtbot.keyClicks(pane.steps, "<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    _edge_menu_pick(qtbot, pane, {"works_at"})
    _find(qtbot, pane, "Maya Lindqvist", hops=1)
    assert not pane.canvas.highlighted and not pane.canvas.highlighted_edges
    assert pane.answer.text() == ""
    assert pane.edge_button.text() == "all edge types"
    assert len(pane.canvas.edge_types()) > 1


# The offscreen platform cannot raise a popup or grab the keyboard for it; a real display can.
@pytest.mark.qt_log_ignore("This plugin does not support raise", "This plugin does not support grabbing")
def test_a_node_menu_expands_hides_starts_paths_and_opens_facts(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    before = set(pane.visible)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        _right_click_menu(qtbot, pane, "company:northwind robotics", "Expand")
    assert before < pane.visible
    person = "person:maya lindqvist"
    _right_click_menu(qtbot, pane, person, "Hide")
    qtbot.waitUntil(lambda: person not in pane.visible and person not in pane.canvas.index, timeout=WAIT_MS)
    pane.steps.setText("<located_in <works_at")
    _right_click_menu(qtbot, pane, "location:kazan", "Path from here")
    qtbot.waitUntil(lambda: pane.answer.text().startswith("5 answers"), timeout=WAIT_MS)
    # "Show its facts": the search pane lists that entity's facts only (it listed every fact), the first
    # one in the inspector.
    search = window.search
    with qtbot.waitSignal(search.searched, timeout=WAIT_MS):
        _right_click_menu(qtbot, pane, "location:kazan", "Show its facts")
    assert window.tabs.currentIndex() == 0 and search.filters.entity_chip.isVisible()
    assert "Kazan" in search.filters.entity_chip.text()
    qtbot.waitUntil(lambda: pane.facts.count() > 0 and pane.facts.item(0).data(Qt.ItemDataRole.UserRole) is not None,
                    timeout=WAIT_MS)
    mentioning = {pane.facts.item(r).data(Qt.ItemDataRole.UserRole) for r in range(pane.facts.count())
                  if "[active]" in pane.facts.item(r).text()}
    listed = {search.model.data(search.model.index(r, 0), Qt.ItemDataRole.UserRole)
              for r in range(search.model.rowCount())}
    assert listed == mentioning and len(listed) < window.session.stats["facts"]
    first = search.model.data(search.model.index(0, 0), Qt.ItemDataRole.UserRole)
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == first,
                    timeout=WAIT_MS)
    with qtbot.waitSignal(search.searched, timeout=WAIT_MS):
        search.filters.entity_chip.click()  # the chip clears the filter: every fact again
    assert search.model.rowCount() == window.session.stats["by_status"]["active"]


def test_the_path_answer_stays_lit_after_expanding_a_node(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    qtbot.keyClicks(pane.steps, "<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    lit, edges = set(pane.canvas.highlighted), {(r.src.key, r.type, r.dst.key) for r in
                                                (pane.canvas.relations[i] for i in pane.canvas.highlighted_edges)}
    before = set(pane.visible)
    with qtbot.waitSignal(pane.laid_out, timeout=WAIT_MS):
        _click_at(qtbot, pane, *pane.canvas.position_of("company:northwind robotics"), double=True)
    assert before < pane.visible and pane.answer.text().startswith("5 answers")
    assert pane.canvas.highlighted == lit  # "5 answers" is still said, so it is still shown
    assert {(r.src.key, r.type, r.dst.key) for r in (pane.canvas.relations[i]
                                                      for i in pane.canvas.highlighted_edges)} == edges
    assert "path answer" in _legend_colours(pane.canvas)


def test_no_node_label_is_drawn_under_the_legend(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    canvas = pane.canvas
    legend = canvas.labels.covered()[0]
    assert legend.width() > 50 and legend.height() > 100
    # Pan the graph left, under the legend (a person dragging the view): nodes now sit where it is drawn.
    box = canvas.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = box.viewRange()
    shift = (x1 - x0) * 0.4
    box.setRange(xRange=(x0 + shift, x1 + shift), yRange=(y0, y1), padding=0)
    qtbot.waitUntil(lambda: not canvas._relabel.isActive(), timeout=WAIT_MS)
    canvas.grab()  # paint now
    nodes_under = [e.name for e in canvas.entities if legend.contains(canvas.mapFromScene(
        box.mapViewToScene(QPointF(*canvas.position_of(e.key)))))]
    assert nodes_under  # the case in question
    assert canvas.labels.painted
    under = [text for text, at in canvas.labels.painted if at.intersects(legend)]
    assert not under, under


def test_labels_do_not_overlap_at_the_default_zoom(qtbot, window, demo_copy) -> None:
    pane = _graph(qtbot, window, demo_copy)
    qtbot.waitUntil(lambda: not pane.canvas._relabel.isActive(), timeout=WAIT_MS)
    pane.canvas.grab()  # paint now
    painted = pane.canvas.labels.painted
    assert len(painted) >= 20  # most of the 34 names are still there
    for i, (text, box) in enumerate(painted):
        for other_text, other in painted[i + 1:]:
            assert not box.intersects(other), (text, other_text)


def test_opening_another_file_forgets_the_last_answer(qtbot, window, demo_copy, tmp_path) -> None:
    pane = _graph(qtbot, window, demo_copy)
    _find(qtbot, pane, "Kazan", hops=1)
    qtbot.keyClicks(pane.steps, "<located_in <works_at")
    pane.run.click()
    qtbot.waitUntil(lambda: bool(pane.canvas.highlighted), timeout=WAIT_MS)
    other = tmp_path / "other.sqlite"
    open_file(qtbot, window, other, create=True)
    settle(qtbot, window)
    assert pane.answer.text() == "" and pane.find.text() == "" and pane.steps.text() == ""
    assert pane.canvas.selected is None and not pane.canvas.highlighted and pane.facts.count() == 0
    assert "Kazan" not in pane.side_title.text()


@pytest.mark.parametrize("size", [(1024, 700), (1600, 1000)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_side_list_shows_whole_facts(qtbot, window, demo_copy, size) -> None:
    """Issue 27: the graph's side list cut every fact at its right edge."""
    window.resize(*size)
    pane = _graph(qtbot, window, demo_copy)
    pane.select_entity("company:northwind robotics")
    qtbot.waitUntil(lambda: pane.facts.count() > 3 and pane.facts.item(0).data(Qt.ItemDataRole.UserRole) is not None,
                    timeout=WAIT_MS)
    qtbot.wait(50)  # the list lays its wrapped items out on the next turn of the event loop
    view = pane.facts
    room = view.viewport().width()
    metrics = view.fontMetrics()
    for row in range(min(view.count(), 6)):
        item = view.item(row)
        rect = view.visualItemRect(item)
        assert rect.right() <= view.viewport().rect().right() + 1  # nothing past the right edge
        lines = -(-metrics.horizontalAdvance(item.text()) // room)  # at least this many lines, wrapped
        assert rect.height() >= lines * metrics.lineSpacing() - 2, (item.text(), rect, room)
