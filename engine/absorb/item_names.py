"""How a plan's reasons name an item of its batch: by the input line when there is one, else by its
position counted from one (``index`` stays the 0-based key ``plan apply --only`` takes), and a short
excerpt of a refused item's text that can be shown anywhere because nothing credential-like is left.
"""

from __future__ import annotations

import re
from typing import Any

from engine.absorb.secrets import find_secrets

EXCERPT_CHARS = 60
# Besides what the detector finds: any long run of token characters holding a digit, an inner
# capital or a symbol is hidden too. An excerpt only has to say which item it is, and a key the
# detector misses (a low-entropy body, a new vendor's prefix) must not reach a screen or a log.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_+/=.~:|@-]{16,}")
_NOT_A_WORD = re.compile(r"[0-9_+/=~|@:]|[a-z][A-Z]")
HIDDEN = "‹hidden›"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def item_name(index: int, line: int | None) -> str:
    """``line 12`` for an item read from a line of a file, else ``item 3 of this batch`` (from one)."""
    return f"line {line}" if line is not None else f"item {index + 1} of this batch"


def safe_excerpt(value: Any) -> str:
    """The start of an item's text with every credential-like run hidden, or '' without a text."""
    text = value.get("text") if isinstance(value, dict) else value
    if not isinstance(text, str) or not text.strip():
        return ""
    # Enough to read (the scan never runs over a huge text); a lone surrogate, which is what made the
    # item refused, cannot be stored or printed as UTF-8, so it shows as U+FFFD.
    text = _LONE_SURROGATE.sub("\ufffd", text[:4 * EXCERPT_CHARS])
    pieces, at = [], 0
    for finding in find_secrets(text):
        pieces += [text[at:finding.start], HIDDEN]
        at = finding.end
    pieces.append(text[at:])
    masked = _TOKEN_RUN.sub(lambda m: HIDDEN if _NOT_A_WORD.search(m.group()) else m.group(), "".join(pieces))
    shown = " ".join(masked.split())
    return shown if len(shown) <= EXCERPT_CHARS else shown[:EXCERPT_CHARS - 1].rstrip() + "…"


def refusal(index: int, line: int | None, message: str, value: Any) -> str:
    """A refused item's reason: where it is, why, and which text it was (``line 4: unknown field …``)."""
    where = f"{item_name(index, line)}: " if line is not None and not message.startswith(f"line {line}:") else ""
    excerpt = safe_excerpt(value)
    return f"{where}{message}" + (f" — “{excerpt}”" if excerpt else "")
