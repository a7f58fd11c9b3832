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
# Between texts tokenized together: a private-use character, a token of its own to unicode61 ("Co").
MARK = "\ue000"
_SPEC = re.compile(r"tokenize\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE)


def tokenizer_spec(db: sqlite3.Connection) -> str:
    """The ``tokenize=`` option ``facts_fts`` was created with."""
    row = db.execute("SELECT sql FROM sqlite_master WHERE name = 'facts_fts'").fetchone()
    found = _SPEC.search(row[0]) if row and row[0] else None
    return found.group(1).replace("''", "'") if found else DEFAULT_SPEC


def splits_on_whitespace(spec: str) -> bool:
    """Whether whitespace always separates tokens under ``spec``: so for unicode61 and ascii (porter
    over either, or alone: over unicode61) unless a ``tokenchars`` option could put a space in a
    token. The text index relies on it; with another tokenizer search keeps asking FTS5."""
    words = spec.lower().split()
    if words[:1] == ["porter"]:
        words = words[1:] or ["unicode61"]
    return bool(words) and words[0] in ("unicode61", "ascii") and "tokenchars" not in spec.lower()


class FtsTokenizer:
    """Texts -> their FTS5 tokens, in order, with the tokenizer ``spec``."""

    def __init__(self, spec: str = DEFAULT_SPEC) -> None:
        self.spec = spec
        self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE tok USING fts5(text, tokenize='{spec.replace(chr(39), chr(39) * 2)}')")
        self._db.execute("CREATE VIRTUAL TABLE tok_terms USING fts5vocab(tok, instance)")
        self._mark_token: str | None = None

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's tokens in document order (a text of separators only has none).

        Texts are written as one document, separated by a private-use character
        (a token character to ``unicode61``, so it comes out as a token of its own
        between them): one FTS5 row instead of one per text. A text that holds that
        character itself gets a row of its own.
        """
        found: list[list[str]] = [[] for _ in texts]
        if not texts:
            return found
        joined = [k for k, text in enumerate(texts) if MARK not in text]
        alone = [k for k, text in enumerate(texts) if MARK in text]
        rows = self._rows([f" {MARK} ".join(texts[k] for k in joined), *(texts[k] for k in alone)])
        marker = self._marker()
        k = 0
        for doc, _, term in rows:
            if doc > 0:
                found[alone[doc - 1]].append(term)
            elif term == marker:
                k += 1
            else:
                found[joined[k]].append(term)
        return found

    def _marker(self) -> str:
        if self._mark_token is None:
            tokens = [term for _, _, term in self._rows([MARK])]
            if len(tokens) != 1:
                raise RuntimeError(f"the tokenizer {self.spec!r} does not keep U+E000 as one token")
            self._mark_token = tokens[0]
        return self._mark_token

    def _rows(self, documents: Sequence[str]) -> list[tuple[int, int, str]]:
        """(document, offset, token) of every token, sorted. The rows are written in a transaction that
        is rolled back: the table is empty again, with no deleted entries for its vocabulary to scan."""
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO tok(rowid, text) VALUES (?, ?)", enumerate(documents))
            rows = db.execute("SELECT doc, offset, term FROM tok_terms").fetchall()
        finally:
            db.execute("ROLLBACK")
        rows.sort()
        return rows

    def close(self) -> None:
        self._db.close()
