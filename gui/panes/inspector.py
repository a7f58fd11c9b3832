"""Fact inspector: every field of one fact, its edges (as links), the entities it
mentions, its journal, its confidence over time, and the curation actions.

Each action drafts a plan through the engine's curation acts and opens its
review; only "Apply" there writes. Nothing here deletes. A draft carries the
session generation the fact was loaded in, so it can never land in another file.
Reading a fact here is a person browsing, not an agent's access: nothing here
raises gc's access counters.

Signals: ``fact_activated(int)`` (a link to another fact was followed),
``review_opened(object)`` (a plan review dialog, for whoever wants to watch it).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import Qt, Signal
from shiboken6 import isValid
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QGridLayout, QGroupBox, QInputDialog, QLabel, QPushButton, QScrollArea,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine import (ChangeRecord, ConfidenceCurve, Edge, Entity, Fact, JournalEntry, Memory, NotFound, Plan, Relation,
                    format_time)

from gui.dialogs.fact_picker import FactPicker
from gui.dialogs.plan_review import PlanReview, propose
from gui.dialogs.text_edit import VersionEditor
from gui.ops import INTERACTIVE
from gui.session import Session
from gui.widgets.confidence_plot import ConfidencePlot
from gui.widgets.message_line import MessageLine


ACTIONS = (("version", "New version…", "Write a new version that supersedes this fact"),
           ("contradicts", "Contradicts…", "Mark another fact as contradicting this one"),
           ("related", "Related…", "Link another fact as related"),
           ("tags", "Tags…", "Change this fact's tags"),
           ("archive", "Archive…", "Archive this fact (kept, hidden from default search)"))


@dataclass
class FactDetails:
    fact: Fact
    effective_confidence: float
    edges: list[Edge]
    entities: list[Entity]
    relations: list[Relation]
    journal: list[JournalEntry]
    curve: ConfidenceCurve


def load_details(memory: Memory, fact_id: int) -> FactDetails:
    hits = memory.describe([fact_id])  # unlike search or get(), describe never counts as an access
    if not hits:
        raise NotFound(f"there is no fact {fact_id} in this memory")
    return FactDetails(hits[0].fact, hits[0].effective_confidence, memory.edges(fact_id),
                       memory.fact_entities(fact_id), memory.fact_relations(fact_id),
                       memory.journal(fact_id=fact_id, limit=500), memory.confidence_curve(fact_id))


# How an edge reads from its target's side (contradicts and related read the same both ways).
INVERSE = {"supersedes": "superseded by", "contradicts": "contradicts", "related": "related",
           "derived_from": "abstracted into", "distilled_from": "distilled into", "summarises": "summarised by"}


def edge_lines(details: FactDetails) -> list[tuple[str, int]]:
    """(label, other fact id) for every edge touching this fact, oldest first."""
    fid = details.fact.id
    return [(edge.type.replace("_", " "), edge.to_id) if edge.from_id == fid else
            (INVERSE.get(edge.type, edge.type), edge.from_id) for edge in details.edges]


class InspectorPane(QWidget):
    fact_activated = Signal(int)
    review_opened = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.details: FactDetails | None = None
        self.generation = -1  # the session generation ``details`` was loaded in
        self.prompt: QWidget | None = None
        self.title = QLabel("No fact selected")
        self.title.setObjectName("inspectorTitle")
        self.damage = QLabel("", objectName="damage", wordWrap=True, visible=False)
        self.text = QLabel("Select a result to inspect it.")
        self.text.setObjectName("factText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons: dict[str, QPushButton] = {}
        actions = QGridLayout()
        for position, (key, label, tip) in enumerate(ACTIONS):
            button = QPushButton(label, toolTip=tip, enabled=False)
            button.clicked.connect(lambda _checked=False, k=key: self._action(k))
            actions.addWidget(button, position // 3, position % 3)
            self.buttons[key] = button
        self.fields = QFormLayout()
        self.fields.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.edges = QLabel("")
        self.edges.setObjectName("edges")
        self.edges.setWordWrap(True)
        self.edges.setTextFormat(Qt.TextFormat.RichText)
        self.edges.linkActivated.connect(lambda href: self.fact_activated.emit(int(href.split(":")[1])))
        self.entities = QLabel("")
        self.entities.setWordWrap(True)
        self.plot = ConfidencePlot()
        self.journal = QTableWidget(0, 4)
        self.journal.setHorizontalHeaderLabels(("when", "actor", "action", "plan"))
        self.journal.verticalHeader().hide()
        self.journal.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.journal.horizontalHeader().setStretchLastSection(True)
        self.journal.setMinimumHeight(110)
        self.message = MessageLine()

        self.sections: list[QGroupBox] = []
        body = QWidget()
        column = QVBoxLayout(body)
        column.addWidget(self.title)
        column.addWidget(self.damage)
        column.addWidget(self.text)
        column.addLayout(actions)
        column.addWidget(self.message)
        for name, content in (("Fields", self.fields), ("Edges", self.edges), ("Entities", self.entities),
                              ("Effective confidence", self.plot), ("Journal", self.journal)):
            box = QGroupBox(name)
            inner = QVBoxLayout(box)
            inner.addLayout(content) if isinstance(content, QFormLayout) else inner.addWidget(content)
            column.addWidget(box)
            self.sections.append(box)
        column.addStretch(1)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self._show_sections(False)
        session.store_changed.connect(self._store_changed)
        session.verified.connect(lambda _verdict: self._show_damage())
        session.opened.connect(lambda _s: self._forget())
        session.closed.connect(self._forget)

    # -- loading ---------------------------------------------------------------------
    def show_fact(self, fact_id: int) -> None:
        self.title.setText(f"Fact {fact_id} · loading…")
        generation = self.session.generation
        self.session.call(lambda m: load_details(m, fact_id), lambda d: self._show(d, generation), lane="inspect",
                          label="Loading fact", priority=INTERACTIVE, on_error=self._failed)

    def reload(self) -> None:
        if self.details is not None:
            self.show_fact(self.details.fact.id)

    def _store_changed(self, record: ChangeRecord | None) -> None:
        """Reload only when the write touched this fact (or added edges, which may end at it)."""
        if self.details is None:
            return
        if record is None or self.details.fact.id in record.facts or record.edges_added:
            self.reload()

    def _forget(self) -> None:
        """Another file (or none): nothing of the old one may stay on screen or be acted on."""
        if self.prompt is not None and isValid(self.prompt):  # a one-line prompt deletes itself on close
            self.prompt.close()
            self.prompt = None
        self._show(None)

    def _failed(self, message: str) -> None:
        self.title.setText("Fact not available")
        self.message.say(f"⚠ {message}", "error")

    def _show(self, details: FactDetails | None, generation: int = -1) -> None:
        self.details, self.generation = details, generation
        self.message.say("")
        while self.fields.rowCount():
            self.fields.removeRow(0)
        if details is None:
            self.damage.setVisible(False)  # a mark of another fact, or of another file's
            self.title.setText("No fact selected")
            self.text.setText("Select a result to inspect it.")
            self.edges.setText("")
            self.entities.setText("")
            self.journal.setRowCount(0)
            self.plot.show_curve(None)
            self._enable_actions(False)
            self._show_sections(False)
            return
        self._show_sections(True)
        fact = details.fact
        self.title.setText(f"Fact {fact.id} · {fact.status}")
        self.text.setText(fact.text)
        for label, value in _field_rows(fact, details.effective_confidence):
            value_label = QLabel(value)
            value_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value_label.setWordWrap(True)
            self.fields.addRow(label, value_label)
        lines = edge_lines(details)
        self.edges.setText("<br>".join(f"{html.escape(label)} <a href='fact:{other}'>#{other}</a>"
                                       for label, other in lines) or "<i>no edges</i>")
        self.entities.setText(_entities_text(details.entities, details.relations))
        self._fill_journal(details.journal)
        self.plot.show_curve(details.curve)
        self._show_damage()

    def _show_damage(self) -> None:
        """A fact that failed verification says so, and is not curated: a new version, link or archive
        would build on a text nobody can vouch for."""
        details = self.details
        if details is None:
            return
        fact = details.fact
        why = self.session.failed_facts.get(fact.id)
        self.title.setText(f"Fact {fact.id} · {fact.status}" + (" · ⚠ failed verification" if why else ""))
        self.damage.setText(f"⚠ This fact failed verification: {why}. Curation is off for it; run "
                            f"'memlens verify' and restore the file from a backup or export." if why else "")
        self.damage.setVisible(bool(why))
        self._enable_actions(fact.status == "active" and not self.session.read_only and not why)
        for key, _label, tip in ACTIONS:
            self.buttons[key].setToolTip("Off: this fact failed verification" if why else tip)

    def _show_sections(self, visible: bool) -> None:
        for box in self.sections:
            box.setVisible(visible)

    def _fill_journal(self, entries: list[JournalEntry]) -> None:
        self.journal.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            for column, value in enumerate((format_time(entry.at), entry.actor, entry.action,
                                            "" if entry.plan_id is None else str(entry.plan_id))):
                cell = QTableWidgetItem(value)
                cell.setToolTip(str(entry.details))
                self.journal.setItem(row, column, cell)
        self.journal.resizeColumnsToContents()

    def _enable_actions(self, enabled: bool) -> None:
        for button in self.buttons.values():
            button.setEnabled(enabled)

    # -- curation --------------------------------------------------------------------
    def _action(self, key: str) -> None:
        if self.details is None or self.generation != self.session.generation:
            return
        self.message.say("")  # what the last action said does not belong to this one
        fact, generation = self.details.fact, self.generation
        if key == "version":
            editor = VersionEditor(fact.text, self)
            self.prompt = editor
            editor.submitted.connect(lambda text: propose(
                self.session, self, "New version", lambda m: m.version_fact(fact.id, text, dry_run=True),
                lambda review: (editor.proposed(), self._review_opened(review)), on_error=editor.refused,
                generation=generation))
            editor.open()
        elif key in ("contradicts", "related"):
            verb = "contradicts" if key == "contradicts" else "is related to"
            picker = FactPicker(self.session, fact.id, f"Which fact {verb} #{fact.id}?", self)
            self.prompt = picker
            picker.accepted.connect(lambda: picker.chosen_id is not None and self._propose(
                key.capitalize(), lambda m, other=picker.chosen_id, why=picker.reason.text().strip(): m.link_facts(
                    other, fact.id, key, reason=why or f"marked {key} in the app", dry_run=True), generation))
            picker.open()
        elif key == "tags":
            self._ask("Tags", "Tags (comma-separated; empty clears them):", ", ".join(fact.tags),
                      lambda text: self._retag(fact, text, generation))
        elif key == "archive":
            self._ask("Archive", f"Why archive fact {fact.id}? It is kept and stays in its history.", "",
                      lambda text: self._propose("Archive", lambda m: m.archive_fact(
                          fact.id, reason=text.strip() or "archived in the app", dry_run=True), generation))

    def _retag(self, fact: Fact, text: str, generation: int) -> None:
        wanted = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
        add, remove = [t for t in wanted if t not in fact.tags], [t for t in fact.tags if t not in wanted]
        self._propose("Tags", lambda m: m.tag_fact(fact.id, add=add, remove=remove, dry_run=True), generation)

    def _ask(self, title: str, label: str, initial: str, then: Callable[[str], object]) -> None:
        """A non-modal one-line prompt (a modal one would stall the event loop the engine answers on)."""
        dialog = QInputDialog(self, windowTitle=title, labelText=label, textValue=initial)
        dialog.setObjectName(f"ask{title}")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(then)
        self.prompt = dialog
        dialog.open()

    def _propose(self, title: str, draft: Callable[[Memory], Plan], generation: int) -> None:
        propose(self.session, self, title, draft, self._review_opened,
                on_error=lambda msg: self.message.say(f"⚠ {msg}", "error"), generation=generation)

    def _review_opened(self, review: PlanReview) -> None:
        self.review_opened.emit(review)


def _field_rows(fact: Fact, effective: float) -> list[tuple[str, str]]:
    triple = " · ".join(x for x in (fact.subject, fact.predicate, fact.object) if x)
    rows = [("scope", fact.scope + (f" (session {fact.session_id})" if fact.session_id else "")),
            ("kind", fact.kind), ("triple", triple or "—"),
            ("confidence", f"{fact.confidence:.3f} stored · {effective:.3f} effective now"),
            ("importance", f"{fact.importance:.2f}"), ("tags", ", ".join(fact.tags) or "—"),
            ("created", format_time(fact.created_at)), ("last reinforced", format_time(fact.last_reinforced)),
            ("reinforced", f"{fact.reinforcement_count}×"),
            ("accessed", f"{fact.access_count}× · last {format_time(fact.last_accessed) or 'never'}"),
            ("expires", format_time(fact.expires_at) or "—"), ("sources", ", ".join(fact.sources) or "—"),
            ("content hash", fact.content_hash[:16] + "…"), ("embedding", fact.embedding_model or "none"),
            ("plan", "—" if fact.plan_id is None else str(fact.plan_id))]
    return rows


def _entities_text(entities: list[Entity], relations: list[Relation]) -> str:
    parts = [f"{html.escape(e.name)} <span style='color:#777'>({html.escape(e.type)})</span>" for e in entities]
    parts += [f"<span style='color:#555'>{html.escape(r.src.name)} —{html.escape(r.type)}→ "
              f"{html.escape(r.dst.name)}</span>" for r in relations]
    return "<br>".join(parts) or "<i>none recorded</i>"
