"""The memory files this process has open, so that nothing but SQLite ever opens them.

SQLite guards a file shared by several processes with POSIX locks, and POSIX drops every
lock a process holds on a file as soon as the process closes *any* descriptor of it: an
``open(path).read(16)`` of the memory file, its ``-wal`` or its ``-shm`` while a connection
is open is enough. Another process then believes it is alone, checkpoints and deletes the
WAL under us, and the file is damaged (SQLite's "How To Corrupt" §2.2). Every path the
engine reads or writes on a person's behalf (an import, an export target) is checked here
first; the check itself only calls ``stat``.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from pathlib import Path

from engine.errors import InvalidInput

# The files SQLite keeps beside a database (WAL mode uses the first two; a rollback journal the third).
COMPANIONS = ("-wal", "-shm", "-journal")

_lock = threading.Lock()
_open: Counter[str] = Counter()  # absolute path of each open memory file -> its open connections


def _absolute(path: Path) -> str:
    return os.path.abspath(os.path.expanduser(path))


def register(path: Path) -> None:
    with _lock:
        _open[_absolute(path)] += 1


def unregister(path: Path) -> None:
    with _lock:
        key = _absolute(path)
        _open[key] -= 1
        if _open[key] <= 0:
            del _open[key]


def own_files(memory_path: Path) -> list[Path]:
    """The memory file and every file SQLite or MemLens keeps beside it."""
    base = _absolute(memory_path)
    return [Path(base), *(Path(base + suffix) for suffix in COMPANIONS), Path(base + ".vector-cache")]


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        left, right = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (left.st_dev, left.st_ino) == (right.st_dev, right.st_ino)


def owner(candidate: Path | str) -> Path | None:
    """The open memory file that ``candidate`` is (or is one of the files of), else None."""
    try:
        wanted = _absolute(Path(candidate))
    except (TypeError, ValueError):
        return None
    with _lock:
        memories = list(_open)
    for memory in memories:
        if any(_same(wanted, str(path)) for path in own_files(Path(memory))):
            return Path(memory)
    return None


def refuse(candidate: Path | str) -> None:
    """Raise ``InvalidInput`` when ``candidate`` is an open memory file or one of its files."""
    memory = owner(candidate)
    if memory is not None:
        which = "is the memory file" if _same(_absolute(Path(candidate)), str(memory)) else "belongs to the memory file"
        raise InvalidInput(f"{candidate} {which} open here ({memory.name}); import and export never open a "
                           f"memory file in use (that would release SQLite's locks on it)")
