"""The listing's pages as a person meets them: the first rows before anything else loads, and a fast
scrollbar drag that fetches only where it stops. Orders and counts are asserted, never times."""

from __future__ import annotations

import threading
from pathlib import Path

from engine import Memory
from engine.search.index_sync import IndexSync
from gui.ops import BACKGROUND
from tests.gui.conftest import WAIT_MS, settle
from tests.gui.test_listing_sort import FACTS, big, big_file, embedder  # noqa: F401 (fixtures)
from tests.gui.test_search_pane import visible_rows_loaded


def _count_describes(monkeypatch) -> list[list[int]]:
    """Every page the engine is asked to describe, from whichever thread asks."""
    fetched: list[list[int]] = []
    real = Memory.describe

    def describe(self: Memory, fact_ids):
        fetched.append(list(fact_ids))
        return real(self, fact_ids)

    monkeypatch.setattr(Memory, "describe", describe)
    return fetched


def _busy_worker(window) -> threading.Event:
    """Occupy the one engine thread (as loading an index would) until the returned event is set."""
    gate, started = threading.Event(), threading.Event()
    window.session.call(lambda _m: (started.set(), gate.wait(WAIT_MS / 1000)))
    assert started.wait(WAIT_MS / 1000)
    return gate


def _shown_ids(window) -> list[tuple[int, int]]:
    table, model = window.search.table, window.search.model
    top, bottom = table.rowAt(0), table.rowAt(table.viewport().height() - 1)
    return [(row, model.hit(row).fact.id) for row in range(top, bottom + 1)]


def test_a_fast_scrollbar_drag_fetches_only_the_pages_where_it_stops(qtbot, big, monkeypatch) -> None:
    window, requests = big
    table, model = window.search.table, window.search.model
    bar = table.verticalScrollBar()
    fetched = _count_describes(monkeypatch)
    gate = _busy_worker(window)
    stops = [bar.maximum() * k // 8 for k in range(1, 8)] + [bar.maximum() // 5]
    for value in stops:  # each stop is painted and asks for its pages, which queue behind the busy worker
        asked = len(requests)
        bar.setValue(value)
        wanted = FACTS - table.rowAt(0)  # newest first: row r shows fact FACTS - r
        qtbot.waitUntil(lambda: any(wanted in ids for ids in requests[asked:]), timeout=WAIT_MS)
    gate.set()
    qtbot.waitUntil(lambda: visible_rows_loaded(window), timeout=WAIT_MS)
    settle(qtbot, window)
    shown = _shown_ids(window)
    assert shown and all(fact_id == FACTS - row for row, fact_id in shown)  # the rows of where it stopped
    on_screen = {fact_id for _row, fact_id in shown}
    assert fetched and all(on_screen & set(ids) for ids in fetched)  # nothing fetched for the way there
    assert len(fetched) <= 2 and model.pages_dropped >= len(stops) - 1


def test_a_page_scrolled_back_to_is_asked_for_again(qtbot, big, monkeypatch) -> None:
    window, requests = big
    table = window.search.table
    bar = table.verticalScrollBar()
    fetched = _count_describes(monkeypatch)
    gate = _busy_worker(window)
    asked = len(requests)
    bar.setValue(bar.maximum() // 2)
    middle = FACTS - table.rowAt(0)
    qtbot.waitUntil(lambda: any(middle in ids for ids in requests[asked:]), timeout=WAIT_MS)
    bar.setValue(0)  # back to the top, whose rows are loaded: the middle's request is dropped
    bar.setValue(bar.maximum() // 2)  # and there again: it is asked for once more, and arrives
    gate.set()
    qtbot.waitUntil(lambda: visible_rows_loaded(window), timeout=WAIT_MS)
    assert any(middle in ids for ids in fetched)
    assert all(fact_id == FACTS - row for row, fact_id in _shown_ids(window))


def test_the_first_rows_wait_neither_for_background_loads_nor_for_the_indexes(qtbot, window, big_file: Path,
                                                                              tmp_path: Path, monkeypatch) -> None:
    events: list[str] = []
    gate = threading.Event()  # the entity graph and the file check, queued at open, take their time here

    def slow(real):
        return lambda *a, **k: (gate.wait(WAIT_MS / 1000), real(*a, **k))[1]

    monkeypatch.setattr(Memory, "graph_entities", slow(Memory.graph_entities))
    monkeypatch.setattr(Memory, "verify", slow(Memory.verify))
    for cls, name in ((Memory, "warm_up"), (IndexSync, "ready"), (IndexSync, "text")):
        real = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda *a, _real=real, _name=name, **k: (events.append(_name),
                                                                                 _real(*a, **k))[1])
    rows_seen: list[bool] = []

    def listed(_count: int) -> None:
        rows_seen.append(window.search.model.hit(0) is not None)

    def shown() -> None:
        # When the rows reach the table: the window's own slot on ``searched`` starts the warm-up, and
        # runs before any slot this test connects there, so "rows" logged on ``searched`` raced the
        # loader thread (seen once in CI under load: ['warm_up', 'rows', ...]).
        if window.search.model.rowCount() and "rows" not in events:
            events.append("rows")

    window.search.model.modelReset.connect(shown)
    window.search.searched.connect(listed)
    copy = tmp_path / "big.sqlite"
    copy.write_bytes(big_file.read_bytes())
    with qtbot.waitSignal(window.search.searched, timeout=WAIT_MS):
        window.session.open(copy)
    assert not gate.is_set() and rows_seen == [True]  # rows, not placeholders, while the others still wait
    gate.set()
    qtbot.waitUntil(lambda: "text" in events, timeout=WAIT_MS)  # the warm-up loaded both indexes
    assert events.index("rows") < events.index("warm_up") < events.index("ready")
    settle(qtbot, window)


def test_a_page_on_screen_goes_before_background_work_already_queued(qtbot, big, monkeypatch) -> None:
    window, requests = big
    order: list[str] = []
    real = Memory.describe
    monkeypatch.setattr(Memory, "describe", lambda self, ids: (order.append("page"), real(self, ids))[1])
    gate = _busy_worker(window)
    window.session.call(lambda _m: order.append("background"), priority=BACKGROUND)  # e.g. the entity graph
    asked = len(requests)
    bar = window.search.table.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: len(requests) > asked, timeout=WAIT_MS)
    gate.set()
    qtbot.waitUntil(lambda: "page" in order and "background" in order, timeout=WAIT_MS)
    assert order.index("page") < order.index("background")
