"""Plan viewer: every plan in the file, its items with a checkbox each, and approval.

Dry runs start here too (absorb, distill, gc, consolidate, abstract): each
stores a draft that appears at the top of the list, selected. "Apply selected"
writes exactly the ticked items in one transaction after a confirmation;
"Discard" marks the draft discarded. Nothing is deleted either way. An applied
plan shows which of its items went in; "Revert plan…" drafts a plan undoing it,
opened for review like any other.

Signals: ``fact_selected(int)`` (a matched or written fact was double-clicked).
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any, Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel,
                               QMenu, QMessageBox, QPushButton, QSplitter, QTableView, QTableWidget,
                               QTableWidgetItem, QTextBrowser, QToolButton, QVBoxLayout, QWidget)

from engine import ChangeRecord, Plan, PlanSummary, format_time

from gui.dialogs.absorb import AbsorbDialog
from gui.dialogs.plan_review import PlanReview, propose
from gui.models.plan_items import DROP_ORDER, REASON_COLUMN, TEXT_COLUMN, PlanItemsModel, item_text
from gui.ops import BACKGROUND
from gui.session import Session
from gui.widgets.message_line import MessageLine
from gui.widgets.readable_columns import ReadableColumns
from gui.widgets.word_diff import word_diff_html

EVERY_FINISHED = "Every finished session"
PASSES = (("absorb", "Absorb…"), ("distill", "Distill…"), ("gc", "GC…"), ("consolidate", "Consolidate…"),
          ("abstract", "Abstract…"))
LIST_HEADERS = ("id", "kind", "created", "status", "items")
STATUS_COLUMN, ITEMS_COLUMN = 3, 4
STATUS_MAX_PX = 100  # "partly applied (12 of 40)" and "reverted by plan 17" wrap to two lines
LIST_MIN_WIDTH = 400  # with the columns above, the items column keeps ~120 px: "12 contradict"


def _status_text(summary: PlanSummary) -> str:
    """The list's status column: a partly applied plan must not read as wholly applied, nor an undone
    one as standing."""
    if summary.reverted_by is not None:
        return f"reverted by plan {summary.reverted_by}"
    if summary.partly_applied:
        return f"partly applied ({summary.applied_count} of {summary.writable})"
    return summary.status


def _items(count: int) -> str:
    return f"{count} item{'s' * (count != 1)}"


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "empty"


class PlansPane(QWidget):
    fact_selected = Signal(int)
    review_opened = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.plan: Plan | None = None
        self.summaries: list[PlanSummary] = []
        self.prompt: QWidget | None = None
        self._note: tuple[str, str] = ("", "info")  # (text, kind) of what the last action said
        self._keep_checked: tuple[int, set[int]] | None = None  # (plan id, ticked items) to restore after a refusal
        self.pass_buttons: dict[str, QPushButton] = {}
        toolbar = QHBoxLayout()
        toolbar.addWidget(QLabel("New dry run:"))
        for key, label in PASSES:
            button = QPushButton(label)
            button.clicked.connect(lambda _c=False, k=key: self.start_pass(k))
            toolbar.addWidget(button)
            self.pass_buttons[key] = button
        toolbar.addStretch(1)
        self.status_filter = QComboBox(toolTip="Show plans of one status")
        self.status_filter.addItems(["all", "draft", "applied", "refused", "discarded"])
        self.status_filter.currentIndexChanged.connect(lambda _i: self.refresh())
        toolbar.addWidget(self.status_filter)

        self.list = QTableWidget(0, len(LIST_HEADERS))
        self.list.setHorizontalHeaderLabels(LIST_HEADERS)
        self.list.verticalHeader().hide()
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Every column readable in a narrow list (issue 27: the items were cut off): short columns fit
        # their contents, the time is two lines (date, then time), the status wraps within a cap, the
        # items take the rest with one outcome a line; rows grow to what they hold.
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMinimumWidth(LIST_MIN_WIDTH)
        list_header = self.list.horizontalHeader()
        for column in (0, 1, 2):
            list_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        list_header.setSectionResizeMode(ITEMS_COLUMN, QHeaderView.ResizeMode.Stretch)
        self._list_rows_fit = QTimer(self, singleShot=True, interval=40)  # after the header lays out
        self._list_rows_fit.timeout.connect(self.list.resizeRowsToContents)
        list_header.sectionResized.connect(lambda *_: self._list_rows_fit.start())
        self.list.verticalHeader().setDefaultSectionSize(22)
        self.list.itemSelectionChanged.connect(self._plan_chosen)

        self.heading = QLabel("Select a plan, or start a dry run.")
        self.heading.setObjectName("inspectorTitle")
        self.heading.setWordWrap(True)
        self.items = PlanItemsModel(self)
        self.table = QTableView()
        self.table.setModel(self.items)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.columns = ReadableColumns(self.table, TEXT_COLUMN, [c for c in DROP_ORDER if c != REASON_COLUMN],
                                       fixed={0: 28}, second_text=REASON_COLUMN)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._item_chosen(cur.row()))
        self.table.doubleClicked.connect(self._item_activated)
        self.select_button = QToolButton(text="Select", popupMode=QToolButton.ToolButtonPopupMode.InstantPopup)
        self.select_menu = QMenu(self.select_button)
        self.select_button.setMenu(self.select_menu)
        self.select_menu.aboutToShow.connect(self._fill_select_menu)
        self.chosen_label = QLabel("")
        self.apply_button = QPushButton("Apply selected", enabled=False)
        self.apply_button.clicked.connect(self.confirm_apply)
        self.discard_button = QPushButton("Discard", enabled=False)
        self.discard_button.clicked.connect(self.discard)
        self.revert_button = QPushButton("Revert plan…", enabled=False,
                                         toolTip="Draft a plan that undoes this one by new records, to review")
        self.revert_button.clicked.connect(lambda: self.plan is not None and self.revert(self.plan.id))
        self.items.selection_changed.connect(self._update_buttons)
        self.items.note.connect(lambda text: self.message.say(text[:1].upper() + text[1:] + ".") if text else None)
        actions = QHBoxLayout()
        for widget in (self.select_button, self.chosen_label):
            actions.addWidget(widget)
        actions.addStretch(1)
        actions.addWidget(self.revert_button)
        actions.addWidget(self.discard_button)
        actions.addWidget(self.apply_button)
        self.incoming = QTextBrowser()
        self.matched = QTextBrowser()
        self.message = MessageLine()

        compare = QSplitter(Qt.Orientation.Horizontal)
        for title, browser in (("incoming (changes against the matched fact)", self.incoming),
                               ("matched fact", self.matched)):
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(QLabel(title))
            column.addWidget(browser)
            compare.addWidget(box)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.heading)
        right_layout.addLayout(actions)
        right_layout.addWidget(self.message)
        # The selected item's reason in full: the table's reason column is one line of a shared width.
        self.why = QLabel("", objectName="explanation", wordWrap=True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        below = QWidget()
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(self.why)
        below_layout.addWidget(compare, 1)
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(self.table)
        vertical.addWidget(below)
        vertical.setSizes([480, 220])
        right_layout.addWidget(vertical, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(right)
        self.splitter.setSizes([460, 940])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(toolbar)
        layout.addWidget(self.splitter, 1)
        session.opened.connect(lambda _s: self._opened())
        session.store_changed.connect(self._store_changed)
        session.closed.connect(lambda: (self._show_list([]), self._show_plan(None)))

    def _store_changed(self, record: ChangeRecord | None) -> None:
        # Plans change status only when applied (they are in the record) or discarded (by this pane).
        if record is None or record.plans:
            self.refresh()

    # -- the list of plans ---------------------------------------------------------------------
    def _opened(self) -> None:
        llm = self.session.settings.llm
        has_llm = bool(getattr(llm, "base_url", None))
        self.pass_buttons["abstract"].setEnabled(has_llm)
        self.pass_buttons["abstract"].setToolTip(
            "Cluster facts by subject and let the LLM propose derived facts" if has_llm else
            "Needs an LLM: set [llm] base_url and model in memlens.toml")
        for button in self.pass_buttons.values():
            if self.session.read_only:
                button.setEnabled(False)
                button.setToolTip("This memory file is read-only")
        self._show_list([])
        self._show_plan(None)
        self.refresh()

    def refresh(self, select: int | None = None) -> None:
        status = self.status_filter.currentText()
        keep = select if select is not None else (self.plan.id if self.plan else None)
        self.session.call(lambda m: m.plans(None if status == "all" else status, limit=500),
                          lambda found: self._show_list(found, keep), lane="plans", label="Listing plans",
                          priority=BACKGROUND)

    def _show_list(self, summaries: list[PlanSummary], select: int | None = None) -> None:
        self.summaries = summaries
        self.list.blockSignals(True)
        self.list.setRowCount(len(summaries))
        for row, summary in enumerate(summaries):
            created = format_time(summary.created_at)[:16].replace("T", "\n")  # the date, then the time
            counts = "\n".join(f"{n} {outcome}" for outcome, n in sorted(summary.counts.items())) or "empty"
            for column, value in enumerate((str(summary.id), summary.kind, created, _status_text(summary), counts)):
                cell = QTableWidgetItem(value)
                cell.setToolTip(summary.note or value.replace("\n", ", " if column == ITEMS_COLUMN else " "))
                self.list.setItem(row, column, cell)
        self.list.setColumnWidth(STATUS_COLUMN, min(STATUS_MAX_PX, max(self.list.sizeHintForColumn(STATUS_COLUMN),
                                                                       self.list.horizontalHeader()
                                                                       .sectionSizeHint(STATUS_COLUMN))))
        self.list.blockSignals(False)
        self._list_rows_fit.start()
        rows = [r for r, s in enumerate(summaries) if s.id == select]
        if rows:
            self.list.selectRow(rows[0])
            self._plan_chosen()

    def _plan_chosen(self) -> None:
        rows = self.list.selectionModel().selectedRows()
        if not rows:
            return
        plan_id = self.summaries[rows[0].row()].id
        self.session.call(lambda m: m.plan(plan_id), self._show_plan, lane="plan", label="Loading plan")

    # -- one plan -----------------------------------------------------------------------------
    def _show_plan(self, plan: Plan | None) -> None:
        self.message.say(*self._note)  # what the last action said survives the reload it causes
        self._note = ("", "info")
        self.plan = plan
        self.items.set_plan(plan)
        kept, self._keep_checked = self._keep_checked, None
        if plan is not None and kept is not None and kept[0] == plan.id and plan.status == "draft":
            self.items.set_checked(kept[1])
        named = {it.target_id for it in plan.items if it.target_id is not None} if plan else set()
        if named:
            self.session.call(lambda m: {i: f.text for i, f in m.facts(named).items()}, self.items.quote,
                              lane="plan-facts", label="Quoting facts")
        self.incoming.clear()
        self.matched.clear()
        self.why.setText("")
        if plan is None:
            self.heading.setText("Select a plan, or start a dry run.")
            return
        decided = f", decided {format_time(plan.decided_at)}" if plan.decided_at else ""
        status = plan.status
        if plan.applied:
            writable = sum(it.outcome != "rejected" for it in plan.items)
            status = (f"partly applied ({len(plan.applied_indexes)} of {writable} items went in)"
                      if plan.partly_applied else f"applied ({_items(len(plan.applied_indexes))})")
            if plan.reverted_by is not None:
                status += f", reverted by plan {plan.reverted_by}"
        self.heading.setText(f"Plan {plan.id} · {plan.kind} · {status} · {_items(len(plan.items))} "
                             f"({_counts_text(plan.counts())}) · by {plan.actor}, {format_time(plan.created_at)}"
                             f"{decided}" + (f"\n{plan.note}" if plan.note else "")
                             + "".join(f"\ndamaged: {problem}" for problem in plan.damaged))

    def _update_buttons(self) -> None:
        draft = self.plan is not None and self.plan.status == "draft" and not self.session.read_only
        chosen = Counter(self.plan.item(i).outcome for i in self.items.checked) if self.plan else Counter()
        self.chosen_label.setText(f"{sum(chosen.values())} selected: {_counts_text(dict(chosen))}" if draft else "")
        self.apply_button.setEnabled(draft and bool(chosen))
        self.discard_button.setEnabled(draft)
        self.select_button.setEnabled(draft)
        revertible = self.plan is not None and self.plan.applied and self.plan.reverted_by is None
        self.revert_button.setEnabled(revertible and not self.session.read_only)
        self.revert_button.setToolTip(
            f"Already reverted by plan {self.plan.reverted_by}" if self.plan is not None and
            self.plan.reverted_by is not None else "Draft a plan that undoes this one by new records, to review")

    def _fill_select_menu(self) -> None:
        self.select_menu.clear()
        if self.plan is None:
            return
        everything = {it.index for it in self.plan.items}
        self.select_menu.addAction("All").triggered.connect(lambda: self.items.set_checked(everything))
        self.select_menu.addAction("None").triggered.connect(lambda: self.items.set_checked(set()))
        self.select_menu.addSeparator()
        for outcome in self.items.outcomes():
            only = {it.index for it in self.plan.items if it.outcome == outcome}
            self.select_menu.addAction(f"Only {outcome}").triggered.connect(
                lambda _c=False, keep=only: self.items.set_checked(keep))

    def _item_chosen(self, row: int) -> None:
        item = self.items.item(row)
        if item is None:
            self.why.setText("")
            return
        # who decided and how close, here too: at most widths their columns are the first to go
        similarity = "" if item.similarity is None else f", similarity {item.similarity:.2f}"
        self.why.setText(f"Item {item.index + 1} · {item.outcome} · decided by {item.decided_by}{similarity} · why: "
                         + self.items.data(self.items.index(row, REASON_COLUMN)))
        text = (item.incoming or {}).get("text")
        target = item.target_id

        def show(facts: dict) -> None:
            old = facts.get(target).text if target in facts else ""
            self.matched.setPlainText(old or "(no matched fact)")
            if text:
                self.incoming.setHtml(word_diff_html(old, text) if old else html.escape(text))
            else:
                self.incoming.setPlainText(item_text(item))

        self.session.call(lambda m: m.facts([target] if target is not None else []), show, lane="plan-item")

    def _item_activated(self, index: Any) -> None:
        item = self.items.item(index.row())
        fact_id = item.fact_id if item and item.fact_id is not None else (item.target_id if item else None)
        if fact_id is not None:
            self.fact_selected.emit(fact_id)

    # -- approval ---------------------------------------------------------------------------
    def confirm_apply(self) -> None:
        if self.plan is None or not self.items.checked:
            return
        chosen = Counter(self.plan.item(i).outcome for i in self.items.checked)
        box = QMessageBox(QMessageBox.Icon.Question, "Apply plan",
                          f"Apply {sum(chosen.values())} of {len(self.plan.items)} items of plan {self.plan.id} "
                          f"({_counts_text(dict(chosen))})? They are written in one transaction and journaled; "
                          f"nothing is deleted.", QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
                          self)
        box.setObjectName("confirmApply")
        box.accepted.connect(self.apply_checked)
        self.prompt = box
        box.open()

    def apply_checked(self) -> None:
        plan_id, only = self.plan.id, sorted(self.items.checked)
        self.apply_button.setEnabled(False)
        self.message.say("Applying…")
        def done(plan: Plan) -> None:
            self._say(f"Plan {plan_id}: {len(only)} item{'s' * (len(only) != 1)} applied.", "success")
            self.refresh(plan_id)

        self.session.write(lambda m: m.apply_plan(plan_id, only=only), done, label="Applying plan",
                           on_error=self._failed)

    def discard(self) -> None:
        if self.plan is None:
            return
        plan_id = self.plan.id
        self.session.write(lambda m: m.discard_plan(plan_id), lambda _p: self.refresh(plan_id),
                           label="Discarding plan", on_error=self._failed)

    def _failed(self, message: str) -> None:
        """A refused apply changes nothing: the plan reloads with the person's selection as it was."""
        if self.plan is not None:
            self._keep_checked = (self.plan.id, set(self.items.checked))
        self._say(f"⚠ {message}", "error")
        self.refresh()

    def _say(self, text: str, kind: str = "info") -> None:
        self._note = (text, kind)
        self.message.say(text, kind)

    def revert(self, plan_id: int) -> None:
        """Draft the plan that undoes ``plan_id`` and open it for review; nothing is written yet."""
        self.message.say(f"Drafting the revert of plan {plan_id}…")
        propose(self.session, self, f"Revert plan {plan_id}", lambda m: m.revert_plan(plan_id, dry_run=True),
                self._review_opened, on_error=lambda msg: self.message.say(f"⚠ revert plan {plan_id}: {msg}", "error"))

    def _review_opened(self, review: PlanReview) -> None:
        self.message.say("")
        review.finished.connect(lambda _result: self.refresh())  # applied or discarded, the list shows it
        self.review_opened.emit(review)

    # -- dry runs ------------------------------------------------------------------------------
    def start_pass(self, key: str) -> None:
        if key == "absorb":
            dialog = AbsorbDialog(self)
            dialog.accepted.connect(lambda: self._absorb(dialog))
            self.prompt = dialog
            dialog.open()
        elif key == "distill":
            self.session.call(lambda m: m.run_sessions(), self._ask_session, lane="sessions",
                              label="Listing sessions")
        elif key == "abstract":
            self._run("Abstract", lambda m: m.abstract(dry_run=True).plan)
        else:
            self._run(key.upper() if key == "gc" else key.capitalize(), lambda m: getattr(m, key)(dry_run=True))

    def _ask_session(self, sessions: list[tuple[str, float, bool]]) -> None:
        """Distill offers the sessions it can take, finished ones first; a session id can still be typed."""
        labels = [EVERY_FINISHED] + [f"{sid}  ·  last active {format_time(last)[:16]}"
                                     + ("" if finished else "  ·  still running")
                                     for sid, last, finished in sorted(sessions, key=lambda s: (not s[2], -s[1]))]
        ask = QInputDialog(self, windowTitle="Distill", labelText="Run facts of which session become agent knowledge?")
        ask.setComboBoxItems(labels)
        ask.setComboBoxEditable(True)
        ask.textValueSelected.connect(lambda text: self._run("Distill", lambda m: m.distill(
            session_id=None if text == EVERY_FINISHED else text.split("  ·  ")[0].strip() or None, dry_run=True)))
        self.prompt = ask
        ask.open()

    def _absorb(self, dialog: AbsorbDialog) -> None:
        path, lines, defaults = dialog.file, dialog.lines(), dialog.defaults()
        if path is not None:
            self._run("Absorb", lambda m, p: m.import_file(path, dry_run=True, defaults=defaults,
                                                          progress=p.report).plan,
                      with_progress=True)
        else:
            self._run("Absorb", lambda m, p: m.absorb(lines, dry_run=True, defaults=defaults, progress=p.report),
                      with_progress=True)

    def _run(self, title: str, work: Callable[..., Plan | None], with_progress: bool = False) -> None:
        self.message.say(f"{title}: planning…")

        def done(plan: Plan | None) -> None:
            if plan is None or plan.id is None:
                note = plan.note if plan is not None and plan.note else "nothing to do"
                self.message.say(f"{title}: {note}.")
                return
            self.status_filter.blockSignals(True)
            self.status_filter.setCurrentText("all")
            self.status_filter.blockSignals(False)
            self._say(f"{title}: plan {plan.id} drafted; review it and apply what you approve.", "success")
            self.refresh(plan.id)

        # A dry run writes only its draft plan, so no other pane needs to refresh.
        self.session.call(work, done, label=f"{title} (dry run)", with_progress=with_progress,
                          on_error=lambda msg: self.message.say(f"⚠ {title}: {msg}", "error"))

