"""Starting an absorb dry run from the app: paste facts (one per line) or pick a JSONL file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from engine import SCOPES

from gui.file_dialogs import ask_path

MAX_PASTE = 2_000_000  # characters; a bigger batch belongs in a JSONL file


class AbsorbDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Absorb (dry run)")
        self.setObjectName("absorbDialog")
        self.resize(680, 420)
        self.file: Path | None = None
        self.text = QPlainTextEdit(placeholderText="One fact per line. Each goes through validation, secret "
                                                   "rejection, deduplication and the classifier; you review the "
                                                   "plan before anything is written.")
        self.scope = QComboBox()
        self.scope.addItems(SCOPES)
        self.tags = QLineEdit(placeholderText="optional, comma-separated")
        self.session = QLineEdit(placeholderText="needed for scope 'run'")
        self.pick = QPushButton("Pick a JSONL file instead…")
        self.pick.clicked.connect(self._pick)
        self.file_label = QLabel("")
        self.note = QLabel("")
        self.note.setObjectName("error")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Plan it")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("scope", self.scope)
        form.addRow("tags", self.tags)
        form.addRow("session", self.session)
        row = QHBoxLayout()
        row.addWidget(self.pick)
        row.addWidget(self.file_label, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)

    def _pick(self) -> None:
        self.picker = ask_path(self, "Absorb JSONL", Path.home(), lambda path: self.use_file(Path(path)),
                               "JSON Lines (*.jsonl *.json);;All files (*)")

    def use_file(self, path: Path) -> None:
        self.file = path
        self.file_label.setText(path.name)
        self.text.setEnabled(False)

    def lines(self) -> list[str]:
        return [line.strip() for line in self.text.toPlainText().splitlines() if line.strip()]

    def defaults(self) -> dict:
        found: dict = {"scope": self.scope.currentText()}
        tags = [t.strip() for t in self.tags.text().split(",") if t.strip()]
        if tags:
            found["tags"] = tags
        if self.session.text().strip():
            found["session_id"] = self.session.text().strip()
        return found

    def _accept(self) -> None:
        if self.file is None and not self.lines():
            self.note.setText("Paste at least one fact, or pick a file.")
            return
        if len(self.text.toPlainText()) > MAX_PASTE:
            self.note.setText(f"That is over {MAX_PASTE:,} characters: save it as a JSONL file and pick it.")
            return
        if self.scope.currentText() == "run" and not self.session.text().strip():
            self.note.setText("Facts of scope 'run' need a session id.")
            return
        self.accept()
