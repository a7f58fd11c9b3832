"""The journal pane's table: a model over the entries one audit read returned (up to 2,000).

A row's cell texts are formatted at its first paint and its details tooltip (the whole
``details`` as indented JSON) only when hovered, so showing 2,000 entries costs the UI
thread a reset, not 14,000 items and 2,000 JSON dumps (1.5-1.8 s before).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from engine import JournalEntry, format_time

HEADERS = ("id", "when", "actor", "action", "fact", "plan", "details")
FACT, PLAN, DETAILS = 4, 5, 6
LIVE = QBrush(QColor("#fff3c4"))  # rows another process wrote while the window was open
LIVE_TEXT = QBrush(QColor("#222"))
SKIP_IN_SUMMARY = {"content_hash"}  # long and meaningless at a glance; the tooltip has everything
Index = QModelIndex | QPersistentModelIndex
DISPLAY, TOOLTIP, BACKGROUND, FOREGROUND = (int(r) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.BackgroundRole,
    Qt.ItemDataRole.ForegroundRole))


def summary(details: dict) -> str:
    parts = [f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in sorted(details.items())
             if key not in SKIP_IN_SUMMARY]
    text = " · ".join(parts)
    return text if len(text) <= 300 else text[:297] + "…"


def row_texts(entry: JournalEntry) -> tuple[str, ...]:
    return (str(entry.id), format_time(entry.at), entry.actor, entry.action,
            "" if entry.fact_id is None else f"#{entry.fact_id}",
            "" if entry.plan_id is None else f"plan {entry.plan_id}", summary(entry.details))


class JournalModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.entries: list[JournalEntry] = []
        self.live_ids: set[int] = set()
        self.formatted: dict[int, tuple[str, ...]] = {}  # row -> its cell texts, once painted

    def show(self, entries: list[JournalEntry]) -> None:
        self.beginResetModel()
        self.entries, self.formatted = entries, {}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def texts(self, row: int) -> tuple[str, ...]:
        texts = self.formatted.get(row)
        if texts is None:
            texts = self.formatted[row] = row_texts(self.entries[row])
        return texts

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        row, column = index.row(), index.column()
        if not 0 <= row < len(self.entries):
            return None
        if role == DISPLAY:
            return self.texts(row)[column]
        if role == TOOLTIP:
            entry = self.entries[row]
            if column == DETAILS:
                return json.dumps(entry.details, ensure_ascii=False, indent=1)[:4000]
            if (column == FACT and entry.fact_id is not None) or (column == PLAN and entry.plan_id is not None):
                return "Double-click to open"
            return None
        if role in (BACKGROUND, FOREGROUND) and self.entries[row].id in self.live_ids:
            return LIVE if role == BACKGROUND else LIVE_TEXT
        return None
