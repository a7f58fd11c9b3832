"""A pane's one line of feedback, in one of four kinds so that news does not look like a failure.

``info`` (grey: work under way, a note), ``success`` (green: done), ``warning`` (amber: done, but
look), ``error`` (red: refused or failed). The colour comes from the style sheet by the ``kind``
property; a text starting with ⚠ and no kind given is a warning.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

KINDS = ("info", "success", "warning", "error")


class MessageLine(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("message")
        self.setWordWrap(True)
        self.say("")

    @property
    def kind(self) -> str:
        return str(self.property("kind"))

    def say(self, text: str, kind: str | None = None) -> None:
        kind = kind or ("warning" if text.startswith("⚠") else "info")
        if kind not in KINDS:
            raise ValueError(f"a message kind is one of {', '.join(KINDS)}")
        self.setText(text)
        if self.property("kind") != kind:
            self.setProperty("kind", kind)
            self.style().unpolish(self)  # a dynamic property changes the style only once re-polished
            self.style().polish(self)
