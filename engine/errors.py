"""The engine's error hierarchy.

Two families only: ``MemLensError`` is a user-facing problem (bad input, a file
that is not a memory store, a stale plan) whose message is safe to show as is;
anything else escaping the engine is a bug. Messages never contain a secret.
"""

from __future__ import annotations


class MemLensError(Exception):
    """A problem the user can act on; ``str(err)`` is a complete one-line message."""


class InvalidInput(MemLensError):
    """An incoming fact, query or argument is malformed."""


class SecretRejected(InvalidInput):
    """A text looks like it carries a credential. Names the rule and position, never the value."""

    def __init__(self, rule: str, start: int, end: int) -> None:
        self.rule = rule
        self.start = start
        self.end = end
        super().__init__(f"looks like a secret ({rule}) at characters {start}-{end}; not stored")


class StoreError(MemLensError):
    """The memory file cannot be used: missing, not SQLite, locked, read-only or too new."""


class NotFound(MemLensError):
    """A fact or plan id that does not exist in this memory."""


class PlanError(MemLensError):
    """A plan cannot be applied: already applied, discarded, or its targets changed."""


class Conflict(MemLensError):
    """Something changed since the caller read it (a profile file edited elsewhere); read it again."""


class EmbeddingUnavailable(MemLensError):
    """The embedding model cannot be loaded; the engine never substitutes fake vectors."""
