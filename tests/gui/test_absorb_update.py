"""The Absorb… dialog, driven as a person would: an update in plain text is planned as a supersede,
applied, and the timeline pane shows the old version superseded and the new one current."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from engine import Memory, Settings

from tests.gui.conftest import WAIT_MS, open_file, settle


def test_an_update_pasted_into_the_absorb_dialog_supersedes(qtbot, window, tmp_path: Path, embedder) -> None:
    path = tmp_path / "lena.sqlite"
    with Memory(path, Settings(), actor="test", embedder=embedder) as memory:
        old = memory.absorb(["Lena works at Brightline Labs.", "The design review is on Mondays at 14:30."]).items[0]
    open_file(qtbot, window, path)
    pane = window.plans
    window.show_pane(window.pane_names.index("plans"))
    pane.pass_buttons["absorb"].click()
    dialog = pane.prompt
    dialog.text.setPlainText("Lena now works at Corvid Systems.")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "absorb" and pane.plan.status == "draft",
                    timeout=WAIT_MS)
    [item] = pane.plan.items
    assert (item.outcome, item.target_id) == ("supersede", old.fact_id)
    pane.table.selectRow(0)
    qtbot.waitUntil(lambda: "Brightline" in pane.matched.toPlainText(), timeout=WAIT_MS)
    pane.apply_button.click()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        pane.prompt.button(pane.prompt.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.status == "applied", timeout=WAIT_MS)
    new = pane.plan.items[0].fact_id
    settle(qtbot, window)

    timeline = window.timeline
    timeline.show_fact(new)
    qtbot.waitUntil(lambda: timeline.replay is not None and timeline.replay.fact_id == new, timeout=WAIT_MS)
    settle(qtbot, window)
    listed = [timeline.versions.item(i).data(Qt.ItemDataRole.UserRole) for i in range(timeline.versions.count())]
    assert listed == [old.fact_id, new]
    assert timeline.replay.statuses[old.fact_id] == "superseded" and timeline.replay.current == new
    with Memory(path, Settings(), create=False, embedder=embedder) as memory:
        facts = memory.facts([old.fact_id, new])
    assert (facts[old.fact_id].status, facts[new].status) == ("superseded", "active")


def test_the_absorb_dialog_opens_from_any_pane_with_its_shortcut(qtbot, window, tmp_path: Path, embedder) -> None:
    """Seen in the real-window walk: Absorb… was only a button on the Plans pane. The model's
    supersede of an update the frame reading gives up on reaches the plan a person reviews."""
    path = tmp_path / "invoices.sqlite"
    with Memory(path, Settings(), actor="test", embedder=embedder) as memory:
        old = memory.absorb(["Invoices for Acme go to Dana.", "Invoices for Globex go to Priya."]).items[0]
    assert not window.absorb_action.isEnabled()  # nothing open yet
    open_file(qtbot, window, path)
    window.show_pane(window.pane_names.index("search"))
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    pane = window.plans
    qtbot.waitUntil(lambda: pane.prompt is not None and pane.prompt.isVisible(), timeout=WAIT_MS)
    assert window.tabs.currentIndex() == window.pane_names.index("plans")
    qtbot.keyClicks(pane.prompt.text, "Since March, invoices for Acme go to Felix instead.")
    pane.prompt.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: pane.plan is not None and pane.plan.kind == "absorb", timeout=WAIT_MS)
    [item] = pane.plan.items
    assert (item.outcome, item.target_id, item.decided_by) == ("supersede", old.fact_id, "model")
    pane.table.selectRow(0)
    # decided-by is the first column to go at most widths: the line under the table says it
    qtbot.waitUntil(lambda: "decided by model, similarity" in pane.why.text(), timeout=WAIT_MS)
    assert "1 item (" in pane.heading.text()
