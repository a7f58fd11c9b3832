"""The search results table: a model over hits, or over every id of a query-less listing.

With a query the model holds the ranked hits (at most a few hundred) and sorts
them itself. Without one it holds all matching ids as an array (1M is 8 MB, and
the garbage collector never walks it), each a row, so Ctrl+End and the scrollbar
reach the whole listing; a row shows a placeholder until its page arrives from
the op runner (asked once per page, coalesced per paint), so ``data()`` only ever
reads the row cache. A page still queued when the view has moved away from it is
cancelled (``keep_pages``): a fast scrollbar drag fetches only where it stops.
Sorting a listing asks the engine for the ids in the new order.

Signals: ``page_requested(list)`` (ids whose rows the model wants),
``order_requested(str, bool)`` (a listing's new order: ``Memory.browse``'s
``order_by`` and ``descending``).
"""

from __future__ import annotations

import html
import math
import time
from typing import Any, Callable, Sequence

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from engine import Hit

PAGE = 100  # rows per page: about three screens, a few ms of the worker's time
DAY = 86400.0
Index = QModelIndex | QPersistentModelIndex


def _number(value: float, digits: int = 3) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


def _age(hit: Hit) -> str:
    days = max(0.0, (time.time() - hit.fact.created_at) / DAY)
    if days < 1:
        return f"{days * 24:.0f} h"
    return f"{days:.0f} d" if days < 365 else f"{days / 365:.1f} y"


# (header, display, sort key, tooltip of the header)
COLUMNS: list[tuple[str, Callable[[Hit], str], Callable[[Hit], Any], str]] = [
    ("id", lambda h: str(h.fact.id), lambda h: h.fact.id, "The fact's id (never reused)"),
    ("text", lambda h: h.fact.text, lambda h: h.fact.text.casefold(), "The fact; hover for all of it"),
    ("score", lambda h: _number(h.score), lambda h: h.score,
     "Final rank: (w·cosine + w·BM25) × freshness + w·context"),
    ("cosine", lambda h: _number(h.cosine), lambda h: h.cosine, "Embedding similarity to the query"),
    ("BM25", lambda h: _number(h.bm25), lambda h: h.bm25, "Text match, 1.0 = the best match of this query"),
    ("fresh", lambda h: _number(h.freshness, 2), lambda h: h.freshness, "Freshness factor (age since reinforced)"),
    ("context", lambda h: _number(h.context) if not math.isnan(h.score) else "—", lambda h: h.context,
     "What the best neighbour absorbed in the same batch lends (a conversation's next turn; "
     "a long neighbour lends a share of its score)"),
    ("conf", lambda h: _number(h.effective_confidence, 2), lambda h: h.effective_confidence,
     "Effective confidence: confidence decayed since last reinforcement"),
    ("scope", lambda h: h.fact.scope, lambda h: h.fact.scope, "agent, user or run"),
    ("kind", lambda h: h.fact.kind, lambda h: h.fact.kind, "explicit, user_preference, episodic or derived"),
    ("status", lambda h: h.fact.status, lambda h: h.fact.status, "active, superseded, archived or expired"),
    ("age", _age, lambda h: -h.fact.created_at, "Time since the fact was written"),
]
TEXT_COLUMN = 1
CONF_COLUMN = 7
AGE_COLUMN = 11
# A listing (no query) is sorted by the engine over every matching id: the field of each column it can sort.
LISTING_ORDER = {0: "id", 1: "text", 7: "effective_confidence", 8: "scope", 9: "kind", 10: "status",
                 11: "created_at"}
NOT_LOADED = "…"  # a listing row whose page has not arrived yet
GONE = "—"  # a listing row whose fact was no longer there when its page was read
LEFT_ALIGNED = frozenset((TEXT_COLUMN, 8, 9, 10))
# data() runs for every role of every visible cell on each repaint (thousands of calls per scroll step):
# roles as plain ints, so a role the model does not answer costs one set lookup.
DISPLAY, TOOLTIP, ALIGNMENT, USER = (int(r) for r in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                                      Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.UserRole))
ANSWERED = frozenset((DISPLAY, TOOLTIP, ALIGNMENT, USER))
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
# Columns a narrow window hides first (their numbers are in the explanation line and the inspector).
DROP_ORDER = [6, 5, 4, 3, 9, 11, 8, 7, 10]


def explain(hit: Hit, rank: int, cosine_weight: float, bm25_weight: float, context_weight: float = 0.0) -> str:
    """One line saying why a hit ranked where it did."""
    if math.isnan(hit.score):
        return (f"#{rank} · fact {hit.fact.id} · no query: listed, not ranked · "
                f"freshness {hit.freshness:.2f} · effective confidence {hit.effective_confidence:.2f}")
    blend = cosine_weight * hit.cosine + bm25_weight * hit.bm25
    context = (f" + {context_weight:g}×context {hit.context:.3f}" if context_weight and hit.context else "")
    voice = f" × voice {hit.voice:.2f}" if hit.voice != 1.0 else ""  # who speaks, for a question about the asker
    # Carrying the kind of answer asked for (a time for "when", a number for "how many").
    voice += f" × answer kind {hit.answer_kind:.2f}" if hit.answer_kind != 1.0 else ""
    # The cross-encoder's second pass read this hit with the question and moved it by its logit.
    reread = f" · re-read with the question: {hit.cross_encoder:+.2f}" if hit.cross_encoder is not None else ""
    return (f"#{rank} · fact {hit.fact.id} · ({cosine_weight:g}×cosine {hit.cosine:.3f} + {bm25_weight:g}×BM25 "
            f"{hit.bm25:.3f} = {blend:.3f}) × freshness {hit.freshness:.2f}{voice}{context} = score {hit.score:.3f}"
            f"{reread}")


class ResultsModel(QAbstractTableModel):
    page_requested = Signal(list)
    order_requested = Signal(str, bool)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Hit] = []       # search mode: the ranked hits
        self._ids: np.ndarray | None = None  # listing mode: every matching id, in the engine's order
        self._cache: dict[int, Hit] = {}     # listing mode: rows of the pages that arrived, by fact id
        self._loaded: set[int] = set()       # pages that arrived
        self._outstanding: dict[tuple[int, ...], int] = {}  # requested page ids -> page number
        self._late: dict[tuple[int, ...], int] = {}  # pages cancelled after they may have started
        self._cancels: dict[int, Callable[[], None]] = {}  # requested page -> how to cancel its request
        self._wanted: set[int] = set()       # pages asked for by data() since the last flush
        self._shown: dict[int, list[str]] = {}  # a row's cell texts by fact id, made at its first paint
        self.pages_dropped = 0  # page requests cancelled because the view moved on
        self._flush = QTimer(self, singleShot=True, interval=0)
        self._flush.timeout.connect(self._request_wanted)
        self.total = 0
        self.page_size = PAGE

    @property
    def listing(self) -> bool:
        return self._ids is not None

    # -- filling --------------------------------------------------------------
    def set_hits(self, hits: list[Hit]) -> None:
        self.beginResetModel()
        self._rows, self._ids = list(hits), None
        self._forget_pages()
        self._shown = {}
        self.total = len(hits)
        self.endResetModel()

    def set_ids(self, ids: Sequence[int] | np.ndarray, page: int | None = None, hits: list[Hit] | None = None) -> None:
        """Query-less listing: every id is a row; a row's page is asked for (``page_requested``) when it is
        first shown, and fills in when ``add_page`` brings it. ``page`` and its ``hits`` came with the
        ids (``gui.models.listing``), so those rows are never asked for."""
        self.beginResetModel()
        self._rows, self._ids = [], np.asarray(ids, dtype=np.int64)
        self._forget_pages()
        self.total = len(self._ids)
        if page is not None and hits is not None:
            self._loaded.add(page)
            self._cache.update((h.fact.id, h) for h in hits)
        self.endResetModel()

    def _forget_pages(self) -> None:
        for cancel in self._cancels.values():  # an older listing's pages would be dropped on arrival
            cancel()
        self._cache, self._loaded, self._outstanding, self._late, self._cancels = {}, set(), {}, {}, {}
        self._wanted, self._shown = set(), {}
        self._flush.stop()

    def track(self, ids: list[int], cancel: Callable[[], None]) -> None:
        """How to cancel the request for the page of ``ids`` (``keep_pages`` calls it)."""
        page = self._outstanding.get(tuple(ids))
        if page is not None:
            self._cancels[page] = cancel

    def keep_pages(self, first_row: int, last_row: int) -> None:
        """The view shows rows ``first_row``..``last_row`` now: cancel the requests of pages outside them.
        Such a page is asked for again if it comes back into view."""
        if self._ids is None:
            return
        low, high = first_row // self.page_size, last_row // self.page_size
        for key, page in list(self._outstanding.items()):
            if low <= page <= high:
                continue
            del self._outstanding[key]
            self._late[key] = page  # if it had started, its rows are still worth keeping
            cancel = self._cancels.pop(page, None)
            if cancel is not None:
                cancel()
            self.pages_dropped += 1
        self._wanted = {p for p in self._wanted if low <= p <= high}

    def add_page(self, hits: list[Hit], ids: list[int] | None = None) -> bool:
        """Rows for the page that asked for ``ids``; a page of an older listing is dropped.
        True when it is the first page of this listing to arrive."""
        key = tuple(ids or [h.fact.id for h in hits])
        page = self._outstanding.pop(key, None)
        page = self._late.pop(key, None) if page is None else page
        if page is None or self._ids is None:
            return False
        self._cancels.pop(page, None)
        first = not self._loaded
        self._loaded.add(page)
        self._cache.update((h.fact.id, h) for h in hits)
        top = page * self.page_size
        bottom = min(top + self.page_size, len(self._ids)) - 1
        self.dataChanged.emit(self.index(top, 0), self.index(bottom, len(COLUMNS) - 1))
        return first

    def _want(self, row: int) -> None:
        page = row // self.page_size
        if page not in self._loaded and page not in self._wanted and page not in self._outstanding.values():
            self._wanted.add(page)
            self._flush.start()  # coalesce: every row painted in this pass asks once per page

    def _request_wanted(self) -> None:
        wanted, self._wanted = sorted(self._wanted), set()
        for page in wanted:
            if self._ids is None or page in self._loaded or page in self._outstanding.values():
                continue
            ids = self._ids[page * self.page_size:(page + 1) * self.page_size].tolist()
            self._outstanding[tuple(ids)] = page
            self.page_requested.emit(ids)

    def hit(self, row: int) -> Hit | None:
        if self._ids is not None:
            return self._cache.get(int(self._ids[row])) if 0 <= row < len(self._ids) else None
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, fact_id: int) -> int | None:
        if self._ids is not None:
            at = np.flatnonzero(self._ids == fact_id)  # ~1 ms for 1M ids, and no index to keep
            return int(at[0]) if len(at) else None
        return next((i for i, h in enumerate(self._rows) if h.fact.id == fact_id), None)

    # -- Qt model interface ---------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return len(self._ids) if self._ids is not None else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if role not in ANSWERED or not index.isValid():
            return None
        row, column = index.row(), index.column()
        hit = self.hit(row)
        if hit is None:  # a listing row whose page has not arrived: ask for it, show a placeholder
            self._want(row)
            if role == DISPLAY:
                return NOT_LOADED if row // self.page_size not in self._loaded else GONE
            return int(self._ids[row]) if role == USER and self._ids is not None else None
        if role == DISPLAY:
            return _age(hit) if column == AGE_COLUMN else self._cells(hit)[column]  # age goes on ageing
        if role == TOOLTIP and column == TEXT_COLUMN:
            return f"<p style='white-space:pre-wrap'>{html.escape(hit.fact.text)}</p>"
        if role == ALIGNMENT and column not in LEFT_ALIGNED:
            return RIGHT
        if role == USER:
            return hit.fact.id
        return None

    def _cells(self, hit: Hit) -> list[str]:
        """The row's texts, formatted once: a row is painted again on every scroll step that shows it."""
        cells = self._shown.get(hit.fact.id)
        if cells is None:
            cells = [" ".join(hit.fact.text.split()) if column == TEXT_COLUMN else show(hit)
                     for column, (_name, show, _key, _tip) in enumerate(COLUMNS)]
            self._shown[hit.fact.id] = cells
        return cells

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][3] + (listing_sort_note(section) if self.listing else "")
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Search mode sorts its hits here; a listing asks the engine for every id in the new order
        (``order_requested``), or keeps its order for a column that needs a query."""
        descending = order == Qt.SortOrder.DescendingOrder
        if self._ids is not None:
            field = LISTING_ORDER.get(column)
            if field is not None:
                # Age ascending is newest first, as in search mode's key.
                self.order_requested.emit(field, not descending if column == AGE_COLUMN else descending)
            return
        if column < 0:
            return
        key = COLUMNS[column][2]
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        held = [(self._rows[i.row()].fact.id, i.column()) for i in before]
        self._rows.sort(key=lambda h: _nan_last(key(h)), reverse=descending)
        rows = {h.fact.id: r for r, h in enumerate(self._rows)}
        self.changePersistentIndexList(before, [self.index(rows[fid], col) for fid, col in held])
        self.layoutChanged.emit()


def listing_sort_note(column: int) -> str:
    """What a header click does without a query."""
    if column not in LISTING_ORDER:
        return " — without a query this column has no value: sorting by it keeps the listing's order"
    return ""


def _nan_last(value: Any) -> Any:
    return -math.inf if isinstance(value, float) and math.isnan(value) else value

