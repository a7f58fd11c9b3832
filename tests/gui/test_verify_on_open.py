"""Opening a file verifies it in the background and says so; a tampered file says what failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.gui.conftest import WAIT_MS, open_file


def test_a_clean_file_is_verified_on_open(qtbot, window, demo_copy: Path) -> None:
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS):
        open_file(qtbot, window, demo_copy)
    assert window.integrity_label.text() == "✓ verified"


def test_a_fact_rewritten_behind_memlens_back_is_reported(qtbot, window, demo_copy: Path) -> None:
    db = sqlite3.connect(demo_copy)
    db.execute("DROP TRIGGER facts_immutable")  # what someone with a raw SQL shell can do
    db.execute("UPDATE facts SET text = 'Maya prefers Emacs.' WHERE id = 41")
    db.commit()
    db.close()
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS):
        open_file(qtbot, window, demo_copy)
    assert "integrity problem" in window.integrity_label.text()
    assert "41" in window.integrity_label.toolTip()
