"""MemLens engine: the append-only memory archive, absorb pipeline and hybrid search.

Front ends (CLI, HTTP, MCP, GUI) use only the names exported here; import-linter contracts in
pyproject.toml hold them to it.
"""

from engine.absorb.pairs import PairDecision, classify_pairs
from engine.absorb.planner import RawItem
from engine.agents.connect import HERMES_CONFIG_LINE, Snippet, default_hermes_home, install_hermes_plugin
from engine.agents.connect import memlens_executable, use_profile_folder
from engine.agents.connect import snippets as connection_snippets
from engine.agents.profile import FILES as PROFILE_FILES
from engine.agents.profile import MAX_FILE_CHARS as PROFILE_MAX_FILE_CHARS
from engine.agents.profile import Profile, ProfileFile, ProfileVersion
from engine.agents.snapshot import MAX_CHARS as SNAPSHOT_MAX_CHARS
from engine.agents.snapshot import MIN_CHARS as SNAPSHOT_MIN_CHARS
from engine.agents.snapshot import MAX_SESSION_ID, Snapshot
from engine.changes import ChangeRecord
from engine.clock import Clock, fixed_clock, format_time, parse_time, system_clock
from engine.config import Settings, host_and_port, load_settings
from engine.errors import (Conflict, EmbeddingUnavailable, InvalidInput, MemLensError, NotFound, PlanError,
                           SecretRejected, StoreError)
from engine.graph.entity_graph import Entity, Relation
from engine.graph.queries import MAX_HOPS, GraphPath, Match, Neighbor, walk_text
from engine.history.audit import AuditFilter
from engine.history.reading import Reading
from engine.history.replay import Replay
from engine.history.timeline import ConfidenceCurve, Link, Timeline, Version
from engine.housekeeping.abstract import Report as AbstractReport
from engine.io.importers import IMPORT_FORMATS
from engine.io.jsonl import MAX_INPUT_BYTES, open_input, read_records
from engine.io.stream import ImportRun
from engine.memory import Memory
from engine.paths import config_path_for, default_memory_path
from engine.plans.curation import Contradiction, Edge
from engine.resources import resource_path
from engine.search.hybrid import Hit, SearchFilters
from engine.search.service import MAX_QUERY_CHARS, MAX_TOP_K, Timing
from engine.store.context import acting_as
from engine.store.plans import Plan, PlanItem, PlanSummary
from engine.store.records import Fact, JournalEntry
from engine.store.verify import Verification
from engine.vocabulary import (CHANGE_ACTIONS, CLASSIFICATIONS, EDGE_TYPES, ENTITY_TYPES, KINDS, LINK_TYPES, MAX_ID,
                               MAX_ITEMS, OUTCOMES, PLAN_STATUSES, READ_MODES, SCOPES, STATUSES)

__all__ = [
    "Memory", "Settings", "load_settings", "SearchFilters", "Hit", "Fact", "Plan", "PlanItem", "PlanSummary",
    "ImportRun", "MAX_ITEMS",
    "Reading", "JournalEntry", "RawItem", "OUTCOMES", "READ_MODES",
    "MemLensError", "InvalidInput", "SecretRejected", "StoreError", "NotFound", "PlanError", "EmbeddingUnavailable",
    "Timeline", "Version", "Link", "ConfidenceCurve", "KINDS", "SCOPES", "STATUSES",
    "resource_path", "default_memory_path", "config_path_for",
    "Entity", "Relation", "Neighbor", "Match", "GraphPath", "ENTITY_TYPES",
    "fixed_clock", "system_clock", "parse_time", "format_time",
    "Edge", "CHANGE_ACTIONS", "Contradiction", "AuditFilter",
    "Profile", "ProfileFile", "ProfileVersion", "Snapshot", "Conflict",
    "IMPORT_FORMATS", "ChangeRecord", "Replay", "LINK_TYPES", "Timing",
    "Verification", "classify_pairs", "PairDecision",
    # The vocabulary (engine/vocabulary.py) and the limits each face's schemas and choices show.
    "EDGE_TYPES", "PLAN_STATUSES", "CLASSIFICATIONS", "MAX_ID", "MAX_QUERY_CHARS", "MAX_TOP_K", "MAX_HOPS",
    "MAX_INPUT_BYTES", "MAX_SESSION_ID", "SNAPSHOT_MAX_CHARS", "SNAPSHOT_MIN_CHARS", "PROFILE_FILES",
    "PROFILE_MAX_FILE_CHARS",
    # What the faces (CLI, HTTP, MCP) need beyond the records: clocks, the server's address, JSONL input.
    "Clock", "host_and_port", "walk_text", "open_input", "read_records", "AbstractReport",
    # Connecting an agent: each client's configuration, and the Hermes Agent provider's installation.
    "Snippet", "connection_snippets", "memlens_executable", "install_hermes_plugin", "default_hermes_home",
    "HERMES_CONFIG_LINE", "use_profile_folder",
    # Who acts, when one Memory serves two faces in one process.
    "acting_as",
]
