"""The desktop app on a big store: time to a usable window, and whether typing stutters.

    python -m benchmarks.gui [--size 100000] [--out PATH]

Opens a copy of the cached synthetic store (``python -m benchmarks`` builds
it) in the real window on the offscreen platform and measures:

- open → first rows listed (the window is usable), → first search results (from the words alone
  while the model and the vectors load, which it records), and → first results by meaning too;
- while a query is typed at 12 keys per second: the longest stall of the UI
  thread (a 5 ms heartbeat timer's worst lateness) and the time from the last
  key to its results;
- while the listing of every fact is scrolled (page after page, then jumps to
  far places, whose rows arrive in pages from a worker): the longest stall;
- the entity-graph canvas with 2,000 nodes and 5,000 edges: layout time, first
  drawing, and the time to repaint after each step of a pan/zoom.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.main_window import MainWindow  # noqa: E402
from gui.session import Session  # noqa: E402

from benchmarks.synthetic import store_path

QUERY = "which database does the ingest service use"
KEY_INTERVAL_MS = 83
HEARTBEAT_MS = 5


class Heartbeat:
    """Measures how late a short repeating timer fires: the UI thread's worst stall."""

    def __init__(self) -> None:
        self.timer = QTimer(interval=HEARTBEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.last = 0.0
        self.worst = 0.0

    def start(self) -> None:
        self.last, self.worst = time.perf_counter(), 0.0
        self.timer.start()

    def _beat(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last - HEARTBEAT_MS / 1000)
        self.last = now

    def stop(self) -> float:
        self.timer.stop()
        return self.worst


def _wait(signal, timeout_s: float = 120.0) -> float:
    """Seconds until ``signal`` fires."""
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    start = time.perf_counter()
    loop.exec()
    signal.disconnect(loop.quit)
    return time.perf_counter() - start


def measure(store: Path) -> dict[str, float]:
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="memlens-guibench-") as folder:
        copy = Path(folder) / "memory.sqlite"
        shutil.copy(store, copy)
        cache = store.with_name(store.name + ".vector-cache")
        if cache.exists():  # the saved vector index beside the file is what a user's next open reads
            shutil.copy(cache, copy.with_name(copy.name + ".vector-cache"))
        settings = QSettings(str(Path(folder) / "gui.ini"), QSettings.Format.IniFormat)
        start = time.perf_counter()
        window = MainWindow(Session(), settings)
        window.resize(1400, 900)
        window.show()
        window.session.open(copy)
        _wait(window.search.searched)
        first_rows = time.perf_counter() - start
        window.search.query.setText("Ferrite ingest")
        _wait(window.search.searched)
        first_search = time.perf_counter() - start
        # While the model and the vectors load, the words answer first (and the pane says so); it asks
        # again by meaning once they are loaded.
        text_only = window.search.text_only
        if text_only:
            _wait(window.search.searched)
        first_hybrid = time.perf_counter() - start
        window.search.query.clear()
        _wait(window.search.searched)
        beat = Heartbeat()
        beat.start()
        for char in QUERY:
            QTest.keyClicks(window.search.query, char)
            QTest.qWait(KEY_INTERVAL_MS)
        last_key = time.perf_counter()
        _wait(window.search.searched)
        typed_to_results = time.perf_counter() - last_key
        stall = beat.stop()
        rows = window.search.model.rowCount()
        window.search.query.clear()
        _wait(window.search.searched)
        scroll_stall, listed = scroll(window.search.table)
        window.close()
        app.processEvents()
    return {"first_rows_s": round(first_rows, 3), "first_search_s": round(first_search, 3),
            "first_search_text_only": text_only, "first_hybrid_search_s": round(first_hybrid, 3),
            "typing_worst_stall_ms": round(stall * 1000, 1), "last_key_to_results_ms": round(typed_to_results * 1000, 1),
            "rows": rows, "scroll_worst_stall_ms": round(scroll_stall * 1000, 1), "listed_rows": listed}


def scroll(table, pages: int = 40, jumps: int = 12) -> tuple[float, int]:
    """Worst UI stall while paging down the listing and jumping across it; (seconds, rows listed)."""
    import random

    bar = table.verticalScrollBar()
    rng = random.Random(3)
    beat = Heartbeat()
    beat.start()
    for _ in range(pages):
        bar.setValue(bar.value() + bar.pageStep())
        QTest.qWait(40)
    for _ in range(jumps):
        bar.setValue(rng.randint(bar.minimum(), bar.maximum()))
        QTest.qWait(120)
    bar.setValue(bar.maximum())
    QTest.qWait(200)
    return beat.stop(), table.model().rowCount()


def measure_graph(nodes: int = 2000, edges: int = 5000, frames: int = 40) -> dict[str, float]:
    """The entity-graph canvas with a synthetic graph: layout time, drawing time, pan/zoom frame times."""
    import random
    import statistics

    from engine import Entity, Relation
    from gui import graph_layout
    from gui.widgets.graph_canvas import GraphCanvas, TYPE_STYLE

    rng = random.Random(5)
    types = list(TYPE_STYLE)
    entities = [Entity(i, f"{types[i % len(types)]}:node {i}", f"Node {i}", types[i % len(types)], True, (i,))
                for i in range(nodes)]
    kinds = ["works_at", "located_in", "leads", "uses", "member_of", "knows"]
    relations = []
    for n in range(edges):
        a, b = rng.randrange(nodes), rng.randrange(nodes)
        relations.append(Relation(entities[a], kinds[n % len(kinds)], entities[b], (n,), n % 17 != 0))
    start = time.perf_counter()
    positions = graph_layout.compute([e.key for e in entities], [(r.src.key, r.dst.key) for r in relations], {}, set())
    layout_s = time.perf_counter() - start
    canvas = GraphCanvas()
    canvas.resize(1000, 800)
    canvas.show()
    start = time.perf_counter()
    canvas.set_graph(entities, relations, positions)
    canvas.grab()
    draw_s = time.perf_counter() - start
    box = canvas.getPlotItem().getViewBox()
    times = []
    for frame in range(frames):
        (x0, x1), (y0, y1) = box.viewRange()
        shift = 0.03 * (x1 - x0) * (1 if frame % 2 else -1)
        zoom = 0.97 if frame % 4 < 2 else 1 / 0.97
        cx, cy, hw, hh = (x0 + x1) / 2 + shift, (y0 + y1) / 2, (x1 - x0) / 2 * zoom, (y1 - y0) / 2 * zoom
        start = time.perf_counter()
        box.setRange(xRange=(cx - hw, cx + hw), yRange=(cy - hh, cy + hh), padding=0)
        canvas.grab()  # a full render of the scene at the new range, as a frame on screen would be
        times.append(time.perf_counter() - start)
    canvas.close()
    times.sort()
    return {"graph_nodes": nodes, "graph_edges": edges, "graph_layout_s": round(layout_s, 2),
            "graph_draw_s": round(draw_s, 3), "graph_frame_p50_ms": round(statistics.median(times) * 1000, 1),
            "graph_frame_p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gui", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="synthetic store size (default 100000)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--store", type=Path, help="measure this store (a copy of it) instead of the cached one")
    args = parser.parse_args(argv)
    store = args.store or store_path(args.size)
    if not store.exists():
        print(f"no cached store at {store}: run 'python -m benchmarks' first", file=sys.stderr)
        return 1
    QApplication.instance() or QApplication([])
    figures = {"size": args.size, **measure(store), **measure_graph()}
    print(json.dumps(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
