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


def test_a_chunked_import_moves_the_counts_and_listing_and_cancel_says_so_and_stops_at_the_next_chunk(
        qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    before, listed = window.session.stats["facts"], window.search.model.rowCount()
    big = tmp_path / "long.jsonl"
    lines = 16 * CHUNK
    big.write_text("".join(json.dumps({"text": fact(n)}) + "\n" for n in range(lines)), encoding="utf-8")
    window.files.chunk_items = CHUNK
    window.files.import_file(big)
    qtbot.waitUntil(lambda: window.files.last_review is not None, timeout=WAIT_MS)
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        window.files.last_review.apply_button.click()
    qtbot.waitUntil(lambda: window.files.last_prompt is not None
                    and "Import the rest" in window.files.last_prompt.windowTitle(), timeout=WAIT_MS)
    seen: list[tuple[int, str, bool]] = []  # (rows listed, the status bar's count, import still running)
    window.search.searched.connect(lambda rows: seen.append((rows, window.counts_label.text(),
                                                             window.files.last_import is None)))
    window.files.last_prompt.accept()  # "Yes": import the rest
    # The listing and the count follow the chunks as they land, not only at the end.
    qtbot.waitUntil(lambda: any(rows >= listed + 3 * CHUNK and running for rows, _c, running in seen),
                    timeout=WAIT_MS)
    counts = [int(text.split()[0].replace(",", "")) for _r, text, running in seen if running]
    assert len(set(counts)) >= 2 and max(counts) > before + CHUNK, seen
    at_click = window.session.stats["facts"]
    window.cancel.click()
    assert window.busy_label.text() == "Cancelling…" and not window.cancel.isEnabled()  # said at once
    qtbot.waitUntil(lambda: window.files.last_import is not None, timeout=WAIT_MS)
    assert window.files.last_message.windowTitle() == "Import stopped"
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.cancel.isEnabled() and window.busy_label.text() == "", timeout=WAIT_MS)
    written = window.session.stats["facts"]
    assert written <= at_click + CHUNK and written < before + lines  # the chunk under way, then no more
    run = window.files.last_import
    assert run.cancelled and "run the same import again to resume" in run.summary()


def test_cancel_during_the_last_chunk_says_the_import_finished_anyway(qtbot, window, demo_copy, tmp_path: Path) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    before = window.session.stats["facts"]
    short = tmp_path / "two-chunks.jsonl"
    short.write_text("".join(json.dumps({"text": fact(n)}) + "\n" for n in range(2 * CHUNK)), encoding="utf-8")
    window.files.chunk_items = CHUNK
    window.files.import_file(short)
    qtbot.waitUntil(lambda: window.files.last_review is not None, timeout=WAIT_MS)
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        window.files.last_review.apply_button.click()
    qtbot.waitUntil(lambda: window.files.last_prompt is not None
                    and "Import the rest" in window.files.last_prompt.windowTitle(), timeout=WAIT_MS)

    def cancel_once(_label: str, _done: int, _total: int) -> None:
        if window.cancel.isEnabled():
            window.cancel.click()  # the rest is one chunk: this lands while the last chunk runs

    window.session.runner.progress.connect(cancel_once)
    window.files.last_prompt.accept()
    qtbot.waitUntil(lambda: window.files.last_import is not None, timeout=WAIT_MS)
    window.session.runner.progress.disconnect(cancel_once)
    message = window.files.last_message
    assert not window.files.last_import.cancelled and message.windowTitle() == "Import done"
    assert "Cancel came during the last chunk, which finished" in message.text()
    settle(qtbot, window)
    assert window.session.stats["facts"] == before + 2 * CHUNK
