"""Starting the desktop app: ``memlens gui [--db PATH]`` or ``python -m gui``.

With ``--screenshot OUT.png`` the app renders one pane offscreen at the
requested size once every queued job has finished, saves it and exits; that is
how the README's pictures are made and how a person can check a pane without a
display.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from engine import default_memory_path

from gui.main_window import MainWindow
from gui.resources import icon, style_sheet
from gui.session import Session

PANES = ("search", "timeline", "graph", "plans", "contradictions", "profile", "journal")
SETTLE_MS = 300
SCREENSHOT_TIMEOUT_MS = 120_000


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="memlens gui", description="Open the MemLens desktop app.")
    p.add_argument("--db", type=Path, help="memory file to open (created if missing; default: $MEMLENS_DB, else "
                                           "memory.sqlite in the user data folder)")
    p.add_argument("--demo", action="store_true", help="open the demo memory (a temporary copy) instead")
    p.add_argument("--screenshot", metavar="OUT.png", type=Path, help="render one pane offscreen, save it, exit")
    p.add_argument("--pane", choices=PANES, default="search", help="pane for --screenshot (default: search)")
    p.add_argument("--plan", type=int, help="plan to show in the plans pane (with --screenshot)")
    p.add_argument("--dry-run", choices=("gc", "consolidate", "distill"), dest="dry_run",
                   help="start this dry run in the plans pane (with --screenshot)")
    p.add_argument("--entity", help="entity to find in the graph pane (with --screenshot)")
    p.add_argument("--session", help="session id whose snapshot to show in the profile pane (with --screenshot)")
    p.add_argument("--steps", help="path query steps from --entity, e.g. '<located_in <works_at'")
    p.add_argument("--query", default="", help="search text to show (with --screenshot)")
    p.add_argument("--fact", type=int, help="fact to select or show the timeline of (with --screenshot)")
    p.add_argument("--size", default="1400x900", help="window size for --screenshot, WIDTHxHEIGHT")
    return p


def _no_display() -> bool:
    return (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    elif _no_display():
        print("memlens gui: error: no display found (DISPLAY and WAYLAND_DISPLAY are unset); run it in a desktop "
              "session, or use 'memlens gui --screenshot OUT.png' to render offscreen", file=sys.stderr)
        return 2
    try:
        width, height = (int(n) for n in args.size.lower().split("x"))
    except ValueError:
        print(f"memlens gui: error: --size must look like 1400x900, not {args.size!r}", file=sys.stderr)
        return 2
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("MemLens")
    app.setApplicationName("MemLens")
    app.setWindowIcon(icon("app"))
    app.setStyleSheet(style_sheet())
    session = Session()
    window = MainWindow(session, QSettings())
    if args.demo:
        window.files.open_demo()
    else:
        path = args.db or default_memory_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        session.open(path, create=True)
    if args.screenshot:
        return _screenshot(app, window, args, (width, height))
    window.show()
    return app.exec()


def _graph_query(window: MainWindow, args: argparse.Namespace) -> None:
    window.graph.find_entity()
    if args.steps:
        window.graph.steps.setText(args.steps)
        window.graph.laid_out.connect(window.graph.run_query, Qt.ConnectionType.SingleShotConnection)


def _screenshot(app: QApplication, window: MainWindow, args: argparse.Namespace, size: tuple[int, int]) -> int:
    """Drive the window to the asked-for state, wait until no job runs, grab, save."""
    window.resize(*size)
    window.show()
    outcome = {"code": 1}

    def opened(_stats: dict) -> None:
        window.stack.setCurrentIndex(1 if window.session.stats.get("facts") or args.query else 0)
        window.show_pane(window.pane_names.index(args.pane))
        if args.query and args.pane == "search":
            window.search.query.setText(args.query)
            window.search.run_search()
        if args.fact is not None:
            window.inspector.show_fact(args.fact)
            window.timeline.show_fact(args.fact)
        if args.plan is not None:
            window.plans.refresh(args.plan)
        if args.dry_run:
            window.plans.start_pass(args.dry_run)
        if args.pane == "profile":
            window.profile.query.setText(args.query)
            if args.session:
                window.profile.session_id.setText(args.session)
            window.profile.show_snapshot(freeze=bool(args.session))
        if args.entity:
            window.graph.find.setText(args.entity)
            window.graph.laid_out.connect(lambda: _graph_query(window, args), Qt.ConnectionType.SingleShotConnection)
        idle.start()

    def settle() -> None:
        if window.session.runner.busy or window.graph.layout_runner.busy or window.search._debounce.isActive():
            return
        if args.fact is not None and not outcome.get("selected"):
            outcome["selected"] = True
            if window.search.select_fact(args.fact):
                return  # selecting loads the fact again: wait for that too
        idle.stop()
        app.processEvents()
        ok = window.grab().save(str(args.screenshot))
        print(f"{'saved' if ok else 'could not save'} {args.screenshot}")
        outcome["code"] = 0 if ok else 1
        app.quit()

    def failed(path: str, message: str) -> None:
        print(f"memlens gui: error: cannot open {path}: {message}", file=sys.stderr)
        app.quit()

    idle = QTimer(interval=SETTLE_MS)
    idle.timeout.connect(settle)
    window.session.opened.connect(opened)
    window.session.open_failed.connect(failed)
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, lambda: (print("memlens gui: error: timed out", file=sys.stderr),
                                                      app.quit()))
    app.exec()
    window.close()
    return outcome["code"]


if __name__ == "__main__":
    sys.exit(main())
