"""One state per open file, and a live view of writes by other processes.

Each test drives the window as a person would: open a second file mid-session,
draft a change and then switch files, or leave the window open while an agent
(another process) writes to the same file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt
from shiboken6 import isValid

from engine import Memory, Settings

from tests.gui.conftest import WAIT_MS, open_file, settle

HELIX, NORTHWIND = 41, 1  # demo facts; a copy of the demo has the same ids, which is the danger


def _inspect(qtbot, window, fact_id: int) -> None:
    window.inspector.show_fact(fact_id)
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == fact_id,
                    timeout=WAIT_MS)


def _second_file(demo_copy: Path) -> Path:
    other = demo_copy.with_name("other.sqlite")
    shutil.copy(demo_copy, other)
    return other


def test_opening_another_file_forgets_everything_of_the_first(qtbot, window, demo_copy) -> None:
    other = _second_file(demo_copy)
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.timeline.show_fact(HELIX)
    qtbot.waitUntil(lambda: window.timeline.line is not None, timeout=WAIT_MS)
    window.inspector.buttons["archive"].click()
    prompt = window.inspector.prompt
    assert prompt.isVisible()

    open_file(qtbot, window, other)
    settle(qtbot, window)
    assert window.inspector.details is None
    assert window.inspector.title.text() == "No fact selected"
    assert not any(b.isEnabled() for b in window.inspector.buttons.values())
    assert window.inspector.prompt is None  # the Archive… question about the old file's fact is gone
    assert window.timeline.line is None and window.timeline.fact_id is None


def test_a_review_of_one_file_closes_and_cannot_apply_in_the_next(qtbot, window, demo_copy) -> None:
    other = _second_file(demo_copy)
    open_file(qtbot, window, demo_copy)
    _inspect(qtbot, window, HELIX)
    window.inspector.buttons["archive"].click()
    prompt = window.inspector.prompt
    prompt.setTextValue("switching files")
    with qtbot.waitSignal(window.inspector.review_opened, timeout=WAIT_MS) as opened:
        prompt.accept()
    review = opened.args[0]
    assert review.isVisible()
    generation = review.generation

    open_file(qtbot, window, other)
    settle(qtbot, window)
    assert not isValid(review) or not review.isVisible()
    refused: list[str] = []
    window.session.write(lambda m: m.archive_fact(HELIX), on_error=refused.append, generation=generation)
    settle(qtbot, window)
    assert refused and "no longer open" in refused[0]
    with Memory(other, Settings(), create=False) as memory:
        assert memory.describe([HELIX])[0].fact.status == "active"
        assert [p.kind for p in memory.plans()] == ["absorb"]  # no draft of the first file landed here


def test_writes_from_another_process_appear_within_the_poll(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    before = window.search.model.total
    script = textwrap.dedent(f"""
        from engine import Memory, Settings
        from engine.models.embeddings import shared_embedder
        with Memory({str(demo_copy)!r}, Settings(), actor="mcp", embedder=shared_embedder(), create=False) as m:
            m.absorb(["The Ferrite release train now ships every second Thursday."])
            m.link_facts(12, 30, "related", reason="both hold")
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).parents[2])

    with qtbot.waitSignal(window.session.live_changes, timeout=WAIT_MS) as live:
        pass
    entries, record = live.args
    assert {e.actor for e in entries} == {"mcp"} and len(record.facts_added) == 1
    new_fact = record.facts_added[0]
    assert window.live_notice.isVisible() and window.live_notice.text() == "● 1 new fact from mcp"
    qtbot.waitUntil(lambda: window.search.model.total == before + 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(window.contradictions.queue) == 2, timeout=WAIT_MS)
    assert window.tabs.tabText(window.pane_names.index("contradictions")) == "Contradictions (2)"
    qtbot.waitUntil(lambda: len(window.journal.live_rows()) == len(entries), timeout=WAIT_MS)

    window.live_notice.click()
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == new_fact,
                    timeout=WAIT_MS)
    assert not window.live_notice.isVisible()


def test_a_live_refresh_keeps_the_highlighted_row_on_the_fact_the_inspector_shows(qtbot, window, demo_copy) -> None:
    """Issue 27: a write by another process cleared the highlighted row while the inspector kept its fact."""
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    table, model = window.search.table, window.search.model
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualRect(model.index(4, 1)).center())
    chosen = model.hit(4).fact.id
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == chosen,
                    timeout=WAIT_MS)
    before = model.total
    script = textwrap.dedent(f"""
        from engine import Memory, Settings
        from engine.models.embeddings import shared_embedder
        with Memory({str(demo_copy)!r}, Settings(), actor="mcp", embedder=shared_embedder(), create=False) as m:
            m.absorb(["The Ferrite release train now ships every second Thursday.",
                      "Ines moved the quarterly review to the first Monday of the month."])
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).parents[2])
    with qtbot.waitSignal(window.session.live_changes, timeout=WAIT_MS):
        pass
    qtbot.waitUntil(lambda: model.total == before + 2, timeout=WAIT_MS)
    settle(qtbot, window)
    rows = table.selectionModel().selectedRows()
    assert rows, "the highlighted row was cleared"
    assert model.data(rows[0], Qt.ItemDataRole.UserRole) == chosen == window.inspector.details.fact.id
    assert table.currentIndex().row() == rows[0].row()  # the keyboard goes on from the highlighted row


def test_refreshes_in_a_row_keep_a_highlighted_row_whose_page_is_still_loading(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    table, model = window.search.table, window.search.model
    model.page_size = 5  # the rows on screen span pages: the refreshed listing brings the top one only
    window.session.refresh_stats()
    settle(qtbot, window)
    row = 12
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(model.index(row, 1)).center())
    chosen = model.data(model.index(row, 0), Qt.ItemDataRole.UserRole)
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == chosen,
                    timeout=WAIT_MS)
    for _ in range(3):  # F5, F5, F5: each refresh starts before the last one's rows arrived
        qtbot.keyClick(window, Qt.Key.Key_F5)
    settle(qtbot, window)
    rows = table.selectionModel().selectedRows()
    assert rows and model.data(rows[0], Qt.ItemDataRole.UserRole) == chosen == window.inspector.details.fact.id


def test_a_highlighted_fact_superseded_by_another_process_is_explained_not_silently_dropped(
        qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    table, model = window.search.table, window.search.model
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(model.index(2, 1)).center())
    chosen = model.hit(2).fact.id
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.id == chosen,
                    timeout=WAIT_MS)
    script = textwrap.dedent(f"""
        from engine import Memory, Settings
        from engine.models.embeddings import shared_embedder
        with Memory({str(demo_copy)!r}, Settings(), actor="mcp", embedder=shared_embedder(), create=False) as m:
            m.version_fact({chosen}, "A new version written by the agent while a person looked at the old one.")
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).parents[2])
    with qtbot.waitSignal(window.session.live_changes, timeout=WAIT_MS):
        pass
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.fact.status
                    == "superseded", timeout=WAIT_MS)
    settle(qtbot, window)
    assert window.inspector.details.fact.id == chosen
    assert not table.selectionModel().selectedRows()  # it is not listed any more (only active facts are) ...
    assert f"fact {chosen} (in the inspector) is no longer listed" in window.search.status.text()  # ... and says so
