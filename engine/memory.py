"""``Memory``: the one facade every front end (CLI, HTTP, MCP, GUI) calls.

It is composed of small services, each owning one capability, that share one ``Context``
(the open file, settings, clock, actor, embedding model): ``index`` (the vector index kept in
step with the file), ``planning`` (every write is a plan), ``housekeeping``, ``finder``
(search), ``reader`` (records and their past), ``entity_graph``, ``agent_files`` (profile and
snapshots) and ``transfers`` (export and import). Public methods delegate to them; every
write returns its plan with the change record of what it wrote (``plan.changes``).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from engine.absorb.classify import classify
from engine.absorb.classify_llm import LLMClassifier
from engine.agents.profile import Profile, ProfileVersion
from engine.agents.service import AgentFiles
from engine.agents.snapshot import Snapshot
from engine.changes import ChangeRecord
from engine.clock import Clock, system_clock
from engine.config import Settings
from engine.models.embeddings import Embedder
from engine.graph.entity_graph import Entity, Relation
from engine.graph.queries import GraphPath, Match, Neighbor
from engine.graph.service import GraphService
from engine.history import reading
from engine.history.audit import AuditFilter
from engine.history.timeline import ConfidenceCurve, Timeline
from engine.history.service import History
from engine.housekeeping.abstract import Report
from engine.housekeeping.service import Housekeeping
from engine.io.service import Transfers
from engine.io.stream import ImportRun
from engine.models.llm import LLMClient
from engine.history.replay import Replay
from engine.plans.acts import Curation
from engine.plans.curation import Contradiction, Edge
from engine.agents import profile as profile_files
from engine.plans.service import PlanService, Progress
from engine.search.hybrid import Hit, SearchFilters
from engine.search.index_sync import IndexSync
from engine.search.service import SearchService, Timing
from engine.store.connection import Store
from engine.store.context import Context
from engine.store.plans import Plan, PlanSummary
from engine.store.records import Fact, JournalEntry
from engine.store.verify import Problem, Verification
from engine.vocabulary import MAX_ITEMS
from engine.errors import InvalidInput


class Memory:
    """An open memory file. Use as a context manager, or call ``close()``."""

    def __init__(self, path: Path | str, settings: Settings | None = None, *, clock: Clock = system_clock,
                 actor: str = "api", embedder: Embedder | None = None, create: bool = True) -> None:
        new_file = create and not Path(path).expanduser().exists()
        self.store = Store.open(path, create=create)
        self.context = Context(self.store, settings or Settings(), clock, actor, embedder)
        if new_file and not self.context.settings.memory.profile_dir:
            profile_files.claim_own_folder(self.store.path)
        self._llm_client: LLMClient | None = None
        ctx = self.context
        self.index = IndexSync(self.store, lambda: ctx.model_id, ctx.default_dim,
                               lambda: ctx.settings.memory.vector_cache_rows)
        self.planning = PlanService(ctx, self.index, self._classifier)
        self.curation = Curation(ctx, self.planning)
        self.housekeeping = Housekeeping(ctx, self.index, self.planning, self._classifier, lambda: self.llm)
        self.finder = SearchService(ctx, self.index, lambda: self.llm)
        self.reader = History(ctx, self._vector_bytes)
        self.entity_graph = GraphService(ctx)
        self.agent_files = AgentFiles(ctx, self.search)
        self.transfers = Transfers(ctx, self.index, self.planning, self.agent_files)

    # -- lifecycle and shared state ----------------------------------------------------------------
    settings = property(lambda self: self.context.settings, lambda self, v: setattr(self.context, "settings", v))
    clock = property(lambda self: self.context.clock, lambda self, v: setattr(self.context, "clock", v))
    actor = property(lambda self: self.context.actor, lambda self, v: setattr(self.context, "actor", v))

    @property
    def path(self) -> Path:
        return self.context.path

    @property
    def read_only(self) -> bool:
        return self.context.read_only

    def close(self) -> None:
        try:
            self.index.close()
        finally:
            self.store.close()  # pending read counters and the connection, whatever the index did

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- models ----------------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return self.context.embedder

    @property
    def model_id(self) -> str:
        return self.context.model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.context.embed(texts)

    @property
    def llm(self) -> LLMClient:
        if self._llm_client is None:
            self._llm_client = LLMClient(self.settings.llm)
        return self._llm_client

    def llm_stats(self) -> dict[str, Any]:
        """Whether an LLM is configured, and how many calls were made and failed (by kind) so far."""
        return {"configured": self.llm.configured, **self.llm.stats}

    def _classifier(self) -> Callable[..., Any]:
        return LLMClassifier(self.llm) if self.llm.configured else classify

    def _vector_bytes(self) -> int:
        return 4 * (self.index.index.dim if self.index.loaded else self.context.default_dim())

    def warm_up(self, wait: bool = False) -> None:
        """Load the embedding model and the vector index now rather than on the first search, and
        start building the text index (front ends call it right after opening, while a person is
        still reading); ``wait`` also waits for the text index (benchmarks, tests)."""
        self.embed(["warm up"])  # the model first: its load peaks ~50 MB above where it settles
        # The saved index's file is read without the store's guard (seconds at 1M), so a text-first
        # search from another thread meanwhile is answered at once.
        self.index.preload()
        with self.store.guard():
            self.index.ready()
            self.index.text(wait=wait)
        # Last (~0.4 s): hybrid search is ready first; a search meanwhile waits for the re-ranker.
        self.finder.cross.preload(self.context.settings.memory)

    def pace_background(self, wait: Callable[[], None]) -> None:
        """``wait()`` is called between the chunks of work this memory does in threads of its own
        (building the text index from the file); it may block. A desktop front end makes it wait
        while a person scrolls or types, so that work's Python does not hold the interpreter lock
        while the window paints."""
        self.index.between_chunks = wait

    # -- writing: every write is a plan ----------------------------------------------------------
    def absorb(self, items: Iterable[Any], *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
               progress: Progress | None = None) -> Plan:
        """Plan the absorption of ``items`` (dicts, strings or ``RawItem``s); apply it unless ``dry_run``.

        A dry run stores the plan as a draft (so it can be shown and applied later) and writes
        nothing else. ``progress(done, total)`` is called as texts are embedded (the slow part);
        an exception it raises stops the absorb before anything is written.
        """
        items = list(items)
        if len(items) > MAX_ITEMS:
            raise InvalidInput(f"{len(items):,} items; absorb takes at most {MAX_ITEMS:,} at a time (as the HTTP "
                               f"API and MCP do): import a file for more (memlens import PATH)")
        return self.planning.absorb(items, dry_run=dry_run, defaults=defaults, progress=progress)

    def propose(self, changes: Sequence[dict[str, Any]], *, kind: str = "curate", note: str | None = None) -> Plan:
        """Validate hand-made changes and store them as a draft plan (nothing else is written).

        Each change is one of::

            {"action": "archive", "fact_id": N, "reason": "..."}
            {"action": "link", "type": "contradicts"|"related", "from_id": A, "to_id": B, "reason": "..."}
            {"action": "retag", "fact_id": N, "tags": ["a", "b"]}
            {"action": "supersede", "fact_id": N, "text": "...", ...any field absorb accepts}
            {"action": "prefer", "keep_id": A, "retire_id": B, "reason": "..."}  # B becomes A's older version

        Apply the plan with ``apply_plan(plan.id, only=[...])``. Bad input raises
        ``InvalidInput`` (or ``NotFound`` for an unknown fact) and stores nothing.
        """
        return self.planning.propose(changes, kind=kind, note=note)

    # -- curation acts: each a plan, applied unless dry_run ----------------------------------------
    def version_fact(self, fact_id: int, text: str, *, fields: dict[str, Any] | None = None,
                     reason: str | None = None, dry_run: bool = False) -> Plan:
        """A new version of an active fact, keeping its scope, kind, tags, source, entities and
        relations unless ``fields`` says otherwise; the old one becomes superseded."""
        return self.curation.version(fact_id, text, fields=fields, reason=reason, dry_run=dry_run)

    def archive_fact(self, fact_id: int, *, reason: str | None = None, dry_run: bool = False) -> Plan:
        return self.curation.archive(fact_id, reason=reason, dry_run=dry_run)

    def tag_fact(self, fact_id: int, *, add: Sequence[str] = (), remove: Sequence[str] = (),
                 dry_run: bool = False) -> Plan:
        return self.curation.tag(fact_id, add=add, remove=remove, dry_run=dry_run)

    def link_facts(self, from_id: int, to_id: int, link_type: str, *, reason: str | None = None,
                   dry_run: bool = False) -> Plan:
        """A ``contradicts`` or ``related`` edge between two active facts."""
        return self.curation.link(from_id, to_id, link_type, reason=reason, dry_run=dry_run)

    def resolve_contradiction(self, fact_id: int, other_id: int, keep: int | str, *, reason: str | None = None,
                              dry_run: bool = False) -> Plan:
        """``keep`` one of an open contradicting pair (the other becomes its older version), or "both"."""
        return self.curation.resolve(fact_id, other_id, keep, reason=reason, dry_run=dry_run)

    def revert_plan(self, plan_id: int, *, dry_run: bool = False) -> Plan:
        """A new plan undoing an applied plan's effects by new records; nothing is deleted."""
        return self.curation.revert(plan_id, dry_run=dry_run)

    def plan(self, plan_id: int) -> Plan:
        return self.planning.get(plan_id)

    def plans(self, status: str | None = None, limit: int = 200) -> list[PlanSummary]:
        return self.planning.list(status, limit)

    def apply_plan(self, plan_id: int, only: list[int] | None = None) -> Plan:
        """Apply a stored draft plan (or ``only`` some of its items) in one transaction."""
        return self.planning.apply(plan_id, only)

    def discard_plan(self, plan_id: int) -> Plan:
        return self.planning.discard(plan_id)

    def consolidate(self, *, dry_run: bool = False) -> Plan:
        """Archive active facts whose decayed confidence is below ``[memory] archive_below``."""
        return self.housekeeping.consolidate(dry_run=dry_run)

    def gc(self, *, dry_run: bool = False) -> Plan:
        """Three labelled stages: expire past TTL, archive stale unread run facts, compact big tag groups."""
        return self.housekeeping.gc(dry_run=dry_run)

    def distill(self, *, session_id: str | None = None, dry_run: bool = False) -> Plan:
        """Re-absorb run facts of finished sessions (or of ``session_id``) as agent knowledge."""
        return self.housekeeping.distill(session_id=session_id, dry_run=dry_run)

    def abstract(self, *, min_cluster: int = 3, dry_run: bool = False) -> Report:
        """Derive at most two facts per cluster of same-subject facts (needs the LLM; DESIGN §7).

        Without an LLM every cluster is reported skipped and nothing is written.
        """
        return self.housekeeping.abstract(min_cluster=min_cluster, dry_run=dry_run)

    # -- moving memories in and out --------------------------------------------------------------
    def export(self, stream: IO[str]) -> int:
        """Write every fact (all statuses) with its edges as JSONL; returns the number of facts."""
        return self.transfers.export(stream)

    def export_to(self, path: Path | str) -> int:
        """``export`` into a file (never a memory file or another SQLite database); returns the count."""
        return self.transfers.export_to(Path(path))

    def import_file(self, path: Path, *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
                    progress: Progress | None = None, cancel: Any = None, chunk_items: int | None = None,
                    chunk_chars: int | None = None, source_label: str | None = None) -> ImportRun:
        """Import JSONL: a MemLens export is restored as one ``import`` plan; any other file is absorbed in
        chunks of up to ``chunk_items`` items (``vocabulary.MAX_ITEMS``) or ``chunk_chars`` characters of
        text, each its own plan, applied before the next is read.

        ``progress(line, lines)``; ``cancel`` (a ``threading.Event`` or a callable returning True) stops
        between chunks, applied chunks staying applied. Running the same import again on the same file
        (resolved path or ``source_label``, size, SHA-256) skips the lines of chunks already applied.
        A dry run plans the first chunk not yet applied only (``ImportRun.more`` says lines remain).
        """
        return self.transfers.import_file(path, dry_run=dry_run, defaults=defaults, progress=progress,
                                          cancel=cancel, chunk_items=chunk_items, chunk_chars=chunk_chars,
                                          source_label=source_label)

    def import_steps(self, path: Path, *, defaults: dict[str, Any] | None = None, progress: Progress | None = None,
                     cancel: Any = None, chunk_items: int | None = None,
                     chunk_chars: int | None = None) -> Iterator[ImportRun]:
        """``import_file`` a chunk at a time, for a caller that shows each chunk as it lands: the run so
        far after each applied chunk, then the finished run. Use it from one thread; between two steps
        the memory takes other calls (each chunk is its own transaction). ``cancel`` is checked before
        each chunk, so a cancel ends the steps with the run saying ``cancelled``."""
        return self.transfers.import_steps(path, defaults=defaults, progress=progress, cancel=cancel,
                                           chunk_items=chunk_items, chunk_chars=chunk_chars)

    def import_from(self, fmt: str, path: Path | str, *, dry_run: bool = False,
                    defaults: dict[str, Any] | None = None, progress: Progress | None = None,
                    as_profile: bool = False, cancel: Any = None) -> Plan | ImportRun:
        """Bring in a file (or folder) written by another memory tool, as an absorb plan.

        ``fmt`` is one of ``IMPORT_FORMATS``: ``jsonl`` (``import_file``, so an ``ImportRun``; a MemLens
        export is restored exactly), ``hermes``, ``mem0`` or ``markdown``. ``as_profile`` (hermes only) also saves the files as
        this memory's MEMORY.md / USER.md unless ``dry_run``; it never overwrites other text. ``cancel``
        stops a JSONL import between chunks, as for ``import_file``.
        """
        return self.transfers.import_from(fmt, path, dry_run=dry_run, defaults=defaults, progress=progress,
                                          as_profile=as_profile, cancel=cancel)

    # -- finding ---------------------------------------------------------------------------------
    def search(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
               query_vector: np.ndarray | None = None, count_access: bool = True) -> list[Hit]:
        """Hybrid search; pass ``query_vector`` to skip embedding the query. ``count_access=False`` for a
        person browsing (the desktop app), as with ``get``: gc's "never read" is about agents."""
        return self.finder.search(query, top_k=top_k, filters=filters, query_vector=query_vector,
                                  count_access=count_access)

    def search_timed(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
                     query_vector: np.ndarray | None = None, count_access: bool = True,
                     text_first: bool = False) -> tuple[list[Hit], Timing]:
        """``search`` with where its time went (``Timing``: embed_ms, search_ms engine-only, total_ms).
        ``text_first``: while ``warm_up`` (in another thread) is still loading the model or the vector
        index, answer from the text alone at once; ``Timing.text_only`` then says so."""
        return self.finder.search_timed(query, top_k=top_k, filters=filters, query_vector=query_vector,
                                        count_access=count_access, text_first=text_first)

    @property
    def vectors_ready(self) -> bool:
        """Whether the embedding model and the vector index are loaded (a search would not wait for them)."""
        return self.finder.vectors_ready()

    def browse(self, filters: SearchFilters | None = None, order_by: str = "id", descending: bool = True) -> list[int]:
        """Ids of every fact passing ``filters`` (no query; see ``describe``), newest first unless
        ``order_by`` names another of "id", "created_at", "confidence" (stored, not decayed),
        "effective_confidence" (decayed to now, as a listing shows it), "scope", "kind", "status" or "text"
        (case-insensitive); ties go by id. InvalidInput otherwise."""
        return self.finder.browse(filters, order_by, descending)

    def describe(self, fact_ids: Sequence[int]) -> list[Hit]:
        """Hits for ids in the given order, with freshness and effective confidence but no score."""
        return self.finder.describe(fact_ids)

    # -- reading records and their past ----------------------------------------------------------
    def get(self, fact_id: int, mode: str = "active", *, count_access: bool = True) -> reading.Reading:
        """Read a fact by id. ``count_access=False`` for a person browsing: gc's "never read" is about
        agents using a fact, not someone looking at it."""
        return self.reader.get(fact_id, mode, count_access=count_access)

    def history(self, fact_id: int) -> reading.Reading:
        return self.reader.get(fact_id, "full_history")

    def facts(self, fact_ids: Iterable[int]) -> dict[int, Fact]:
        return self.reader.facts(fact_ids)

    def edges(self, fact_id: int) -> list[Edge]:
        """Every edge touching a fact, oldest first (``from_id`` -> ``to_id``); NotFound for an unknown id."""
        return self.planning.edges(fact_id)

    def contradictions(self, limit: int = 1000) -> list[Contradiction]:
        """The review queue: open contradicts pairs (both active, not settled as related), oldest first."""
        return self.planning.contradictions(limit)

    def contradiction_count(self) -> int:
        """How many open contradicting pairs there are (``contradictions`` lists at most ``limit``)."""
        return self.planning.contradiction_count()

    def run_sessions(self) -> list[tuple[str, float, bool]]:
        """(session id, last activity, finished) of every session with active run facts: what distill
        can take (the finished ones by default), least recent first."""
        return self.housekeeping.sessions()

    def timeline(self, fact_id: int) -> Timeline:
        """The fact's versions, the contradictions and related facts touching them, and each one's
        status changes over time, as drawn; ``timeline_as_of`` says what held at a moment."""
        return self.reader.timeline(fact_id)

    def timeline_as_of(self, fact_id: int, when: float | None = None) -> Replay:
        """The fact's versions, the one current and the contradictions open at ``when`` (now by
        default), replayed from recorded times: a later decision never changes an earlier answer."""
        return self.reader.replay(fact_id, when)

    def confidence_curve(self, fact_id: int, points: int = 200) -> ConfidenceCurve:
        """Effective confidence of a fact from creation to now, with its reinforcements."""
        return self.reader.confidence_curve(fact_id, points)

    def journal(self, fact_id: int | None = None, after_id: int = 0, limit: int = 200) -> list[JournalEntry]:
        return self.reader.journal(fact_id, after_id, limit)

    def poll(self, after_id: int, limit: int = 1000) -> tuple[list[JournalEntry], ChangeRecord]:
        """New journal rows after ``after_id`` from any process, with their change record; an idle
        poll costs one pragma. The desktop app's live view and ``memlens journal --follow`` use it."""
        return self.reader.poll(after_id, limit)

    def journal_high_water(self) -> int:
        """The id of the newest journal row (0 when empty): where a live view starts following."""
        return self.reader.high_water()

    def changes_since(self, journal_id: int) -> ChangeRecord:
        """What every write after journal row ``journal_id`` changed, by any process."""
        return self.reader.changes_since(journal_id)

    def audit(self, wanted: AuditFilter | None = None, limit: int = 500) -> list[JournalEntry]:
        """Journal entries matching ``wanted`` (action, actor, fact, plan, time range), newest first."""
        return self.reader.audit(wanted, limit)

    def audit_vocabulary(self) -> tuple[list[str], list[str]]:
        """(actions, actors) found in the journal."""
        return self.reader.audit_vocabulary()

    def stats(self, vectors: bool = True) -> dict[str, Any]:
        """Counts of facts (and by status), edges, entities and plans, from indexes; with ``vectors``,
        also ``needs_reembedding`` and ``damaged_vectors``, which read every fact (1M: 2 s), so a
        window opening a file asks for them apart (``vector_health_apart``)."""
        return self.reader.stats(vectors)

    def vector_health_apart(self) -> dict[str, int]:
        """``needs_reembedding`` and ``damaged_vectors`` of ``stats``, through a read-only connection of
        their own and without the file's lock, so other calls go on meanwhile."""
        return self.reader.vector_health_apart()

    def verify(self) -> Verification:
        """Integrity, content hashes, the journal's chain and the full-text index (``engine/store/verify.py``),
        and the vector cache beside the file against the file."""
        found = self.reader.verify()
        with self.store.guard():
            cache = self.index.cache_disagreement()
        return found.adding([Problem("cache", "vector cache", cache)]) if cache else found

    def verify_apart(self, stopped: Callable[[], bool] = lambda: False) -> Verification | None:
        """The checks of ``verify`` that only read (all but the full-text index's), through a read-only
        connection of their own and without the file's lock, so other calls on this memory go on
        meanwhile (a window stays usable while a big file is checked). None when ``stopped()`` became
        true first. ``verify_writing_checks`` gives the rest; ``Verification.adding`` joins them."""
        return self.reader.verify_apart(stopped)

    def verify_writing_checks(self) -> list[Problem]:
        """The checks of ``verify`` a read-only connection cannot run (the full-text index's), through
        this memory's own connection."""
        return self.reader.verify_writing_checks()

    def vector_problems(self, limit: int = 1000) -> list[tuple[int, str]]:
        """(fact id, what is wrong) for facts search cannot use: no vector, another model's, or a
        vector of the wrong length (damaged). Such facts stay readable; search skips them."""
        return self.reader.vector_problems(limit)

    # -- the entity graph ------------------------------------------------------------------------
    def graph_neighbors(self, name: str, *, type: str | None = None, hops: int = 1,
                        include_inactive: bool = False) -> list[Neighbor]:
        """Entities within ``hops`` (1-4) relations of the named entity, nearest first."""
        return self.entity_graph.neighbors(name, type=type, hops=hops, include_inactive=include_inactive)

    def graph_query(self, start: str, steps: Sequence[Any], *, type: str | None = None,
                    include_inactive: bool = False) -> list[Match]:
        """Entities reached from ``start`` by a typed path pattern of 1-4 steps.

        A step is ``"works_at"`` (forwards), ``"<works_at"`` (backwards), ``"*"`` (any type), each
        optionally ending in ``":company"`` to require the entity type reached. Who works at companies
        in Kazan: ``graph_query("Kazan", ["<located_in", "<works_at"])``.
        """
        return self.entity_graph.query(start, steps, type=type, include_inactive=include_inactive)

    def graph_path(self, a: str, b: str, *, include_inactive: bool = False) -> GraphPath | None:
        """A shortest path between two entities (any direction per hop), or None when unconnected."""
        return self.entity_graph.path(a, b, include_inactive=include_inactive)

    def graph_entities(self, *, include_inactive: bool = True) -> list[Entity]:
        return self.entity_graph.entities(include_inactive=include_inactive)

    def graph_relations(self, *, include_inactive: bool = True) -> list[Relation]:
        return self.entity_graph.relations(include_inactive=include_inactive)

    def fact_entities(self, fact_id: int) -> list[Entity]:
        """The entities a fact mentions (any status of the fact)."""
        return self.entity_graph.fact_entities(fact_id)

    def fact_relations(self, fact_id: int) -> list[Relation]:
        """The relations a fact justifies."""
        return self.entity_graph.fact_relations(fact_id)

    def entity_facts(self, entity_key: str) -> list[Fact]:
        """Every fact mentioning an entity (``"type:name"`` key, or an unambiguous name), newest first."""
        return self.entity_graph.entity_facts(entity_key)

    # -- the agent's profile and snapshots -------------------------------------------------------
    @property
    def profile_folder(self) -> Path:
        return self.agent_files.folder

    def profile(self) -> Profile:
        """MEMORY.md and USER.md as on disk now, each with the version to pass back when saving."""
        return self.agent_files.profile()

    def save_profile(self, name: str, text: str, expected_version: str) -> Profile:
        """Replace one profile file's text, atomically, if it is still at ``expected_version``.

        ``expected_version`` is the ``version`` of that file in the ``profile()`` the text was based
        on (``"absent"`` for a file not created yet). A file changed since raises ``Conflict`` and
        nothing is written; a secret raises ``SecretRejected``; a text over the budget is saved and
        the returned profile carries the warning. Saving the same text again journals nothing.
        """
        return self.agent_files.save(name, text, expected_version)

    def profile_versions(self, name: str) -> list[ProfileVersion]:
        """Every text saved to ``name`` through MemLens, oldest first (revision 1, 2, ...)."""
        return self.agent_files.versions(name)

    def snapshot(self, session_id: str, query: str | None = None, max_chars: int | None = None, *,
                 with_profile: bool = True) -> Snapshot:
        """The session's frozen digest: made and stored by the first call, the same bytes after.

        ``with_profile=False`` leaves the profile files out, for an agent that puts them in its prompt
        itself (Hermes Agent's own memory does)."""
        return self.agent_files.snapshot(session_id, query, max_chars, with_profile=with_profile)

    def preview_snapshot(self, query: str | None = None, max_chars: int | None = None) -> Snapshot:
        """What a new session's snapshot would be now; nothing is stored."""
        return self.agent_files.preview(query, max_chars)
