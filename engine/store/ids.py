"""Range checks for ids arriving from outside (arguments, export files, HTTP bodies).

SQLite stores integers in 64 bits: a larger Python int raises ``OverflowError`` when bound,
and ids are never below 1. Checking at the door turns both into a one-line ``InvalidInput``.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

from engine.errors import InvalidInput

from engine.vocabulary import MAX_ID  # noqa: F401


def check_id(value: Any, what: str = "id") -> int:
    """``value`` as a row id, or ``InvalidInput`` naming ``what`` (never the value: it may be anything)."""
    if type(value) is int and 1 <= value <= MAX_ID:
        return value  # the usual case, without the ABC check below (~1 µs per id read)
    # Integral, not int: ids read from the vector index arrive as numpy integers.
    if isinstance(value, bool) or not isinstance(value, Integral) or not 1 <= value <= MAX_ID:
        raise InvalidInput(f"{what} must be a whole number from 1 to {MAX_ID}")
    return int(value)
