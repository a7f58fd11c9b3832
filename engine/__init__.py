"""MemLens engine: the append-only memory archive, absorb pipeline and hybrid search.

Front ends (CLI, HTTP, MCP, GUI) use only the names exported here.
"""

from .absorb import RawItem
from .clock import fixed_clock, format_time, parse_time, system_clock
from .config import Settings, load_settings
from .curation import ACTIONS as CHANGE_ACTIONS
from .curation import Contradiction
from .audit import AuditFilter
from .curation import Edge
from .errors import (Conflict, EmbeddingUnavailable, InvalidInput, MemLensError, NotFound, PlanError, SecretRejected,
                     StoreError)
from .history import MODES as READ_MODES
from .history import Reading
from .memory import Memory
from .importers import IMPORT_FORMATS
from .profile import Profile, ProfileFile, ProfileVersion
from .snapshot import Snapshot
from .plans import OUTCOMES, Plan, PlanItem, PlanSummary
from .records import Fact, JournalEntry
from .search import Hit, SearchFilters
from .graph import Entity, Relation
from .graph_queries import GraphPath, Match, Neighbor
from .migrations import ENTITY_TYPES
from .timeline import AsOf, ConfidenceCurve, Link, Timeline, Version
from .decay import KINDS, SCOPES, STATUSES
from .resources import resource_path
from .paths import config_path_for, default_memory_path

__all__ = [
    "Memory", "Settings", "load_settings", "SearchFilters", "Hit", "Fact", "Plan", "PlanItem", "PlanSummary",
    "Reading", "JournalEntry", "RawItem", "OUTCOMES", "READ_MODES",
    "MemLensError", "InvalidInput", "SecretRejected", "StoreError", "NotFound", "PlanError", "EmbeddingUnavailable",
    "Timeline", "Version", "Link", "AsOf", "ConfidenceCurve", "KINDS", "SCOPES", "STATUSES",
    "resource_path", "default_memory_path", "config_path_for",
    "Entity", "Relation", "Neighbor", "Match", "GraphPath", "ENTITY_TYPES",
    "fixed_clock", "system_clock", "parse_time", "format_time",
    "Edge", "CHANGE_ACTIONS", "Contradiction", "AuditFilter",
    "Profile", "ProfileFile", "ProfileVersion", "Snapshot", "Conflict",
    "IMPORT_FORMATS",
]
