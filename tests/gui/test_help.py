"""The Help menu: shortcuts read from the window itself, what each pane is for, About."""

from __future__ import annotations

from importlib import metadata

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from tests.gui.conftest import WAIT_MS, open_file

EXPECTED = {"Ctrl+K", "Ctrl+O", "Ctrl+N", "Ctrl+I", "Ctrl+E", "F5", "Esc", "Ctrl+S", "F1",
            *(f"Ctrl+{n}" for n in range(1, 8))}


def _listed(dialog) -> dict[str, tuple[str, str]]:
    table = dialog.shortcuts
    return {key: (table.item(r, 0).text(), table.item(r, 2).text())
            for r in range(table.rowCount()) for key in table.item(r, 1).text().split(", ")}


def test_f1_lists_every_shortcut_the_window_registers(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    added = QAction("Something new", window, shortcut=QKeySequence("Ctrl+Shift+Y"))
    window.addAction(added)  # a shortcut added later is listed without anyone editing the help
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=WAIT_MS)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "help", None) is not None and window.help.isVisible(), timeout=WAIT_MS)
    listed = _listed(window.help)
    assert EXPECTED <= set(listed), EXPECTED - set(listed)
    quit_key = QKeySequence(QKeySequence.StandardKey.Quit).toString()  # the platform's: none offscreen
    assert not quit_key or listed[quit_key][0] == "Quit"
    assert listed["Ctrl+Shift+Y"] == ("Something new", "anywhere")
    assert listed["Ctrl+K"][0] == "Find (focus search)"
    assert listed["Ctrl+S"] == ("Save the profile file being edited", "profile pane")
    assert window.help.pages.currentIndex() == 0
    window.help.close()


def test_help_says_what_each_pane_is_for_and_about_names_the_file_and_version(qtbot, window, demo_copy) -> None:
    open_file(qtbot, window, demo_copy)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    panes = next(a for a in help_menu.actions() if "Pane" in a.text())
    panes.trigger()
    qtbot.waitUntil(lambda: window.help.isVisible(), timeout=WAIT_MS)
    page = window.help.pages.currentWidget().text()
    assert all(f"<b>{name.capitalize()}</b>" in page for name in window.pane_names)
    window.help.close()
    about = next(a for a in help_menu.actions() if "About" in a.text())
    about.trigger()
    qtbot.waitUntil(lambda: window.help.isVisible(), timeout=WAIT_MS)
    text = window.help.about.text()
    assert str(demo_copy) in text and metadata.version("memlens") in text
    assert window.help.pages.currentWidget() is window.help.about
    window.help.close()
