"""The timeline: versions on a time axis, word diffs, and the "as of" replay."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt

from tests.gui.conftest import WAIT_MS, open_file, settle

HELIX, NEOVIM, VSCODE = 41, 18, 4  # one "preferred editor" chain, oldest is VSCODE
CONTRADICTED, CONTRADICTING = 16, 40


def _timeline(qtbot, window, fact_id: int):
    pane = window.timeline
    pane.show_fact(fact_id)
    qtbot.waitUntil(lambda: pane.line is not None and pane.line.fact_id == fact_id, timeout=WAIT_MS)
    settle(qtbot, window)
    return pane


def test_versions_are_listed_with_a_word_diff(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    assert pane.heading.text().startswith(f"Fact {HELIX}: 3 versions")
    assert [pane.versions.item(i).text().split(" · ")[1] for i in range(3)] == [f"#{VSCODE}", f"#{NEOVIM}",
                                                                                 f"#{HELIX}"]
    pane.versions.setCurrentRow(1)
    diff = pane.diff.toHtml()
    assert "line-through" in diff and "Neovim" in diff
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == NEOVIM,
                    timeout=WAIT_MS)


def test_as_of_slider_replays_which_version_was_current(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, HELIX)
    assert pane.state.text().startswith(f"current version #{HELIX}")
    versions = {v.fact.id: v.fact.created_at for v in pane.line.versions}
    pane.set_as_of((versions[VSCODE] + versions[NEOVIM]) / 2)
    assert pane.state.text().startswith(f"current version #{VSCODE}")
    assert pane.as_of_label.text().startswith("as of 20")
    pane.set_as_of(versions[VSCODE] - 86400 * 3)
    assert pane.state.text().startswith("no version yet")
    qtbot.keyClick(pane.slider, Qt.Key.Key_End)
    assert pane.as_of_label.text() == "as of now"


def test_contradiction_is_open_only_once_both_sides_exist(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = _timeline(qtbot, window, CONTRADICTED)
    assert "1 contradiction" in pane.heading.text()
    assert f"#{CONTRADICTING} ↔ #{CONTRADICTED}" in pane.state.text()
    later = pane.line.others[CONTRADICTING][0].fact.created_at
    pane.set_as_of(later - 86400)
    assert pane.state.text().endswith("open contradictions: none")


def test_clicking_a_marker_selects_that_fact(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    window.tabs.setCurrentIndex(1)
    pane = _timeline(qtbot, window, CONTRADICTED)
    other = pane.line.others[CONTRADICTING][0]
    box = pane.plot.getPlotItem().getViewBox()
    scene = box.mapViewToScene(QPointF(other.fact.created_at, -1))
    at = pane.plot.mapFromScene(scene)
    with qtbot.waitSignal(pane.fact_selected, timeout=WAIT_MS) as clicked:
        qtbot.mouseClick(pane.plot.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert clicked.args == [CONTRADICTING]
    qtbot.waitUntil(lambda: window.inspector.details is not None
                    and window.inspector.details.fact.id == CONTRADICTING, timeout=WAIT_MS)


def test_bad_ids_in_the_jump_box_are_explained(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    pane = window.timeline
    qtbot.keyClicks(pane.jump, "abc")
    qtbot.keyClick(pane.jump, Qt.Key.Key_Return)
    assert "whole number" in pane.heading.text()
    pane.jump.setText("99999")
    qtbot.keyClick(pane.jump, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "no fact 99999" in pane.heading.text(), timeout=WAIT_MS)


def test_after_resolving_the_past_still_shows_the_pair_open(qtbot, window, demo_copy) -> None:
    """Keep the left side of a contradiction, then look at a moment before that decision."""
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    window.show_pane(window.pane_names.index("contradictions"))
    pane = window.contradictions
    assert (pane.current.left.id, pane.current.right.id) == (12, 30)
    both_written = max(pane.current.left.created_at, pane.current.right.created_at)
    with qtbot.waitSignal(pane.review_opened, timeout=WAIT_MS) as opened:
        pane.buttons["left"].click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        opened.args[0].apply_button.click()
    settle(qtbot, window)

    timeline = _timeline(qtbot, window, 12)
    listed = [timeline.versions.item(i).data(Qt.ItemDataRole.UserRole) for i in range(timeline.versions.count())]
    assert listed == [30, 12]  # as of now, 30 is 12's superseded older version
    timeline.set_as_of(both_written + 60)
    qtbot.waitUntil(lambda: timeline.chain_then is not None, timeout=WAIT_MS)
    assert timeline.chain_then == [12]
    assert timeline.versions.item(0).isHidden() and not timeline.versions.item(1).isHidden()
    assert timeline.state.text() == "current version #12 · open contradictions: #30 ↔ #12"
    then = timeline.line.state_at(both_written + 60).statuses
    assert then[12] == then[30] == "active"
    timeline.slider.setValue(timeline.slider.maximum())
    qtbot.waitUntil(lambda: timeline.chain_then is None, timeout=WAIT_MS)
    assert not timeline.versions.item(0).isHidden()
