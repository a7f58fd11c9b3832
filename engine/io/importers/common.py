"""What every importer shares: reading a file with a size cap, decoding one entry, the batch returned.

An importer never raises for one bad entry: the entry becomes a ``RawItem`` carrying an
error, which absorb turns into a rejected plan item with that message, so the rest of the
file goes on. Only a problem with the file as a whole (missing, unreadable, not the
format at all) raises. Error messages name a place (file, entry number, byte offset),
never the entry's text, because that text may be the secret absorb is about to reject.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.absorb.planner import RawItem
from engine.absorb.validation import secret_in
from engine.clock import parse_time
from engine.errors import InvalidInput
from engine.io.jsonl import open_input

# One file's cap: a mem0 dump of 100k memories is about 40 MB; a bigger file is more likely
# a wrong path (a database, a video) than notes, and would be read whole into memory.
MAX_FILE_BYTES = 64 << 20


@dataclass
class Batch:
    """What an importer found: absorb items in file order, and texts for the profile (hermes)."""

    items: list[RawItem] = field(default_factory=list)
    # Profile file name (MEMORY.md / USER.md) -> its text, or None when it cannot be decoded.
    profile: dict[str, str | None] = field(default_factory=dict)

    def add(self, value: dict) -> None:
        self.items.append(RawItem(value))

    def reject(self, message: str) -> None:
        self.items.append(RawItem(None, message))


def shown_label(label: str) -> str:
    """``label`` for an error message, unless the path in it looks like a secret (``notes/ghp_….md``)."""
    return label.split(":", 1)[0] + ": a file whose path looks like a secret" if secret_in(label) else label


def read_bytes(path: Path, cap: int = MAX_FILE_BYTES) -> bytes:
    """The whole file, or one clear error for a file that cannot be used at all."""
    with open_input(path, "file") as handle:
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise InvalidInput(f"{path} is larger than {cap >> 20} MB; split it before importing")
    return data


def decode(data: bytes, label: str) -> tuple[str | None, str | None]:
    """(text, None) or (None, error): invalid UTF-8 or a NUL byte (a binary file) spoils only this entry."""
    try:
        text = data.decode("utf-8-sig")  # editors on Windows save Markdown with a BOM
    except UnicodeDecodeError as err:
        return None, f"{label}: not valid UTF-8 (byte {err.start}); save it as UTF-8 and import again"
    if "\x00" in text:
        return None, f"{label}: contains a NUL byte (a binary file?)"
    return text, None


def iso_time(value: object) -> str | None:
    """``value`` if it is an ISO-8601 time the engine accepts, else None (the caller reports where)."""
    if not isinstance(value, str):
        return None
    try:
        parse_time(value)
    except InvalidInput:
        return None
    return value


def string_list(value: object) -> list[str] | None:
    """A list of non-empty strings, else None: tags in foreign metadata are kept only in that shape."""
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [v.strip() for v in value]
    return None
