"""Choosing another fact (for "Contradicts…" and "Related…"): search, or type its id."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QVBoxLayout, QWidget)

from engine import Hit

from gui.session import Session


class FactPicker(QDialog):
    def __init__(self, session: Session, exclude: int, prompt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.exclude = session, exclude
        self.setWindowTitle(prompt)
        self.setObjectName("factPicker")
        self.resize(640, 420)
        self.query = QLineEdit(placeholderText="search for the other fact, or type its id", clearButtonEnabled=True)
        self.results = QListWidget()
        self.reason = QLineEdit(placeholderText="why (kept in the plan and the journal)")
        self.note = QLabel("")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
        form = QFormLayout()
        form.addRow("reason", self.reason)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(prompt))
        layout.addWidget(self.query)
        layout.addWidget(self.results, 1)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        self._debounce = QTimer(self, singleShot=True, interval=200)
        self._debounce.timeout.connect(self._search)
        self.query.textChanged.connect(self._debounce.start)
        self.results.currentItemChanged.connect(self._chosen)
        self.results.itemDoubleClicked.connect(lambda _item: self.accept())
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    @property
    def chosen_id(self) -> int | None:
        item = self.results.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def _search(self) -> None:
        text = self.query.text().strip()
        if text.isdigit():
            fact_id = int(text)
            self.session.call(lambda m: m.describe([fact_id]), self._show, lane="picker", on_error=self._error)
        elif text:
            self.session.call(lambda m: m.search(text, top_k=20, count_access=False), self._show, lane="picker", on_error=self._error)

    def _show(self, hits: list[Hit]) -> None:
        self.results.clear()
        for hit in hits:
            if hit.fact.id == self.exclude:
                continue
            item = QListWidgetItem(f"#{hit.fact.id} [{hit.fact.status}] {' '.join(hit.fact.text.split())}")
            item.setData(Qt.ItemDataRole.UserRole, hit.fact.id)
            item.setToolTip(hit.fact.text)
            self.results.addItem(item)
        self.note.setText("" if self.results.count() else "No other fact found.")
        if self.results.count():
            self.results.setCurrentRow(0)

    def _error(self, message: str) -> None:
        self.results.clear()
        self.note.setText(f"⚠ {message}")

    def _chosen(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.chosen_id is not None)
