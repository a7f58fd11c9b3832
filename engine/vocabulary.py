"""The words every face shares: scopes, kinds, statuses, read modes, plan outcomes, classifications,
change actions, edge and entity types. Defined once here; the store's CHECK constraints, validation,
the classifier, the CLI's choices, the HTTP schemas and the MCP tool schemas all take them from this
module, and faces read them through ``engine`` (``engine/__init__.py``)."""

from __future__ import annotations

SCOPES = ("agent", "user", "run")
KINDS = ("explicit", "user_preference", "episodic", "derived")
STATUSES = ("active", "superseded", "archived", "expired")
READ_MODES = ("active", "latest", "full_history")
PLAN_STATUSES = ("draft", "applied", "refused", "discarded")
OUTCOMES = ("duplicate", "supersede", "contradict", "related", "new", "merged", "rejected",
            "archive", "expire", "link", "retag", "prefer", "reactivate")
# What the absorb classifier (heuristic or LLM) decides for an incoming fact against the stored ones.
CLASSIFICATIONS = ("duplicate", "supersede", "contradict", "related", "new")
# Hand-made changes a face may propose (Memory.propose): each becomes a draft plan.
CHANGE_ACTIONS = ("archive", "link", "retag", "supersede", "prefer")
EDGE_TYPES = ("supersedes", "contradicts", "related", "derived_from", "distilled_from", "summarises")
ENTITY_TYPES = ("person", "company", "project", "technology", "role", "location", "event", "product")
# Edges a person or an agent may add by hand between two facts.
LINK_TYPES = ("contradicts", "related")
MAX_TAGS_PER_FILTER = 50
MAX_ITEMS = 1000  # items per absorb / import batch on every face (HTTP's limit)
MAX_ID = 2 ** 63 - 1  # SQLite's INTEGER range
