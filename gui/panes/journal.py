"""Journal: the audit trail, newest first, filtered by operation, actor, date range and fact.

Double-clicking a row's fact opens it in the inspector; its plan, in the plan viewer.

Signals: ``fact_selected(int)``, ``plan_selected(int)``.
"""

from __future__ import annotations

import json
from datetime import datetime, time, timezone

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDateEdit, QHBoxLayout, QLabel, QLineEdit,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine import AuditFilter, JournalEntry, format_time

from gui.ops import BACKGROUND
from gui.session import Session

ANY = "any"
HEADERS = ("id", "when", "actor", "action", "fact", "plan", "details")
LIMIT = 2000
FACT, PLAN = 4, 5


SKIP_IN_SUMMARY = {"content_hash"}  # long and meaningless at a glance; the tooltip has everything


def _summary(details: dict) -> str:
    parts = [f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in sorted(details.items())
             if key not in SKIP_IN_SUMMARY]
    text = " · ".join(parts)
    return text if len(text) <= 300 else text[:297] + "…"


class JournalPane(QWidget):
    fact_selected = Signal(int)
    plan_selected = Signal(int)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.entries: list[JournalEntry] = []
        self.action = QComboBox(toolTip="Only this operation")
        self.actor = QComboBox(toolTip="Only changes made through this front end")
        for combo in (self.action, self.actor):
            combo.addItem(ANY)
            combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.fact = QLineEdit(placeholderText="fact id", maximumWidth=100, clearButtonEnabled=True)
        self.fact.editingFinished.connect(self.refresh)
        self.since_on = QCheckBox("from")
        self.since = QDateEdit(QDate.currentDate().addMonths(-1), calendarPopup=True, displayFormat="yyyy-MM-dd",
                               enabled=False)
        self.until_on = QCheckBox("to")
        self.until = QDateEdit(QDate.currentDate(), calendarPopup=True, displayFormat="yyyy-MM-dd", enabled=False)
        for check, edit in ((self.since_on, self.since), (self.until_on, self.until)):
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(lambda _on: self.refresh())
            edit.dateChanged.connect(lambda _d: self.refresh())
        self.status = QLabel("")
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.cellDoubleClicked.connect(self._open)
        filters = QHBoxLayout()
        for label, widget in (("operation", self.action), ("actor", self.actor), ("fact", self.fact)):
            filters.addWidget(QLabel(label))
            filters.addWidget(widget)
        for widget in (self.since_on, self.since, self.until_on, self.until):
            filters.addWidget(widget)
        filters.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(filters)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        session.opened.connect(lambda _s: self._opened())
        session.store_changed.connect(lambda _c: self._opened())
        session.closed.connect(lambda: self._show([]))

    def _opened(self) -> None:
        self.session.call(lambda m: m.audit_vocabulary(), self._fill_vocabulary, lane="journal-vocabulary",
                          priority=BACKGROUND)
        self.refresh()

    def _fill_vocabulary(self, vocabulary: tuple[list[str], list[str]]) -> None:
        for combo, values in zip((self.action, self.actor), vocabulary):
            chosen = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([ANY, *values])
            combo.setCurrentText(chosen if chosen in values else ANY)
            combo.blockSignals(False)

    def wanted(self) -> AuditFilter | None:
        text = self.fact.text().strip().lstrip("#")
        if text and not text.isdigit():
            self.status.setText("⚠ the fact filter takes a fact id (a whole number)")
            return None
        day = lambda edit, at: datetime.combine(edit.date().toPython(), at, tzinfo=timezone.utc).timestamp()  # noqa
        return AuditFilter(action=None if self.action.currentText() == ANY else self.action.currentText(),
                           actor=None if self.actor.currentText() == ANY else self.actor.currentText(),
                           fact_id=int(text) if text else None,
                           since=day(self.since, time.min) if self.since_on.isChecked() else None,
                           until=day(self.until, time.max) if self.until_on.isChecked() else None)

    def refresh(self) -> None:
        wanted = self.wanted()
        if wanted is not None:
            self.session.call(lambda m: m.audit(wanted, LIMIT), self._show, lane="journal", label="Reading journal", priority=BACKGROUND,
                              on_error=lambda msg: self.status.setText(f"⚠ {msg}"))

    def _show(self, entries: list[JournalEntry]) -> None:
        self.entries = entries
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            values = (str(entry.id), format_time(entry.at), entry.actor, entry.action,
                      "" if entry.fact_id is None else f"#{entry.fact_id}",
                      "" if entry.plan_id is None else f"plan {entry.plan_id}", _summary(entry.details))
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                if column in (FACT, PLAN) and value:
                    cell.setToolTip("Double-click to open")
                elif column == len(HEADERS) - 1:
                    cell.setToolTip(json.dumps(entry.details, ensure_ascii=False, indent=1)[:4000])
                self.table.setItem(row, column, cell)
        self.table.resizeColumnsToContents()
        self.status.setText(f"{len(entries):,} entries, newest first" + (f" (the latest {LIMIT:,})"
                                                                         if len(entries) == LIMIT else ""))

    def _open(self, row: int, column: int) -> None:
        entry = self.entries[row] if 0 <= row < len(self.entries) else None
        if entry is None:
            return
        if column == PLAN and entry.plan_id is not None:
            self.plan_selected.emit(entry.plan_id)
        elif entry.fact_id is not None:
            self.fact_selected.emit(entry.fact_id)
