"""The Import review names each refused line and shows which text it was, never a secret in it; reasons
that point at another item of the file name its line (issue 27: "close to item 0 of this batch")."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from gui.dialogs.plan_review import HEADERS
from tests.gui.conftest import WAIT_MS, open_file, settle

TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
REASON = HEADERS.index("reason")


def _write(path: Path) -> None:
    lines = [{"text": "Alice drinks green tea every morning before work"},
             None,  # a blank line: line numbers are not item numbers
             {"text": f"the deploy token is {TOKEN} for the CI"},
             {"text": "Bob owns a red bicycle", "colour": "red"},
             {"text": "Carol works at Initech", "entities": [{"name": "Initech", "type": "spaceship"}]},
             {"text": "Alice drinks green tea every morning before work"}]
    path.write_text("".join("\n" if v is None else json.dumps(v) + "\n" for v in lines), encoding="utf-8")


def test_refusals_name_their_line_and_text_and_hide_the_secret(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    source = tmp_path / "notes.jsonl"
    _write(source)
    window.files.import_dialog()
    dialog = window.files.last_prompt
    qtbot.waitUntil(dialog.isVisible, timeout=WAIT_MS)
    qtbot.keyClicks(dialog.path, str(source))  # the dialog starts in its path field
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.files.last_review is not None and window.files.last_review.isVisible(),
                    timeout=WAIT_MS)
    review = window.files.last_review
    reasons = [review.table.item(row, REASON).text() for row in range(review.table.rowCount())]
    outcomes = [review.table.item(row, 1).text() for row in range(review.table.rowCount())]
    assert outcomes[1:4] == ["rejected"] * 3, outcomes
    secret, field, entity = reasons[1:4]
    assert secret.startswith("line 3: looks like a secret") and "“the deploy token is ‹hidden› for the CI”" in secret
    assert field.startswith("line 4: unknown field 'colour'") and "“Bob owns a red bicycle”" in field
    assert entity.startswith("line 5: entity type must be one of") and "“Carol works at Initech”" in entity
    assert "line 1" in reasons[4] and "item 0" not in reasons[4], reasons[4]  # the repeat names the first line
    shown = " ".join(reasons) + " ".join(review.table.item(r, REASON).toolTip() for r in range(len(reasons)))
    assert TOKEN not in shown and TOKEN[4:20] not in shown
    review.reject()
