"""Journal: the audit trail, newest first, filtered by operation, actor, date range and fact.

Double-clicking a row's fact opens it in the inspector; its plan, in the plan viewer.
A row's context menu offers to revert its plan. Rows another process wrote
while the window was open are highlighted until the file changes.

Signals: ``fact_selected(int)``, ``plan_selected(int)``, ``revert_requested(int)`` (a plan id).
"""

from __future__ import annotations

import json
from datetime import datetime, time, timezone

from PySide6.QtCore import QDate, QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDateEdit, QHBoxLayout, QLabel, QLineEdit,
                               QMenu, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine import AuditFilter, ChangeRecord, JournalEntry, format_time

from gui.ops import BACKGROUND
from gui.session import Session

ANY = "any"
HEADERS = ("id", "when", "actor", "action", "fact", "plan", "details")
LIMIT = 2000
FACT, PLAN = 4, 5
LIVE = QColor("#fff3c4")  # rows another process wrote while the window was open


SKIP_IN_SUMMARY = {"content_hash"}  # long and meaningless at a glance; the tooltip has everything


def _summary(details: dict) -> str:
    parts = [f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in sorted(details.items())
             if key not in SKIP_IN_SUMMARY]
    text = " · ".join(parts)
    return text if len(text) <= 300 else text[:297] + "…"


class JournalPane(QWidget):
    fact_selected = Signal(int)
    plan_selected = Signal(int)
    revert_requested = Signal(int)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.entries: list[JournalEntry] = []
        self.live_ids: set[int] = set()
        self.menu: QMenu | None = None
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
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
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
        session.opened.connect(lambda _s: (self.live_ids.clear(), self._opened()))
        session.store_changed.connect(self._store_changed)
        session.live_changes.connect(lambda entries, _r: self.live_ids.update(e.id for e in entries))
        session.closed.connect(lambda: (self.live_ids.clear(), self._show([])))

    def _store_changed(self, record: ChangeRecord | None) -> None:
        if record is None or not record.empty:
            self._opened()

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
        selected = {self.entries[i.row()].id for i in self.table.selectionModel().selectedRows()
                    if i.row() < len(self.entries)}
        scroll = self.table.verticalScrollBar().value()
        added = sum(1 for e in entries if self.entries and e.id > self.entries[0].id)
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
                if entry.id in self.live_ids:
                    cell.setBackground(QBrush(LIVE))
                    cell.setForeground(QBrush(QColor("#222")))
                self.table.setItem(row, column, cell)
        self.table.resizeColumnsToContents()
        self._keep_place(selected, scroll, added)
        self.status.setText(f"{len(entries):,} entries, newest first" + (f" (the latest {LIMIT:,})"
                                                                         if len(entries) == LIMIT else ""))

    def _keep_place(self, selected: set[int], scroll: int, added: int) -> None:
        """The rows a person was looking at stay selected and in view when new ones arrive on top."""
        self.table.clearSelection()
        for row, entry in enumerate(self.entries):
            if entry.id in selected:
                self.table.selectRow(row)
        if scroll:
            self.table.verticalScrollBar().setValue(scroll + added * self.table.verticalHeader().defaultSectionSize())

    def live_rows(self) -> list[int]:
        return [row for row, entry in enumerate(self.entries) if entry.id in self.live_ids]

    def _context_menu(self, at: QPoint) -> None:
        if self.plan_menu(self.table.rowAt(at.y())) is not None:
            self.menu.popup(self.table.viewport().mapToGlobal(at))

    def plan_menu(self, row: int) -> QMenu | None:
        """The actions on a row's plan (None for a row without one)."""
        entry = self.entries[row] if 0 <= row < len(self.entries) else None
        if entry is None or entry.plan_id is None:
            return None
        self.menu = QMenu(self)
        plan_id = entry.plan_id
        self.menu.addAction(f"Open plan {plan_id}").triggered.connect(lambda: self.plan_selected.emit(plan_id))
        revert = self.menu.addAction(f"Revert plan {plan_id}…")
        revert.setEnabled(not self.session.read_only)
        revert.triggered.connect(lambda: self.revert_requested.emit(plan_id))
        return self.menu

    def _open(self, row: int, column: int) -> None:
        entry = self.entries[row] if 0 <= row < len(self.entries) else None
        if entry is None:
            return
        if column == PLAN and entry.plan_id is not None:
            self.plan_selected.emit(entry.plan_id)
        elif entry.fact_id is not None:
            self.fact_selected.emit(entry.fact_id)
