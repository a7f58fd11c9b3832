"""Help: the keyboard shortcuts the window really has, what each pane is for, and About.

The shortcut list is read from the window's ``QAction`` and ``QShortcut``
objects when the dialog opens, never kept by hand, so it cannot drift from
what the keys do.
"""

from __future__ import annotations

import html
from importlib import metadata
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

SHORTCUTS, PANES, ABOUT = 0, 1, 2
PANE_PURPOSES = {
    "search": "Find facts by meaning and by words, filter them, and see why each ranked where it did; the "
              "inspector beside it shows every field, edge and journal entry of the selected fact.",
    "timeline": "A fact's versions on a time axis, what contradicts it, word-level diffs between versions, "
                "and an 'as of' slider that replays the journal.",
    "graph": "The entities the facts name and the relations between them: find, expand, filter by edge "
             "type, and ask path questions (who works at companies in Kazan?).",
    "plans": "Every plan in the file. Start dry runs (absorb, distill, gc, consolidate, abstract), review "
             "their items and apply the ones you approve; nothing is written before that.",
    "contradictions": "Open pairs of facts that contradict each other, side by side; decide which is "
                      "current, or that both hold.",
    "profile": "MEMORY.md and USER.md with their budget, and the exact snapshot an agent receives at the "
               "start of a session.",
    "journal": "The audit trail, newest first: every change, who made it, and the fact or plan it touched.",
}


def app_version() -> str:
    try:
        return metadata.version("memlens")
    except metadata.PackageNotFoundError:
        return "unknown (not installed as a package)"


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def shortcut_rows(window: QWidget, pane_of: Callable[[QObject], str] | None = None) -> list[tuple[str, str, str]]:
    """(what, keys, where) for every action and shortcut under ``window`` that has a key, window-wide first."""
    rows: dict[tuple[str, str], str] = {}
    for thing in (*window.findChildren(QAction), *window.findChildren(QShortcut)):
        keys = thing.shortcuts() if isinstance(thing, QAction) else thing.keys()
        if not keys:
            continue
        shown = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys)
        what = _plain(thing.text() if isinstance(thing, QAction) else thing.whatsThis()) or "(unnamed)"
        rows.setdefault((what, shown), (pane_of(thing) if pane_of else "") or "anywhere")
    return sorted(((what, keys, where) for (what, keys), where in rows.items()),
                  key=lambda row: (row[2] != "anywhere", row[2], row[1]))


class HelpDialog(QDialog):
    def __init__(self, window: Any, page: int = SHORTCUTS) -> None:
        super().__init__(window)
        self.setWindowTitle("MemLens help")
        self.setObjectName("helpDialog")
        self.resize(640, 480)
        self.pages = QTabWidget()
        self.shortcuts = self._shortcut_table(shortcut_rows(window, window.pane_of))
        self.pages.addTab(self.shortcuts, "Keyboard shortcuts")
        self.pages.addTab(self._panes_page(window.pane_names), "Panes")
        self.about = self._about_page(window)
        self.pages.addTab(self.about, "About")
        self.pages.setCurrentIndex(page)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addWidget(buttons)

    @staticmethod
    def _shortcut_table(rows: list[tuple[str, str, str]]) -> QTableWidget:
        table = QTableWidget(len(rows), 3)
        table.setHorizontalHeaderLabels(["what", "keys", "where"])
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                table.setItem(row, column, QTableWidgetItem(text))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        return table

    @staticmethod
    def _panes_page(names: list[str]) -> QLabel:
        text = "".join(f"<p><b>{name.capitalize()}</b> (Ctrl+{n}) — {PANE_PURPOSES.get(name, '')}</p>"
                       for n, name in enumerate(names, start=1))
        label = QLabel(text, wordWrap=True)
        label.setObjectName("helpPanes")
        return label

    @staticmethod
    def _about_page(window: Any) -> QLabel:
        session = window.session
        stats = session.stats if session.is_open else {}
        lines = [f"<p><b>MemLens</b> {app_version()}</p>",
                 f"<p>Memory file: {html.escape(str(session.path)) if session.is_open else 'none open'}</p>"]
        if "schema_version" in stats:  # shown when the engine's stats carry it
            lines.append(f"<p>Schema version: {html.escape(str(stats['schema_version']))}</p>")
        if stats.get("embedding_model"):
            lines.append(f"<p>Embedding model: {html.escape(str(stats['embedding_model']))}</p>")
        label = QLabel("".join(lines), wordWrap=True)
        label.setObjectName("helpAbout")
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label
