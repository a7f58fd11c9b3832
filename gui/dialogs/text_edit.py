"""Writing a new version of a fact: the old text to start from, a live length check.

"Propose…" does not close the editor: it asks for the draft (``submitted``), and the
editor closes only once the plan's review opens (``proposed``). A draft the engine
refuses (a secret, an invalid text, a fact that is no longer active) is said inside the
editor, with the typed text still there to fix (``refused``).
Signals: ``submitted(str)``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

RECOMMENDED = (50, 500)
HARD_CAP = 4000


class VersionEditor(QDialog):
    submitted = Signal(str)

    def __init__(self, old_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New version")
        self.setObjectName("versionEditor")
        self.resize(620, 300)
        self.old_text = old_text
        self.editor = QPlainTextEdit(old_text)
        self.count = QLabel("")
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Propose…")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The new version supersedes the old one; the old one stays in the history."))
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.editor.textChanged.connect(self._check)
        self.buttons.accepted.connect(self._submit)
        self.buttons.rejected.connect(self.reject)
        self._check()

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def _submit(self) -> None:
        self.error.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
        self.count.setText("Drafting the plan…")
        self.submitted.emit(self.text())

    def proposed(self) -> None:
        """The review of the draft is open: this editor's work is done."""
        self.accept()

    def refused(self, message: str) -> None:
        """The engine refused the draft: say why here, keep the text to fix."""
        self._check()
        self.error.setText(f"⚠ {message}")
        self.editor.setFocus()

    def _check(self) -> None:
        text = self.text()
        n = len(text)
        ok = bool(text) and n <= HARD_CAP and text != " ".join(self.old_text.split())
        hint = ("same as the current text" if text == " ".join(self.old_text.split()) else
                "empty" if not text else f"over the {HARD_CAP:,}-character limit" if n > HARD_CAP else
                "outside the recommended 50–500" if not RECOMMENDED[0] <= n <= RECOMMENDED[1] else "")
        self.count.setText(f"{n:,} characters" + (f" — {hint}" if hint else ""))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
