"""Profile and snapshot: edit MEMORY.md and USER.md against their budget, and see exactly what an
agent receives at session start.

A save names the version it was based on; if the file changed on disk since
(another editor, the CLI, an agent), the engine refuses and a dialog offers to
reload. The snapshot preview is never stored; "Freeze for session" stores it
the way an agent's first call would. Unsaved edits are never dropped without
asking (``confirm_discard``: Reload, opening another file, quitting).

Signals: ``fact_selected(int)`` (an id in the snapshot was clicked).
"""

from __future__ import annotations

import html
import re
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPlainTextEdit,
                               QProgressBar, QPushButton, QSpinBox, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from engine import ChangeRecord, Conflict, Memory, Profile, Snapshot

from gui.ops import BACKGROUND
from gui.session import Session

NAMES = ("MEMORY.md", "USER.md")
_CITED = re.compile(r"^- \[(\d+)\]", re.M)


def _save(memory: Memory, name: str, text: str, version: str) -> tuple[str, Any]:
    """Runs on the worker: a conflict is an answer to show, not an error to report."""
    try:
        return "saved", memory.save_profile(name, text, version)
    except Conflict as err:
        return "conflict", str(err)


class FileEditor(QGroupBox):
    """One profile file: its text, size, problem, and the version it was read at."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, parent)
        self.name, self.version, self.saved_text = name, "absent", ""
        self.path = QLabel("")
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName(f"editor{name.split('.')[0].title()}")
        self.problem = QLabel("")
        self.problem.setObjectName("error")
        self.problem.setWordWrap(True)
        self.count = QLabel("")
        self.save = QPushButton("Save", enabled=False, toolTip="Save this file (Ctrl+S)")
        self.reload = QPushButton("Reload", toolTip="Read the file from disk again (your edits are dropped)")
        row = QHBoxLayout()
        row.addWidget(self.count, 1)
        row.addWidget(self.reload)
        row.addWidget(self.save)
        layout = QVBoxLayout(self)
        layout.addWidget(self.path)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.problem)
        layout.addLayout(row)
        self.editor.textChanged.connect(self._changed)

    def text_to_save(self) -> str:
        """The editor's text, ending in a newline as the file on disk did (an editor drops it easily)."""
        text = self.editor.toPlainText()
        if text and not text.endswith("\n") and (self.saved_text.endswith("\n") or not self.saved_text):
            text += "\n"
        return text

    def show_file(self, file: Any) -> None:
        self.version, self.saved_text = file.version, file.text
        self.path.setText(str(file.path) + ("" if file.exists else "  (not created yet)"))
        self.problem.setText(f"⚠ {file.problem}" if file.problem else "")
        self.editor.blockSignals(True)
        self.editor.setPlainText(file.text)
        self.editor.blockSignals(False)
        self._changed()

    @property
    def dirty(self) -> bool:
        return self.editor.toPlainText() != self.saved_text

    def _changed(self) -> None:
        self.count.setText(f"{len(self.editor.toPlainText()):,} characters" + (" · edited" if self.dirty else ""))
        self.save.setEnabled(self.dirty)


class ProfilePane(QWidget):
    fact_selected = Signal(int)
    changed = Signal()

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.budget = 2048
        self.last_message: QMessageBox | None = None
        self.last_snapshot: Snapshot | None = None
        self.editors = {name: FileEditor(name) for name in NAMES}
        self.meter = QProgressBar(textVisible=True)
        self.meter.setObjectName("budgetMeter")
        self.meter_label = QLabel("")
        self.meter_label.setWordWrap(True)
        self.where = QLabel("")  # the folder the two files are in, and other memories reading them too
        self.where.setObjectName("profileFolder")
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for editor in self.editors.values():
            editor.editor.textChanged.connect(self._update_meter)
            editor.save.clicked.connect(lambda _c=False, e=editor: self.save(e))
            editor.reload.clicked.connect(lambda: self.confirm_discard("Reload", self.reload))
        self.session_id = QLineEdit(placeholderText="session id (to freeze)")
        self.query = QLineEdit(placeholderText="what the session is about (optional)")
        self.max_chars = QSpinBox(minimum=200, maximum=200_000, value=6000, singleStep=500)
        self.preview = QPushButton("Preview", toolTip="What a new session would receive now (nothing stored)")
        self.freeze = QPushButton("Freeze for session", toolTip="Store it for this session id: later calls "
                                                                "return the same bytes")
        self.preview.clicked.connect(lambda: self.show_snapshot(freeze=False))
        self.freeze.clicked.connect(lambda: self.show_snapshot(freeze=True))
        self.snapshot_info = QLabel("")
        self.snapshot_view = QTextBrowser()
        self.snapshot_view.setObjectName("snapshotText")
        self.snapshot_view.setOpenLinks(False)
        self.snapshot_view.anchorClicked.connect(lambda url: self.fact_selected.emit(int(url.toString()[5:])))

        files = QWidget()
        files_layout = QVBoxLayout(files)
        files_layout.setContentsMargins(0, 0, 0, 0)
        editors_row = QHBoxLayout()
        for editor in self.editors.values():
            editors_row.addWidget(editor, 1)
        files_layout.addWidget(self.where)
        files_layout.addLayout(editors_row, 1)
        files_layout.addWidget(self.meter)
        files_layout.addWidget(self.meter_label)
        controls = QHBoxLayout()
        for widget in (self.session_id, self.query):
            controls.addWidget(widget, 1)
        controls.addWidget(QLabel("max chars"))
        for widget in (self.max_chars, self.preview, self.freeze):
            controls.addWidget(widget)
        snapshot = QGroupBox("Session snapshot: the exact text an agent receives")
        snapshot_layout = QVBoxLayout(snapshot)
        snapshot_layout.addLayout(controls)
        snapshot_layout.addWidget(self.snapshot_info)
        snapshot_layout.addWidget(self.snapshot_view, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(files)
        self.splitter.addWidget(snapshot)
        self.splitter.setSizes([430, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(self.splitter)
        QShortcut(QKeySequence.StandardKey.Save, self, activated=self._save_focused,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
                  whatsThis="Save the profile file being edited")  # the help's shortcut list reads it
        session.opened.connect(lambda _s: (self._clear_snapshot(), self.reload()))
        session.store_changed.connect(self._store_changed)
        session.closed.connect(self._clear_snapshot)

    # -- profile files ----------------------------------------------------------------------------
    @property
    def dirty(self) -> list[str]:
        return [name for name, editor in self.editors.items() if editor.dirty]

    def confirm_discard(self, action: str, then: Callable[[], Any]) -> None:
        """Run ``then`` now if nothing is unsaved, else only once the person agrees to drop the edits."""
        names = self.dirty
        if not names:
            then()
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved profile edits",
                          f"{' and '.join(names)} {'has' if len(names) == 1 else 'have'} edits that are not saved. "
                          f"{action} anyway and drop them?", QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("confirmDiscard")
        box.addButton(f"Drop edits and {action.lower()}", QMessageBox.ButtonRole.AcceptRole)
        box.accepted.connect(then)
        self.last_message = box
        box.open()

    def reload(self, keep_edits: bool = False) -> None:
        self.session.call(lambda m: m.profile(), lambda profile: self._show_profile(profile, keep_edits),
                          lane="profile", label="Reading the profile", priority=BACKGROUND,
                          on_error=lambda msg: self.meter_label.setText(f"⚠ {msg}"))

    def _store_changed(self, record: ChangeRecord | None) -> None:
        if record is None or record.profile_files:
            self.reload(keep_edits=True)

    def _show_profile(self, profile: Profile, keep_edits: bool = False) -> None:
        self.budget = profile.budget
        where = f"In {profile.folder}"
        if profile.shared_with:
            names = ", ".join(p.name for p in profile.shared_with)
            where = (f"⚠ {where}, which is also the profile of {names}: these files were made before each memory "
                     f"kept its own. To separate them, move this memory's MEMORY.md and USER.md into a folder "
                     f"named {self.session.path.stem}.profile beside it.")
        self.where.setText(where)
        for file in profile.files:
            editor = self.editors[file.name]
            if keep_edits and editor.dirty:
                if file.version != editor.version:  # saving will conflict; say so before the person tries
                    editor.problem.setText("⚠ changed on disk since you started editing")
                continue
            editor.show_file(file)
        self._update_meter()

    def _clear_snapshot(self) -> None:
        self.snapshot_view.clear()
        self.snapshot_info.setText("")
        self.last_snapshot = None

    def _update_meter(self) -> None:
        total = sum(len(e.editor.toPlainText()) for e in self.editors.values())
        self.meter.setRange(0, max(self.budget, total))
        self.meter.setValue(total)
        self.meter.setFormat(f"{total:,} / {self.budget:,} characters")
        over = total > self.budget
        self.meter.setStyleSheet("QProgressBar::chunk { background: %s; }" % ("#c0392b" if over else "#2e8b57"))
        self.meter_label.setText(f"⚠ {total - self.budget:,} characters over the budget: the profile is in every "
                                 f"prompt, so keep it short (it is saved anyway)." if over else
                                 "Both files together are the profile an agent always sees.")

    def _save_focused(self) -> None:
        for editor in self.editors.values():
            if editor.editor.hasFocus() and editor.dirty:
                self.save(editor)

    def save(self, editor: FileEditor) -> None:
        name, text, version = editor.name, editor.text_to_save(), editor.version
        editor.save.setEnabled(False)
        self.session.write(lambda m: _save(m, name, text, version), lambda answer: self._saved(editor, answer),
                           label=f"Saving {name}", on_error=lambda msg: self._failed(editor, msg))

    def _saved(self, editor: FileEditor, answer: tuple[str, Any]) -> None:
        outcome, value = answer
        if outcome == "conflict":
            editor.save.setEnabled(True)
            box = QMessageBox(QMessageBox.Icon.Warning, f"{editor.name} changed on disk",
                              f"{value}\n\nReload it (your edits here are dropped) or keep editing and copy "
                              f"them over after reloading.", QMessageBox.StandardButton.NoButton, self)
            box.addButton("Reload", QMessageBox.ButtonRole.AcceptRole)
            box.addButton("Keep editing", QMessageBox.ButtonRole.RejectRole)
            box.accepted.connect(self.reload)
            self.last_message = box
            box.open()
            return
        for file in value.files:
            if file.name == editor.name:
                editor.show_file(file)
        self.changed.emit()

    def _failed(self, editor: FileEditor, message: str) -> None:
        editor.save.setEnabled(True)
        editor.problem.setText(f"⚠ not saved: {message}")

    # -- snapshot ---------------------------------------------------------------------------------
    def show_snapshot(self, freeze: bool) -> None:
        session_id, query, limit = self.session_id.text().strip(), self.query.text().strip() or None, \
            self.max_chars.value()
        if freeze and not session_id:
            self.snapshot_info.setText("⚠ type a session id to freeze a snapshot for it")
            return
        work = (lambda m: m.snapshot(session_id, query, limit)) if freeze else \
            (lambda m: m.preview_snapshot(query, limit))
        self.session.call(work, self._show_snapshot, lane="snapshot", label="Building the snapshot",
                          on_error=lambda msg: self.snapshot_info.setText(f"⚠ {msg}"))

    def _show_snapshot(self, snapshot: Snapshot) -> None:
        if snapshot.session_id is None:
            state = "preview (not stored)"
        else:
            state = (f"session {snapshot.session_id}: " +
                     ("frozen now" if snapshot.created else "frozen earlier, returned byte for byte"))
        self.snapshot_info.setText(f"{state} · {snapshot.chars:,} characters · cites {len(snapshot.cited)} facts")
        body = _CITED.sub(lambda m: f"- [<a href='fact:{m.group(1)}'>{m.group(1)}</a>]", html.escape(snapshot.text))
        self.snapshot_view.setHtml(f"<pre style='white-space:pre-wrap;font-size:13px'>{body}</pre>")
        self.last_snapshot = snapshot
