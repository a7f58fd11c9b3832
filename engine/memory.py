"""``Memory``: the one facade every front end (CLI, HTTP, MCP, GUI) calls.

It owns the SQLite store, the embedder (loaded on first need) and the
in-memory vector index of active facts. The index follows this process's own
writes directly and other processes' writes through the journal, checked
cheaply with ``PRAGMA data_version`` before each read.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from . import audit, browse, history, timeline, transfer, verify
from .absorb import AbsorbPlanner, RawItem
from .jsonl import open_input, read_records
from .apply import Changes, PlanWriter, check_fresh, select_items, target_rows
from .clock import Clock, system_clock
from .config import Settings
from .decay import decay_rate
from .embeddings import DEFAULT_DIM, Embedder, shared_embedder
from .errors import InvalidInput, NotFound, PlanError, StoreError
from .plans import INSERTING, Plan, PlanSummary, list_plans, load_plan, mark_plan, save_plan
from .records import Fact, JournalEntry, fact_columns, load_facts, read_journal
from .search import Hit, Searcher, SearchFilters
from .memory_graph import GraphMethods
from .memory_import import ImportMethods
from .memory_llm import LLMMethods
from .memory_plans import PlanMethods
from .memory_profile import ProfileMethods
from .store import Store
from .vectors import VectorIndex

MAX_TOP_K = 1000
MAX_QUERY_CHARS = 4000
ABSORB_ATTEMPTS = 5
PROGRESS_BATCH = 64  # texts embedded between progress reports (~0.15 s on two cores)
Progress = Callable[[int, int], None]  # plans refused because another process wrote meanwhile are re-made


class Memory(PlanMethods, GraphMethods, LLMMethods, ProfileMethods, ImportMethods):
    """An open memory file. Use as a context manager, or call ``close()``."""

    def __init__(self, path: Path | str, settings: Settings | None = None, *, clock: Clock = system_clock,
                 actor: str = "api", embedder: Embedder | None = None, create: bool = True) -> None:
        self.settings = settings or Settings()
        self.clock = clock
        self.actor = actor
        self._store = Store.open(path, create=create)
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._journal_mark = 0
        self._data_version = -1

    # -- lifecycle -------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self._store.path

    @property
    def read_only(self) -> bool:
        return self._store.read_only

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embeddings and the index ----------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = shared_embedder(self.settings.embedding.model, self.settings.embedding.batch_size)
        return self._embedder

    @property
    def model_id(self) -> str:
        return self._embedder.model_id if self._embedder is not None else self.settings.embedding.model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def _embedding_with(self, progress: Progress) -> Callable[[Sequence[str]], np.ndarray]:
        def embed(texts: Sequence[str]) -> np.ndarray:
            texts = list(texts)
            parts = []
            for start in range(0, len(texts), PROGRESS_BATCH):
                progress(start, len(texts))
                parts.append(self.embed(texts[start:start + PROGRESS_BATCH]))
            progress(len(texts), len(texts))
            return np.concatenate(parts) if parts else self.embed([])
        return embed

    def warm_up(self) -> None:
        """Load the embedding model and the vector index now rather than on the first search
        (front ends call it right after opening, while a person is still reading)."""
        self.embed(["warm up"])  # the model first: its load peaks ~50 MB above where it settles
        with self._store.guard():
            self._ready_index()

    def _load_all(self) -> None:
        """Every active vector of the current model, read in chunks straight into the index."""
        query = ("SELECT id, embedding, last_reinforced, confidence, kind, coalesce(plan_id, -id) FROM facts "
                 "WHERE status = 'active' "
                 "AND embedding_model = ? AND length(embedding) = ?")
        params = (self.model_id, 4 * self._index.dim)
        # Room for every active fact, counted on the status index: exact would read every row (0.1 s at 100k).
        total = self._store.db.execute("SELECT count(*) FROM facts WHERE status = 'active'").fetchone()[0]

        def chunks() -> Iterator[tuple[list[int], bytes, list[tuple]]]:
            cursor = self._store.db.execute(query, params)
            # Small chunks: 8,192 rows of 1.5 KB at a time left ~30 MB of freed heap resident at 100k.
            while rows := cursor.fetchmany(1024):
                yield ([r[0] for r in rows], b"".join(r[1] for r in rows),
                       [(r[2], r[3], decay_rate(r[4]), r[5]) for r in rows])

        self._index.fill(total, chunks())

    def _reload(self, fact_ids: Iterable[int]) -> None:
        """Bring these facts' rows of the index in line with the file."""
        rows = fact_columns(self._store.db, fact_ids,
                            "status, embedding, embedding_model, last_reinforced, confidence, kind, "
                            "coalesce(plan_id, -id) AS batch")
        ids, vectors, meta, gone = [], [], [], []
        for fact_id, row in rows.items():
            blob = row["embedding"]
            # A damaged BLOB or another model's vector must not break search for the rest.
            if (row["status"] != "active" or blob is None or row["embedding_model"] != self.model_id
                    or len(blob) != 4 * self._index.dim):
                gone.append(fact_id)
                continue
            ids.append(fact_id)
            vectors.append(np.frombuffer(blob, dtype=np.float32))
            meta.append((row["last_reinforced"], row["confidence"], decay_rate(row["kind"]), row["batch"]))
        self._index.remove(gone)
        if ids:
            self._index.add(ids, np.stack(vectors), np.asarray(meta))

    def _ready_index(self) -> VectorIndex:
        """The index of active vectors, loaded once and then kept in step."""
        db = self._store.db
        if self._index is None:
            self._journal_mark = db.execute("SELECT coalesce(max(id), 0) FROM journal").fetchone()[0]
            self._data_version = self._store.data_version()
            # The commonest length among a few vectors: one damaged BLOB must not set the index's width.
            lengths = Counter(r[0] for r in db.execute(
                "SELECT length(embedding) FROM facts WHERE status = 'active' AND embedding_model = ? "
                "AND embedding IS NOT NULL LIMIT 64", (self.model_id,)))
            dim = lengths.most_common(1)[0][0] // 4 if lengths else getattr(self._embedder, "dim", DEFAULT_DIM)
            self._index = VectorIndex(dim)
            self._load_all()
        elif self._store.data_version() != self._data_version:
            self._catch_up()
        return self._index

    def _catch_up(self) -> None:
        """Apply other processes' writes, found through the journal, to the index."""
        self._data_version = self._store.data_version()
        rows = self._store.db.execute("SELECT id, fact_id FROM journal WHERE id > ? ORDER BY id",
                                      (self._journal_mark,)).fetchall()
        if rows:
            self._journal_mark = rows[-1][0]
            self._reload(r[1] for r in rows if r[1] is not None)

    def _note_changes(self, changes: Changes) -> None:
        if self._index is None:
            return
        changed = {*changes.deactivated, *changes.touched}  # e.g. inserted, then superseded in the same plan
        known = {fid: row for fid, row in changes.inserted_rows.items() if fid not in changed}
        reinforced = {fid: v for fid, v in changes.reinforced.items() if fid not in changed}
        for fid in known.keys() & reinforced.keys():  # inserted, then reinforced by a later item
            vector, _, _, kind, batch = known[fid]
            known[fid] = (vector, *reinforced.pop(fid), kind, batch)
        # In the order a full reload used (inserted, deactivated, touched): it decides the index's row order.
        self._reload([fid for fid in (*changes.inserted, *changes.deactivated, *changes.touched) if fid not in known])
        self._add_inserted(known)
        self._refresh_reinforced(reinforced)

    def _add_inserted(self, rows: dict[int, tuple[np.ndarray, float, float, str, int]]) -> None:
        """Index facts this process just inserted, from what it wrote rather than by reading them back."""
        usable = {fid: row for fid, row in rows.items() if len(row[0]) == self._index.dim}
        self._reload(fid for fid in rows if fid not in usable)  # a vector of another width: as ``_reload`` decides
        if usable:
            self._index.add(list(usable), np.stack([row[0] for row in usable.values()]),
                            np.asarray([(last, confidence, decay_rate(kind), batch)
                                        for _, last, confidence, kind, batch in usable.values()]))

    def _refresh_reinforced(self, reinforced: dict[int, tuple[float, float]]) -> None:
        """New (last_reinforced, confidence) of facts whose vectors did not change: no BLOB read back."""
        if not reinforced:
            return
        ids = list(reinforced)
        rows = self._index.rows_or_missing(np.asarray(ids, dtype=np.int64))
        kept = [fid for fid, row in zip(ids, rows.tolist()) if row >= 0]
        self._reload([fid for fid, row in zip(ids, rows.tolist()) if row < 0])  # not indexed: as any change
        self._index.set_ranking(kept, [reinforced[fid] for fid in kept])

    # -- absorb and plans --------------------------------------------------------
    def absorb(self, items: Iterable[Any], *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
               progress: Progress | None = None) -> Plan:
        """Plan the absorption of ``items`` (dicts, strings or ``RawItem``s); apply it unless ``dry_run``.

        A dry run stores the plan as a draft (so it can be shown and applied later)
        and writes nothing else: no fact, edge, counter or journal entry. ``progress(done, total)``
        is called as texts are embedded (the slow part); an exception it raises stops the absorb
        before anything is written.
        """
        raw = [it if isinstance(it, RawItem) else RawItem(it) for it in items]
        embed = self.embed if progress is None else self._embedding_with(progress)
        with self._store.guard():
            for attempt in range(1, ABSORB_ATTEMPTS + 1):
                planner = AbsorbPlanner(self._store.db, self._ready_index(), embed, self.settings.memory,
                                        classifier=self._classifier())
                plan_items, vectors = planner.plan(raw, defaults or {})
                plan = Plan(None, "absorb", self.clock(), self.actor, "draft", plan_items)
                if self.read_only:
                    if not dry_run:
                        raise StoreError(f"{self.path} is read-only: nothing was written (a dry run still works)")
                    return plan
                with self._store.transaction() as db:
                    save_plan(db, plan)
                if dry_run:
                    return plan
                try:
                    return self._apply(plan, None, vectors)
                except PlanError:
                    # Another process wrote the same text (or touched a target) between planning and
                    # applying; nobody reviewed this plan, so plan again against the file as it is now.
                    # The refused plan stays in the file, marked refused.
                    if attempt == ABSORB_ATTEMPTS:
                        raise
        raise AssertionError("the loop above returns or raises")  # keeps type checkers sure of a return

    def plan(self, plan_id: int) -> Plan:
        with self._store.guard():
            return load_plan(self._store.db, plan_id)

    def plans(self, status: str | None = None, limit: int = 200) -> list[PlanSummary]:
        with self._store.guard():
            return list_plans(self._store.db, status, limit)

    def apply_plan(self, plan_id: int, only: list[int] | None = None) -> Plan:
        """Apply a stored draft plan (or ``only`` some of its items) in one transaction."""
        with self._store.guard():
            plan = load_plan(self._store.db, plan_id)
            self._ready_index()
            return self._apply(plan, only, {})

    def discard_plan(self, plan_id: int) -> Plan:
        with self._store.guard():
            plan = load_plan(self._store.db, plan_id)
            if plan.status != "draft":
                raise PlanError(f"plan {plan_id} is {plan.status}; only a draft plan can be discarded")
            with self._store.transaction() as db:
                mark_plan(db, plan, "discarded", self.clock())
            return plan

    def _apply(self, plan: Plan, only: list[int] | None, vectors: dict[int, np.ndarray]) -> Plan:
        selected = select_items(plan, only)
        now = self.clock()
        missing = [it for it in selected if it.incoming and it.index not in vectors and it.outcome in INSERTING]
        if missing:
            # Embedding is slow: refuse a stale plan before paying for it (checked again when writing).
            if problems := check_fresh(self._store.db, plan, selected):
                with self._store.transaction() as db:
                    mark_plan(db, plan, "refused", now, "; ".join(problems))
                raise _out_of_date(plan, problems)
            vectors = dict(vectors)
            for it, vector in zip(missing, self.embed([it.incoming["text"] for it in missing])):
                vectors[it.index] = vector
        with self._store.transaction() as db:
            # Checked inside the write transaction: nothing changes between the check and the write,
            # and the rows read for it are the ones reinforcements start from.
            targets = target_rows(db, selected)
            problems = check_fresh(db, plan, selected, targets)
            if problems:
                mark_plan(db, plan, "refused", now, "; ".join(problems))
            else:
                if plan.kind == "import":
                    changes = transfer.restore(db, plan, selected, vectors, self.model_id, now, self.actor)
                else:
                    changes = PlanWriter(db, plan, now, self.actor, self.model_id, self.settings.memory,
                                         vectors, targets).write(selected)
                plan.applied_indexes = [it.index for it in selected]
                mark_plan(db, plan, "applied", now)
        if problems:
            raise _out_of_date(plan, problems)
        self._note_changes(changes)
        return plan

    # -- moving memories in and out ---------------------------------------------
    def export(self, stream: IO[str]) -> int:
        """Write every fact (all statuses) with its edges as JSONL; returns the number of facts."""
        with self._store.guard():
            return transfer.write_export(stream, self._store.db, self.clock())

    def import_file(self, path: Path, *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
                    progress: Progress | None = None) -> Plan:
        """Import JSONL: a MemLens export is restored as an ``import`` plan; any other file is absorbed
        (``progress`` as for ``absorb``)."""
        with open_input(Path(path)) as stream:
            entries = list(read_records(stream))
        if not entries or not transfer.is_export_header(entries[0][1].value):
            return self.absorb([raw for _, raw in entries], dry_run=dry_run, defaults=defaults, progress=progress)
        records = [(k, raw.value, raw.error) for k, (_, raw) in enumerate(entries[1:])]
        with self._store.guard():
            items = transfer.plan_restore(self._store.db, records, self.settings.memory)
            plan = Plan(None, "import", self.clock(), self.actor, "draft", items)
            if self.read_only:
                raise StoreError(f"{self.path} is read-only: nothing was written")
            with self._store.transaction() as db:
                save_plan(db, plan)
            if not dry_run:
                self._ready_index()
                self._apply(plan, None, {})
            return plan

    # -- reading -----------------------------------------------------------------
    def search(self, query: str, *, top_k: int = 10, filters: SearchFilters | None = None,
               query_vector: np.ndarray | None = None) -> list[Hit]:
        """Hybrid search; pass ``query_vector`` to skip embedding the query."""
        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
        if any("\ud800" <= ch <= "\udfff" for ch in query):
            raise InvalidInput("query is not valid UTF-8 (a lone surrogate)")
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
        if not query.strip():
            return []
        filters = filters or SearchFilters()
        with self._store.guard(reads_first=False):  # a search's own reads are written in batches
            # The model before the index, so the model's load-time peak comes before the index's memory.
            vector = self.embed([query])[0] if query_vector is None else np.asarray(query_vector, np.float32)
            index = self._ready_index()
            if len(vector) != index.dim:
                raise InvalidInput(f"query vector has {len(vector)} dimensions; this memory uses {index.dim}")
            hits = Searcher(self._store.db, index, self.settings.memory).search(
                query, vector, self._pool_size(top_k), filters, self.clock())
            hits = self._rerank(query, hits, top_k)  # the LLM's order when [memory] rerank is on
            self._count_access([h.fact.id for h in hits])
        return hits

    def _count_access(self, fact_ids: list[int]) -> None:
        """Access counters feed gc; they are telemetry, written in batches (``engine/reads.py``)."""
        self._store.count_reads(fact_ids, self.clock())

    def get(self, fact_id: int, mode: str = "active") -> history.Reading:
        with self._store.guard():
            reading = history.read(self._store.db, fact_id, mode)
            self._count_access([f.id for f in reading.facts if f.id == fact_id or mode == "latest"])
            return reading

    def history(self, fact_id: int) -> history.Reading:
        return self.get(fact_id, "full_history")

    def facts(self, fact_ids: Iterable[int]) -> dict[int, Fact]:
        with self._store.guard():
            return load_facts(self._store.db, fact_ids)

    def browse(self, filters: SearchFilters | None = None) -> list[int]:
        """Ids of every fact passing ``filters``, newest first (no query; see ``describe``)."""
        with self._store.guard():
            return browse.matching_ids(self._store.db, filters or SearchFilters(), self.clock())

    def describe(self, fact_ids: Sequence[int]) -> list[Hit]:
        """Hits for ids in the given order, with freshness and effective confidence but no score."""
        found = self.facts(fact_ids)
        return browse.describe([found[i] for i in fact_ids if i in found], self.clock(), self.settings.memory)

    def timeline(self, fact_id: int) -> timeline.Timeline:
        """The fact's versions, the contradictions and related facts touching them, and each one's
        status changes over time (``Timeline.state_at`` for "as of" views)."""
        with self._store.guard():
            return timeline.build(self._store.db, fact_id)

    def confidence_curve(self, fact_id: int, points: int = 200) -> timeline.ConfidenceCurve:
        """Effective confidence of a fact from creation to now, with its reinforcements."""
        with self._store.guard():
            fact = load_facts(self._store.db, [fact_id]).get(fact_id)
            if fact is None:
                raise NotFound(f"there is no fact {fact_id} in this memory")
            return timeline.confidence_curve(self._store.db, fact, self.clock(), points)

    def journal(self, fact_id: int | None = None, after_id: int = 0, limit: int = 200) -> list[JournalEntry]:
        with self._store.guard():
            return read_journal(self._store.db, fact_id, after_id, limit)

    def audit(self, wanted: audit.AuditFilter | None = None, limit: int = 500) -> list[JournalEntry]:
        """Journal entries matching ``wanted`` (action, actor, fact, plan, time range), newest first."""
        with self._store.guard():
            return audit.entries(self._store.db, wanted or audit.AuditFilter(), limit)

    def audit_vocabulary(self) -> tuple[list[str], list[str]]:
        """(actions, actors) found in the journal."""
        with self._store.guard():
            return audit.vocabulary(self._store.db)

    def stats(self) -> dict[str, Any]:
        with self._store.guard():
            db = self._store.db
            statuses = Counter({s: n for s, n in db.execute("SELECT status, count(*) FROM facts GROUP BY status")})
            stale, damaged = db.execute(
                "SELECT coalesce(sum(embedding_model IS NOT ? OR embedding IS NULL), 0), "
                "coalesce(sum(embedding_model = ? AND length(embedding) != ?), 0) FROM facts",
                (self.model_id, self.model_id, self._vector_bytes())).fetchone()
            return {"path": str(self.path), "facts": sum(statuses.values()), "by_status": dict(statuses),
                    "edges": db.execute("SELECT count(*) FROM edges").fetchone()[0],
                    "entities": db.execute("SELECT count(*) FROM entities").fetchone()[0],
                    "plans": db.execute("SELECT count(*) FROM plans").fetchone()[0],
                    "embedding_model": self.model_id, "needs_reembedding": stale, "damaged_vectors": damaged,
                    "read_only": self.read_only}

    def verify(self) -> verify.Verification:
        """Integrity, content hashes, the journal's chain and the full-text index (``engine/verify.py``)."""
        with self._store.guard():
            return verify.check_file(self._store.db)

    def _vector_bytes(self) -> int:
        dim = self._index.dim if self._index is not None else getattr(self._embedder, "dim", DEFAULT_DIM)
        return 4 * dim

    def vector_problems(self, limit: int = 1000) -> list[tuple[int, str]]:
        """(fact id, what is wrong) for facts search cannot use: no vector, another model's, or a
        vector of the wrong length (damaged). Such facts stay readable; search skips them."""
        size = self._vector_bytes()
        with self._store.guard():
            rows = self._store.db.execute(
                "SELECT id, embedding_model, length(embedding) FROM facts WHERE embedding IS NULL "
                "OR embedding_model IS NOT ? OR length(embedding) != ? ORDER BY id LIMIT ?",
                (self.model_id, size, limit)).fetchall()
        found = []
        for fact_id, model, length in rows:
            if length is None:
                found.append((fact_id, "has no vector; it needs embedding"))
            elif model != self.model_id:
                found.append((fact_id, f"was embedded by {model or 'an unknown model'}, not {self.model_id}; "
                                       f"it needs re-embedding"))
            else:
                found.append((fact_id, f"its vector is damaged: {length} byte{'s' * (length != 1)}, "
                                       f"where {self.model_id} makes {size}"))
        return found


def _out_of_date(plan: Plan, problems: list[str]) -> PlanError:
    """The error for a plan refused because the store changed since it was made."""
    return PlanError(f"plan {plan.id} is out of date and was refused, nothing written: {problems[0]}"
                     + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
                     + "; make a new dry run")
