"""Search pane: search as you type, filters, and a ranked table that explains each rank.

An empty query lists every fact that passes the filters, newest first; a header
click re-sorts the whole listing in the engine (a search sorts its hits). Typing
is debounced; the newest search wins and older answers are dropped. After a
write the results are asked again only when the write changed facts, and the
selected fact and the scroll position survive it.

Signals: ``fact_selected(int)``, ``searched(int)`` (number of rows shown, after
each finished search or listing).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelection, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QTableView, QVBoxLayout, QWidget

from engine import ChangeRecord, Hit, InvalidInput, Timing

from gui.models import listing
from gui.models.results import DROP_ORDER, LISTING_ORDER, TEXT_COLUMN, ResultsModel, explain
from gui.ops import INTERACTIVE
from gui.session import Session
from gui.panes.filters import FilterBar
from gui.widgets.person_scrolling import PersonScrolling
from gui.widgets.readable_columns import ReadableColumns

DEBOUNCE_MS = 250
TOP_K = 200
TEXT_ONLY_NOTE = "  ·  matched by words only: the meaning index is still loading, these results will update"


class SearchPane(QWidget):
    fact_selected = Signal(int)
    searched = Signal(int)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.query = QLineEdit(placeholderText="Search facts (Ctrl+K) — empty lists everything, newest first",
                               clearButtonEnabled=True)
        self.query.setObjectName("searchBox")
        self.filters = FilterBar()
        self._keep: tuple[int | None, int] | None = None  # (selected fact, scroll) to restore after a refresh
        self._quiet = False
        self._order: tuple[str, bool] = ("id", True)  # a listing's order: Memory.browse's order_by, descending
        self._unshown: int | None = None  # a selected listing row whose page has not arrived yet
        self._select_first = False  # the next results open their first row (the graph asked for them)
        self.model = ResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        # Measure columns on the visible rows only: measuring asks a listing for the pages of the rows it reads.
        self.table.horizontalHeader().setResizeContentsPrecision(0)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)  # Tab leaves the results for the inspector's actions
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.columns = ReadableColumns(self.table, TEXT_COLUMN, DROP_ORDER)
        self.status = QLabel(" ")
        self.status.setObjectName("searchStatus")
        self.status.setWordWrap(True)  # as the explanation: a long timing line widened the window (walk at 1024)
        self.explanation = QLabel(" ")
        self.explanation.setObjectName("explanation")
        self.explanation.setWordWrap(True)  # unwrapped, its ~800 px line set the pane's minimum width
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(self.query)
        layout.addWidget(self.filters)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.explanation)

        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.run_search)
        self.query.textChanged.connect(self._debounce.start)
        self.query.textEdited.connect(lambda _text: session.note_interaction())
        self.query.returnPressed.connect(self.run_search)
        self.query.installEventFilter(self)
        self.table.installEventFilter(self)
        self.filters.changed.connect(self._debounce.start)
        self.model.page_requested.connect(self._load_page)
        self.table.verticalScrollBar().valueChanged.connect(self._scrolled)
        # Only a person's scrolling pauses background work, not the view's own (rows loading, a restored place).
        self.person_scrolling = PersonScrolling(self.table, session.note_interaction)
        self.model.order_requested.connect(self._reorder)
        self.model.dataChanged.connect(self._page_arrived)
        self.table.horizontalHeader().sortIndicatorChanged.connect(self._sort_clicked)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        session.opened.connect(self._file_opened)
        session.store_changed.connect(self._store_changed)
        session.closed.connect(lambda: self.model.set_hits([]))
        session.vectors_ready.connect(self._vectors_ready)
        self.text_only = False  # the results shown came from the text alone (the vectors were loading)

    def _file_opened(self, _stats: dict) -> None:
        """Another file: its listing starts newest first, whatever order the last file was sorted in."""
        self._order = ("id", True)
        self._unshown = None
        self.filters.set_entity(None, quiet=True)  # an entity of the last file
        self.table.horizontalHeader().blockSignals(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.horizontalHeader().blockSignals(False)
        self.model.set_hits([])
        self.run_search()

    def _store_changed(self, record: ChangeRecord | None) -> None:
        if record is not None and not record.facts:
            return  # a link, a profile edit, a plan decision: no row of this table changed
        # Kept by fact id, read from the row itself: a row whose page is still on its way has no hit yet,
        # and a refresh already on its way keeps the fact it was asked to keep.
        fact_id = self._keep[0] if self._keep is not None else self._selected_id()
        self._keep = (fact_id, self.table.verticalScrollBar().value())
        self.run_search()

    def _selected_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.data(rows[0], Qt.ItemDataRole.UserRole) if rows else None

    def selected_hit(self) -> Hit | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.hit(rows[0].row()) if rows else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down (or Page Down) from the search box enters the results; Up from their first row goes back."""
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        if watched is self.query and key in (Qt.Key.Key_Down, Qt.Key.Key_PageDown) and self.model.rowCount():
            self.table.setFocus(Qt.FocusReason.TabFocusReason)
            if not self.table.selectionModel().selectedRows():
                self.table.selectRow(0)
            return True
        if watched is self.table and key == Qt.Key.Key_Up and self.table.currentIndex().row() <= 0:
            self.focus_query()
            return True
        return False

    def show_entity_facts(self, key: str, name: str) -> None:
        """The facts mentioning an entity (the graph's "Show its facts"), the first one selected."""
        self.query.blockSignals(True)
        self.query.clear()
        self.query.blockSignals(False)
        self.filters.set_entity((key, name), quiet=True)
        self._select_first = True
        self.run_search()

    def focus_query(self) -> None:
        self.query.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.query.selectAll()

    def run_search(self) -> None:
        self._debounce.stop()
        try:
            filters = self.filters.filters()
        except InvalidInput as err:
            self._show_error(str(err))
            return
        query = self.query.text().strip()
        self.status.setText("Searching…" if query else "Listing…")
        if query:
            # A person searching is not an agent using the facts: gc's access counters stay as they are.
            # Text first: while the model and the vectors load (seconds on a large file) the words answer.
            self.session.call(lambda m: m.search_timed(query, top_k=TOP_K, filters=filters, count_access=False,
                                                       text_first=True),
                              lambda found: self._show_hits(*found), lane="search", label="Searching",
                              priority=INTERACTIVE, on_error=self._show_error)
        else:
            order_by, descending = self._order
            size = self.model.page_size
            # After a write the scroll position comes back: its rows come with the ids, as the top ones do.
            row = max(self.table.rowAt(0), 0) if self._keep is not None and self.model.listing else 0
            self.session.call(lambda m: listing.fetch(m, filters, order_by, descending, size, row),
                              self._show_listing, lane="search", label="Listing", priority=INTERACTIVE,
                              on_error=self._show_error)

    def _show_hits(self, hits: list[Hit], timing: Timing | None = None) -> None:
        self.model.set_hits(hits)
        self.text_only = timing is not None and timing.text_only
        self.status.setText((f"{len(hits)} result{'s' * (len(hits) != 1)}" +
                             (f" (top {TOP_K})" if len(hits) == TOP_K else "") if hits else
                             "No facts match. Try fewer words, or include more statuses.") +
                            (TEXT_ONLY_NOTE if self.text_only else
                             _timing_text(timing, sum(h.cross_encoder is not None for h in hits))))
        self._after_results()

    def _vectors_ready(self) -> None:
        """Results found by the words alone are asked again, now by meaning too."""
        if self.text_only and self.query.text().strip():
            self._keep = (self._selected_id(), self.table.verticalScrollBar().value())
            self.run_search()

    def _show_listing(self, found: listing.Listing) -> None:
        count = len(found.ids)
        self.model.set_ids(found.ids, found.page, found.hits)
        self.status.setText(f"{count:,} fact{'s' * (count != 1)}, {_order_text(*self._order)}" if count else
                            "No facts pass these filters." if self.session.stats.get("facts") else
                            "This memory is empty: import a JSONL file or absorb some facts.")
        self.columns.refit()  # the page that came with the ids is what the columns are measured on
        self._after_results()

    def _load_page(self, ids: list[int]) -> None:
        def done(hits: list[Hit]) -> None:
            if self.model.add_page(hits, ids):
                self.columns.refit()  # measured on placeholders until now
            else:
                self.columns.grow()  # rows further on may hold longer values (a kind, an age in years)
        # No lane: every page on screen is wanted; the model cancels those the view has left (_scrolled)
        # and drops a page of an older listing.
        progress = self.session.call(lambda m: m.describe(ids), done, label="Loading rows", priority=INTERACTIVE)
        if progress is not None:
            self.model.track(ids, progress.cancel)

    def _scrolled(self, _value: int) -> None:
        """Pages asked for on the way to where the view is now are no longer wanted."""
        if not self.model.listing:
            return
        top, bottom = self.table.rowAt(0), self.table.rowAt(self.table.viewport().height() - 1)
        if top >= 0:
            self.model.keep_pages(top, bottom if bottom >= 0 else self.model.rowCount() - 1)

    def _reorder(self, order_by: str, descending: bool) -> None:
        """A header click on a listing: every matching id again, in the engine's new order; the selected
        fact stays selected (and in view) if it is still listed."""
        hit = self.selected_hit()
        rows = self.table.selectionModel().selectedRows()
        fact_id = hit.fact.id if hit else (self.model.data(rows[0], Qt.ItemDataRole.UserRole) if rows else None)
        self._order = (order_by, descending)
        try:
            filters = self.filters.filters()
        except InvalidInput as err:
            self._show_error(str(err))
            return

        size = self.model.page_size

        def done(found: listing.Listing) -> None:
            if self.query.text().strip():
                return  # a search started meanwhile; its hits win
            self._show_listing(found)
            row = found.row
            if row is not None:
                self._quiet = True  # the inspector already shows it
                self.table.selectRow(row)
                self._quiet = False
                self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)

        self.status.setText("Sorting…")
        # The page holding the selected fact comes with the ids: the view is scrolled there at once.
        self.session.call(lambda m: listing.fetch(m, filters, order_by, descending, size, fact_id=fact_id), done,
                          lane="search", label="Sorting", priority=INTERACTIVE, on_error=self._show_error)

    def _sort_clicked(self, column: int, _order: Qt.SortOrder) -> None:
        if self.model.listing and column >= 0 and column not in LISTING_ORDER:
            name = self.model.headerData(column, Qt.Orientation.Horizontal)
            self.status.setText(f"{self.model.total:,} facts, {_order_text(*self._order)} — “{name}” needs a "
                                "query, so the listing keeps its order")

    def _page_arrived(self, top: QModelIndex, bottom: QModelIndex) -> None:
        """A selected row whose page was still on its way is explained (and announced) once it arrives."""
        if self._unshown is not None and top.row() <= self._unshown <= bottom.row():
            rows = self.table.selectionModel().selectedRows()
            self._unshown = None
            if rows:
                self._show_selected(rows[0].row())

    def _after_results(self) -> None:
        if self._keep is not None:
            self._restore_place()
        if self._select_first and self.model.rowCount():
            self.table.selectRow(0)
            self.table.scrollToTop()
        self._select_first = False
        if self.model.rowCount() and not self.table.selectionModel().hasSelection():
            self.explanation.setText("Select a row to see why it ranked there.")
        self.searched.emit(self.model.rowCount())

    def _restore_place(self) -> None:
        """After a refresh caused by a write: the same fact selected (quietly: it is already shown), same scroll."""
        fact_id, scroll = self._keep
        self._keep = None
        row = self.model.row_of(fact_id) if fact_id is not None else None
        if row is not None:
            self._quiet = True
            self.table.selectRow(row)
            self._quiet = False
        elif fact_id is not None:  # the inspector still shows it: say why no row is highlighted
            self.status.setText(f"{self.status.text()} — fact {fact_id} (in the inspector) is no longer listed")
        self.table.verticalScrollBar().setValue(scroll)

    def _show_error(self, message: str) -> None:
        self.model.set_hits([])
        self.status.setText(f"⚠ {message}")
        self.searched.emit(0)

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = selected.indexes()
        if not rows:
            return
        self._show_selected(rows[0].row())

    def _show_selected(self, row: int) -> None:
        hit = self.model.hit(row)
        self._unshown = row if hit is None else None
        if hit is None:
            return
        settings = self.session.settings.memory
        self.explanation.setText(explain(hit, row + 1, settings.cosine_weight, settings.bm25_weight,
                                         settings.context_weight))
        if not self._quiet:
            self.fact_selected.emit(hit.fact.id)

    def select_fact(self, fact_id: int) -> bool:
        row = self.model.row_of(fact_id)
        if row is None:
            return False
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))
        return True


def _order_text(order_by: str, descending: bool) -> str:
    if order_by == "id":
        return "newest first" if descending else "oldest first"
    names = {"created_at": "time written", "confidence": "stored confidence",
             "effective_confidence": "effective confidence"}
    return f"by {names.get(order_by, order_by)}, {'descending' if descending else 'ascending'}"


def _timing_text(timing: Timing | None, reread: int = 0) -> str:
    """Where a search's time went, as the engine measured it (the query's embedding, the search, and the
    cross-encoder's pass, which re-orders the first ``reread`` hits: their scores need not descend)."""
    if timing is None:
        return ""
    second_pass = "" if timing.rerank_ms is None else \
        f", re-ordering the best {reread or 'hits'} by re-reading them {timing.rerank_ms:.0f}"
    return (f"  ·  {timing.total_ms:.0f} ms: embedding the query {timing.embed_ms:.1f}, "
            f"search {timing.search_ms:.1f}{second_pass}")
