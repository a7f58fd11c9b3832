"""Journal: the audit trail, newest first, filtered by operation, actor, date range and fact.

Double-clicking a row's fact opens it in the inspector; its plan, in the plan viewer.
A row's context menu offers to revert its plan. Rows another process wrote
while the window was open are highlighted until the file changes.

Signals: ``fact_selected(int)``, ``plan_selected(int)``, ``revert_requested(int)`` (a plan id).
"""

from __future__ import annotations

from datetime import datetime, time, timezone

from PySide6.QtCore import QDate, QPoint, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDateEdit, QHBoxLayout, QLabel, QLineEdit,
                               QMenu, QTableView, QVBoxLayout, QWidget)

from engine import AuditFilter, ChangeRecord, JournalEntry

from gui.models.journal import HEADERS, PLAN, JournalModel
from gui.ops import BACKGROUND
from gui.session import Session

ANY = "any"
LIMIT = 2000
MEASURED_ROWS = 100  # columns are as wide as the newest rows need: measuring all 2,000 would format them all


class JournalPane(QWidget):
    fact_selected = Signal(int)
    plan_selected = Signal(int)
    revert_requested = Signal(int)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = JournalModel(self)
        self.live_ids = self.model.live_ids  # one set: the model paints the rows it holds
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
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.doubleClicked.connect(lambda index: self._open(index.row(), index.column()))
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

    @property
    def entries(self) -> list[JournalEntry]:
        return self.model.entries

    def _show(self, entries: list[JournalEntry]) -> None:
        selected = {self.entries[i.row()].id for i in self.table.selectionModel().selectedRows()
                    if i.row() < len(self.entries)}
        scroll = self.table.verticalScrollBar().value()
        added = sum(1 for e in entries if self.entries and e.id > self.entries[0].id)
        self.model.show(entries)
        self._fit_columns()
        self._keep_place(selected, scroll, added)
        self.status.setText(f"{len(entries):,} entries, newest first" + (f" (the latest {LIMIT:,})"
                                                                         if len(entries) == LIMIT else ""))

    def _fit_columns(self) -> None:
        metrics = self.table.fontMetrics()
        rows = [self.model.texts(row) for row in range(min(MEASURED_ROWS, len(self.entries)))]
        padding = 2 * metrics.averageCharWidth() + 4
        for column, header in enumerate(HEADERS):
            wide = max((metrics.horizontalAdvance(texts[column]) for texts in rows), default=0)
            self.table.setColumnWidth(column, max(wide, metrics.horizontalAdvance(header)) + padding)

    def _keep_place(self, selected: set[int], scroll: int, added: int) -> None:
        """The rows a person was looking at stay selected and in view when new ones arrive on top."""
        self.table.clearSelection()
        if selected:
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
