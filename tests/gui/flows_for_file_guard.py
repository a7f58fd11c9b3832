"""The app's main flows in one test, for ``test_file_guard.py`` to run under strace.

Not collected on its own (the name does not start with ``test_``): the guard runs it as
``pytest tests/gui/flows_for_file_guard.py`` with every open of the memory files' paths
recorded, and judges the record. The two memory files come from ``MEMLENS_GUARD_FILES``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QFileSystemModel

from tests.gui.conftest import WAIT_MS, open_file, settle


def _wait_listed_then_cancel(qtbot, dialog: QFileDialog, folder: Path) -> None:
    """Wait until the dialog has looked at every file in ``folder`` (their types are known), then Esc."""
    assert isinstance(dialog, QFileDialog)
    model = dialog.findChild(QFileSystemModel)
    qtbot.waitUntil(lambda: all(model.type(model.index(str(p))) for p in folder.iterdir()), timeout=WAIT_MS)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)


def test_main_flows(qtbot, window, tmp_path: Path) -> None:
    first, second = (Path(p) for p in os.environ["MEMLENS_GUARD_FILES"].split(os.pathsep))
    folder = first.parent

    open_file(qtbot, window, first)                                     # open
    settle(qtbot, window)
    window.search.query.setFocus()
    qtbot.keyClicks(window.search.query, "editor")                    # search
    settle(qtbot, window)
    assert window.search.model.total > 0

    files = window.files
    for show in (files.open_dialog, files.new_dialog, files.export_dialog):   # every file dialog, on the folder
        show()
        _wait_listed_then_cancel(qtbot, files.last_prompt, folder)

    incoming = tmp_path / "incoming.jsonl"                             # import, reviewed and applied
    incoming.write_text(json.dumps({"text": "The Ferrite build cache moved to the new storage cluster in May."})
                        + "\n", encoding="utf-8")
    files.import_file(incoming)
    qtbot.waitUntil(lambda: files.last_review is not None, timeout=WAIT_MS)
    with qtbot.waitSignal(window.session.store_changed, timeout=WAIT_MS):
        files.last_review.apply_button.click()

    window.show_pane(window.pane_names.index("profile"))                # profile save
    settle(qtbot, window)
    editor = window.profile.editors["USER.md"]
    editor.editor.setPlainText("Maya prefers short answers with the command first.")
    with qtbot.waitSignal(window.profile.changed, timeout=WAIT_MS):
        editor.save.click()

    files.export_to(tmp_path / "export.jsonl")                          # export
    qtbot.waitUntil(lambda: (tmp_path / "export.jsonl").exists(), timeout=WAIT_MS)
    settle(qtbot, window)

    open_file(qtbot, window, second)                                    # switch file
    settle(qtbot, window)
    files.open_dialog()
    _wait_listed_then_cancel(qtbot, files.last_prompt, folder)

    with qtbot.waitSignal(window.session.closed, timeout=WAIT_MS):     # close
        window.session.close()
    window.session.runner.wait(WAIT_MS)
