"""The profile: MEMORY.md and USER.md, the small stable text an agent reads first (DESIGN §8).

The two files live beside the memory file (or in ``[memory] profile_dir``) so a person can
also edit them in any editor. A memory file created in a folder that already holds a profile or
another memory gets a folder of its own instead, ``<name>.profile/`` beside it, so two memories in
one folder never share one profile; a memory whose folder has that ``.profile`` folder uses it.
Files made before that rule may still share the profile beside them: ``Profile.shared_with``
names the other memories, so the front ends can say so. That is why every save is a compare-and-swap: the caller
passes the version it read (a hash of the bytes on disk), and a file changed since is
refused rather than overwritten. Writes go to a temporary file in the same folder and
replace the old one with ``os.replace``, so a crash leaves either the old or the new text.

A file the engine cannot use as is (not UTF-8, too large, unreadable, or carrying what
looks like a secret) is reported with a ``problem`` and its text withheld; it can still be
overwritten by passing its version, which is how a person fixes it from a front end.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.absorb.validation import secret_in
from engine.changes import ChangeRecord
from engine.clock import format_time
from engine.errors import InvalidInput, SecretRejected, StoreError
from engine.store import profile_rows
from engine.store.records import journal

FILES = ("MEMORY.md", "USER.md")
OWN_FOLDER_SUFFIX = ".profile"
MEMORY_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".memlens")
ABSENT = "absent"  # the version of a file that does not exist yet
MAX_FILE_CHARS = 65_536  # a hard cap per file; the budget (a warning) is far below it
_MAX_READ_BYTES = 4 * MAX_FILE_CHARS
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class ProfileFile:
    """One profile file as read from disk. ``version`` is what ``save_profile`` expects back."""

    name: str
    path: Path
    text: str
    version: str
    exists: bool
    problem: str | None = None

    @property
    def chars(self) -> int:
        return len(self.text)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": str(self.path), "text": self.text, "chars": self.chars,
                "version": self.version, "exists": self.exists, "problem": self.problem}


@dataclass(frozen=True)
class Profile:
    """Both files, their total against the budget, and a warning when it is exceeded."""

    folder: Path
    files: tuple[ProfileFile, ...]
    budget: int
    changes: ChangeRecord | None = None  # set on the profile a save returns: what the save wrote
    shared_with: tuple[Path, ...] = ()  # other memory files whose profile is this same folder

    @property
    def total(self) -> int:
        return sum(f.chars for f in self.files)

    @property
    def over_budget(self) -> bool:
        return self.total > self.budget

    @property
    def warning(self) -> str | None:
        if not self.over_budget:
            return None
        parts = ", ".join(f"{f.name} {f.chars:,}" for f in self.files)
        return (f"the profile is {self.total:,} characters ({parts}); the budget is {self.budget:,}: "
                f"trim it so it stays a small, stable prefix")

    def file(self, name: str) -> ProfileFile:
        wanted = canonical_name(name)
        return next(f for f in self.files if f.name == wanted)

    def to_dict(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "budget": self.budget, "total": self.total,
                "over_budget": self.over_budget, "warning": self.warning,
                "shared_with": [str(p) for p in self.shared_with],
                "files": [f.to_dict() for f in self.files]}


@dataclass(frozen=True)
class ProfileVersion:
    """A text saved through MemLens (edits made in an editor are not seen until the next save)."""

    file: str
    revision: int
    at: float
    actor: str
    content_hash: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "revision": self.revision, "at": format_time(self.at), "actor": self.actor,
                "content_hash": self.content_hash, "chars": len(self.text), "text": self.text}


def canonical_name(name: Any) -> str:
    """``MEMORY.md`` or ``USER.md``; ``memory`` and ``user`` in any case are accepted too."""
    if isinstance(name, str):
        key = name.strip().upper().removesuffix(".MD")
        for known in FILES:
            if known.removesuffix(".md") == key:
                return known
    shown = name[:40] if isinstance(name, str) else type(name).__name__
    raise InvalidInput(f"unknown profile file {shown!r}; use MEMORY.md or USER.md")


def folder_for(memory_path: Path, profile_dir: str) -> Path:
    """Where the files live: ``profile_dir`` (relative to the memory's folder), else the memory's own
    ``<name>.profile`` folder when it has one, else beside the memory."""
    here = Path(os.path.abspath(memory_path)).parent  # absolute, so messages name a real place
    if not profile_dir:
        own = own_folder(memory_path)
        return own if own.is_dir() else here
    folder = Path(profile_dir).expanduser()
    return folder if folder.is_absolute() else here / folder


def own_folder(memory_path: Path) -> Path:
    path = Path(os.path.abspath(memory_path))
    return path.with_name(path.stem + OWN_FOLDER_SUFFIX)


def _memories_in(folder: Path) -> list[Path]:
    """Memory files in ``folder`` by name (a listing only: none of them is opened)."""
    try:
        return sorted(p for p in folder.iterdir() if p.suffix.lower() in MEMORY_SUFFIXES and p.is_file())
    except OSError:
        return []


def claim_own_folder(memory_path: Path) -> None:
    """Called once when a memory file is created: if its folder already holds a profile or another
    memory, the new file's profile gets a folder of its own, so the two never share one."""
    path = Path(os.path.abspath(memory_path))
    here = path.parent
    crowded = any((here / name).exists() for name in FILES) or any(p != path for p in _memories_in(here))
    if crowded:
        try:
            own_folder(path).mkdir(exist_ok=True)
        except OSError:
            pass  # a read-only folder: the profile stays beside it, and shared_with says with whom


def sharing(memory_path: Path, folder: Path, profile_dir: str) -> tuple[Path, ...]:
    """Other memory files in the same folder that read their profile from ``folder`` too (by the
    default rule; a ``profile_dir`` names a folder on purpose, so it is never reported)."""
    if profile_dir:
        return ()
    path = Path(os.path.abspath(memory_path))
    return tuple(p for p in _memories_in(path.parent) if p != path and folder_for(p, "") == folder)


def version_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def read_file(folder: Path, name: str) -> ProfileFile:
    path = folder / name
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_READ_BYTES + 1)
    except FileNotFoundError:
        return ProfileFile(name, path, "", ABSENT, False)
    except IsADirectoryError:
        return ProfileFile(name, path, "", ABSENT, False, f"{path} is a folder, not a file")
    except OSError as err:
        return ProfileFile(name, path, "", ABSENT, True, f"{path} cannot be read: {err.strerror}")
    version = version_of(data)
    if len(data) > _MAX_READ_BYTES:
        return ProfileFile(name, path, "", version, True, f"{name} is larger than {MAX_FILE_CHARS:,} characters")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return ProfileFile(name, path, "", version, True, f"{name} is not valid UTF-8 (byte {err.start})")
    try:
        check_text(name, text)
    except InvalidInput as err:
        return ProfileFile(name, path, "", version, True, f"not shown or used until fixed: {err}")
    return ProfileFile(name, path, text, version, True)


def read_profile(folder: Path, budget: int) -> Profile:
    return Profile(folder, tuple(read_file(folder, name) for name in FILES), budget)


def check_text(name: str, text: Any) -> str:
    """The text a profile file may hold: a string of printable UTF-8, under the cap, without a secret."""
    if not isinstance(text, str):
        raise InvalidInput(f"{name}: the text must be a string")
    if len(text) > MAX_FILE_CHARS:
        raise InvalidInput(f"{name} would be {len(text):,} characters; the limit is {MAX_FILE_CHARS:,}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidInput(f"{name}: character {err.start} cannot be written as UTF-8") from None
    if bad := _CONTROL.search(text):
        raise InvalidInput(f"{name}: control character {ord(bad.group()):#04x} at character {bad.start()}")
    if found := secret_in(text):
        err = SecretRejected(found.rule, found.start, found.end)
        err.args = (f"{name}: {err}",)  # the rule and the place, never the value
        raise err
    return text


def replace_file(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and swap it in atomically."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else None
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise StoreError(f"cannot write {path}: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as err:
        Path(temp).unlink(missing_ok=True)
        raise StoreError(f"cannot write {path}: {err.strerror}; the old text is unchanged") from None


def record_save(db: Any, before: ProfileFile, text: str, at: float, actor: str) -> int:
    """Keep the saved text and journal the edit (hashes and sizes only); returns the file's revision."""
    after = version_of(text.encode("utf-8"))
    revision = profile_rows.add_version(db, before.name, at, actor, after, text)
    journal(db, at, actor, "profile edit", None, None, {
        "file": before.name, "revision": revision,
        "hash_before": None if before.version == ABSENT else before.version, "hash_after": after,
        # A withheld file's size is unknown as text; its byte count is not the budget's unit.
        "chars_before": None if before.problem else before.chars, "chars_after": len(text)})
    return revision


def saved_versions(db: Any, name: str) -> list[ProfileVersion]:
    rows = profile_rows.versions(db, name)
    return [ProfileVersion(r[0], n, r[1], r[2], r[3], r[4]) for n, r in enumerate(rows, start=1)]
