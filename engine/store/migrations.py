"""Named schema migrations, tracked with ``PRAGMA user_version``.

Each migration runs in its own transaction. The triggers here are what makes
the archive append-only even for someone with a raw SQL shell: no ``DELETE``
on any record table, a fact's identity (id, text, scope, created_at,
content_hash) can never be rewritten, and no row can be overwritten by
``INSERT OR REPLACE`` (version 3). Version 4 chains the journal's entries by hash; version 7
moves the vectors out of the facts rows into ``fact_vectors``.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, Iterator

from engine.vocabulary import EDGE_TYPES, ENTITY_TYPES, KINDS, PLAN_STATUSES, SCOPES, STATUSES


def _in(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


def _forbid_delete(table: str) -> str:
    return (
        f"CREATE TRIGGER {table}_never_deleted BEFORE DELETE ON {table} BEGIN "
        f"SELECT RAISE(ABORT, 'memlens: rows of {table} are never deleted'); END;"
    )


def _forbid_update(table: str, columns: tuple[str, ...], what: str) -> str:
    changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in columns)
    message = what.replace("'", "''")
    return (
        f"CREATE TRIGGER {table}_immutable BEFORE UPDATE ON {table} WHEN {changed} BEGIN "
        f"SELECT RAISE(ABORT, 'memlens: {message}'); END;"
    )


def create_archive() -> str:
    """Version 1: facts with FTS5, edges, entities, journal and plans."""
    statuses = _in(STATUSES)
    return f"""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN {_in(SCOPES)}),
            kind TEXT NOT NULL CHECK (kind IN {_in(KINDS)}),
            subject TEXT, predicate TEXT, object TEXT,
            confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
            importance REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
            tags TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN {statuses}),
            session_id TEXT,
            created_at REAL NOT NULL,
            last_reinforced REAL NOT NULL,
            last_accessed REAL,
            access_count INTEGER NOT NULL DEFAULT 0,
            reinforcement_count INTEGER NOT NULL DEFAULT 0,
            expires_at REAL,
            source TEXT,
            evidence TEXT NOT NULL DEFAULT '[]',
            metadata TEXT NOT NULL DEFAULT '{{}}',
            content_hash TEXT NOT NULL,
            embedding BLOB,  -- moved to fact_vectors by version 7
            embedding_model TEXT,
            plan_id INTEGER
        );
        CREATE INDEX facts_by_hash ON facts(content_hash, status);
        CREATE INDEX facts_by_status ON facts(status);
        CREATE INDEX facts_by_triple ON facts(subject, predicate) WHERE subject IS NOT NULL;
        CREATE VIRTUAL TABLE facts_fts USING fts5(
            text, content='facts', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER facts_index_text AFTER INSERT ON facts BEGIN
            INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
        END;
        {_forbid_delete("facts")}
        {_forbid_update("facts", ("id", "text", "scope", "created_at", "content_hash"),
                        "a fact's id, text, scope, created_at and content_hash are immutable")}

        -- Hashes of texts merged into a fact as its evidence, so they too die by hash later.
        CREATE TABLE text_aliases (
            content_hash TEXT NOT NULL,
            fact_id INTEGER NOT NULL REFERENCES facts(id),
            PRIMARY KEY (content_hash, fact_id)
        );
        {_forbid_delete("text_aliases")}

        CREATE TABLE edges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            src_id INTEGER NOT NULL REFERENCES facts(id),
            dst_id INTEGER NOT NULL REFERENCES facts(id),
            type TEXT NOT NULL CHECK (type IN {_in(EDGE_TYPES)}),
            created_at REAL NOT NULL,
            plan_id INTEGER,
            UNIQUE (src_id, dst_id, type)
        );
        CREATE INDEX edges_by_dst ON edges(dst_id);
        {_forbid_delete("edges")}
        {_forbid_update("edges", ("id", "src_id", "dst_id", "type", "created_at"), "edges are immutable")}

        CREATE TABLE entities (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            norm_name TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN {_in(ENTITY_TYPES)}),
            created_at REAL NOT NULL,
            UNIQUE (norm_name, type)
        );
        CREATE TABLE entity_mentions (
            fact_id INTEGER NOT NULL REFERENCES facts(id),
            entity_id INTEGER NOT NULL REFERENCES entities(id),
            PRIMARY KEY (fact_id, entity_id)
        );
        CREATE INDEX mentions_by_entity ON entity_mentions(entity_id);
        CREATE TABLE relations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            src_entity INTEGER NOT NULL REFERENCES entities(id),
            type TEXT NOT NULL,
            dst_entity INTEGER NOT NULL REFERENCES entities(id),
            fact_id INTEGER NOT NULL REFERENCES facts(id),
            created_at REAL NOT NULL,
            UNIQUE (src_entity, type, dst_entity, fact_id)
        );
        {_forbid_delete("entities")}
        {_forbid_delete("entity_mentions")}
        {_forbid_delete("relations")}

        CREATE TABLE journal (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            fact_id INTEGER,
            plan_id INTEGER,
            details TEXT NOT NULL DEFAULT '{{}}'
        );
        CREATE INDEX journal_by_fact ON journal(fact_id);
        {_forbid_delete("journal")}
        CREATE TRIGGER journal_immutable BEFORE UPDATE ON journal BEGIN
            SELECT RAISE(ABORT, 'memlens: the journal is append-only');
        END;

        CREATE TABLE plans (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            created_at REAL NOT NULL,
            actor TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN {_in(PLAN_STATUSES)}),
            items TEXT NOT NULL,
            summary TEXT NOT NULL,
            decided_at REAL,
            applied_items TEXT,
            note TEXT
        );
        {_forbid_delete("plans")}
        {_forbid_update("plans", ("id", "kind", "created_at", "items"), "a plan's items are immutable")}
        """


def add_sessions_and_profile() -> str:
    """Version 2: frozen session snapshots and the saved versions of the profile files (DESIGN §8).

    A snapshot is written once per session and then only read, so an agent's prompt prefix stays
    byte-identical; a profile version keeps the text each edit saved. Neither is ever changed.
    """
    return f"""
        CREATE TABLE session_snapshots (
            session_id TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            actor TEXT NOT NULL,
            query TEXT,
            max_chars INTEGER NOT NULL,
            text TEXT NOT NULL,
            cited TEXT NOT NULL DEFAULT '[]'
        );
        {_forbid_delete("session_snapshots")}
        CREATE TRIGGER session_snapshots_frozen BEFORE UPDATE ON session_snapshots BEGIN
            SELECT RAISE(ABORT, 'memlens: a session snapshot is frozen');
        END;
        CREATE TABLE profile_versions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            file TEXT NOT NULL,
            at REAL NOT NULL,
            actor TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX profile_versions_by_file ON profile_versions(file, id);
        {_forbid_delete("profile_versions")}
        CREATE TRIGGER profile_versions_immutable BEFORE UPDATE ON profile_versions BEGIN
            SELECT RAISE(ABORT, 'memlens: a saved profile version is immutable');
        END;
        """


def _forbid_overwrite(table: str, keys: tuple[tuple[str, ...], ...], action: str) -> str:
    """A BEFORE INSERT trigger for rows whose key (any of ``keys``) is taken.

    ``INSERT OR REPLACE`` deletes the old row without firing DELETE triggers (unless the
    connection turned on recursive_triggers, which a raw shell does not), so without this a
    REPLACE rewrites what the UPDATE and DELETE triggers protect. ``action`` is ABORT, or
    IGNORE for tables the engine itself writes with ``INSERT OR IGNORE``: the old row stays
    either way, and those inserts keep their meaning.
    """
    taken = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE " + " AND ".join(f"{c} = NEW.{c}" for c in key) + ")" for key in keys)
    message = f", 'memlens: a row of {table} with this key exists and is never replaced'" if action == "ABORT" else ""
    return (f"CREATE TRIGGER {table}_never_replaced BEFORE INSERT ON {table} WHEN {taken} BEGIN "
            f"SELECT RAISE({action}{message}); END;")


def forbid_replace() -> str:
    """Version 3: no append-only row can be replaced, by INSERT OR REPLACE or UPDATE OR REPLACE.

    UPDATE OR REPLACE deletes the row whose unique key an update collides with, so the key
    columns of the tables that had no UPDATE trigger are made immutable too.
    """
    return "\n".join([
        _forbid_overwrite("facts", (("id",),), "ABORT"),
        _forbid_overwrite("journal", (("id",),), "ABORT"),
        _forbid_overwrite("plans", (("id",),), "ABORT"),
        _forbid_overwrite("profile_versions", (("id",),), "ABORT"),
        _forbid_overwrite("entities", (("id",), ("norm_name", "type")), "ABORT"),
        _forbid_overwrite("edges", (("id",), ("src_id", "dst_id", "type")), "IGNORE"),
        _forbid_overwrite("text_aliases", (("content_hash", "fact_id"),), "IGNORE"),
        _forbid_overwrite("entity_mentions", (("fact_id", "entity_id"),), "IGNORE"),
        _forbid_overwrite("relations", (("id",), ("src_entity", "type", "dst_entity", "fact_id")), "IGNORE"),
        _forbid_overwrite("session_snapshots", (("session_id",),), "IGNORE"),
        _forbid_update("text_aliases", ("content_hash", "fact_id"), "text aliases are immutable"),
        _forbid_update("entities", ("id", "name", "norm_name", "type", "created_at"), "entities are immutable"),
        _forbid_update("entity_mentions", ("fact_id", "entity_id"), "entity mentions are immutable"),
        _forbid_update("relations", ("id", "src_entity", "type", "dst_entity", "fact_id", "created_at"),
                       "relations are immutable"),
    ])


def chain_the_journal(db: sqlite3.Connection) -> None:
    """Version 4: each journal entry stores a hash over the previous entry's hash and its own content.

    The hash is computed in Python (SQLite has no SHA-256), so existing rows get theirs here,
    with the append-only trigger lifted for this transaction only, and new rows when written
    (``journal_chain.append``). ``verify`` recomputes the chain.
    """
    from engine.store.journal_chain import chain_existing  # the chain's rules live with the chain

    db.execute("DROP TRIGGER journal_immutable")
    db.execute("ALTER TABLE journal ADD COLUMN chain TEXT")
    chain_existing(db)
    db.execute("CREATE TRIGGER journal_immutable BEFORE UPDATE ON journal BEGIN "
               "SELECT RAISE(ABORT, 'memlens: the journal is append-only'); END;")


def record_import_chunks() -> str:
    """Version 5: which part of which input file each import plan came from (issue 18).

    A long JSONL import is planned and applied in chunks, one plan each; a row here names the
    chunk's plan, the file (resolved path, size, SHA-256) and its line range, written in the
    same transaction as the plan. Re-running the import skips the lines of chunks whose plan
    is applied, so a killed or cancelled import resumes without reinforcing anything twice.
    """
    return f"""
        CREATE TABLE import_chunks (
            plan_id INTEGER PRIMARY KEY REFERENCES plans(id),
            source TEXT NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            first_line INTEGER NOT NULL,
            last_line INTEGER NOT NULL,
            items INTEGER NOT NULL
        );
        CREATE INDEX import_chunks_by_file ON import_chunks(sha256, size, source);
        {_forbid_delete("import_chunks")}
        CREATE TRIGGER import_chunks_immutable BEFORE UPDATE ON import_chunks BEGIN
            SELECT RAISE(ABORT, 'memlens: an import chunk record is immutable');
        END;
        {_forbid_overwrite("import_chunks", (("plan_id",),), "ABORT")}
        """


def index_edges_by_plan() -> str:
    """Version 6: edges found by the plan that wrote them.

    A change record lists the edges its plans added; without this index that lookup scans every
    edge, 0.17 s at 1M facts for each write another process makes while a window is open.
    """
    return "CREATE INDEX IF NOT EXISTS edges_by_plan ON edges(plan_id) WHERE plan_id IS NOT NULL;"


def move_vectors_out() -> str:
    """Version 7: a fact's vector in its own table, ``fact_vectors`` (issue 29).

    A vector is 1.5 KB of a ~2 KB facts row: every reinforcement, status change or retag
    rewrote it, every scan of the facts (hash lookups, verify, listing) read past it, and at 1M
    facts the table was 1.5 GB of vectors. A vector is written once, when its fact is; the
    table is append-only like the facts (never deleted, never replaced). ``verify``'s replay
    still checks each fact's vector against the digest its adding journal row recorded. The
    facts' ``embedding_model`` stays in the facts rows (what ``Fact`` shows; it never changes).
    Dropping the column rewrites the facts table once; the pages it frees are reused by later
    writes (the file does not shrink without a VACUUM).
    """
    return f"""
        CREATE TABLE fact_vectors (
            fact_id INTEGER PRIMARY KEY REFERENCES facts(id),
            vector BLOB NOT NULL
        );
        INSERT INTO fact_vectors (fact_id, vector) SELECT id, embedding FROM facts WHERE embedding IS NOT NULL;
        ALTER TABLE facts DROP COLUMN embedding;
        {_forbid_delete("fact_vectors")}
        {_forbid_overwrite("fact_vectors", (("fact_id",),), "ABORT")}
        """


Step = Callable[[], str] | Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Step]] = [
    ("create_archive", create_archive),
    ("add_sessions_and_profile", add_sessions_and_profile),
    ("forbid_replace", forbid_replace),
    ("chain_the_journal", chain_the_journal),
    ("record_import_chunks", record_import_chunks),
    ("index_edges_by_plan", index_edges_by_plan),
    ("move_vectors_out", move_vectors_out),
]
# Steps that run Python against the connection instead of returning a script.
_PYTHON_STEPS = {"chain_the_journal"}
LATEST_VERSION = len(MIGRATIONS)


def _statements(script: str) -> Iterator[str]:
    """A script's statements one by one (a trigger's body holds semicolons: SQLite says where each ends)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        yield pending  # incomplete: executing it reports the error


def migrate(db: sqlite3.Connection, current: int) -> None:
    """Apply every migration after ``current``, each in its own transaction."""
    for version, (name, step) in enumerate(MIGRATIONS, start=1):
        if version <= current:
            continue
        try:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("PRAGMA user_version").fetchone()[0] >= version:
                # Another process migrated while this one waited for the lock. Checked for every step:
                # a step that can run twice (CREATE INDEX IF NOT EXISTS) would otherwise succeed again
                # and set the version back below the steps the other process ran after it.
                db.execute("ROLLBACK")
                continue
            if name in _PYTHON_STEPS:
                step(db)  # type: ignore[call-arg]
            else:
                for statement in _statements(step()):  # type: ignore[call-arg]
                    db.execute(statement)  # not executescript: it would commit the open transaction first
            db.execute(f"PRAGMA user_version = {version}")
            db.execute("COMMIT")
        except BaseException as err:
            if db.in_transaction:
                db.execute("ROLLBACK")
            # Two processes opening an old (or new) file at once both see the old version; the
            # second one's script then fails on "already exists". That is not an error.
            if isinstance(err, sqlite3.OperationalError) and \
                    db.execute("PRAGMA user_version").fetchone()[0] >= version:
                continue
            raise
