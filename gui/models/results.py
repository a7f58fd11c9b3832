"""The search results table: a model over hits, or over every id of a query-less listing.

With a query the model holds the ranked hits (at most a few hundred). Without
one it holds all matching ids (100k is a few hundred KB) and asks for rows a
page at a time through ``fetchMore`` as the view scrolls; pages arrive from the
op runner, so ``data()`` only ever reads the row cache.

Signals: ``page_requested(list)`` (ids whose rows the model wants).
"""

from __future__ import annotations

import html
import math
import time
from typing import Any, Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from engine import Hit

PAGE = 400
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
     "Score of the best neighbour absorbed in the same batch (a conversation's next turn)"),
    ("conf", lambda h: _number(h.effective_confidence, 2), lambda h: h.effective_confidence,
     "Effective confidence: confidence decayed since last reinforcement"),
    ("scope", lambda h: h.fact.scope, lambda h: h.fact.scope, "agent, user or run"),
    ("kind", lambda h: h.fact.kind, lambda h: h.fact.kind, "explicit, user_preference, episodic or derived"),
    ("status", lambda h: h.fact.status, lambda h: h.fact.status, "active, superseded, archived or expired"),
    ("age", _age, lambda h: -h.fact.created_at, "Time since the fact was written"),
]
TEXT_COLUMN = 1
# Columns a narrow window hides first (their numbers are in the explanation line and the inspector).
DROP_ORDER = [6, 5, 4, 3, 9, 11, 8, 7, 10]


def explain(hit: Hit, rank: int, cosine_weight: float, bm25_weight: float, context_weight: float = 0.0) -> str:
    """One line saying why a hit ranked where it did."""
    if math.isnan(hit.score):
        return (f"#{rank} · fact {hit.fact.id} · no query: listed newest first · "
                f"freshness {hit.freshness:.2f} · effective confidence {hit.effective_confidence:.2f}")
    blend = cosine_weight * hit.cosine + bm25_weight * hit.bm25
    context = (f" + {context_weight:g}×context {hit.context:.3f}" if context_weight and hit.context else "")
    return (f"#{rank} · fact {hit.fact.id} · ({cosine_weight:g}×cosine {hit.cosine:.3f} + {bm25_weight:g}×BM25 "
            f"{hit.bm25:.3f} = {blend:.3f}) × freshness {hit.freshness:.2f}{context} = score {hit.score:.3f}")


class ResultsModel(QAbstractTableModel):
    page_requested = Signal(list)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Hit] = []
        self._pending_ids: list[int] = []
        self._waiting = False
        self.total = 0
        self.page_size = PAGE

    # -- filling --------------------------------------------------------------
    def set_hits(self, hits: list[Hit]) -> None:
        self.beginResetModel()
        self._rows, self._pending_ids, self._waiting = list(hits), [], False
        self.total = len(hits)
        self.endResetModel()

    def set_ids(self, ids: list[int]) -> None:
        """Query-less listing: rows arrive page by page through ``page_requested``/``add_page``."""
        self.beginResetModel()
        self._rows, self._pending_ids, self._waiting = [], list(ids), False
        self.total = len(ids)
        self.endResetModel()
        if self._pending_ids:
            self.fetchMore(QModelIndex())

    def add_page(self, hits: list[Hit]) -> None:
        self._waiting = False
        if not hits:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(hits) - 1)
        self._rows.extend(hits)
        self.endInsertRows()

    def hit(self, row: int) -> Hit | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, fact_id: int) -> int | None:
        return next((i for i, h in enumerate(self._rows) if h.fact.id == fact_id), None)

    # -- Qt model interface ---------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:
        return not parent.isValid() and not self._waiting and len(self._rows) < len(self._pending_ids)

    def fetchMore(self, parent: Index = QModelIndex()) -> None:
        if not self.canFetchMore(parent):
            return
        self._waiting = True
        start = len(self._rows)
        self.page_requested.emit(self._pending_ids[start:start + self.page_size])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        hit = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            text = COLUMNS[column][1](hit)
            return " ".join(text.split()) if column == TEXT_COLUMN else text
        if role == Qt.ItemDataRole.ToolTipRole and column == TEXT_COLUMN:
            return f"<p style='white-space:pre-wrap'>{html.escape(hit.fact.text)}</p>"
        if role == Qt.ItemDataRole.TextAlignmentRole and column not in (TEXT_COLUMN, 8, 9, 10):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return hit.fact.id
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][3]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorts the rows loaded so far (a listing loads more as you scroll)."""
        key = COLUMNS[column][2]
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        held = [(self._rows[i.row()].fact.id, i.column()) for i in before]
        self._rows.sort(key=lambda h: _nan_last(key(h)), reverse=order == Qt.SortOrder.DescendingOrder)
        rows = {h.fact.id: r for r, h in enumerate(self._rows)}
        self.changePersistentIndexList(before, [self.index(rows[fid], col) for fid, col in held])
        self.layoutChanged.emit()


def _nan_last(value: Any) -> Any:
    return -math.inf if isinstance(value, float) and math.isnan(value) else value

