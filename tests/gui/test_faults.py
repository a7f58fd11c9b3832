"""Corrupt records in an open memory (issue 9): a damaged vector, another model's vector and a journal
row with bad JSON. The app opens the file, searches, inspects, draws the timeline and lists the
journal; the bad journal row is shown marked, not hidden, and nothing raises."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.gui.conftest import WAIT_MS, open_file, settle


def test_corrupt_records_do_not_break_the_app(qtbot, window, demo_copy: Path) -> None:
    raw = sqlite3.connect(demo_copy, isolation_level=None)
    first, second = [r[0] for r in raw.execute("SELECT id FROM facts WHERE status = 'active' ORDER BY id LIMIT 2")]
    raw.execute("UPDATE fact_vectors SET vector = x'00' WHERE fact_id = ?", (first,))
    raw.execute("UPDATE facts SET embedding_model = 'old/model-v0' WHERE id = ?", (second,))
    bad = raw.execute("INSERT INTO journal (at, actor, action, fact_id, plan_id, details) "
                      "VALUES (1.8e9, 'raw', 'reinforce', 40, NULL, '{not json')").lastrowid
    raw.close()
    open_file(qtbot, window, demo_copy)
    window.search.query.setText("Northwind")
    settle(qtbot, window)
    assert window.search.model.rowCount() > 0
    # counted apart after opening (they read every row), so they may arrive after the search
    qtbot.waitUntil(lambda: "2 facts search cannot use" in window.model_label.text(), timeout=WAIT_MS)
    assert window.session.stats["needs_reembedding"] == 1 and window.session.stats["damaged_vectors"] == 1
    window.inspector.show_fact(40)
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == 40,
                    timeout=WAIT_MS)
    marked = [e for e in window.inspector.details.journal if e.id == bad]
    assert marked and "not valid JSON" in marked[0].details["error"]
    window.timeline.show_fact(40)
    qtbot.waitUntil(lambda: not window.timeline.heading.text().startswith("Loading"), timeout=WAIT_MS)
    assert "⚠" not in window.timeline.heading.text()
    window.journal.refresh()
    qtbot.waitUntil(lambda: any(e.id == bad for e in (window.journal.entries or [])), timeout=WAIT_MS)
    settle(qtbot, window)
