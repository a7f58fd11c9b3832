"""The app never releases SQLite's locks on the file it has open (issue 27's blocker).

Showing File > Open used to read every listed file to guess its type, so the app closed
descriptors of its own memory file, its ``-wal`` and ``-shm``, and POSIX dropped every lock
the process held on them. The next process to write then checkpointed and deleted the WAL
under the app, which went on reading stale pages and finally damaged the file.

These tests hold the app to what a person needs: with the dialog shown on the file's own
folder and cancelled, the app still holds its locks, sees another process's write, its own
write is read by another process, and the file verifies after the app closes it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QFileSystemModel

from tests.gui.conftest import WAIT_MS, open_file, settle

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads POSIX locks from /proc/locks (Linux)")


def held_locks(path: Path) -> int:
    """POSIX locks this process holds on ``path`` (by inode, as the kernel lists them)."""
    if not path.exists():
        return 0
    stat = path.stat()
    inode = f":{stat.st_ino}"
    return sum(1 for line in Path("/proc/locks").read_text().splitlines()
               if line.split()[4] == str(os.getpid()) and line.split()[5].endswith(inode))


def memlens(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.faces.cli.main", *args], capture_output=True, text=True,
                          timeout=180, cwd=REPO)


def show_and_cancel_open_dialog(qtbot, window, folder: Path) -> None:
    """File > Open on ``folder``, waited on until the dialog has looked at every file there, then Esc."""
    window.files.open_dialog()
    dialog = window.files.last_prompt
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    model = dialog.findChild(QFileSystemModel)
    names = sorted(p.name for p in folder.iterdir())

    def typed() -> bool:  # the type column is filled once the dialog's gatherer has looked at a file
        return all(model.type(model.index(str(folder / name))) for name in names)

    qtbot.waitUntil(typed, timeout=WAIT_MS)
    dialog.reject()


def test_the_open_dialog_on_the_files_folder_keeps_the_locks(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    shm = demo_copy.with_name(demo_copy.name + "-shm")
    before = held_locks(shm)
    assert before > 0, "an open memory holds SQLite's read lock on its -shm"

    show_and_cancel_open_dialog(qtbot, window, demo_copy.parent)

    assert held_locks(shm) == before


def test_an_agent_writes_while_the_dialog_was_shown_and_nothing_is_lost(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    show_and_cancel_open_dialog(qtbot, window, demo_copy.parent)

    # Another process writes and closes: as the last connection it would checkpoint and delete the WAL.
    with qtbot.waitSignal(window.session.live_changes, timeout=WAIT_MS) as live:
        done = memlens("--db", str(demo_copy), "absorb", "The Ferrite release train now ships every second Thursday.")
        assert done.returncode == 0, done.stderr
    agents_fact = live.args[1].facts_added[0]
    qtbot.waitUntil(lambda: window.search.model.row_of(agents_fact) is not None, timeout=WAIT_MS)

    # The app's own write is seen by another process.
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS) as wrote:
        window.session.write(lambda m: m.absorb(["Maya reviews the Ferrite release notes every Friday morning."]))
    apps_fact = wrote.args[0].facts_added[0]
    seen = memlens("--db", str(demo_copy), "get", str(apps_fact), "--json")
    assert seen.returncode == 0 and "every Friday morning" in seen.stdout, seen.stderr

    with qtbot.waitSignal(window.session.closed, timeout=WAIT_MS):
        window.session.close()
    window.session.runner.wait(WAIT_MS)
    checked = memlens("--db", str(demo_copy), "verify")
    assert checked.returncode == 0, checked.stdout + checked.stderr
