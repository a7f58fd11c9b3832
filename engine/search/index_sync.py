"""The in-memory vector index of active facts, kept in step with the file.

Loaded once on first need; then this process's writes are applied from what they wrote
(no read-back of vectors just written), and other processes' writes from the change record
rebuilt from their journal rows, noticed cheaply through ``PRAGMA data_version``.

A large index is also saved beside the file (engine/search/index_file.py) and loaded from there
on the next open when it still matches the file, then caught up with the journal rows written
since; otherwise it is rebuilt from the file.

The text index (``TextIndex``, every fact's FTS5 tokens) is kept the same way: built from the
file on first search, then the facts each change record adds are read and appended before the
next search. Facts are never deleted and their text never changes, so adding is all it needs;
which facts are active is the vector index's business.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Callable, Iterable, Iterator

import numpy as np

from engine.changes import ChangeRecord
from engine.search import cache_check, index_file
from engine.search.text_index import TextIndex
from engine.search.vectors import VectorIndex, storage_dtype
from engine.store import fts_rows, vector_rows
from engine.store.connection import Store
from engine.store.decay import KIND_DECAY, decay_rate
from engine.store.fts_tokens import FtsTokenizer, splits_on_whitespace, tokenizer_spec
from engine.store.journal import chain_at, changes_between, high_water
from engine.store.migrations import LATEST_VERSION
from engine.store.records import fact_columns, vector_columns

# What an apply hands over besides its change record, so the index need not read back rows:
# inserted fact id -> (vector, last_reinforced, confidence, kind, batch, text length), and
# reinforced fact id -> (last_reinforced, confidence).
Inserted = dict[int, tuple[np.ndarray, float, float, str, int, int]]
Reinforced = dict[int, tuple[float, float]]


class IndexSync:
    """Owns the ``VectorIndex``; ``ready()`` returns it up to date with the file."""

    # A cache is saved again once this share of its rows changed since it was saved (the catch-up on the
    # next open reads each changed fact: ~10,000 at 1M, a fraction of a second).
    RESAVE_SHARE = 100
    QUIET_S = 2.0  # a background save waits for the index to go this long unwritten
    CATCH_UP_ROWS = 10_000  # journal rows a loaded cache is always caught up through (more: a quarter of its rows)

    def __init__(self, store: Store, model_id: Callable[[], str], default_dim: Callable[[], int],
                 cache_rows: Callable[[], int] = lambda: 0) -> None:
        self._store = store
        self._model_id = model_id
        self._default_dim = default_dim
        self._cache_rows = cache_rows  # indexes this large are saved beside the file (0: never)
        self.index: VectorIndex | None = None
        self.journal_mark = 0
        self.source = ""  # where the index was last loaded from: "cache" or "file"
        self.cache_note = ""  # why the cache was not used, when it was not
        self.cache_mark: int | None = None  # journal mark of the cache this process loaded or saved
        self._moved = 0  # facts changed since then
        self._saver: _CacheSave | None = None
        self._unsaved_version = -1  # the index version whose save last failed
        # Called by background builds between their chunks (``Memory.pace_background``).
        self.between_chunks: Callable[[], None] = lambda: None
        self._data_version = -1
        self.text_index: TextIndex | None = None
        self._build: _TextBuild | None = None
        self._text_added: list[int] = []  # facts written since the text index last looked
        # The saved index read by ``preload`` (without the guard), for ``ready`` to vet and adopt.
        self._preloaded: tuple[VectorIndex, dict] | None = None
        self._preloading = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self.index is not None

    def drop(self) -> None:
        """Forget the loaded indexes; the next search loads them again from the file."""
        self.index = self._preloaded = None
        self.text_index = self._build = None

    def preload(self) -> None:
        """Read the saved index from its file, WITHOUT the store guarded (the read touches no SQLite: at
        1M it takes seconds, and searches from other threads should not wait for it); ``ready`` vets
        it against the file before using it, as it vets a cache it reads itself."""
        if self.index is not None or self._cache_rows() <= 0:
            return
        with self._preloading:
            if self._preloaded is None:
                try:
                    self._preloaded = index_file.read(index_file.cache_path(self._store.path), {}, lambda _h: None)
                except index_file.Unusable:
                    pass  # ``ready`` reads it again and notes why it is not used

    def ready(self) -> VectorIndex:
        """Call with the store guarded: the index, loaded once and then kept in step."""
        db = self._store.db
        if self.index is None:
            # The commonest length among a few vectors: one damaged BLOB must not set the index's width.
            lengths = Counter(vector_rows.sample_lengths(db, self._model_id()))
            dim = lengths.most_common(1)[0][0] // 4 if lengths else self._default_dim()
            if not self._load_cache(dim):
                self.journal_mark = high_water(db)
                self._data_version = self._store.data_version()
                self.index = VectorIndex(dim)
                self._load_all()
                self.source, self.cache_mark = "file", None
                self._save_later()
        elif self._store.data_version() != self._data_version:
            self.catch_up()
        return self.index

    def catch_up(self) -> ChangeRecord:
        """Apply writes made since the last look (by any process), as their change record.

        The mark and the data version move only once the facts are reloaded: a catch-up cut short (an
        interrupt, a damaged row) is then done again on the next look, instead of being taken as done
        and saved so in the cache, where every later open would trust it.
        """
        version = self._store.data_version()
        record = changes_between(self._store.db, self.journal_mark)
        if not record.empty:
            self._reload(record.facts)
            self.journal_mark = record.journal_last
            self._note_added(record)
            self._moved += len(record.facts)
            self._save_later()
        self._data_version = version
        return record

    def _note_added(self, record: ChangeRecord) -> None:
        if self.text_index is not None or self._build is not None:
            self._text_added += record.facts_added

    def text(self, wait: bool = False) -> TextIndex | None:
        """Call with the store guarded, after ``ready``: every fact's text, or None while it is being built.

        The first call starts building it from the file in a thread of its own (a
        second, read-only connection; ~1 s of work at 100k facts, which would
        double a cold start); until it is done, searches use FTS5, which gives
        the same results. ``wait`` waits for the build. Once built, facts added
        since are read and appended here.
        """
        if self.text_index is None:
            if self._build is None:
                spec = tokenizer_spec(self._store.db)
                if not splits_on_whitespace(spec):
                    return None  # a tokenizer the index cannot follow: FTS5 answers
                self._text_added = []
                self._build = _TextBuild(self._store, FtsTokenizer(spec), lambda: self.between_chunks())
                self._build.start()
            if wait:
                self._build.join()
            if self._build.is_alive() or self._build.error is not None:
                return None  # building, or it failed (the file went away): FTS5 answers
            self.text_index, self._build = self._build.index, None
        if self._text_added:
            db, index, added = self._store.db, self.text_index, self._text_added
            self._text_added = []
            rows = fts_rows.fact_texts_after(db, index.mark)
            # Ids are handed out in order, but a restore may write a lower id than one already indexed.
            lower = [fid for fid in added if fid <= index.mark]
            if lower:
                missing = [fid for fid, known in zip(lower, index.has(lower)) if not known]
                rows += [(fid, row["text"]) for fid, row in fact_columns(db, missing, "text").items()]
                rows.sort(key=lambda r: r[0])
            index.add([r[0] for r in rows], [r[1] for r in rows])
        return self.text_index

    def apply(self, record: ChangeRecord, inserted: Inserted | None = None,
              reinforced: Reinforced | None = None) -> None:
        """This process's write: ``record`` says which facts changed; ``inserted`` and ``reinforced``
        carry rows already in hand, so only the rest is read back."""
        self._note_added(record)
        if self.index is None:
            return
        changed = {*record.facts_status_changed}  # e.g. inserted, then superseded in the same plan
        known = {fid: row for fid, row in (inserted or {}).items() if fid not in changed}
        fresh = {fid: v for fid, v in (reinforced or {}).items() if fid not in changed}
        for fid in known.keys() & fresh.keys():  # inserted, then reinforced by a later item
            vector, _, _, kind, batch, chars = known[fid]
            known[fid] = (vector, *fresh.pop(fid), kind, batch, chars)
        # In the order a full reload used (inserted, deactivated, touched): it decides the index's row order.
        ordered = [*record.facts_added, *record.facts_status_changed,
                   *[f for f in record.facts_touched if f not in fresh]]
        self._reload([fid for fid in dict.fromkeys(ordered) if fid not in known])
        self._add_inserted(known)
        self._refresh_reinforced(fresh)
        if record.journal_first == self.journal_mark + 1:
            # Nothing between the mark and this write: the index now reflects the journal up to its end.
            # (After another process's write in between, the mark stays for ``catch_up`` to start from.)
            self.journal_mark = record.journal_last
        self._moved += len(record.facts)
        self._save_later()

    def _load_all(self) -> None:
        """Every active vector of the current model, read in chunks straight into the index."""
        model_id, vector_bytes = self._model_id(), 4 * self.index.dim
        # Room for every active fact, counted on the status index: exact would read every row (0.1 s at 100k).
        total = vector_rows.active_count(self._store.db)

        def chunks() -> Iterator[tuple[list[int], bytes, list[tuple]]]:
            cursor = vector_rows.active_vectors(self._store.db, model_id, vector_bytes)
            # Small chunks: 8,192 rows of 1.5 KB at a time left ~30 MB of freed heap resident at 100k.
            while rows := cursor.fetchmany(1024):
                yield ([r[0] for r in rows], b"".join(r[1] for r in rows),
                       [(r[2], r[3], decay_rate(r[4]), r[5], r[6]) for r in rows])

        self.index.fill(total, chunks())

    def _reload(self, fact_ids: Iterable[int]) -> None:
        """Bring these facts' rows of the index in line with the file."""
        rows = vector_columns(self._store.db, fact_ids,
                              "status, embedding_model, last_reinforced, confidence, kind, "
                              "coalesce(plan_id, -facts.id) AS batch, length(text) AS chars")
        ids, vectors, meta, gone = [], [], [], []
        model_id = self._model_id()
        for fact_id, row in rows.items():
            blob = row["embedding"]
            # A damaged BLOB or another model's vector must not break search for the rest.
            if (row["status"] != "active" or blob is None or row["embedding_model"] != model_id
                    or len(blob) != 4 * self.index.dim):
                gone.append(fact_id)
                continue
            ids.append(fact_id)
            vectors.append(np.frombuffer(blob, dtype=np.float32))
            meta.append((row["last_reinforced"], row["confidence"], decay_rate(row["kind"]), row["batch"], row["chars"]))
        self.index.remove(gone)
        if ids:
            self.index.add(ids, np.stack(vectors), np.asarray(meta))

    def _add_inserted(self, rows: Inserted) -> None:
        """Index facts this process just inserted, from what it wrote rather than by reading them back."""
        usable = {fid: row for fid, row in rows.items() if len(row[0]) == self.index.dim}
        self._reload(fid for fid in rows if fid not in usable)  # a vector of another width: as ``_reload`` decides
        if usable:
            self.index.add(list(usable), np.stack([row[0] for row in usable.values()]),
                           np.asarray([(last, confidence, decay_rate(kind), batch, chars)
                                       for _, last, confidence, kind, batch, chars in usable.values()]))

    def _refresh_reinforced(self, reinforced: Reinforced) -> None:
        """New (last_reinforced, confidence) of facts whose vectors did not change: no BLOB read back."""
        if not reinforced:
            return
        ids = list(reinforced)
        rows = self.index.rows_or_missing(np.asarray(ids, dtype=np.int64))
        kept = [fid for fid, row in zip(ids, rows.tolist()) if row >= 0]
        self._reload([fid for fid, row in zip(ids, rows.tolist()) if row < 0])  # not indexed: as any change
        self.index.set_ranking(kept, [reinforced[fid] for fid in kept])

    # -- the cache beside the file (engine/search/index_file.py) -----------------------------------
    def _load_cache(self, dim: int) -> bool:
        """Load the saved index if it matches the file, and catch it up; False when there is none to trust."""
        if self._cache_rows() <= 0:
            return False
        expected, trust = self._cache_terms(dim)
        with self._preloading:  # a preload under way is waited for, not read twice
            preloaded, self._preloaded = self._preloaded, None
        try:
            if preloaded is not None:
                index_file.vet(preloaded[1], expected, trust)
                self.index, header = preloaded
            else:
                self.index, header = index_file.read(index_file.cache_path(self._store.path), expected, trust)
        except index_file.Unusable as why:
            self.cache_note = str(why)
            return False
        self.source, self.cache_note = "cache", ""
        self.journal_mark = self.cache_mark = header["journal_mark"]
        self._moved = 0
        try:
            self.catch_up()
        except BaseException:
            self.index = None  # half caught up: the next look starts over
            raise
        if cache_check.disagreeing(self.index, self._store.db, self._model_id(), cache_check.sample(len(self.index))):
            self.index, self.cache_note = None, "its rows disagree with the file (edited?)"
            return False
        return self._narrow_enough(dim)

    def cache_disagreement(self) -> str | None:
        """For ``verify``: the saved cache compared with the file row by row, and what is wrong if it
        would be used and does not say what the file says (None: no cache, one not used, or it agrees)."""
        path = index_file.cache_path(self._store.path)
        if self._cache_rows() <= 0 or not (path.exists() or path.is_symlink()):
            return None
        db, model_id = self._store.db, self._model_id()
        lengths = Counter(vector_rows.sample_lengths(db, model_id))
        dim = lengths.most_common(1)[0][0] // 4 if lengths else self._default_dim()
        expected, trust = self._cache_terms(dim)
        try:
            index, header = index_file.read(path, expected, trust)
        except index_file.Unusable:
            return None  # not trusted, so not used: an open rebuilds from the file
        changed = set(changes_between(db, header["journal_mark"]).facts)
        bad = cache_check.disagreeing(index, db, model_id, np.arange(len(index)), changed)
        backed = set(vector_rows.active_ids_with_vectors(db, model_id, 4 * dim))
        missing = backed - set(index.ids.tolist()) - changed
        if not bad and not missing:
            return None
        return (f"{len(bad)} of its rows disagree with the file and {len(missing)} active facts are missing from "
                f"it (edited outside MemLens?); delete {path.name} and the next open rebuilds it")

    def _cache_terms(self, dim: int) -> tuple[dict, Callable[[dict], str | None]]:
        """What a cache must match to be used, and the check of its journal mark."""
        db = self._store.db
        high = high_water(db)

        def trust(header: dict) -> str | None:
            mark = header["journal_mark"]
            if not isinstance(mark, int) or mark > high:
                return "ahead of the file's journal (the file was restored from an older copy?)"
            if mark <= 0 or chain_at(db, mark) != header["journal_chain"]:
                return "made from another journal (another memory, or a copy restored over this one)"
            # Catching up reads each changed fact by id, several times slower per fact than a rebuild's scan.
            if high - mark > max(self.CATCH_UP_ROWS, header["index"]["rows"] // 4):
                return "too far behind the file: rebuilding is quicker than catching up"
            return None

        return {"model": self._model_id(), "dim": dim, "schema": LATEST_VERSION, "decay": _decay_rates()}, trust

    def _narrow_enough(self, dim: int) -> bool:
        # A store grown past HALF_ROWS or INT8_ROWS since the save: rebuilt narrower, as a fresh open would
        # (counting the active rows instead costs 0.4 s at 1M; a narrower cache than needed is only smaller).
        if self.index.matrix.dtype.itemsize > storage_dtype(len(self.index), dim).itemsize:
            self.index, self.cache_note = None, "stored at a wider precision than this many rows take"
            return False
        return True

    def _worth_saving(self) -> bool:
        rows = self._cache_rows()
        index = self.index
        return (index is not None and rows > 0 and len(index) >= rows and not self._store.read_only
                and index.version != self._unsaved_version
                and (self.cache_mark is None or self._moved * self.RESAVE_SHARE > len(index)))

    def _save_later(self) -> None:
        """Save the index in the background once it has been left alone for ``QUIET_S``."""
        if self._worth_saving() and (self._saver is None or not self._saver.is_alive()):
            self._saver = _CacheSave(self)
            self._saver.start()

    def save(self, stop: threading.Event | None = None) -> bool:
        """Save the index beside the file as it is now (any thread; a write meanwhile, or ``stop``,
        abandons the save and keeps the previous cache). True when saved."""
        with self._store.lock:
            index = self.index
            if index is None or self._store.read_only:
                return False
            scalars, arrays = index.saved_state()
            version, mark, moved = index.version, self.journal_mark, self._moved
            chain = chain_at(self._store.db, mark)
        if chain is None:
            return False
        header = {"model": self._model_id(), "dim": index.dim, "schema": LATEST_VERSION, "decay": _decay_rates(),
                  "journal_mark": mark, "journal_chain": chain, "index": scalars}

        def unchanged() -> bool:
            return self.index is index and index.version == version and not (stop is not None and stop.is_set())

        if not index_file.write(index_file.cache_path(self._store.path), header, arrays, self._store.lock, unchanged):
            self._unsaved_version = version  # no new attempt (a full disk, a read-only folder) until it moves
            return False
        with self._store.lock:
            if self.index is index:
                self.cache_mark, self._moved = mark, self._moved - moved
        return True

    def close(self) -> None:
        """As the file closes: stop a background save, and save now if the index moved far from its cache."""
        saver, self._saver = self._saver, None
        if saver is not None:
            saver.stop.set()
            saver.join()
        try:
            if self._worth_saving():
                self.save()
        except Exception:  # noqa: BLE001 - a cache is never worth failing a close for (damaged file, disk)
            pass
        finally:
            # Freed now by reference count, not whenever a collector pass finds the closed memory
            # (the GUI freezes the collector's view of what is loaded).
            self.index = None
            self.text_index = self._build = None


def _decay_rates() -> dict[str, float]:
    """The per-kind decay each row's ranking columns hold: a cache made with other rates is not this code's."""
    return {kind: rate for kind, (rate, _) in sorted(KIND_DECAY.items())}


class _CacheSave(threading.Thread):
    """Saves the index beside the file once it has gone ``QUIET_S`` without a write (an import's
    chunks each change it, and each change would abandon a save under way)."""

    def __init__(self, sync: IndexSync) -> None:
        super().__init__(name="memlens-vector-cache", daemon=True)
        self.stop = threading.Event()
        self._sync = sync

    def run(self) -> None:
        try:
            while True:
                index = self._sync.index
                version = index.version if index is not None else None
                if self.stop.wait(self._sync.QUIET_S) or index is None:
                    return
                if self._sync.index is index and index.version == version:
                    break
            self._sync.save(self.stop)
        except Exception:  # noqa: BLE001 - the cache is an optimisation: without it the next open rebuilds
            return


class _TextBuild(threading.Thread):
    """Reads every fact's text through its own read-only connection, a chunk at a time, into a
    ``TextIndex``. Facts are never deleted nor their text changed, so chunks read in separate
    transactions add up to the file as of the last; what is written meanwhile reaches the index
    through the change records, like every later write."""

    # Texts per chunk: the chunk's Python holds the interpreter lock ~10-20 ms, the longest a window
    # painting beside it can be kept waiting once ``pause`` holds the build back.
    CHUNK = 1024

    def __init__(self, store: Store, tokenizer: FtsTokenizer, pause: Callable[[], None]) -> None:
        super().__init__(name="memlens-text-index", daemon=True)
        self.index = TextIndex(tokenizer.tokens)
        self.error: Exception | None = None
        self._store = store
        self._pause = pause

    def run(self) -> None:
        try:
            db = self._store.reader()
            try:
                while rows := fts_rows.fact_texts_after(db, self.index.mark, self.CHUNK):
                    self.index.add([r[0] for r in rows], [r[1] for r in rows])
                    self._pause()
            finally:
                db.close()
        except Exception as err:  # noqa: BLE001 - any failure leaves search on FTS5, which still works
            self.error = err
