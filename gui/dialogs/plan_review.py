"""Confirming a plan before it is written: what will happen to which fact, and why.

Every change made from the app (a new version, a link, tags, archiving, an
import) is first a draft plan in the file; this dialog shows it, and only
"Apply" writes. "Discard" marks the draft discarded (it stays in the file's
plan history, like everything else).

Signals: ``applied(object)`` (the applied plan), ``discarded()``.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from engine import Memory, Plan, PlanItem

from gui.session import Session

HEADERS = ("outcome", "fact / text", "matched", "similarity", "decided by", "reason")


def _describe(item: PlanItem) -> list[str]:
    incoming = item.incoming or {}
    text = incoming.get("text") or (f"fact {item.target_id}" if item.target_id is not None else "")
    matched = "" if item.target_id is None else f"#{item.target_id}"
    similarity = "" if item.similarity is None else f"{item.similarity:.3f}"
    reason = item.reason + ("".join(f" ⚠ {w}" for w in item.warnings) if item.warnings else "")
    return [item.outcome, " ".join(str(text).split()), matched, similarity, item.decided_by, reason]


class PlanReview(QDialog):
    applied = Signal(object)
    discarded = Signal()

    def __init__(self, session: Session, plan: Plan, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.plan = session, plan
        self.setWindowTitle(title)
        self.setObjectName("planReview")
        self.resize(900, 360)
        counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(plan.counts().items()))
        self.summary = QLabel(f"Plan {plan.id} ({plan.kind}) proposes: {counts or 'nothing'}. "
                              f"Nothing is written until you press Apply.")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(len(plan.items), len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        for row, item in enumerate(plan.items):
            for column, value in enumerate(_describe(item)):
                cell = QTableWidgetItem(value)
                cell.setToolTip(value)
                self.table.setItem(row, column, cell)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox()
        self.apply_button = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.discard_button = self.buttons.addButton("Discard", QDialogButtonBox.ButtonRole.RejectRole)
        writable = [it for it in plan.items if it.outcome != "rejected"]
        self.apply_button.setEnabled(bool(writable) and not session.read_only)
        if session.read_only:
            self.error.setText("This memory file is read-only: the plan can be reviewed but not applied.")
        self.apply_button.clicked.connect(self._apply)
        self.discard_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def _apply(self) -> None:
        self.apply_button.setEnabled(False)
        self.error.setText("Applying…")
        self.session.write(lambda m: m.apply_plan(self.plan.id), self._done, label="Applying plan",
                           on_error=self._failed)

    def _done(self, plan: Plan) -> None:
        self.applied.emit(plan)
        self.accept()

    def _failed(self, message: str) -> None:
        self.error.setText(f"Not applied: {message}")
        self.apply_button.setEnabled(True)

    def reject(self) -> None:
        plan_id = self.plan.id
        if self.plan.status == "draft" and not self.session.read_only:
            self.session.call(lambda m: m.discard_plan(plan_id), label="Discarding plan", on_error=lambda _m: None)
        self.discarded.emit()
        super().reject()


def propose(session: Session, parent: QWidget, title: str, make_plan: Callable[..., Plan],
            on_review: Callable[[PlanReview], Any] | None = None,
            on_error: Callable[[str], Any] | None = None, with_progress: bool = False) -> None:
    """Build a draft plan off the UI thread, then open its review (non-modal, so tests can drive it)."""
    def show(plan: Plan) -> None:
        review = PlanReview(session, plan, title, parent)
        review.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if on_review:
            on_review(review)
        review.open()

    session.call(make_plan, show, label=title, on_error=on_error, with_progress=with_progress)
