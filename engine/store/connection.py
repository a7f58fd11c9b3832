"""Opening a memory file: checks, pragmas, migrations and transactions.

A memory is one SQLite file in WAL mode. Opening refuses, with a clear
message, anything that is not a MemLens memory, a schema newer than this
code, and a file that is locked; a read-only file opens read-only.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterator

from engine.errors import StoreError
from engine.store import in_use
from engine.store.migrations import LATEST_VERSION, migrate
from engine.store.reads import PendingReads, write_reads

BUSY_TIMEOUT_MS = 5000
OUR_TABLES = {"facts", "edges", "journal", "plans"}


def _check_file(path: Path) -> None:
    """Refuse what is plainly not a memory file, with ``stat`` alone: another open of the file
    would drop this process's SQLite locks on it if it is already open here (see ``in_use``);
    SQLite itself reads the header (``_schema_version``)."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a memory file")
    if not os.access(path, os.R_OK):
        raise StoreError(f"{path} cannot be read (permission denied)")


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    uri = f"file:{path.as_posix()}?mode={'ro' if read_only else 'rwc'}"
    db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                         timeout=BUSY_TIMEOUT_MS / 1000)
    db.row_factory = sqlite3.Row
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return db


def _schema_version(db: sqlite3.Connection, path: Path) -> int:
    try:
        # One read transaction, so one snapshot: read separately, another process's migration could
        # commit in between and its tables would show up beside the old version 0 ("another program").
        db.execute("BEGIN")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.execute("COMMIT")
    except sqlite3.DatabaseError as err:
        if "not a database" in str(err):
            raise StoreError(f"{path} is not a SQLite file, so it is not a MemLens memory") from None
        raise StoreError(f"{path} cannot be read as a SQLite database: {err}") from None
    if version > LATEST_VERSION:
        raise StoreError(f"{path} was written by a newer MemLens (schema {version}; "
                         f"this version reads up to {LATEST_VERSION}); upgrade MemLens to open it")
    if version == 0 and tables:
        raise StoreError(f"{path} is a SQLite database of another program, not a MemLens memory")
    if version > 0 and not OUR_TABLES <= tables:
        raise StoreError(f"{path} is not a MemLens memory (tables missing)")
    return version


class Store:
    """One open memory file. Thread-safe through one lock; the GUI's workers share it."""

    def __init__(self, path: Path, db: sqlite3.Connection, read_only: bool) -> None:
        self.path = path
        self.db = db
        self.read_only = read_only
        self.lock = threading.RLock()
        self.reads = PendingReads()
        self._registered = True  # in in_use's list from Store.open until the first close

    @classmethod
    def open(cls, path: Path | str, create: bool = True) -> "Store":
        path = Path(path).expanduser()
        exists = path.exists()
        if not exists and not create:
            raise StoreError(f"no memory at {path} (absorb or import something to create it)")
        if exists:
            _check_file(path)
        elif not path.parent.is_dir():
            raise StoreError(f"cannot create {path}: folder {path.parent} does not exist")
        # A file without write bits is read-only even for root: respect the owner's intent.
        read_only = exists and (not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222)
        db = None
        try:
            db = _connect(path, read_only)
            version = _schema_version(db, path)
            if version < LATEST_VERSION:
                if read_only:
                    raise StoreError(f"{path} is read-only and needs a schema upgrade; make it writable")
                db.execute("PRAGMA journal_mode = WAL")
                migrate(db, version)
            elif not read_only:
                db.execute("PRAGMA journal_mode = WAL")
            if not read_only:
                # In WAL mode NORMAL cannot corrupt the file; it only skips an fsync per commit.
                db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
        except BaseException as err:
            if db is not None:
                db.close()  # a file refused is not left open (nor its locks held) until collected
            if isinstance(err, sqlite3.OperationalError):
                raise StoreError(_explain(path, err)) from None
            if isinstance(err, sqlite3.DatabaseError):
                raise StoreError(f"{path} is damaged or not a SQLite database: {err}") from None
            raise
        in_use.register(path)
        return cls(path, db, read_only)

    def close(self) -> None:
        with self.lock:
            try:
                self.write_pending_reads()
                self.reads.take()  # what a busy or read-only file refused is dropped: the file is closing
                self.db.close()
            finally:
                if self._registered:
                    self._registered = False
                    in_use.unregister(self.path)

    def count_reads(self, fact_ids: list[int], at: float) -> None:
        """Note that these facts were read; the counters are written later (see ``engine/store/reads.py``)."""
        if fact_ids and not self.read_only:
            with self.lock:
                self.reads.note(fact_ids, at)
                if self.reads.due:
                    self.write_pending_reads()

    def write_pending_reads(self) -> None:
        """Write noted reads now, in their own transaction; a busy, full or read-only file keeps them noted."""
        if not self.reads or self.read_only or self.db.in_transaction:
            return
        try:
            with self.transaction():
                pass  # a write transaction writes pending reads first
        except (StoreError, sqlite3.DatabaseError):
            pass  # telemetry: they stay pending and go with the next write

    @contextlib.contextmanager
    def guard(self, reads_first: bool = True) -> Iterator[sqlite3.Connection]:
        """Hold the lock, and turn a damaged or vanished file into a clear ``StoreError``.

        Unless ``reads_first`` is false (searches), reads noted earlier are written
        first, so whatever the call reads or plans sees the counters up to date.
        """
        with self.lock:
            if reads_first and self.reads:
                self.write_pending_reads()
            try:
                yield self.db
            except sqlite3.IntegrityError:
                raise  # a broken rule is a bug, not a damaged file
            except sqlite3.OperationalError as err:
                raise StoreError(_explain(self.path, err)) from None
            except sqlite3.DatabaseError as err:
                raise StoreError(f"{self.path} is damaged: {err}; the rest of the file may still be "
                                 f"readable with 'sqlite3 .recover'") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; everything inside commits together or not at all."""
        if self.read_only:
            raise StoreError(f"{self.path} is read-only: nothing was written")
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                raise StoreError(_explain(self.path, err)) from None
            reads = self.reads.take()
            try:
                write_reads(self.db, reads)
                yield self.db
                self.db.execute("COMMIT")
            except BaseException as err:
                self.reads.put_back(reads)
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                if isinstance(err, sqlite3.OperationalError):
                    raise StoreError(_explain(self.path, err)) from None
                raise

    def reader(self) -> sqlite3.Connection:
        """A second, read-only connection to the file, for a thread that reads without the lock
        (the text index's build). The caller closes it."""
        return _connect(self.path, read_only=True)

    def data_version(self) -> int:
        """Changes when another connection commits; used to keep in-memory indexes in step."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]


def _explain(path: Path, err: sqlite3.OperationalError) -> str:
    text = str(err)
    if "locked" in text or "busy" in text:
        return f"{path} is locked by another program; try again when it is done"
    if "readonly" in text or "read-only" in text:
        return f"{path} is read-only: nothing was written"
    if "unable to open" in text:
        return f"cannot open {path}: check that the folder exists and is writable"
    if "disk" in text and "full" in text:
        return f"the disk holding {path} is full: nothing was written"
    if "disk I/O error" in text:
        return (f"the disk holding {path} reported an I/O error: nothing was written "
                f"(check the disk and its free space, then try again)")
    return f"{path}: {text}"
