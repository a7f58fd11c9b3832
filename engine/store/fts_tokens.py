"""The full-text index's own tokenizer, run outside the file: what the in-memory text index is built from.

FTS5 offers no SQL function that tokenizes a string, so a private in-memory
database holds one FTS5 table declared with the file's tokenizer (read from
the file's schema) and an ``fts5vocab`` table over it: texts go in, their
tokens come out in order, and the table is emptied again. It is the same
SQLite library, so every token (case folding, diacritics, Porter stems, CJK
runs) is the one ``facts_fts`` holds. Nothing here touches the memory file.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Sequence

# The tokenizer of ``facts_fts`` since the first migration (engine/store/migrations.py).
DEFAULT_SPEC = "porter unicode61 remove_diacritics 2"
_SPEC = re.compile(r"tokenize\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE)


def tokenizer_spec(db: sqlite3.Connection) -> str:
    """The ``tokenize=`` option ``facts_fts`` was created with."""
    row = db.execute("SELECT sql FROM sqlite_master WHERE name = 'facts_fts'").fetchone()
    found = _SPEC.search(row[0]) if row and row[0] else None
    return found.group(1).replace("''", "'") if found else DEFAULT_SPEC


class FtsTokenizer:
    """Texts -> their FTS5 tokens, in order, with the tokenizer ``spec``."""

    def __init__(self, spec: str = DEFAULT_SPEC) -> None:
        self.spec = spec
        self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        quoted = "'" + spec.replace("'", "''") + "'"
        self._db.execute(f"CREATE VIRTUAL TABLE tok USING fts5(text, tokenize={quoted})")
        self._db.execute("CREATE VIRTUAL TABLE tok_terms USING fts5vocab(tok, instance)")

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's tokens in document order (a text of separators only has none)."""
        found: list[list[str]] = [[] for _ in texts]
        if not texts:
            return found
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO tok(rowid, text) VALUES (?, ?)", enumerate(texts))
            rows = db.execute("SELECT doc, offset, term FROM tok_terms").fetchall()
            db.execute("DELETE FROM tok")
        finally:
            db.execute("COMMIT")
        rows.sort()
        for doc, _, term in rows:
            found[doc].append(term)
        return found

    def close(self) -> None:
        self._db.close()
