"""Quoting a name from input (a field, a key, a section) in an error message without leaking a value.

Error messages are printed, logged and stored with refused plan items. A key can itself be a
credential (``{"ghp_…": 1}``), so a name is quoted only when it is plainly a word.
"""

from __future__ import annotations

import re
from typing import Any

# Lower-case letters and underscores: every name MemLens defines has this shape, and a token
# almost never has (they carry digits, capitals or symbols).
_PLAIN_NAME = re.compile(r"[a-z][a-z_]{0,39}")


def shown_name(name: Any) -> str:
    """``'name'`` when it is a plain word, else ``(name not shown)``."""
    if isinstance(name, str) and _PLAIN_NAME.fullmatch(name):
        return f"'{name}'"
    return "(name not shown)"
