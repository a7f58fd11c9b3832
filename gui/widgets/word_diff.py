"""Word-level difference between two versions of a fact, as HTML."""

from __future__ import annotations

import difflib
import html
import re

_TOKENS = re.compile(r"\s+|[^\s]+")
DELETED = "background:#fbe3e4;color:#9b1c1c;text-decoration:line-through"
INSERTED = "background:#e3f6e8;color:#14632f"


def word_diff_html(old: str, new: str) -> str:
    """``new`` with the words removed from ``old`` struck through and the added words highlighted."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(html.escape("".join(b[j1:j2])))
            continue
        if op in ("delete", "replace"):
            parts.append(f"<span style='{DELETED}'>{html.escape(''.join(a[i1:i2]))}</span>")
        if op in ("insert", "replace"):
            parts.append(f"<span style='{INSERTED}'>{html.escape(''.join(b[j1:j2]))}</span>")
    return "".join(parts)
