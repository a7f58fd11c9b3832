"""The main window: welcome page or the panes, menus, shortcuts, status bar, drag and drop.

The window wires panes together (a selection in one shows the fact in the
others); panes never call each other. Window geometry, splitters and recent
files live in ``QSettings``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QLabel, QMainWindow, QMenu, QProgressBar, QPushButton, QSplitter, QStackedWidget,
                               QTabWidget, QWidget)

from engine import Verification

from gui.widgets.elided_label import ElidedLabel
from gui.dialogs.connect import ConnectDialog
from gui.dialogs.help import ABOUT, SHORTCUTS, HelpDialog
from gui.dialogs.verify_report import VerifyReport
from gui.dialogs.help import PANES as PANES_PAGE
from gui.files import MEMORY_SUFFIXES, FileActions
from gui.panes.contradictions import ContradictionsPane
from gui.panes.graph import GraphPane
from gui.panes.inspector import InspectorPane
from gui.panes.journal import JournalPane
from gui.panes.plans import PlansPane
from gui.panes.profile import ProfilePane
from gui.panes.search import SearchPane
from gui.panes.timeline import TimelinePane
from gui.panes.welcome import WelcomePane
from gui.resources import icon
from gui.session import Session

WELCOME, PANES = 0, 1
INSPECTOR_MIN_WIDTH = 240  # with the results pane's minimum, the window still fits an 800 px screen


class MainWindow(QMainWindow):
    def __init__(self, session: Session, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.settings = session, settings
        self.setWindowTitle("MemLens")
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self._closing = False  # set once the person agreed to drop unsaved profile edits
        self.files = FileActions(self, session, settings)
        self.welcome = WelcomePane()
        self.search = SearchPane(session)
        self.inspector = InspectorPane(session)
        self.timeline = TimelinePane(session)
        self.graph = GraphPane(session)
        self.plans = PlansPane(session)
        self.contradictions = ContradictionsPane(session)
        self.profile = ProfilePane(session)
        self.journal = JournalPane(session)
        self.search_split = QSplitter(Qt.Orientation.Horizontal)
        self.search_split.addWidget(self.search)
        self.search_split.addWidget(self.inspector)
        # The results get three fifths and keep that share as the window grows; the inspector never
        # shrinks below what its buttons need (it would clip them).
        self.search_split.setStretchFactor(0, 3)
        self.search_split.setStretchFactor(1, 2)
        self.search_split.setChildrenCollapsible(False)
        self.inspector.setMinimumWidth(INSPECTOR_MIN_WIDTH)
        # Keyboard: search box, Down into the results, Tab to the selected fact's actions.
        QWidget.setTabOrder(self.search.table, self.inspector.buttons["version"])
        self.search_split.setSizes([840, 560])
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for widget, name in ((self.search_split, "search"), (self.timeline, "timeline"), (self.graph, "graph"),
                             (self.plans, "plans"),
                             (self.contradictions, "contradictions"), (self.profile, "profile"),
                             (self.journal, "journal")):
            self.tabs.addTab(widget, icon(name), name.capitalize())
        self.pane_names = [self.tabs.tabText(i).lower() for i in range(self.tabs.count())]
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.tabs)
        self.setCentralWidget(self.stack)
        self._build_status_bar()
        self._build_menus()
        self._wire()
        self._restore()

    # -- construction --------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.path_label = ElidedLabel("No memory open")
        self.counts_label = QLabel("")
        self.model_label = QLabel("")
        self.llm_label = QLabel("")
        self.busy_label = QLabel("")
        self.integrity_label = QPushButton("", flat=True, objectName="integrity",
                                           toolTip="memlens verify: SQLite's integrity check, each fact's content "
                                                   "hash, the journal's hash chain and the full-text index")
        self.integrity_label.clicked.connect(self.show_verification)
        self.verdict: Verification | None = None
        self.verify_report: VerifyReport | None = None
        self.busy = QProgressBar(maximumWidth=120, maximumHeight=14, textVisible=False)
        self.busy.setRange(0, 0)
        self.busy.hide()
        self.cancel = QPushButton("Cancel", flat=True, toolTip="Stop the running job (Esc)")
        self.cancel.hide()
        self.cancel.clicked.connect(self.session.runner.cancel_all)
        self.live_notice = QPushButton("", flat=True, objectName="liveNotice", visible=False,
                                       toolTip="Written by another process while this window was open: click to see")
        self.live_notice.clicked.connect(lambda _checked=False: self._show_live(jump=True))
        self._live_facts: list[int] = []
        bar.addWidget(self.path_label, 1)
        bar.addPermanentWidget(self.live_notice)
        for widget in (self.counts_label, self.model_label, self.llm_label, self.integrity_label, self.busy_label,
                       self.busy, self.cancel):
            bar.addPermanentWidget(widget)

    def _action(self, menu: QMenu, text: str, slot, shortcut: QKeySequence | str | None = None,
                icon_name: str | None = None) -> QAction:
        action = menu.addAction(icon(icon_name), text) if icon_name else menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New…", self.files.new_dialog, QKeySequence.StandardKey.New, "new")
        self._action(file_menu, "&Open…", self.files.open_dialog, QKeySequence.StandardKey.Open, "open")
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._action(file_menu, "Open &Demo Memory", self.files.open_demo, None, "demo")
        file_menu.addSeparator()
        self.import_action = self._action(file_menu, "&Import…", self.files.import_dialog, "Ctrl+I", "import")
        self.export_action = self._action(file_menu, "&Export JSONL…", self.files.export_dialog, "Ctrl+E", "export")
        # Facts typed or pasted, planned as a dry run for review: from any pane, not only from Plans.
        self.absorb_action = self._action(file_menu, "&Absorb Facts…", self.absorb, "Ctrl+Shift+A")
        self.absorb_action.setEnabled(False)
        file_menu.addSeparator()
        self.connect_action = self._action(file_menu, "Connect an &Agent…", self.show_connect)
        self.connect_action.setEnabled(False)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        view = self.menuBar().addMenu("&View")
        self._action(view, "Find (focus search)", self.focus_search, "Ctrl+K", "search")
        for number in range(1, self.tabs.count() + 1):
            self._action(view, self.tabs.tabText(number - 1), lambda _c=False, i=number - 1: self.show_pane(i),
                         f"Ctrl+{number}")
        self._action(view, "Refresh", self.session.refresh_stats, QKeySequence.StandardKey.Refresh)
        stop = QAction("Cancel job", self, shortcut=QKeySequence("Esc"))
        stop.triggered.connect(self.session.runner.cancel_all)
        self.addAction(stop)
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Keyboard Shortcuts", lambda: self.show_help(SHORTCUTS),
                     QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "What Each &Pane Is For", lambda: self.show_help(PANES_PAGE))
        self._action(help_menu, "&About MemLens", lambda: self.show_help(ABOUT))

    def _wire(self) -> None:
        s = self.session
        s.opened.connect(self._opened)
        s.opened.connect(lambda _stats: self.integrity_label.setText("verifying…"))
        s.verified.connect(self._show_verification)
        s.closed.connect(lambda: self.integrity_label.setText(""))
        s.opened.connect(lambda _stats: setattr(self, "verdict", None))
        s.store_changed.connect(lambda _c: self._update_status())
        s.stats_changed.connect(lambda _stats: self._update_status())
        s.closed.connect(self._update_status)
        s.closed.connect(lambda: self.absorb_action.setEnabled(False))
        s.error.connect(lambda message: self.statusBar().showMessage(f"⚠ {message}", 8000))
        s.runner.busy_changed.connect(self._busy)
        s.runner.progress.connect(self._progress)
        s.runner.cancel_requested.connect(self._cancelling)
        self.welcome.chosen.connect(self._welcome_choice)
        # One list of recent files (FileActions.recent), shown by the welcome page and File → Open Recent;
        # read again whenever the welcome page comes back, as a file listed may have gone meanwhile.
        self.files.recent_changed.connect(self.welcome.set_recent)
        self.stack.currentChanged.connect(lambda index: index == WELCOME and self.welcome.set_recent(
            self.files.recent()))
        s.closed.connect(lambda: self.welcome.set_recent(self.files.recent()))
        self.search.searched.connect(lambda _rows: s.warm_up())
        self.search.fact_selected.connect(self._show_fact)
        self.inspector.fact_activated.connect(self._follow)
        self.timeline.fact_selected.connect(self.inspector.show_fact)
        for pane in (self.graph, self.plans, self.contradictions, self.profile, self.journal):
            pane.fact_selected.connect(self._open_fact)
        self.journal.plan_selected.connect(self._open_plan)
        self.graph.entity_facts_requested.connect(self._entity_facts)
        self.journal.revert_requested.connect(self.plans.revert)
        s.live_changes.connect(self._live)
        s.opened.connect(lambda _stats: self._show_live(jump=False))
        self.files.confirm_leave = self.profile.confirm_discard
        self.contradictions.count_changed.connect(self._contradiction_count)

    def _restore(self) -> None:
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        for key, splitter in (("split/search", self.search_split), ("split/timeline", self.timeline.splitter),
                              ("split/graph", self.graph.splitter), ("split/plans", self.plans.splitter)):
            state = self.settings.value(key)
            if state is not None:
                splitter.restoreState(state)
        self.welcome.set_recent(self.files.recent())

    # -- behaviour -----------------------------------------------------------------------
    def show_connect(self) -> None:
        """Each agent client's configuration for the open file (File → Connect an Agent…)."""
        if self.session.path is None:
            return
        self.connect_dialog = ConnectDialog(Path(self.session.path), self)
        self.connect_dialog.open()

    def show_help(self, page: int) -> None:
        self.help = HelpDialog(self, page)
        self.help.open()

    def pane_of(self, thing: QObject) -> str:
        """The pane a shortcut belongs to ('' for the window's own): its nearest tab page."""
        widget = thing.parent()
        while isinstance(widget, QWidget) and widget is not self:
            index = self.tabs.indexOf(widget)
            if index >= 0:
                return self.pane_names[index] + " pane"
            widget = widget.parentWidget()
        return ""

    def focus_search(self) -> None:
        if self.stack.currentIndex() == PANES:
            self.show_pane(0)
            self.search.focus_query()

    def show_pane(self, index: int) -> None:
        if self.stack.currentIndex() == PANES and 0 <= index < self.tabs.count():
            self.tabs.setCurrentIndex(index)

    def _show_fact(self, fact_id: int) -> None:
        self.inspector.show_fact(fact_id)
        self.timeline.show_fact(fact_id)

    def _follow(self, fact_id: int) -> None:
        """A link in the inspector: show that fact everywhere, select it in the results if listed."""
        self.search.select_fact(fact_id) or self._show_fact(fact_id)

    def _open_fact(self, fact_id: int) -> None:
        """From a pane without its own detail view: show the fact in the search pane's inspector."""
        self._show_fact(fact_id)
        self.show_pane(0)

    def _entity_facts(self, key: str, name: str) -> None:
        self.search.show_entity_facts(key, name)
        self.show_pane(0)

    def _open_plan(self, plan_id: int) -> None:
        self.plans.status_filter.setCurrentText("all")
        self.plans.refresh(plan_id)
        self.show_pane(self.pane_names.index("plans"))

    def _live(self, entries: list, record: object) -> None:
        """Another process wrote: say so until the person looks (the panes have refreshed already)."""
        added = [f for f in getattr(record, "facts_added", []) if f not in self._live_facts]
        self._live_facts += added
        actors = sorted({e.actor for e in entries})
        n = len(self._live_facts)
        what = f"{n} new fact{'s' * (n != 1)}" if n else f"{len(entries)} change{'s' * (len(entries) != 1)}"
        self.live_notice.setText(f"● {what} from {', '.join(actors)}")
        self.live_notice.setVisible(True)

    def _show_live(self, jump: bool = True) -> None:
        facts, self._live_facts = self._live_facts, []
        self.live_notice.setVisible(False)
        if not jump:
            return
        if facts:
            self._follow(facts[-1])
            self.show_pane(0)
        else:
            self.show_pane(self.pane_names.index("journal"))

    def _contradiction_count(self, count: int) -> None:
        index = self.pane_names.index("contradictions")
        self.tabs.setTabText(index, f"Contradictions ({count})" if count else "Contradictions")

    def _welcome_choice(self, key: str) -> None:
        actions = {"open": self.files.open_dialog, "new": self.files.new_dialog,
                   "import": self.files.import_dialog, "demo": self.files.open_demo}
        if key.startswith("recent:"):
            self.files.open_path(key.split(":", 1)[1])
        else:
            actions[key]()

    def _opened(self, stats: dict) -> None:
        self.setWindowTitle(f"{Path(stats['path']).name} — MemLens")
        empty = stats.get("facts", 0) == 0
        self.welcome.set_notice(f"{stats['path']} is empty. Import a JSONL file, or open the demo memory to look "
                                f"around." if empty else "")
        self.stack.setCurrentIndex(WELCOME if empty else PANES)
        self._update_status()
        self.import_action.setEnabled(True)
        self.absorb_action.setEnabled(not self.session.read_only)

    def absorb(self) -> None:
        """The Absorb dialog over the Plans pane, where its dry-run plan is listed and reviewed."""
        self.show_pane(self.pane_names.index("plans"))
        self.plans.start_pass("absorb")

    def show_verification(self) -> None:
        """The status bar's file check, clicked: what it found, failed facts one click from the inspector."""
        if self.verdict is None or not self.verdict.problems:
            return
        self.verify_report = VerifyReport(self.verdict, str(self.session.path), self)
        self.verify_report.fact_chosen.connect(self._open_fact)
        self.verify_report.open()
        if self.verify_report.failed:
            self._open_fact(self.verify_report.failed[0])

    def _show_verification(self, result: Verification) -> None:
        self.verdict = result
        self.integrity_label.setProperty("failed", bool(result.problems))
        self.integrity_label.style().unpolish(self.integrity_label)
        self.integrity_label.style().polish(self.integrity_label)
        if not result.problems:
            self.integrity_label.setText("✓ verified")
            self.integrity_label.setToolTip("Integrity, content hashes, the journal's hash chain and the full-text "
                                            "index all agree (memlens verify).")
            return
        count = len(result.problems)
        self.integrity_label.setText(f"⚠ {count} integrity problem{'s' * (count != 1)}")
        shown = "\n".join(str(p) for p in result.problems[:10])
        self.integrity_label.setToolTip(f"memlens verify found:\n{shown}" + ("\n…" if count > 10 else "")
                                        + "\n\nClick for the details and the failed facts.")
        self.statusBar().showMessage(f"⚠ This file failed verification ({count} problem{'s' * (count != 1)}): "
                                     f"click the warning on the right for the details", 15000)

    def _update_status(self) -> None:
        stats = self.session.stats
        self.connect_action.setEnabled(self.session.is_open)
        if not self.session.is_open:
            self.path_label.setText("No memory open")
            for label in (self.counts_label, self.model_label, self.llm_label):
                label.setText("")
            self.stack.setCurrentIndex(WELCOME)
            return
        self.path_label.setText(str(self.session.path) + ("  (read-only)" if self.session.read_only else ""))
        by_status = stats.get("by_status", {})
        facts = stats.get("facts", 0)
        self.counts_label.setText(f"{facts:,} fact{'s' * (facts != 1)}: " + " · ".join(
            f"{n:,} {status}" for status, n in sorted(by_status.items())) if by_status else "0 facts")
        skipped = stats.get("needs_reembedding", 0) + stats.get("damaged_vectors", 0)
        self.model_label.setText(f"model {stats.get('embedding_model', '?').split('/')[-1]}"
                                 + (f" · ⚠ {skipped:,} facts search cannot use" if skipped else ""))
        self.model_label.setToolTip("Facts with no vector, another model's, or a damaged one stay readable; "
                                    "search skips them." if skipped else "")
        llm = self.session.settings.llm
        self.llm_label.setText(f"LLM {llm.model}" if getattr(llm, "base_url", None) else "LLM off")
        if stats.get("facts", 0) and self.stack.currentIndex() == WELCOME:
            self.stack.setCurrentIndex(PANES)

    def _cancelling(self) -> None:
        """Said at once: the work stops at its next safe point (an import: the next chunk)."""
        if self.session.runner.busy:
            self.cancel.setEnabled(False)
            self.busy_label.setText("Cancelling…")

    def _progress(self, label: str, done: int, total: int) -> None:
        if not self.cancel.isEnabled():
            return  # "Cancelling…" stays until the work has stopped
        self.busy_label.setText(f"{label} {done:,}/{total:,}" if total else label)
        self.busy.setRange(0, total)  # (0, 0) is Qt's "busy, length unknown"
        self.busy.setValue(done)

    def _busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.cancel.setVisible(busy)
        if not busy:
            # Looked at once the event loop turns: work in steps (an import's chunks) is idle for
            # an instant between two, and a "Cancelling…" must last until the last step ended.
            QTimer.singleShot(0, self._idle)

    def _idle(self) -> None:
        if not self.session.runner.busy:
            self.cancel.setEnabled(True)
            self.busy_label.setText("")
            self.busy.setRange(0, 0)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.files.recent()
        for path in paths:
            self.recent_menu.addAction(path).triggered.connect(lambda _c=False, p=path: self.files.open_path(p))
        if not paths:
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # -- Qt events ------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and all(u.isLocalFile() and Path(u.toLocalFile()).suffix.lower() in
                        (*MEMORY_SUFFIXES, ".jsonl", ".json") for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls()[:1]:
            self.files.open_path(url.toLocalFile())
        event.acceptProposedAction()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.profile.dirty and not self._closing:
            event.ignore()
            self.profile.confirm_discard("Quit", self._close_anyway)
            return
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("split/search", self.search_split.saveState())
        self.settings.setValue("split/timeline", self.timeline.splitter.saveState())
        self.settings.setValue("split/graph", self.graph.splitter.saveState())
        self.settings.setValue("split/plans", self.plans.splitter.saveState())
        self.session.shutdown()
        self.graph.layout_runner.wait()
        self.files.cleanup()
        super().closeEvent(event)

    def _close_anyway(self) -> None:
        self._closing = True
        self.close()
