"""The entity-graph view: find, expand, path questions, node and edge details, pinning."""

from __future__ import annotations

import json

from PySide6.QtCore import QPointF, Qt

from gui import graph_layout

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
