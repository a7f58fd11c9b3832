"""What a write changed: the record every write returns and every reader of the file can rebuild.

A ``ChangeRecord`` is made from the journal rows a write added (``engine.store.journal``), so
the same record describes this process's writes and, read back later, another process's. The
search index and the desktop app's panes refresh from it instead of reloading everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ChangeRecord:
    """Ids touched by one write (or by every write in a journal range), each list sorted."""

    facts_added: list[int] = field(default_factory=list)
    facts_status_changed: list[int] = field(default_factory=list)  # superseded, archived, expired
    facts_touched: list[int] = field(default_factory=list)  # reinforced, retagged: same status, new values
    edges_added: list[int] = field(default_factory=list)
    entities_touched: list[int] = field(default_factory=list)
    profile_files: list[str] = field(default_factory=list)
    plans: list[int] = field(default_factory=list)  # plans applied (or snapshots frozen: none)
    actors: list[str] = field(default_factory=list)
    journal_first: int | None = None  # the first and last journal row of the write; None when none
    journal_last: int | None = None

    @property
    def empty(self) -> bool:
        return self.journal_last is None

    @property
    def facts(self) -> list[int]:
        """Every fact whose row changed in any way."""
        return sorted({*self.facts_added, *self.facts_status_changed, *self.facts_touched})

    def to_dict(self) -> dict[str, object]:
        return {"facts_added": self.facts_added, "facts_status_changed": self.facts_status_changed,
                "facts_touched": self.facts_touched, "edges_added": self.edges_added,
                "entities_touched": self.entities_touched, "profile_files": self.profile_files,
                "plans": self.plans, "actors": self.actors,
                "journal": None if self.empty else [self.journal_first, self.journal_last]}
