"""The in-memory vector index of active facts, kept in step with the file.

Loaded once on first need; then this process's writes are applied from what they wrote
(no read-back of vectors just written), and other processes' writes from the change record
rebuilt from their journal rows, noticed cheaply through ``PRAGMA data_version``.

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
from engine.search.text_index import TextIndex
from engine.search.vectors import VectorIndex
from engine.store import fts_rows, vector_rows
from engine.store.connection import Store
from engine.store.decay import decay_rate
from engine.store.fts_tokens import FtsTokenizer, splits_on_whitespace, tokenizer_spec
from engine.store.journal import changes_between, high_water
from engine.store.records import fact_columns

# What an apply hands over besides its change record, so the index need not read back rows:
# inserted fact id -> (vector, last_reinforced, confidence, kind, batch, text length), and
# reinforced fact id -> (last_reinforced, confidence).
Inserted = dict[int, tuple[np.ndarray, float, float, str, int, int]]
Reinforced = dict[int, tuple[float, float]]


class IndexSync:
    """Owns the ``VectorIndex``; ``ready()`` returns it up to date with the file."""

    def __init__(self, store: Store, model_id: Callable[[], str], default_dim: Callable[[], int]) -> None:
        self._store = store
        self._model_id = model_id
        self._default_dim = default_dim
        self.index: VectorIndex | None = None
        self.journal_mark = 0
        self._data_version = -1
        self.text_index: TextIndex | None = None
        self._build: _TextBuild | None = None
        self._text_added: list[int] = []  # facts written since the text index last looked

    @property
    def loaded(self) -> bool:
        return self.index is not None

    def drop(self) -> None:
        """Forget the loaded indexes; the next search loads them again from the file."""
        self.index = None
        self.text_index = self._build = None

    def ready(self) -> VectorIndex:
        """Call with the store guarded: the index, loaded once and then kept in step."""
        db = self._store.db
        if self.index is None:
            self.journal_mark = high_water(db)
            self._data_version = self._store.data_version()
            # The commonest length among a few vectors: one damaged BLOB must not set the index's width.
            lengths = Counter(vector_rows.sample_lengths(db, self._model_id()))
            dim = lengths.most_common(1)[0][0] // 4 if lengths else self._default_dim()
            self.index = VectorIndex(dim)
            self._load_all()
        elif self._store.data_version() != self._data_version:
            self.catch_up()
        return self.index

    def catch_up(self) -> ChangeRecord:
        """Apply writes made since the last look (by any process), as their change record."""
        self._data_version = self._store.data_version()
        record = changes_between(self._store.db, self.journal_mark)
        if not record.empty:
            self.journal_mark = record.journal_last
            self._reload(record.facts)
            self._note_added(record)
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
                self._build = _TextBuild(self._store, FtsTokenizer(spec))
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
        rows = fact_columns(self._store.db, fact_ids,
                            "status, embedding, embedding_model, last_reinforced, confidence, kind, "
                            "coalesce(plan_id, -id) AS batch, length(text) AS chars")
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


class _TextBuild(threading.Thread):
    """Reads every fact's text through its own read-only connection, a chunk at a time, into a
    ``TextIndex``. Facts are never deleted nor their text changed, so chunks read in separate
    transactions add up to the file as of the last; what is written meanwhile reaches the index
    through the change records, like every later write."""

    CHUNK = 4096

    def __init__(self, store: Store, tokenizer: FtsTokenizer) -> None:
        super().__init__(name="memlens-text-index", daemon=True)
        self.index = TextIndex(tokenizer.tokens)
        self.error: Exception | None = None
        self._store = store

    def run(self) -> None:
        try:
            db = self._store.reader()
            try:
                while rows := fts_rows.fact_texts_after(db, self.index.mark, self.CHUNK):
                    self.index.add([r[0] for r in rows], [r[1] for r in rows])
            finally:
                db.close()
        except Exception as err:  # noqa: BLE001 - any failure leaves search on FTS5, which still works
            self.error = err
