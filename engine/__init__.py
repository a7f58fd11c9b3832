"""MemLens engine: the append-only memory archive, absorb pipeline and hybrid search.

Front ends (CLI, HTTP, MCP, GUI) use only the names exported here.
"""

from engine.absorb.pairs import PairDecision, classify_pairs
from engine.absorb.planner import RawItem
from engine.agents.profile import Profile, ProfileFile, ProfileVersion
from engine.agents.snapshot import Snapshot
from engine.changes import ChangeRecord
from engine.clock import fixed_clock, format_time, parse_time, system_clock
from engine.config import Settings, load_settings
from engine.errors import (Conflict, EmbeddingUnavailable, InvalidInput, MemLensError, NotFound, PlanError,
                           SecretRejected, StoreError)
from engine.graph.entity_graph import Entity, Relation
from engine.graph.queries import GraphPath, Match, Neighbor
from engine.history.audit import AuditFilter
from engine.history.reading import Reading
from engine.history.replay import Replay
from engine.history.timeline import ConfidenceCurve, Link, Timeline, Version
from engine.io.importers import IMPORT_FORMATS
from engine.io.stream import ImportRun
from engine.memory import Memory
from engine.paths import config_path_for, default_memory_path
from engine.plans.curation import ACTIONS as CHANGE_ACTIONS
from engine.plans.curation import Contradiction, Edge
from engine.resources import resource_path
from engine.search.hybrid import Hit, SearchFilters
from engine.search.service import Timing
from engine.store.plans import Plan, PlanItem, PlanSummary
from engine.store.records import Fact, JournalEntry
from engine.store.verify import Verification
from engine.vocabulary import ENTITY_TYPES, KINDS, LINK_TYPES, MAX_ITEMS, OUTCOMES, READ_MODES, SCOPES, STATUSES

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
]
