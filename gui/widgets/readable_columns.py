"""Keeps a table's main text column readable at any window size.

The text column stretches over whatever the other columns leave; those are
sized to their contents (capped, so one long reason cannot take the row). When
the table is too narrow for the text to get its share, the least important
columns are hidden, in the order given, and come back as the table widens: the
fact text is what a person reads, the numbers are also in the explanation line
and the inspector. Text is elided in the middle (the start and the end of a
fact are both telling); the model's tooltip carries all of it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QStyleOptionViewItem, QTableView

MIN_TEXT_SHARE = 0.4  # of the viewport's width
MIN_TEXT_PX = 200
MAX_OTHER_PX = 240
MAX_SECOND_PX = 480  # a second text column (a plan's reasons) up to this wide, as the window allows
MIN_SECOND_PX = 160


class ReadableColumns(QObject):
    """Installed on a table; refits on every resize of its viewport and after the model's rows change."""

    def __init__(self, table: QTableView, text_column: int, drop_order: list[int],
                 fixed: dict[int, int] | None = None, second_text: int | None = None) -> None:
        """``second_text``: another column a person reads (a plan's reasons). It is never hidden: it gets
        its contents' width up to ``MAX_SECOND_PX`` before less important columns, and gives way (down
        to ``MIN_SECOND_PX``) only to the text's share."""
        super().__init__(table)
        self.table, self.text_column, self.drop_order = table, text_column, list(drop_order)
        self.second_text = second_text
        self.fixed = dict(fixed or {})  # columns with a known width (a checkbox), never measured
        self.hidden_for_width: list[int] = []
        self.widths: dict[int, int] = {}  # a hidden section reports width 0, so remember what it needs
        self._cell_widths: dict[tuple[int, str], int] = {}
        table.setWordWrap(False)
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(text_column, QHeaderView.ResizeMode.Stretch)
        # Rows arrive in bursts (a page, a reset); measure once after each burst, not once per row.
        self._measure = QTimer(self, singleShot=True, interval=0)
        self._measure.timeout.connect(self.refit)
        model = table.model()
        for signal in (model.modelReset, model.layoutChanged, model.rowsInserted):
            signal.connect(self._measure.start)
        # Rows that come into view (a scroll, a taller window) may hold longer values than those measured.
        self._grow = QTimer(self, singleShot=True, interval=60)
        self._grow.timeout.connect(self.grow)
        table.verticalScrollBar().valueChanged.connect(lambda _v: self._grow.start())
        table.viewport().installEventFilter(self)
        self.refit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
            self._grow.start()
        return False

    def refit(self) -> None:
        """Measure the other columns from their contents (loaded rows only), then fit."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        for column in range(self.table.model().columnCount()):
            if column == self.text_column:
                continue
            if column in self.fixed:
                self.widths[column] = self.fixed[column]
            else:
                title = str(self.table.model().headerData(column, Qt.Orientation.Horizontal) or "")
                wanted = max(metrics.horizontalAdvance(title) + 20, self.table.sizeHintForColumn(column))
                self.widths[column] = min(wanted, MAX_SECOND_PX if column == self.second_text else MAX_OTHER_PX)
            self.table.setColumnWidth(column, self.widths[column])
        self.fit()

    def grow(self) -> None:
        """Rows arrived (a listing's page) or came into view: widen a column whose shown cells need more
        room, never narrow one. A listing measured on its first page kept "explicit" widths for
        "user_preference" rows. Only the rows in view are measured, each text once per column: Qt's
        ``sizeHintForColumn`` asked for every cell again on each scroll step, up to 200 ms of a
        person's scrolling in a 100k listing."""
        model, header = self.table.model(), self.table.horizontalHeader()
        first = self.table.rowAt(0)
        if first < 0:
            return
        last = self.table.rowAt(self.table.viewport().height() - 1)
        rows = range(first, (last if last >= 0 else model.rowCount() - 1) + 1)
        option = QStyleOptionViewItem()
        self.table.initViewItemOption(option)
        grid = 1 if self.table.showGrid() else 0
        grew = False
        for column, width in list(self.widths.items()):
            if column in self.fixed or self.table.isColumnHidden(column):
                continue
            title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            cells = max((self._cell_width(option, row, column) for row in rows), default=0) + grid
            wanted = max(header.fontMetrics().horizontalAdvance(title) + 20, cells)
            wanted = min(wanted, MAX_SECOND_PX if column == self.second_text else MAX_OTHER_PX)
            if wanted > self.table.columnWidth(column):
                self.widths[column] = wanted
                self.table.setColumnWidth(column, wanted)
                grew = True
        if grew:
            self.fit()

    def _cell_width(self, option: QStyleOptionViewItem, row: int, column: int) -> int:
        """What the delegate asks for a cell, remembered per column and text: most cells in view
        repeat a text (a kind, a scope, an age) already measured."""
        index = self.table.model().index(row, column)
        key = (column, str(index.data() or ""))
        width = self._cell_widths.get(key)
        if width is None:
            if len(self._cell_widths) > 20_000:
                self._cell_widths.clear()
            width = self._cell_widths[key] = self.table.itemDelegate().sizeHint(option, index).width()
        return width

    def fit(self) -> None:
        """Show every column that leaves the text its share; hide the rest, least important first."""
        available = self.table.viewport().width()
        wanted_text = max(MIN_TEXT_PX, int(available * MIN_TEXT_SHARE))
        others = [c for c in range(self.table.model().columnCount()) if c != self.text_column]
        for column in others:  # a column the person dragged wider or narrower keeps that width
            if not self.table.isColumnHidden(column) and column != self.second_text:
                self.widths[column] = self.table.columnWidth(column)
        shown = set(others)
        used = sum(self.widths.get(c, 0) for c in others)
        for column in self.drop_order:
            if available - used >= wanted_text:
                break
            shown.discard(column)
            used -= self.widths.get(column, 0)
        for column in others:
            self.table.setColumnHidden(column, column not in shown)
        self.hidden_for_width = [c for c in self.drop_order if c not in shown]
        if self.second_text is not None:  # what is left after the text's share, within its bounds
            full = self.widths.get(self.second_text, MIN_SECOND_PX)
            room = available - (used - full) - wanted_text
            self.table.setColumnWidth(self.second_text, max(MIN_SECOND_PX, min(full, room)))
