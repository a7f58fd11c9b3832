"""The search filter bar: scope, kind, statuses, tags, minimum confidence, date range, and the entity
whose facts the graph asked to see (a chip that clears with one click).

Signals: ``changed()`` whenever a filter changes.
"""

from __future__ import annotations

from datetime import datetime, time, timezone

from PySide6.QtCore import QDate, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDateEdit, QDoubleSpinBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QMenu, QToolButton, QWidget)

from engine import KINDS, SCOPES, STATUSES, InvalidInput, SearchFilters

ANY = "any"


class FilterBar(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scope = _combo("Scope", SCOPES)
        self.kind = _combo("Kind", KINDS)
        self.status_button = QToolButton(toolTip="Statuses to include (active by default)")
        self.status_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.status_button)
        self.status_actions: dict[str, QAction] = {}
        for status in STATUSES:
            action = menu.addAction(status)
            action.setCheckable(True)
            action.setChecked(status == "active")
            action.toggled.connect(self._statuses_toggled)
            self.status_actions[status] = action
        self.status_button.setMenu(menu)
        self.tags = QLineEdit(placeholderText="tags, comma-separated", clearButtonEnabled=True)
        self.tags.setToolTip("Only facts carrying every one of these tags")
        self.tags.setMinimumWidth(140)
        self.min_confidence = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.min_confidence.setSpecialValueText("any")
        self.min_confidence.setToolTip("Minimum effective (decayed) confidence")
        self.since_on, self.since = _date_filter("from", QDate.currentDate().addYears(-1))
        self.until_on, self.until = _date_filter("to", QDate.currentDate())
        self.entity: tuple[str, str] | None = None  # (graph key, name shown)
        self.entity_chip = QToolButton(toolTip="Only the facts that mention this entity: click to list every fact",
                                       visible=False)
        self.entity_chip.setObjectName("entityChip")
        self.entity_chip.clicked.connect(lambda: self.set_entity(None))

        # Two rows keep the window usable down to ~1000 px wide with the inspector open.
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        first = QHBoxLayout()
        for label, widget in (("scope", self.scope), ("kind", self.kind), (None, self.status_button)):
            if label:
                first.addWidget(QLabel(label))
            first.addWidget(widget)
        first.addWidget(self.tags, 1)
        second = QHBoxLayout()
        second.addWidget(QLabel("min conf"))
        second.addWidget(self.min_confidence)
        for check, edit in ((self.since_on, self.since), (self.until_on, self.until)):
            second.addWidget(check)
            second.addWidget(edit)
        second.addWidget(self.entity_chip)
        second.addStretch(1)
        layout.addLayout(first, 0, 0)
        layout.addLayout(second, 1, 0)
        self._update_status_text()

        for combo in (self.scope, self.kind):
            combo.currentIndexChanged.connect(self.changed)
        self.tags.textChanged.connect(self.changed)
        self.min_confidence.valueChanged.connect(self.changed)
        for check, edit in ((self.since_on, self.since), (self.until_on, self.until)):
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(self.changed)
            edit.dateChanged.connect(self.changed)

    def _statuses_toggled(self) -> None:
        if not any(a.isChecked() for a in self.status_actions.values()):
            self.status_actions["active"].setChecked(True)  # at least one status; this re-enters once
            return
        self._update_status_text()
        self.changed.emit()

    def _update_status_text(self) -> None:
        self.status_button.setText("status: " + ", ".join(self.statuses()))

    def statuses(self) -> tuple[str, ...]:
        return tuple(s for s, a in self.status_actions.items() if a.isChecked())

    def set_statuses(self, statuses: tuple[str, ...]) -> None:
        for status, action in self.status_actions.items():
            action.setChecked(status in statuses)

    def set_entity(self, entity: tuple[str, str] | None, quiet: bool = False) -> None:
        """Only the facts mentioning ``(key, name)``; None lists every fact again."""
        self.entity = entity
        self.entity_chip.setText(f"entity: {entity[1]}  ✕" if entity else "")
        self.entity_chip.setVisible(entity is not None)
        if not quiet:
            self.changed.emit()

    def filters(self) -> SearchFilters:
        """The current filters; raises ``InvalidInput`` for a reversed date range."""
        since = _epoch(self.since.date(), time.min) if self.since_on.isChecked() else None
        until = _epoch(self.until.date(), time.max) if self.until_on.isChecked() else None
        if since is not None and until is not None and since > until:
            raise InvalidInput("the 'from' date is after the 'to' date")
        tags = tuple(t.strip().lower() for t in self.tags.text().split(",") if t.strip())
        return SearchFilters(scope=_choice(self.scope), kind=_choice(self.kind), statuses=self.statuses(),
                             tags=tags, since=since, until=until,
                             min_confidence=self.min_confidence.value() or None,
                             entity=self.entity[0] if self.entity else None)


def _combo(name: str, values: tuple[str, ...]) -> QComboBox:
    combo = QComboBox(toolTip=f"{name} filter")
    combo.addItems([ANY, *values])
    return combo


def _choice(combo: QComboBox) -> str | None:
    return None if combo.currentText() == ANY else combo.currentText()


def _date_filter(label: str, initial: QDate) -> tuple[QCheckBox, QDateEdit]:
    check = QCheckBox(label, toolTip=f"Only facts created {'on or after' if label == 'from' else 'on or before'} "
                                     f"this date")
    edit = QDateEdit(initial, calendarPopup=True, displayFormat="yyyy-MM-dd")
    edit.setEnabled(False)
    return check, edit


def _epoch(day: QDate, at: time) -> float:
    return datetime.combine(day.toPython(), at, tzinfo=timezone.utc).timestamp()
