"""File actions of the window: new, open, recent files, import, export, the demo memory.

Every one ends in the session (opening runs off the UI thread) or in a plan
review (import is a dry run first). Errors are dialogs; the open file stays open.
Before another file replaces the open one, ``confirm_leave(action, then)`` may
ask whether unsaved work can be dropped (the window hands in the profile pane's).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from engine import MAX_ITEMS, ImportRun, MemLensError, Memory, Plan, resource_path

from gui.dialogs.import_dialog import ImportDialog
from gui.file_dialogs import ask_path
from gui.dialogs.plan_review import PlanReview, propose
from gui.ops import Progress
from gui.session import Session

MEMORY_FILTER = "Memory files (*.sqlite *.db *.memlens);;All files (*)"
JSONL_FILTER = "JSON Lines (*.jsonl *.json);;All files (*)"
MAX_RECENT = 8
MEMORY_SUFFIXES = (".sqlite", ".db", ".memlens", ".sqlite3")


class FileActions(QObject):
    """Signals: ``recent_changed(list)`` (the recent files, newest first: the welcome page and the
    File menu show this one list)."""

    recent_changed = Signal(list)

    def __init__(self, window: QWidget, session: Session, settings: QSettings) -> None:
        super().__init__(window)
        self.window, self.session, self.settings = window, session, settings
        self._demo_dirs: list[tempfile.TemporaryDirectory] = []
        self.last_review: PlanReview | None = None
        self.last_message: QMessageBox | None = None
        self.last_prompt: QWidget | None = None
        self.last_import: ImportRun | None = None
        self.chunk_items: int | None = None  # items per import chunk; None: the engine's (tests set fewer)
        self._more: dict[int, ImportRun] = {}  # drafts of a first chunk, by plan id, whose file has more
        self.confirm_leave: Callable[[str, Callable[[], Any]], None] = lambda _action, then: then()
        session.opened.connect(lambda _stats: self._remember(session.path))
        session.open_failed.connect(self._open_failed)

    # -- opening -------------------------------------------------------------------------
    def open_dialog(self) -> None:
        self.last_prompt = ask_path(self.window, "Open memory", self._folder(),
                                    lambda path: self._leave_then(lambda: self.session.open(path)), MEMORY_FILTER)

    def new_dialog(self) -> None:
        def create(path: str) -> None:
            if Path(path).exists():
                self.message("Not created", f"{path} already exists. Open it instead, or choose another name: "
                                            f"MemLens never overwrites a memory file.")
                return
            self._leave_then(lambda: self.session.open(path, create=True))

        self.last_prompt = ask_path(self.window, "New memory", self._folder(), create, MEMORY_FILTER, save=True,
                                    select="memory.sqlite")

    def _leave_then(self, open_it: Callable[[], Any]) -> None:
        if self.session.is_open:
            self.confirm_leave("Open another file", open_it)
        else:
            open_it()

    def open_demo(self) -> None:
        """The demo JSONL absorbed into a fresh temporary file; the person's own memory is not touched."""
        folder = tempfile.TemporaryDirectory(prefix="memlens-demo-")
        self._demo_dirs.append(folder)
        source = resource_path("demo", "memory.jsonl")

        def fill(memory: Memory, progress: Progress) -> None:
            progress.report(0)
            memory.import_file(source, progress=progress.report)
            for name in ("MEMORY.md", "USER.md"):
                memory.save_profile(name, resource_path("demo", name).read_text(encoding="utf-8"), "absent")

        self._leave_then(lambda: self.session.open(Path(folder.name) / "demo.sqlite", create=True, prepare=fill))

    def open_path(self, path: str | Path) -> None:
        """Drag-and-drop and recent files: a memory file opens, a JSONL file is imported."""
        path = Path(path)
        if path.suffix.lower() in (".jsonl", ".json"):
            self.import_file(path)
        else:
            self._leave_then(lambda: self.session.open(path))

    def recent(self) -> list[str]:
        value = self.settings.value("recent", [])
        paths = [value] if isinstance(value, str) else list(value or [])
        return [p for p in paths if p and os.path.exists(p)]

    def _remember(self, path: Path | None) -> None:
        if path is None or any(Path(d.name) in path.parents for d in self._demo_dirs):
            return
        paths = [str(path)] + [p for p in self.recent() if p != str(path)]
        self.settings.setValue("recent", paths[:MAX_RECENT])
        self.settings.setValue("last_file", str(path))
        self.recent_changed.emit(self.recent())

    def _open_failed(self, path: str, message: str) -> None:
        self.message("Could not open the memory file", f"{path}\n\n{message}")

    # -- moving facts in and out -------------------------------------------------------------
    def import_dialog(self) -> None:
        if not self.session.is_open:
            self.message("No memory open", "Open or create a memory file first, then import into it.")
            return
        dialog = ImportDialog(self.window, Path(self._folder()))
        dialog.accepted.connect(lambda: self.import_file(dialog.chosen()[1], dialog.chosen()[0]))
        self.last_prompt = dialog
        dialog.open()

    def import_file(self, path: Path, fmt: str = "jsonl") -> None:
        """A dry-run plan of the import, shown for review; nothing is written before Apply.

        A JSONL file longer than one chunk (``Memory.import_file``) is reviewed by its first chunk;
        once that is applied, ``import_rest`` offers to bring in the rest, chunk by chunk."""
        if not self.session.is_open:
            self.message("No memory open", "Open or create a memory file first, then import into it.")
            return
        if fmt != "jsonl":
            make = lambda m, progress: m.import_from(fmt, path, dry_run=True, progress=progress.report)  # noqa: E731
        else:
            def make(m: Memory, progress: Progress) -> Plan:
                run = m.import_file(path, dry_run=True, progress=progress.report, chunk_items=self.chunk_items)
                if run.plan is None:
                    raise MemLensError(f"nothing left to import: {run.summary()}")
                if run.more or run.resumed:
                    self._more[run.plan.id] = run
                return run.plan
        propose(self.session, self.window, f"Import {path.name} ({fmt})", make, self._watch,
                on_error=lambda msg: self.message("Import failed", f"{path}\n\n{msg}"), with_progress=True)

    def _first_chunk_applied(self, plan: Plan) -> None:
        run = self._more.pop(plan.id, None)
        if run is None or not run.more:
            return
        ask = QMessageBox(QMessageBox.Icon.Question, "Import the rest?",
                          f"Plan {plan.id} (lines {run.chunks[0].first_line:,}–{run.done_lines:,} of "
                          f"{run.total_lines:,}) is applied. Import the rest of {Path(run.path).name} now?\n\n"
                          f"It is planned and applied in chunks of up to {self.chunk_items or MAX_ITEMS:,} items "
                          f"without another review; Cancel (Esc) stops between chunks, and importing the same "
                          f"file again goes on where it stopped.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.window)
        ask.accepted.connect(lambda: self.import_rest(Path(run.path)))
        self.last_prompt = ask
        ask.open()

    def import_rest(self, path: Path) -> None:
        """Import a JSONL file without review, chunk by chunk, with progress; Cancel stops between chunks
        (what was applied stays), and a later import of the same file resumes after it.

        Each chunk is its own write (``Memory.import_steps``), so after each one the counts and the
        listing catch up (their refreshes run between two chunks) and Cancel is seen at the next chunk."""
        if not self.session.is_open:
            return
        label = f"Importing {path.name}"
        current: list[Progress] = []  # the running step's progress: each step is its own op
        latest: list[ImportRun] = []  # the run so far
        stop = threading.Event()  # Cancel pressed during any step, or between two
        self.session.runner.cancel_requested.connect(stop.set)
        steps = None

        def step(m: Memory, progress: Progress) -> ImportRun | None:
            nonlocal steps
            current[:] = [progress]
            if steps is None:
                steps = m.import_steps(path, progress=lambda done, total: current[0].show(done, total),
                                       cancel=lambda: stop.is_set() or current[0].cancelled,
                                       chunk_items=self.chunk_items)
            return next(steps, None)

        def stepped(run: ImportRun | None) -> None:
            if run is not None:
                latest[:] = [run]
                self.session.write(step, stepped, label=label, with_progress=True, stops_itself=True,
                                   on_error=failed)
                return
            self.session.runner.cancel_requested.disconnect(stop.set)
            self.last_import = finished = latest[0]
            late = ("" if finished.cancelled or not stop.is_set() else
                    " Cancel came during the last chunk, which finished: nothing was left to stop.")
            self.message("Import stopped" if finished.cancelled else "Import done", finished.summary() + "." + late)

        def failed(msg: str) -> None:
            self.session.runner.cancel_requested.disconnect(stop.set)
            self.message("Import failed", f"{path}\n\n{msg}")

        self.session.write(step, stepped, label=label, with_progress=True, stops_itself=True, on_error=failed)

    def _watch(self, review: PlanReview) -> None:
        self.last_review = review
        run = self._more.get(review.plan.id)
        if run is not None and run.more:
            review.summary.setText(f"{review.summary.text()} This is the first chunk of {Path(run.path).name}: "
                                   f"lines {run.chunks[0].first_line:,}–{run.done_lines:,} of "
                                   f"{run.total_lines:,}; once it is applied, the rest can follow.")
        review.applied.connect(self._first_chunk_applied)

    def export_dialog(self) -> None:
        if not self.session.is_open:
            return
        self.last_prompt = ask_path(self.window, "Export JSONL", self._folder(), lambda path: self.export_to(Path(path)),
                                    JSONL_FILTER, save=True, select=f"{self.session.path.stem}.jsonl")

    def export_to(self, path: Path) -> None:
        self.session.call(lambda m: m.export_to(path), lambda n: self.message("Exported", f"{n:,} facts written to {path}"),
                          label="Exporting", on_error=lambda msg: self.message("Export failed", msg))

    # -- helpers -------------------------------------------------------------------------
    def _folder(self) -> str:
        return str(self.session.path.parent) if self.session.path else str(Path.home())

    def message(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Information if title in ("Exported", "Import done") else QMessageBox.Icon.Warning,
                          title, text, QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("messageBox")
        self.last_message = box
        box.open()

    def cleanup(self) -> None:
        """Remove the demo files (the session must be closed first)."""
        for folder in self._demo_dirs:
            folder.cleanup()
        self._demo_dirs.clear()
