"""Profile editing against the budget and the disk, and the snapshot an agent receives."""

from __future__ import annotations

from engine import Memory, Settings

from tests.gui.conftest import WAIT_MS, open_file, settle


def _pane(qtbot, window, demo_copy):
    open_file(qtbot, window, demo_copy)
    window.show_pane(window.pane_names.index("profile"))
    settle(qtbot, window)
    return window.profile


def test_editing_past_the_budget_warns_and_still_saves(qtbot, window, demo_copy) -> None:
    pane = _pane(qtbot, window, demo_copy)
    editor = pane.editors["USER.md"]
    assert editor.version == "absent" and not editor.save.isEnabled()
    qtbot.keyClicks(editor.editor, "Maya prefers short answers. ")
    assert editor.save.isEnabled() and "edited" in editor.count.text()
    editor.editor.setPlainText("Maya likes concise answers. " * 90)  # about 2,500 characters
    assert "over the budget" in pane.meter_label.text()
    with qtbot.waitSignal(pane.changed, timeout=WAIT_MS):
        editor.save.click()
    assert (demo_copy.parent / "USER.md").read_text(encoding="utf-8").startswith("Maya likes concise answers.")
    assert not editor.dirty and editor.version.startswith("sha256:")
    with Memory(demo_copy, Settings(), create=False) as memory:
        assert [e.action for e in memory.audit()][:1] == ["profile edit"]


def test_a_file_changed_on_disk_is_not_overwritten(qtbot, window, demo_copy) -> None:
    path = demo_copy.parent / "MEMORY.md"
    path.write_text("Written by the agent before the app opened.\n", encoding="utf-8")
    pane = _pane(qtbot, window, demo_copy)
    editor = pane.editors["MEMORY.md"]
    assert "Written by the agent" in editor.editor.toPlainText()
    path.write_text("Changed by another editor meanwhile.\n", encoding="utf-8")
    editor.editor.setPlainText("My edit in the app.")
    editor.save.click()
    qtbot.waitUntil(lambda: pane.last_message is not None and pane.last_message.isVisible(), timeout=WAIT_MS)
    assert "changed" in pane.last_message.windowTitle()
    assert path.read_text(encoding="utf-8") == "Changed by another editor meanwhile.\n"
    pane.last_message.accept()
    qtbot.waitUntil(lambda: "another editor" in editor.editor.toPlainText(), timeout=WAIT_MS)


def test_secrets_are_refused_in_the_profile(qtbot, window, demo_copy) -> None:
    pane = _pane(qtbot, window, demo_copy)
    editor = pane.editors["MEMORY.md"]
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    editor.editor.setPlainText(f"Deploy with token {token}")
    editor.save.click()
    qtbot.waitUntil(lambda: "not saved" in editor.problem.text(), timeout=WAIT_MS)
    assert token not in editor.problem.text() and "secret" in editor.problem.text()
    assert not (demo_copy.parent / "MEMORY.md").exists()


def test_a_frozen_snapshot_keeps_its_bytes_after_a_write(qtbot, window, demo_copy) -> None:
    pane = _pane(qtbot, window, demo_copy)
    pane.session_id.setText("s-1")
    pane.query.setText("Ferrite ingest")
    pane.freeze.click()
    qtbot.waitUntil(lambda: pane.last_snapshot is not None, timeout=WAIT_MS)
    first = pane.last_snapshot
    assert first.created and "fact:" in pane.snapshot_view.toHtml() and first.chars <= 6000
    with Memory(demo_copy, Settings(), create=False) as memory:
        memory.absorb(["The Ferrite ingest service gained a dead-letter queue for malformed robot events."])
    pane.last_snapshot = None
    pane.freeze.click()
    qtbot.waitUntil(lambda: pane.last_snapshot is not None, timeout=WAIT_MS)
    assert pane.last_snapshot.text == first.text and not pane.last_snapshot.created
    assert "frozen earlier" in pane.snapshot_info.text()
    pane.session_id.clear()
    pane.freeze.click()
    assert "type a session id" in pane.snapshot_info.text()


def test_unsaved_edits_are_not_dropped_without_asking(qtbot, window, demo_copy) -> None:
    path = demo_copy.parent / "MEMORY.md"
    path.write_text("First line.\n", encoding="utf-8")
    other = demo_copy.with_name("other.sqlite")
    other.write_bytes(demo_copy.read_bytes())
    pane = _pane(qtbot, window, demo_copy)
    editor = pane.editors["MEMORY.md"]
    editor.editor.setPlainText("First line.\nSecond line, not saved yet.")

    editor.reload.click()  # Reload asks, and Cancel keeps the edit
    assert pane.last_message.isVisible() and pane.last_message.objectName() == "confirmDiscard"
    pane.last_message.reject()
    settle(qtbot, window)
    assert "Second line" in editor.editor.toPlainText()

    window.files.open_path(other)  # so does opening another file
    assert pane.last_message.isVisible()
    pane.last_message.reject()
    settle(qtbot, window)
    assert window.session.path == demo_copy and editor.dirty

    window.close()  # and quitting
    assert window.isVisible() and pane.last_message.isVisible()
    pane.last_message.reject()

    with qtbot.waitSignal(pane.changed, timeout=WAIT_MS):
        editor.save.click()
    assert path.read_text(encoding="utf-8") == "First line.\nSecond line, not saved yet.\n"  # the newline stays
    window.files.open_path(other)  # nothing unsaved: no question
    qtbot.waitUntil(lambda: window.session.path == other, timeout=WAIT_MS)


def test_two_memories_in_one_folder_keep_their_own_profiles(qtbot, window, demo_copy) -> None:
    """A memory created beside another gets its own profile folder: editing one never edits the other."""
    pane = _pane(qtbot, window, demo_copy)
    editor = pane.editors["USER.md"]
    editor.editor.setPlainText("Maya's own profile: short answers, commands first.")
    with qtbot.waitSignal(pane.changed, timeout=WAIT_MS):
        editor.save.click()
    other = demo_copy.with_name("other.sqlite")
    with qtbot.waitSignal(window.session.opened, timeout=WAIT_MS):
        window.session.open(other, create=True)
    settle(qtbot, window)
    assert window.profile.editors["USER.md"].editor.toPlainText() == ""
    assert str(other.with_name("other.profile")) in pane.where.text() and "⚠" not in pane.where.text()
    editor = window.profile.editors["USER.md"]
    editor.editor.setPlainText("The other memory's user: prefers long explanations.")
    with qtbot.waitSignal(pane.changed, timeout=WAIT_MS):
        editor.save.click()
    assert (demo_copy.parent / "USER.md").read_text(encoding="utf-8").startswith("Maya's own profile")
    assert (demo_copy.parent / "other.profile" / "USER.md").read_text(encoding="utf-8").startswith("The other")
    open_file(qtbot, window, demo_copy)
    settle(qtbot, window)
    assert window.profile.editors["USER.md"].editor.toPlainText().startswith("Maya's own profile")


def test_a_profile_shared_by_files_made_earlier_says_so(qtbot, window, demo_copy, demo_file) -> None:
    import shutil
    shutil.copy(demo_file, demo_copy.with_name("older.sqlite"))  # two files from before: one profile beside
    pane = _pane(qtbot, window, demo_copy)
    assert "⚠" in pane.where.text() and "older.sqlite" in pane.where.text()
    assert "memory.profile" in pane.where.text()
