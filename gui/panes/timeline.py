"""Timeline pane: how one fact evolved, and what the memory said at any moment.

The canvas shows the fact's supersedes chain and the chains its contradictions
touch; the list below has every version with a word-level diff against the
one before. The "as of" slider (or dragging the line on the canvas) replays
the journal: which version was current then, which contradictions were open.
The label and the version list are the engine's one replay
(``Memory.timeline_as_of``, what ``memlens timeline ID --as-of T`` prints), so
they say what every other face says; a fact retired by a later resolution is
not shown as an older version before it, nor a version before it was written.

Signals: ``fact_selected(int)`` (a version was clicked or chosen in the list), ``replayed(object)``
(the ``Replay`` now shown).
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QSlider,
                               QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from engine import ChangeRecord, Replay, Timeline, format_time

from gui.session import Session
from gui.widgets.timeline_plot import TimelinePlot
from gui.widgets.word_diff import word_diff_html

STEPS = 1000
REPLAY_MS = 80  # dragging the slider asks for the chain once it pauses, not on every step


class TimelinePane(QWidget):
    fact_selected = Signal(int)
    replayed = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.line: Timeline | None = None
        self.fact_id: int | None = None
        self.replay: Replay | None = None  # the engine's answer for the moment the slider shows
        self._range = (0.0, 1.0)
        self._replay_timer = QTimer(self, singleShot=True, interval=REPLAY_MS)
        self._replay_timer.timeout.connect(self._replay)
        self.jump = QLineEdit(placeholderText="fact id", maximumWidth=110, clearButtonEnabled=True)
        self.jump.returnPressed.connect(self._jump)
        self.heading = QLabel("Select a fact in Search, or type its id.")
        self.heading.setObjectName("timelineHeading")
        self.with_related = QCheckBox("show related", toolTip="Add a lane with the facts linked as related")
        self.with_related.toggled.connect(lambda _on: self._redraw())
        self.plot = TimelinePlot()
        self.plot.fact_clicked.connect(self._version_clicked)
        self.plot.as_of_dragged.connect(self._line_dragged)
        self.slider = QSlider(Qt.Orientation.Horizontal, minimum=0, maximum=STEPS, value=STEPS)
        self.slider.setToolTip("Move to see the memory as it was at that moment")
        self.slider.valueChanged.connect(self._slider_moved)
        self.as_of_label = QLabel("as of now")
        self.as_of_label.setObjectName("asOf")
        self.as_of_label.setMinimumWidth(170)
        self.state = QLabel("")
        self.state.setObjectName("asOfState")
        self.state.setWordWrap(True)
        self.versions = QListWidget()
        self.versions.currentRowChanged.connect(self._version_row)
        self.diff = QTextBrowser()
        self.diff.setObjectName("versionDiff")

        top = QHBoxLayout()
        top.addWidget(QLabel("fact"))
        top.addWidget(self.jump)
        top.addWidget(self.heading, 1)
        top.addWidget(self.with_related)
        slider_row = QHBoxLayout()
        slider_row.addWidget(self.as_of_label)
        slider_row.addWidget(self.slider, 1)
        canvas = QWidget()
        canvas_layout = QVBoxLayout(canvas)
        canvas_layout.setContentsMargins(0, 0, 0, 0)
        canvas_layout.addWidget(self.plot, 1)
        canvas_layout.addLayout(slider_row)
        canvas_layout.addWidget(self.state)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.versions)
        lower.addWidget(self.diff)
        lower.setSizes([380, 620])
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(canvas)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([520, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        session.store_changed.connect(self._store_changed)
        session.opened.connect(lambda _s: self._forget())
        session.closed.connect(self._forget)

    def _forget(self) -> None:
        self.fact_id = None
        self.jump.clear()
        self._to_now()
        self._show(None)

    def _to_now(self) -> None:
        """Another fact or another file opens at "now": a moment kept from the last one showed an
        old current version under a heading that counted today's versions."""
        self.slider.blockSignals(True)
        self.slider.setValue(STEPS)
        self.slider.blockSignals(False)
        self.as_of_label.setText("as of now")  # the moved slider's own caption would say so; it was kept quiet

    def _store_changed(self, record: ChangeRecord | None) -> None:
        if self.fact_id is None:
            return
        shown = {v.fact.id for v in self.line.all_versions()} if self.line else {self.fact_id}
        if record is None or shown & set(record.facts) or record.edges_added:
            self.show_fact(self.fact_id)

    # -- loading ---------------------------------------------------------------------
    def show_fact(self, fact_id: int) -> None:
        if fact_id != self.fact_id:
            self._to_now()
        self.fact_id = fact_id
        if self.jump.text().strip().lstrip("#") != str(fact_id):
            self.jump.setText(str(fact_id))  # the box says which fact is shown, however it was chosen
        self.heading.setText(f"Loading the timeline of fact {fact_id}…")
        self.session.call(lambda m: (m.timeline(fact_id), len(m.timeline_as_of(fact_id).open_contradictions)),
                          lambda found: self._show(*found), lane="timeline", label="Loading timeline",
                          on_error=self._failed)

    def _jump(self) -> None:
        text = self.jump.text().strip().lstrip("#")
        if text.isdigit():
            self.show_fact(int(text))
        else:
            self.heading.setText("⚠ type a fact id (a whole number)")

    def _failed(self, message: str) -> None:
        self.line = None
        self.plot.show_timeline(None, False, time.time())
        self.versions.clear()
        self.diff.clear()
        self.heading.setText(f"⚠ {message}")

    def _show(self, line: Timeline | None, open_now: int = 0) -> None:
        self.line = line
        self.versions.blockSignals(True)
        self.versions.clear()
        self.diff.clear()
        if line is None:
            self.versions.blockSignals(False)
            self.heading.setText("Select a fact in Search, or type its id.")
            self.plot.show_timeline(None, False, time.time())
            self.state.setText("")
            return
        n, k = len(line.versions), len(line.contradictions)
        # Resolved ones stay on the canvas (history is kept); the heading says how many still wait.
        still = f" ({open_now} open)" if k and open_now != k else ""
        self.heading.setText(f"Fact {line.fact_id}: {n} version{'s' * (n != 1)}, "
                             f"{k} contradiction{'s' * (k != 1)}{still}, {len(line.related)} related")
        self.plot.selected = line.fact_id
        self.versions.blockSignals(False)
        start, end = line.span
        now = max(time.time(), end)
        self._range = (start - 0.02 * (now - start + 1), now)
        self._redraw()

    def _redraw(self) -> None:
        if self.line is None:
            return
        self.plot.show_timeline(self.line, self.with_related.isChecked(), self._range[1])
        self._apply_as_of(self._slider_time())

    # -- as of ---------------------------------------------------------------------------
    def _slider_time(self) -> float:
        start, end = self._range
        return start + (end - start) * self.slider.value() / STEPS

    def set_as_of(self, when: float) -> None:
        start, end = self._range
        self.slider.setValue(round((when - start) / max(end - start, 1e-9) * STEPS))

    def _slider_moved(self, _value: int) -> None:
        self._apply_as_of(self._slider_time())

    def _line_dragged(self, when: float) -> None:
        self.slider.blockSignals(True)
        self.set_as_of(when)
        self.slider.blockSignals(False)
        self._apply_as_of(when)

    def _apply_as_of(self, when: float) -> None:
        if self.line is None:
            return
        at_end = self.slider.value() == STEPS
        self.as_of_label.setText("as of now" if at_end else f"as of {format_time(when)}")
        self.plot.set_as_of(when)
        self.state.setText("replaying…")
        self._replay_timer.start()

    def _replay(self) -> None:
        if self.line is None:
            return
        fact_id, when = self.line.fact_id, None if self.slider.value() == STEPS else self._slider_time()
        self.session.call(lambda m: m.timeline_as_of(fact_id, when), self._show_replay,
                          lane="timeline-as-of", label="Replaying the history")

    def _show_replay(self, replay: Replay) -> None:
        """The label, the markers and the version list, as the engine replayed that moment."""
        if self.line is None or replay.fact_id != self.line.fact_id:
            return
        self.replay = replay
        if not replay.versions:
            current = "no version yet"
        elif replay.current is None:
            current = "no active version (archived or expired)"
        else:
            current = f"current version #{replay.current}"
        opened = ", ".join(f"#{a} ↔ #{b}" for a, b in replay.open_contradictions)
        self.state.setText(f"{current} · open contradictions: {opened or 'none'}")
        self.plot.set_as_of(self._slider_time() if self.slider.value() != STEPS else self._range[1], replay.statuses)
        self._list_versions(replay)
        self.replayed.emit(replay)

    def _list_versions(self, replay: Replay) -> None:
        """The chain as it stood at the replayed moment, numbered as it was then."""
        keep = self.plot.selected
        self.versions.blockSignals(True)
        self.versions.clear()
        for number, fact_id in enumerate(replay.versions, 1):
            fact = replay.facts[fact_id]
            item = QListWidgetItem(f"v{number} · #{fact_id} · {format_time(fact.created_at)} · "
                                   f"{replay.statuses.get(fact_id)}")
            item.setData(Qt.ItemDataRole.UserRole, fact_id)
            item.setToolTip(fact.text)
            self.versions.addItem(item)
        shown = list(replay.versions)
        row = shown.index(keep) if keep in shown else shown.index(replay.current) if replay.current in shown else 0
        self.versions.blockSignals(False)
        if shown:
            self.versions.setCurrentRow(row)
        else:
            self.diff.setHtml("<p style='color:#666'>No version of this fact was written yet at this moment.</p>")

    # -- versions ------------------------------------------------------------------------
    def _links_html(self, fact_id: int) -> str:
        """The other side of each contradiction or related link of this version, in full."""
        texts = {v.fact.id: v.fact for v in self.line.all_versions()}
        parts = []
        for link in self.line.links:
            other = texts.get(link.other(fact_id)) if fact_id in (link.src, link.dst) else None
            if other is not None:
                colour = "#c0392b" if link.type == "contradicts" else "#3b6fb6"
                parts.append(f"<p><span style='color:{colour}'><b>{link.type}</b> #{other.id}</span> "
                             f"({other.status}, written {format_time(other.created_at)}): "
                             f"{html.escape(other.text)}</p>")
        return "<hr>" + "".join(parts) if parts else ""

    def _version_clicked(self, fact_id: int) -> None:
        if self.line is None:
            return
        shown = [self.versions.item(r).data(Qt.ItemDataRole.UserRole) for r in range(self.versions.count())]
        if fact_id in shown:
            self.versions.setCurrentRow(shown.index(fact_id))
        self.plot.selected = fact_id
        self.plot.set_as_of(self._slider_time(), self.replay.statuses if self.replay else None)
        self.fact_selected.emit(fact_id)

    def _version_row(self, row: int) -> None:
        if self.line is None or self.replay is None or row < 0:
            return
        facts = self.replay.facts
        fact = facts[self.versions.item(row).data(Qt.ItemDataRole.UserRole)]
        previous = facts[self.versions.item(row - 1).data(Qt.ItemDataRole.UserRole)].text if row > 0 else ""
        heading = (f"<p><b>v{row + 1} · #{fact.id}</b> · written {format_time(fact.created_at)} · "
                   f"{self.replay.statuses.get(fact.id)} then · now {fact.status}</p>")
        body = word_diff_html(previous, fact.text) if row > 0 else html.escape(fact.text)
        note = f"<p style='color:#666'>changes against v{row}</p>" if row > 0 else \
            "<p style='color:#666'>first version</p>"
        self.diff.setHtml(heading + note + f"<p style='font-size:14px'>{body}</p>" + self._links_html(fact.id))
        if self.plot.selected != fact.id:
            self.plot.selected = fact.id
            self.plot.set_as_of(self._slider_time(), self.replay.statuses)
            self.fact_selected.emit(fact.id)
