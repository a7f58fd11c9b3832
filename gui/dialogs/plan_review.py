"""Confirming a plan before it is written: what will happen to which fact, and why.

Every change made from the app (a new version, a link, tags, archiving, an
import, a revert) is first a draft plan in the file; this dialog shows each
item with the text it is about and a tick box, and only "Apply" writes, the
ticked items only. "Discard" marks the draft discarded (it stays in the file's
plan history, like everything else). The dialog belongs to the file it was
drafted in: opening another file closes it, and an apply for a file no longer
open is refused.

Signals: ``applied(object)`` (the applied plan), ``discarded()``.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine import Fact, Memory, Plan, PlanItem

from gui.models.plan_items import item_text
from gui.session import Session
from gui.widgets.message_line import MessageLine

HEADERS = ("apply", "outcome", "fact / text", "matched", "similarity", "decided by", "reason")
TICK, TEXT = 0, 2
MAX_ROW_LINES = 4


def _describe(item: PlanItem, facts: dict[int, Fact]) -> list[str]:
    text = item_text(item)
    target = facts.get(item.target_id) if item.target_id is not None else None
    if target is not None and not (item.incoming or {}).get("text"):
        # An archive, retag, link or prefer names a fact: show what that fact says, not only its number.
        what = "" if text == f"fact #{target.id}" else f"  ({text})"
        text = f"#{target.id}: {' '.join(target.text.split())}{what}"
    matched = "" if item.target_id is None else f"#{item.target_id}"
    similarity = "" if item.similarity is None else f"{item.similarity:.3f}"
    reason = item.reason + ("".join(f" ⚠ {w}" for w in item.warnings) if item.warnings else "")
    return ["", item.outcome, text, matched, similarity, item.decided_by, reason]


def plan_facts(memory: Memory, plan: Plan) -> dict[int, Fact]:
    """The facts a plan's items name, so the review can quote them (runs on the worker)."""
    return memory.facts({it.target_id for it in plan.items if it.target_id is not None})


class PlanReview(QDialog):
    applied = Signal(object)
    discarded = Signal()

    def __init__(self, session: Session, plan: Plan, title: str, parent: QWidget | None = None, *,
                 facts: dict[int, Fact] | None = None, generation: int | None = None) -> None:
        super().__init__(parent)
        self.session, self.plan = session, plan
        self.generation = session.generation if generation is None else generation
        self.setWindowTitle(title)
        self.setObjectName("planReview")
        # Room for its rows, up to a dozen (it opened a row and a half high), within the window.
        window = parent.window().size() if parent is not None else None
        rows = min(len(plan.items), 12) * (3 * self.fontMetrics().lineSpacing() + 8)
        self.resize(min(int(window.width() * 0.92), 1200) if window else 900,
                    min(160 + rows, int(window.height() * 0.85) if window else 640, 720))
        counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(plan.counts().items()))
        self.summary = QLabel(f"Plan {plan.id} ({plan.kind}) proposes: {counts or 'nothing'}. "
                              f"Nothing is written until you press Apply; only the ticked items are.")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(len(plan.items), len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        for row, item in enumerate(plan.items):
            for column, value in enumerate(_describe(item, facts or {})):
                cell = QTableWidgetItem(value)
                cell.setToolTip(value)
                if column == TICK:
                    self._make_tick(cell, item)
                self.table.setItem(row, column, cell)
        header = self.table.horizontalHeader()
        for column in range(len(HEADERS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(len(HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        # Rows follow the columns' widths (measured once the dialog has its size, and again after every
        # resize: rows wrapped tall in a narrow dialog shrink back when it widens), up to a few lines.
        # A short pause, not the next event-loop turn: the header lays its stretched columns out after
        # the resize event, and rows measured before that kept the old widths' heights.
        self.row_fit = QTimer(self, singleShot=True, interval=40)
        self.row_fit.timeout.connect(self._rows_to_contents)
        header.sectionResized.connect(lambda *_: self.row_fit.start())
        self.table.itemChanged.connect(lambda _cell: self._update_apply())
        self.error = MessageLine()  # "Applying…" is news, "Not applied: …" an error
        self.buttons = QDialogButtonBox()
        self.apply_button = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.discard_button = self.buttons.addButton("Discard", QDialogButtonBox.ButtonRole.RejectRole)
        if session.read_only:
            self.error.say("This memory file is read-only: the plan can be reviewed but not applied.", "warning")
        self.apply_button.clicked.connect(self._apply)
        self.discard_button.clicked.connect(self.reject)
        # The fact ids in this plan mean nothing in another file.
        session.opened.connect(self._file_gone)
        session.closed.connect(self._file_gone)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self._update_apply()

    def _rows_to_contents(self) -> None:
        """Each row as tall as its wrapped text and reason need at the columns' widths now, at most
        ``MAX_ROW_LINES`` lines (the tooltip has the rest)."""
        metrics, table = self.table.fontMetrics(), self.table
        line = metrics.lineSpacing()
        widths = {c: max(table.columnWidth(c) - 12, 40) for c in (TEXT, len(HEADERS) - 1)}
        for row in range(table.rowCount()):
            lines = 1
            for column, width in widths.items():
                text = table.item(row, column).text()
                height = metrics.boundingRect(QRect(0, 0, width, 100_000), Qt.TextFlag.TextWordWrap, text).height()
                lines = max(lines, -(-height // line))
            table.setRowHeight(row, min(lines, MAX_ROW_LINES) * line + 8)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.row_fit.start()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.row_fit.start()

    def _make_tick(self, cell: QTableWidgetItem, item: PlanItem) -> None:
        if item.outcome == "rejected":
            cell.setFlags(cell.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            cell.setToolTip("Rejected: there is nothing to write")
            return
        cell.setFlags(cell.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        cell.setCheckState(Qt.CheckState.Checked)
        cell.setToolTip("Untick to leave this item out")

    @property
    def ticked(self) -> list[int]:
        """Indexes of the items that Apply writes."""
        return [item.index for row, item in enumerate(self.plan.items)
                if self.table.item(row, TICK).checkState() == Qt.CheckState.Checked and item.outcome != "rejected"]

    def set_ticked(self, indexes: set[int]) -> None:
        for row, item in enumerate(self.plan.items):
            if item.outcome != "rejected":
                self.table.item(row, TICK).setCheckState(
                    Qt.CheckState.Checked if item.index in indexes else Qt.CheckState.Unchecked)

    def _update_apply(self) -> None:
        ticked = len(self.ticked)
        writable = sum(it.outcome != "rejected" for it in self.plan.items)
        self.apply_button.setEnabled(bool(ticked) and not self.session.read_only)
        self.apply_button.setText("Apply" if ticked == writable else f"Apply {ticked} of {writable}")

    def _apply(self) -> None:
        plan_id, ticked = self.plan.id, self.ticked
        writable = sum(it.outcome != "rejected" for it in self.plan.items)
        only = None if len(ticked) == writable else ticked
        self.apply_button.setEnabled(False)
        self.error.say("Applying…")
        self.session.write(lambda m: m.apply_plan(plan_id, only=only), self._done, label="Applying plan",
                           on_error=self._failed, generation=self.generation)

    def _done(self, plan: Plan) -> None:
        self.applied.emit(plan)
        self.accept()

    def _failed(self, message: str) -> None:
        self.error.say(f"Not applied: {message}", "error")
        self._update_apply()

    def _file_gone(self, *_args: Any) -> None:
        """Close without discarding: the draft stays in its own file, where it was made."""
        self.discarded.emit()
        super().reject()

    def reject(self) -> None:
        plan_id = self.plan.id
        if self.plan.status == "draft" and not self.session.read_only:
            self.session.call(lambda m: m.discard_plan(plan_id), label="Discarding plan", on_error=lambda _m: None,
                              generation=self.generation)
        self.discarded.emit()
        super().reject()


def propose(session: Session, parent: QWidget, title: str, make_plan: Callable[..., Plan],
            on_review: Callable[[PlanReview], Any] | None = None,
            on_error: Callable[[str], Any] | None = None, with_progress: bool = False,
            generation: int | None = None) -> None:
    """Build a draft plan off the UI thread, then open its review (non-modal, so tests can drive it).

    ``generation`` is the open file the draft's fact ids come from; the session refuses it for another."""
    made_for = session.generation if generation is None else generation

    def work(memory: Memory, *progress: Any) -> tuple[Plan, dict[int, Fact]]:
        plan = make_plan(memory, *progress)
        return plan, plan_facts(memory, plan)

    def show(result: tuple[Plan, dict[int, Fact]]) -> None:
        plan, facts = result
        review = PlanReview(session, plan, title, parent, facts=facts, generation=made_for)
        review.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if on_review:
            on_review(review)
        review.open()

    session.call(work, show, label=title, on_error=on_error, with_progress=with_progress, generation=made_for)
