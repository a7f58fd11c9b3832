"""Contradiction review: open ``contradicts`` pairs side by side, settled one at a time.

"Left is current" / "Right is current" make the other side its superseded older
version; "Both hold" links them as related (the pair leaves the queue, both
stay active); "Leave open" moves on. Each resolution is a plan you confirm.

Signals: ``count_changed(int)`` (open pairs, for the tab title), ``fact_selected(int)``.
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QGridLayout, QGroupBox, QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout,
                               QWidget)

from engine import ChangeRecord, Contradiction, Fact, format_time

from gui.dialogs.plan_review import PlanReview, propose
from gui.ops import BACKGROUND
from gui.session import Session
from gui.widgets.message_line import MessageLine
from gui.widgets.word_diff import word_diff_html

DAY = 86400.0


def _card_html(fact: Fact) -> str:
    age = max(0.0, (time.time() - fact.created_at) / DAY)
    sources = ", ".join(fact.sources) or "—"
    return (f"<p style='font-size:15px'>{html.escape(fact.text)}</p>"
            f"<p style='color:#44576b'><a href='fact:{fact.id}'>#{fact.id}</a> · {fact.scope} · {fact.kind} · "
            f"written {format_time(fact.created_at)[:10]} ({age:.0f} days ago) · confidence {fact.confidence:.2f}"
            f"<br>sources: {html.escape(sources)}"
            + (f"<br>tags: {html.escape(', '.join(fact.tags))}" if fact.tags else "") + "</p>")


class ContradictionsPane(QWidget):
    count_changed = Signal(int)
    fact_selected = Signal(int)
    review_opened = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.queue: list[Contradiction] = []
        self.generation = -1  # the open file the queue came from: a resolution is refused for another
        self.position = 0
        self.heading = QLabel("No memory open.")
        self.heading.setObjectName("inspectorTitle")
        self.heading.setWordWrap(True)  # a long heading must not set the window's minimum width
        self.cards: list[QLabel] = []
        sides = QHBoxLayout()
        for title in ("Left (older)", "Right (newer)"):
            box = QGroupBox(title)
            card = QLabel("")
            card.setWordWrap(True)
            card.setTextFormat(Qt.TextFormat.RichText)
            card.setAlignment(Qt.AlignmentFlag.AlignTop)
            card.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
            card.linkActivated.connect(lambda href: self.fact_selected.emit(int(href.split(":")[1])))
            QVBoxLayout(box).addWidget(card)
            sides.addWidget(box, 1)
            self.cards.append(card)
        self.buttons: dict[str, QPushButton] = {}
        grid = QGridLayout()
        for column, (key, label, tip) in enumerate((
                ("left", "Left is current", "The right fact becomes the left one's superseded older version"),
                ("right", "Right is current", "The left fact becomes the right one's superseded older version"),
                ("both", "Both hold (related)", "Link them as related; both stay active and the pair leaves the queue"),
                ("skip", "Leave open", "Keep the contradiction open and look at the next one"))):
            button = QPushButton(label, toolTip=tip, enabled=False)
            button.clicked.connect(lambda _c=False, k=key: self.resolve(k))
            grid.addWidget(button, 0, column)
            self.buttons[key] = button
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._pick)
        self.difference = QLabel("")
        self.difference.setWordWrap(True)
        self.difference.setTextFormat(Qt.TextFormat.RichText)
        self.difference.setObjectName("factText")
        self.message = MessageLine()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addWidget(self.heading)
        layout.addWidget(QLabel("What differs (left → right):"))
        layout.addWidget(self.difference)
        layout.addLayout(sides)
        layout.addLayout(grid)
        layout.addWidget(self.message)
        layout.addWidget(QLabel("Queue (oldest first):"))
        layout.addWidget(self.list, 1)
        session.opened.connect(lambda _s: (self._show([]), self.refresh()))
        session.store_changed.connect(self._store_changed)
        session.closed.connect(lambda: self._show([]))

    def _store_changed(self, record: ChangeRecord | None) -> None:
        # Pairs appear with new edges and leave when a side changes status; other writes leave the queue as is.
        if record is None or record.edges_added or record.facts_status_changed or record.facts_added:
            self.refresh()

    def refresh(self) -> None:
        generation = self.session.generation
        # The list holds the first 1,000 pairs; the tab's count is the true total.
        self.session.call(lambda m: (m.contradictions(), m.contradiction_count()),
                          lambda found: self._show(*found, generation=generation),
                          lane="contradictions", label="Contradictions", priority=BACKGROUND)

    def _show(self, queue: list[Contradiction], total: int | None = None, generation: int = -1) -> None:
        current = self.current if generation == self.generation else None
        self.queue, self.generation = queue, generation
        same = [i for i, c in enumerate(queue) if current and (c.left.id, c.right.id) == (current.left.id,
                                                                                          current.right.id)]
        self.position = same[0] if same else min(self.position, max(len(queue) - 1, 0))
        self.count_changed.emit(len(queue) if total is None else total)
        self.list.blockSignals(True)
        self.list.clear()
        for pair in queue:
            self.list.addItem(f"#{pair.left.id} ↔ #{pair.right.id} · {' '.join(pair.right.text.split())[:140]}")
        self.list.blockSignals(False)
        self._render()

    def _pick(self, row: int) -> None:
        if 0 <= row < len(self.queue) and row != self.position:
            self.position = row
            self._render()

    @property
    def current(self) -> Contradiction | None:
        return self.queue[self.position] if 0 <= self.position < len(self.queue) else None

    def _render(self) -> None:
        pair = self.current
        writable = pair is not None and not self.session.read_only
        for key, button in self.buttons.items():
            button.setEnabled(writable or (key == "skip" and pair is not None))
        if pair is None:
            self.heading.setText("No open contradictions. New ones appear here when absorb finds a fact "
                                 "that negates, or changes a number of, a close one.")
            for card in (*self.cards, self.difference):
                card.setText("")
            return
        since = max(pair.left.created_at, pair.right.created_at)
        self.list.blockSignals(True)
        self.list.setCurrentRow(self.position)
        self.list.blockSignals(False)
        self.heading.setText(f"Contradiction {self.position + 1} of {len(self.queue)} · open since "
                             f"{format_time(since)[:10]}")
        self.difference.setText(word_diff_html(pair.left.text, pair.right.text))
        self.cards[0].setText(_card_html(pair.left))
        self.cards[1].setText(_card_html(pair.right))

    def resolve(self, key: str) -> None:
        pair = self.current
        if pair is None:
            return
        self.message.say("")
        if key == "skip":
            self.position = (self.position + 1) % len(self.queue)
            self._render()
            return
        left, right = pair.left.id, pair.right.id
        keep = {"left": left, "right": right, "both": "both"}[key]
        reason = "both hold: reviewed as not a contradiction" if key == "both" else None
        titles = {"left": f"Keep #{left}", "right": f"Keep #{right}", "both": "Both hold"}
        propose(self.session, self, titles[key],
                lambda m: m.resolve_contradiction(left, right, keep, reason=reason, dry_run=True),
                self._opened, on_error=lambda msg: self.message.say(f"⚠ {msg}", "error"), generation=self.generation)

    def _opened(self, review: PlanReview) -> None:
        self.review_opened.emit(review)
