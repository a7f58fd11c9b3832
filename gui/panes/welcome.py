"""Welcome: what a person sees with no memory open, or an empty one.

Signals: ``chosen(str)`` with one of "open", "new", "import", "demo", or
"recent:<path>".
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

from gui.resources import icon

CHOICES = (("open", "Open…", "open", "Open an existing memory file (.sqlite)"),
           ("new", "New…", "new", "Create an empty memory file"),
           ("import", "Import JSONL…", "import", "Bring facts in from JSONL, Hermes, mem0 or Markdown notes "
                                                 "(you approve a plan first)"),
           ("demo", "Open demo memory", "demo", "A sample memory in a temporary file; your own file is untouched"))


class WelcomePane(QWidget):
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("MemLens")
        title.setObjectName("welcomeTitle")
        self.text = QLabel("An inspector for an agent's long-term memory: search facts, follow how each one changed, "
                           "and approve every write before it happens. Nothing is ever deleted.")
        self.text.setObjectName("welcomeText")
        self.text.setWordWrap(True)
        self.notice = QLabel("")
        self.notice.setObjectName("welcomeText")
        self.notice.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        column = QVBoxLayout()
        for key, label, icon_name, tip in CHOICES:
            button = QPushButton(icon(icon_name), label, toolTip=tip, objectName="welcomeButton")
            button.setIconSize(QSize(22, 22))
            button.clicked.connect(lambda _checked=False, k=key: self.chosen.emit(k))
            column.addWidget(button)
            self.buttons[key] = button
        self.recent = QListWidget()
        self.recent.setMaximumHeight(150)
        self.recent.itemActivated.connect(lambda item: self.chosen.emit(f"recent:{item.text()}"))
        self.recent_label = QLabel("Recent files")
        column.addSpacing(12)
        column.addWidget(self.recent_label)
        column.addWidget(self.recent)
        inner = QVBoxLayout()
        inner.addWidget(title)
        inner.addWidget(self.text)
        inner.addWidget(self.notice)
        inner.addSpacing(16)
        inner.addLayout(column)
        inner.addStretch(1)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        box = QWidget()
        box.setLayout(inner)
        box.setMaximumWidth(560)
        outer.addWidget(box, 3)
        outer.addStretch(1)
        outer.setAlignment(Qt.AlignmentFlag.AlignTop)

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        self.recent.addItems(paths)
        self.recent.setVisible(bool(paths))
        self.recent_label.setVisible(bool(paths))

    def set_notice(self, text: str) -> None:
        self.notice.setText(text)
