"""Opening a file verifies it in the background and says so; a tampered file says what failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt

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


def test_a_failed_fact_is_marked_in_the_inspector_and_the_warning_takes_you_there(
        qtbot, window, demo_copy: Path) -> None:
    db = sqlite3.connect(demo_copy)
    db.execute("DROP TRIGGER facts_immutable")
    db.execute("UPDATE facts SET text = 'Maya prefers Emacs.' WHERE id = 41")
    db.commit()
    db.close()
    with qtbot.waitSignal(window.session.verified, timeout=WAIT_MS):
        open_file(qtbot, window, demo_copy)
    inspector = window.inspector
    assert window.integrity_label.isEnabled() and "integrity problem" in window.integrity_label.text()
    qtbot.mouseClick(window.integrity_label, Qt.MouseButton.LeftButton)  # the warning is a button
    report = window.verify_report
    qtbot.waitUntil(lambda: report.isVisible() and inspector.details is not None
                    and inspector.details.fact.id == 41, timeout=WAIT_MS)
    assert report.failed == [41] and "fact:41" in report.browser.toHtml()
    assert "failed verification" in inspector.title.text()
    assert inspector.damage.isVisible() and "content_hash" in inspector.damage.text()
    assert not any(b.isEnabled() for b in inspector.buttons.values())  # no curation on a text nobody vouches for
    assert window.tabs.currentIndex() == 0
    report.reject()
    window.search.select_fact(40) or inspector.show_fact(40)  # a sound fact is offered curation as before
    qtbot.waitUntil(lambda: inspector.details is not None and inspector.details.fact.id == 40, timeout=WAIT_MS)
    assert not inspector.damage.isVisible() and "failed" not in inspector.title.text()
    assert inspector.buttons["version"].isEnabled() == (inspector.details.fact.status == "active")
    inspector.show_fact(41)
    qtbot.waitUntil(lambda: inspector.details is not None and inspector.details.fact.id == 41, timeout=WAIT_MS)
    assert inspector.damage.isVisible()
    window.session.close()  # another file, or none: the mark goes with its fact (it stayed, seen in the walk)
    qtbot.waitUntil(lambda: inspector.details is None, timeout=WAIT_MS)
    assert not inspector.damage.isVisible()
