"""File dialogs that never open the files they list.

A memory file is in use while it is open: SQLite holds POSIX locks on it and on its
``-wal`` and ``-shm`` files, and POSIX drops *every* lock a process holds on a file as
soon as the process closes *any* descriptor of that file. Qt's own file dialog reads the
first bytes of each listed file to guess its type for the icon and the Type column
(``QMimeDatabase`` through ``QFileIconProvider``); the GTK or KDE dialog a platform theme
brings in does the same in our process. After that, another process writing the file
believes it is alone, checkpoints and deletes the WAL under us, and the file is damaged.

So every dialog here is Qt's widget dialog (never a native one) with an icon provider
that decides by the name and ``stat`` alone. ``tests/gui/test_file_guard.py`` runs the
app's flows under strace and fails on any open of a memory file's paths that is not
SQLite's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QAbstractFileIconProvider
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QWidget


class NameOnlyIconProvider(QFileIconProvider):
    """Icons and type names from a file's name and kind, never its contents."""

    def icon(self, what):  # noqa: ANN001 - Qt overloads it on IconType and QFileInfo
        if isinstance(what, QFileInfo):
            kind = QAbstractFileIconProvider.IconType.Folder if what.isDir() else QAbstractFileIconProvider.IconType.File
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


def file_dialog(parent: QWidget, caption: str, folder: str | Path, name_filter: str = "", *,
                mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
                save: bool = False) -> QFileDialog:
    """A window-modal dialog over ``folder`` that lists without reading; show it with ``open()``."""
    dialog = QFileDialog(parent, caption, str(folder), name_filter)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    provider = NameOnlyIconProvider()
    dialog.setIconProvider(provider)
    dialog._icon_provider = provider  # the dialog does not own it; it must live as long as the dialog
    dialog.setFileMode(QFileDialog.FileMode.AnyFile if save else mode)
    if save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    return dialog


def ask_path(parent: QWidget, caption: str, folder: str | Path, then: Callable[[str], None],
             name_filter: str = "", *, mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
             save: bool = False, select: str = "") -> QFileDialog:
    """Open a dialog and call ``then(path)`` once a path is accepted (nothing when cancelled)."""
    dialog = file_dialog(parent, caption, folder, name_filter, mode=mode, save=save)
    if select:
        dialog.selectFile(select)
    dialog.fileSelected.connect(lambda path: then(path) if path else None)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
