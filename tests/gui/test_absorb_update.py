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
