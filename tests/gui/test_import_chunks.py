"""A JSONL file longer than one chunk in the app (issue 18): its first chunk is reviewed, then the
rest is imported chunk by chunk with progress; Cancel stops between chunks, what was applied
stays, and importing the same file again resumes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engine import Memory, Settings

from tests.engine.io.test_stream_import import fact, stored
from tests.gui.conftest import WAIT_MS, open_file, settle

LINES, CHUNK = 120, 15


def test_a_long_import_reviews_the_first_chunk_then_cancel_stops_between_chunks_and_resumes(
        qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    before = window.session.stats["facts"]
    big = tmp_path / "big.jsonl"
    texts = [fact(n) for n in range(LINES)]
    big.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    window.files.chunk_items = CHUNK

    window.files.import_file(big)  # a dry run of the first chunk, for review
    qtbot.waitUntil(lambda: window.files.last_review is not None, timeout=WAIT_MS)
    review = window.files.last_review
    assert len(review.plan.items) == CHUNK and f"lines 1–{CHUNK} of {LINES}" in review.summary.text()
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        review.apply_button.click()
    qtbot.waitUntil(lambda: window.files.last_prompt is not None
                    and "Import the rest" in window.files.last_prompt.windowTitle(), timeout=WAIT_MS)
    assert f"of {LINES}" in window.files.last_prompt.text()

    seen: list[int] = []
    window.session.runner.progress.connect(lambda label, done, total: seen.append(done))
    window.files.last_prompt.accept()  # "Yes": import the rest
    qtbot.waitUntil(lambda: any(done > 3 * CHUNK for done in seen), timeout=WAIT_MS)
    assert window.cancel.isVisible() and f"/{LINES}" in window.busy_label.text()
    window.cancel.click()
    settle(qtbot, window)
    run = window.files.last_import
    assert run is not None and run.cancelled and run.resumed == CHUNK
    assert window.files.last_message.windowTitle() == "Import stopped"
    assert "run the same import again to resume" in window.files.last_message.text()
    written = window.session.stats["facts"] - before
    assert written % CHUNK == 0 and 3 * CHUNK <= written < LINES  # whole chunks only

    window.files.import_rest(big)
    qtbot.waitUntil(lambda: window.files.last_message.windowTitle() == "Import done", timeout=WAIT_MS)
    settle(qtbot, window)
    assert f"resumed: {written} items from an earlier run were already applied" in window.files.last_message.text()
    assert window.session.stats["facts"] == before + LINES
    facts = stored(demo_copy)
    assert all(facts.get(t) == (1, 0) for t in texts)
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert not memory.verify().problems
    db = sqlite3.connect(demo_copy)
    assert db.execute("SELECT count(*) FROM import_chunks").fetchone()[0] == LINES // CHUNK + 1  # + the demo's
