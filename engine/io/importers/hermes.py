"""Hermes-style ``MEMORY.md`` / ``USER.md``: entries separated by a line holding only ``§``.

Hermes writes ``"\\n§\\n".join(entries)`` and splits on that same delimiter, so a ``§``
inside an entry's text is not a break and an entry may span lines; we split the same way.
Each entry becomes a fact: ``USER.md`` entries are about the user (scope ``user``),
``MEMORY.md`` entries are the agent's own notes (scope ``agent``). Entries carry no
timestamps; the source names the file and the entry's number (``hermes:USER.md#2``).

The path is one of the files, or a folder holding them (Hermes keeps them in
``~/.hermes/memories/``; the ``~/.hermes`` folder itself is accepted too). The bytes are
split before decoding, so one entry in a wrong encoding is one rejected item, not a lost file.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import InvalidInput
from engine.agents.profile import FILES as PROFILE_FILES
from engine.agents.profile import canonical_name
from engine.io.importers.common import Batch, decode, read_bytes

SCOPES = {"MEMORY.md": "agent", "USER.md": "user"}
_DELIMITER = re.compile(rb"\r?\n[ \t]*\xc2\xa7[ \t]*\r?\n")  # a line holding only the UTF-8 section sign


def read(path: Path) -> Batch:
    batch = Batch()
    for file in _files(path):
        _read_file(file, batch)
    return batch


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InvalidInput(f"no such file or folder: {path}")
    for folder in (path, path / "memories"):
        found = [folder / name for name in PROFILE_FILES if (folder / name).is_file()]
        if found:
            return found
    raise InvalidInput(f"{path} holds no MEMORY.md or USER.md")


def _profile_name(file: Path) -> str | None:
    try:
        return canonical_name(file.name)
    except InvalidInput:
        return None  # any other file name is imported (as agent notes) but is no profile file


def _read_file(file: Path, batch: Batch) -> None:
    data = read_bytes(file)
    name = _profile_name(file)
    scope = SCOPES.get(name or "", "agent")
    shown = name or file.name
    if name is not None:
        text, error = decode(data, shown)
        batch.profile[name] = None if error else text  # verbatim: the profile is the file as Hermes wrote it
    # Surrounding newlines make a delimiter on the first or last line match like any other.
    chunks = (chunk.strip() for chunk in _DELIMITER.split(b"\n" + data + b"\n"))
    for number, chunk in enumerate((c for c in chunks if c), start=1):
        label = f"hermes:{shown}#{number}"
        text, error = decode(chunk, label)
        if error:
            batch.reject(error)
        elif text.strip():
            batch.add({"text": text.strip(), "scope": scope, "source": label})
