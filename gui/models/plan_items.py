"""A plan's items as a table with a checkbox per item: what a person approves.

Only draft plans are checkable; rejected items never are (there is nothing to
write). An item that builds on another (a distill's archive on the fact it
becomes, an item merged into another) cannot go in without it, so ticking it
ticks what it needs and clearing an item clears what builds on it, said in
``note`` before anything is confirmed. In an applied plan the first column says,
for each item, whether it went in (✓) or was left out (✗ and greyed): a partly
applied plan reads as such.
Signals: ``selection_changed()`` whenever a box is ticked or cleared; ``note(str)`` when
a tick or a clear also changed other items (empty when it did not).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from engine import Plan, PlanItem

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("", "#", "outcome", "stage", "text / fact", "matched", "similarity", "decided by", "reason")
TEXT_COLUMN = 4
REASON_COLUMN = 8
# Columns a narrow window hides first; the diff below the table and the tooltip still say it all.
DROP_ORDER = [7, 3, 6, 5, 8]
LEFT_OUT = QColor("#8a8a8a")


def item_text(item: PlanItem, quoted: dict[int, str] | None = None) -> str:
    """What an item is about: its incoming text, or the text of the fact it names (``quoted``:
    fact id -> text, when known), so "archive fact #52" reads as what #52 says."""
    incoming = item.incoming or {}
    if incoming.get("text"):
        return " ".join(str(incoming["text"]).split())
    said = (quoted or {}).get(item.target_id) if item.target_id is not None else None
    if said is not None and item.outcome not in ("link", "retag"):
        return f"#{item.target_id}: {' '.join(said.split())}"
    if item.outcome == "link" and item.edges:
        source = item.fact_id if item.fact_id is not None else item.target_id
        return "; ".join(f"#{source} {e.get('type')} #{e.get('to_id')}" for e in item.edges)
    if item.outcome == "retag":
        return f"tags → {', '.join(item.tags or []) or '(none)'}"
    return "" if item.target_id is None else f"fact #{item.target_id}"


def _cells(item: PlanItem, quoted: dict[int, str] | None = None) -> list[str]:
    similarity = "" if item.similarity is None else f"{item.similarity:.3f}"
    matched = "" if item.target_id is None else f"#{item.target_id}"
    if item.target_index is not None and item.target_id is None:
        matched = f"item {item.target_index + 1}"
    reason = item.reason + "".join(f" ⚠ {w}" for w in item.warnings)
    # Items are counted from one on screen, as the reasons count them ("close to item 1 of this batch").
    return ["", str(item.index + 1), item.outcome, item.stage or "", item_text(item, quoted), matched, similarity,
            item.decided_by, reason]


def _needs(item: PlanItem) -> set[int]:
    """The items this one cannot be applied without (``engine.plans.apply.select_items`` refuses it)."""
    return {i for i in (item.merged_into, item.target_index) if i is not None}


class PlanItemsModel(QAbstractTableModel):
    selection_changed = Signal()
    note = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.plan: Plan | None = None
        self._rows: list[list[str]] = []
        self.checked: set[int] = set()

    def set_plan(self, plan: Plan | None) -> None:
        self.beginResetModel()
        self.plan = plan
        self._rows = [_cells(it) for it in plan.items] if plan else []
        self.checked = {it.index for it in plan.items if self._checkable(it)} if plan else set()
        self.endResetModel()
        self.selection_changed.emit()

    def quote(self, texts: dict[int, str]) -> None:
        """Show what the facts the items name say (fetched after the plan, off the UI thread)."""
        if self.plan is None or not texts:
            return
        self._rows = [_cells(it, texts) for it in self.plan.items]
        self.dataChanged.emit(self.index(0, TEXT_COLUMN), self.index(len(self._rows) - 1, TEXT_COLUMN))

    def _checkable(self, item: PlanItem) -> bool:
        return self.plan is not None and self.plan.status == "draft" and item.outcome != "rejected"

    def applied(self, item: PlanItem) -> bool | None:
        """Whether an applied plan wrote this item; None while the plan is not applied."""
        if self.plan is None or not self.plan.applied:
            return None
        return item.index in self.plan.applied_indexes

    def item(self, row: int) -> PlanItem | None:
        return self.plan.items[row] if self.plan and 0 <= row < len(self.plan.items) else None

    def set_checked(self, indexes: set[int]) -> None:
        """Tick exactly ``indexes`` and what they build on."""
        if self.plan is None:
            return
        wanted = {it.index for it in self.plan.items if it.index in indexes and self._checkable(it)}
        self._settle(self._with_needs(wanted), wanted)

    def _with_needs(self, indexes: set[int]) -> set[int]:
        by_index = {it.index: it for it in self.plan.items}
        result, todo = set(), list(indexes)
        while todo:
            index = todo.pop()
            item = by_index.get(index)
            if index in result or item is None or not self._checkable(item):
                continue
            result.add(index)
            todo += _needs(item)
        return result

    def _without_dependents(self, indexes: set[int], cleared: int) -> set[int]:
        result, gone = set(indexes), {cleared}
        while gone:
            result -= gone
            gone = {it.index for it in self.plan.items if it.index in result and _needs(it) & (set(indexes) - result)}
        return result

    def _settle(self, checked: set[int], asked: set[int]) -> None:
        """Make ``checked`` the ticked set; say which items changed beyond the ``asked`` ones."""
        added, removed = sorted(checked - asked - self.checked), sorted((self.checked - checked) - (self.checked - asked))
        self.checked = checked
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0))
        parts = []
        if added:
            parts.append(f"also ticked item{'s' * (len(added) > 1)} {', '.join(str(i + 1) for i in added)} "
                         f"(the selection builds on {'them' if len(added) > 1 else 'it'})")
        if removed:
            parts.append(f"also cleared item{'s' * (len(removed) > 1)} {', '.join(str(i + 1) for i in removed)} "
                         f"(built on what was cleared)")
        self.note.emit("; ".join(parts))
        self.selection_changed.emit()

    def outcomes(self) -> list[str]:
        return sorted({it.outcome for it in self.plan.items if self._checkable(it)}) if self.plan else []

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        item = self.item(index.row()) if index.isValid() else None
        if index.column() == 0 and item is not None and self._checkable(item):
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self.plan.items[index.row()]
        if role == Qt.ItemDataRole.CheckStateRole and index.column() == 0 and self._checkable(item):
            return Qt.CheckState.Checked if item.index in self.checked else Qt.CheckState.Unchecked
        went_in = self.applied(item)
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0 and went_in is not None:
                return "✓" if went_in else "✗"
            return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            if index.column() == 0 and went_in is not None:
                return "applied" if went_in else "not applied (left out when the plan was applied)"
            if index.column() in (TEXT_COLUMN, REASON_COLUMN):
                return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and went_in is False:
            return LEFT_OUT
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 0:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        item = self.item(index.row()) if index.isValid() else None
        if role != Qt.ItemDataRole.CheckStateRole or index.column() != 0 or item is None or not self._checkable(item):
            return False
        if Qt.CheckState(value) == Qt.CheckState.Checked:
            self._settle(self.checked | self._with_needs({item.index}), self.checked | {item.index})
        else:
            self._settle(self._without_dependents(self.checked, item.index), self.checked - {item.index})
        return True

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None
