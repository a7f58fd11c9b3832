"""Importers: other tools' memories turned into absorb items (``Memory.import_from``).

One module per foreign format; each has ``read(path) -> Batch`` and never raises for one
bad entry (see ``common``). ``jsonl``, our own format, has no reader here: it is
``Memory.import_file``, which restores a MemLens export exactly (ids, statuses, edges) and
absorbs any other JSONL, and an importer's items could not carry that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from engine.errors import InvalidInput
from engine.io.importers import hermes
from engine.io.importers import markdown
from engine.io.importers import mem0
from engine.io.importers.common import Batch

READERS: dict[str, Callable[[Path], Batch]] = {
    "hermes": hermes.read,
    "mem0": mem0.read,
    "markdown": markdown.read,
}
IMPORT_FORMATS: tuple[str, ...] = ("jsonl", *READERS)


def check_format(fmt: object) -> str:
    if fmt not in IMPORT_FORMATS:
        shown = fmt[:40] if isinstance(fmt, str) else type(fmt).__name__
        raise InvalidInput(f"unknown import format {shown!r}; use one of {', '.join(IMPORT_FORMATS)}")
    return fmt  # type: ignore[return-value]


def read(fmt: str, path: Path) -> Batch:
    """The items found in ``path`` read as ``fmt`` (not ``jsonl``, see the module docstring)."""
    reader = READERS.get(check_format(fmt))
    if reader is None:  # a caller's bug, not the user's: the facade sends jsonl to import_file
        raise ValueError("jsonl files are read by Memory.import_file")
    return reader(Path(path))


__all__ = ["Batch", "IMPORT_FORMATS", "READERS", "check_format", "read"]
