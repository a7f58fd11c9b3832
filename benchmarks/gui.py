"""The desktop app on a big store: time to a usable window, and whether typing stutters.

    python -m benchmarks.gui [--size 100000] [--out PATH]

Opens a copy of the cached synthetic store (``python -m benchmarks`` builds
it) in the real window on the offscreen platform and measures:

- open → first rows listed (the window is usable), and → first search results;
- while a query is typed at 12 keys per second: the longest stall of the UI
  thread (a 5 ms heartbeat timer's worst lateness) and the time from the last
  key to its results.
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

from .synthetic import store_path  # noqa: E402

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
        window.close()
        app.processEvents()
    return {"first_rows_s": round(first_rows, 3), "first_search_s": round(first_search, 3),
            "typing_worst_stall_ms": round(stall * 1000, 1), "last_key_to_results_ms": round(typed_to_results * 1000, 1),
            "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gui", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="synthetic store size (default 100000)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    store = store_path(args.size)
    if not store.exists():
        print(f"no cached store at {store}: run 'python -m benchmarks' first", file=sys.stderr)
        return 1
    figures = {"size": args.size, **measure(store)}
    print(json.dumps(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
