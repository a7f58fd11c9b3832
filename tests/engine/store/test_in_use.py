"""A memory file in use is opened by SQLite alone (engine/store/in_use.py).

Reading its bytes, its ``-wal`` or its ``-shm`` through any other descriptor, then closing
it, drops every POSIX lock this process holds on the file; so an import, an export or an
open never does that to a file open here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import InvalidInput, Memory, Settings
from engine.store import in_use


def _locks_on(path: Path) -> int:
    inode = f":{path.stat().st_ino}"
    return sum(1 for line in Path("/proc/locks").read_text().splitlines()
               if line.split()[4] == str(os.getpid()) and line.split()[5].endswith(inode))


def test_the_open_file_and_its_companions_are_known_while_open(memory: Memory, db_path: Path) -> None:
    for path in in_use.own_files(db_path):
        assert in_use.owner(path) == db_path
    assert in_use.owner(db_path.with_name("other.sqlite")) is None
    link = db_path.with_name("alias.sqlite")
    link.symlink_to(db_path)
    assert in_use.owner(link) == db_path  # another name for the same file is the same file
    memory.close()
    assert in_use.owner(db_path) is None


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_import_refuses_the_files_of_the_open_memory(memory: Memory, db_path: Path, suffix: str) -> None:
    memory.absorb(["Maya's build server runs the Ferrite nightly job at two in the morning."])
    target = Path(f"{db_path}{suffix}")
    for fmt in ("jsonl", "mem0", "hermes"):
        with pytest.raises(InvalidInput, match="open here"):
            memory.import_from(fmt, target, dry_run=True)
    assert memory.stats()["by_status"] == {"active": 1}


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads POSIX locks from /proc/locks (Linux)")
def test_a_refused_import_leaves_the_locks_held(memory: Memory, db_path: Path) -> None:
    memory.absorb(["Maya's build server runs the Ferrite nightly job at two in the morning."])
    shm = Path(f"{db_path}-shm")
    held = _locks_on(shm)
    assert held > 0
    with pytest.raises(InvalidInput):
        memory.import_file(shm)
    assert _locks_on(shm) == held


def test_export_never_replaces_a_memory_file(memory: Memory, db_path: Path, tmp_path: Path, embedder) -> None:
    memory.absorb(["Maya's build server runs the Ferrite nightly job at two in the morning."])
    before = db_path.read_bytes()[:100]
    for target in (db_path, Path(f"{db_path}-wal")):
        with pytest.raises(InvalidInput, match="open here"):
            memory.export_to(target)
    other = tmp_path / "other.sqlite"
    Memory(other, Settings(), embedder=embedder).close()
    with pytest.raises(InvalidInput, match="SQLite database"):
        memory.export_to(other)
    assert db_path.read_bytes()[:100] == before
    assert memory.export_to(tmp_path / "out.jsonl") == 1
    assert not (tmp_path / "out.jsonl.partial").exists()


def test_opening_a_file_that_is_not_sqlite_reads_it_through_sqlite(tmp_path: Path, embedder) -> None:
    notes = tmp_path / "notes.sqlite"
    notes.write_text("these are my notes, not a database\n" * 10)
    with pytest.raises(Exception, match="not a SQLite file"):
        Memory(notes, Settings(), embedder=embedder, create=False)
    assert notes.read_text().startswith("these are my notes")
    assert in_use.owner(notes) is None
