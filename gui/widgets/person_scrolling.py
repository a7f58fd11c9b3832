"""Tells a person's scrolling of a view apart from the scrolling the app does itself.

A scroll bar's ``valueChanged`` fires for both: when a person turns the wheel or drags the bar, and
when rows load, a model resets or a pane restores its place after a write. Only the first should make
background work pause (``Session.note_interaction``); taking the app's own scrolling for a person's
held the file check back for as long as rows kept arriving. So this listens to real input instead:
the bars' ``actionTriggered`` (the wheel, a drag of the handle, a click on the bar or its arrows, the
bar's own keys — everything a person does to a bar, and nothing ``setValue`` does) and the key presses
the view receives (arrows, Page Up/Down, Home/End move the current row and scroll with it).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractScrollArea


class PersonScrolling(QObject):
    """Installed on ``view``: calls ``noticed()`` on each scroll or key a person gives it."""

    def __init__(self, view: QAbstractScrollArea, noticed: Callable[[], None]) -> None:
        super().__init__(view)
        self._noticed = noticed
        for bar in (view.verticalScrollBar(), view.horizontalScrollBar()):
            bar.actionTriggered.connect(self._action)
        view.installEventFilter(self)

    def _action(self, _action: int) -> None:
        self._noticed()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.KeyPress:
            self._noticed()
        return False
