"""Import from another tool: choose the format and the file or folder; a dry-run plan follows."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QVBoxLayout, QWidget)

from engine import IMPORT_FORMATS

from gui.file_dialogs import ask_path

HINTS = {"jsonl": "A JSON Lines file: a MemLens export (restored exactly) or one fact object per line.",
         "hermes": "A Hermes MEMORY.md / USER.md, or the folder holding them; entries separated by §.",
         "mem0": "The JSON list mem0's get_all() returns (or {\"results\": [...]}).",
         "markdown": "A folder of Markdown notes: one fact per bullet or paragraph, front-matter tags kept."}
FOLDERS = {"hermes", "markdown"}


class ImportDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, start: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import")
        self.setObjectName("importDialog")
        self.resize(620, 200)
        self.start = start or Path.home()
        self.format = QComboBox()
        self.format.addItems(IMPORT_FORMATS)
        self.hint = QLabel("")
        self.hint.setWordWrap(True)
        self.path = QLineEdit(placeholderText="file or folder")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        self.note = QLabel("")
        self.note.setObjectName("error")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Plan the import")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        form = QFormLayout()
        form.addRow("format", self.format)
        form.addRow("", self.hint)
        form.addRow("from", row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        self.format.currentTextChanged.connect(lambda fmt: self.hint.setText(HINTS.get(fmt, "")))
        self.hint.setText(HINTS["jsonl"])
        self.path.setFocus(Qt.FocusReason.OtherFocusReason)  # what to import is the first thing to say

    def chosen(self) -> tuple[str, Path]:
        return self.format.currentText(), Path(self.path.text().strip()).expanduser()

    def _browse(self) -> None:
        if self.format.currentText() in FOLDERS:
            self.picker = ask_path(self, "Import from folder", self.start, self.path.setText,
                                   mode=QFileDialog.FileMode.Directory)
        else:
            self.picker = ask_path(self, "Import file", self.start, self.path.setText,
                                   "JSON (*.jsonl *.json);;All files (*)")

    def _accept(self) -> None:
        _fmt, path = self.chosen()
        if not self.path.text().strip():
            self.note.setText("Choose a file or folder to import.")
        elif not path.exists():
            self.note.setText(f"There is nothing at {path}.")
        else:
            self.accept()
