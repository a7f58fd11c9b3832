"""File → Connect an agent…: the exact configuration for Hermes Agent, Claude Code, Claude Desktop
and Cursor, with the open memory file's and the memlens command's absolute paths filled in.

The text comes from the engine (``connection_snippets``, the same as ``memlens connect``), so the
dialog and the command line never disagree. One tab per client: where the text goes, the text
(read-only, selectable) and a Copy button.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton,
                               QTabWidget, QVBoxLayout, QWidget)

from engine import MemLensError, Snippet, connection_snippets

COPIED_MS = 1500
ABOUT = {
    "Hermes Agent": "Installs MemLens as Hermes's memory provider: the session's snapshot goes into its system "
                    "prompt, each turn's statements are absorbed (you review them here), and it gets the "
                    "memlens_search, memlens_get, memlens_absorb and memlens_timeline tools. Hermes's own "
                    "MEMORY.md and USER.md become this memory's profile.",
    "Claude Code": "Adds MemLens as an MCP server (stdio): the memory_search, memory_get, memory_absorb, "
                   "memory_snapshot and curation tools.",
    "Claude Desktop": "Add the memlens entry to mcpServers (merge it with any servers already there), then "
                      "restart Claude Desktop.",
    "Cursor": "Add the memlens entry to mcpServers (merge it with any servers already there); Cursor picks it up "
              "in Settings → MCP.",
}


class SnippetPage(QWidget):
    """One client: where the text goes, what it does, the text, and Copy."""

    def __init__(self, snippet: Snippet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.snippet = snippet
        where = QLabel(f"<b>Paste into:</b> {snippet.where}", wordWrap=True)
        about = QLabel(ABOUT.get(snippet.client, ""), wordWrap=True)
        self.text = QPlainTextEdit(snippet.text, readOnly=True, objectName="snippet")
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.copy = QPushButton("Copy", toolTip=f"Copy the {snippet.client} configuration to the clipboard")
        self.copy.clicked.connect(self._copy)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.copy)
        layout = QVBoxLayout(self)
        layout.addWidget(where)
        layout.addWidget(about)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.snippet.text)
        self.copy.setText("Copied")
        QTimer.singleShot(COPIED_MS, lambda: self.copy.setText("Copy"))


class ConnectDialog(QDialog):
    def __init__(self, memory_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect an agent")
        self.setObjectName("connectDialog")
        self.resize(760, 460)
        self.pages: dict[str, SnippetPage] = {}
        layout = QVBoxLayout(self)
        intro = QLabel(f"Connect an agent to <b>{memory_path.name}</b> ({memory_path.parent}). Each agent then "
                       f"reads and writes this file; what it writes shows up here within about a second, "
                       f"with its name in the Journal.", wordWrap=True)
        layout.addWidget(intro)
        self.tabs = QTabWidget()
        try:
            found = connection_snippets(memory_path)
        except MemLensError as err:
            self.error = QLabel(str(err), wordWrap=True, objectName="error")
            layout.addWidget(self.error)
            found = []
        for snippet in found:
            page = SnippetPage(snippet)
            self.pages[snippet.client] = page
            self.tabs.addTab(page, snippet.client)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(QLabel("Over HTTP instead: <code>memlens serve</code> serves the API and MCP at "
                                "<code>/mcp</code> (streamable HTTP); docs/agents.md has the details.", wordWrap=True))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
