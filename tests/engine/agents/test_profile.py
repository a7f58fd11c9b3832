"""Profile files: versioned, atomic, conflict-checked saves; budget; secrets and bad input refused."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from engine import Conflict, InvalidInput, Memory, SecretRejected, Settings, StoreError
from engine.config import MemorySettings

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def profile_edits(memory: Memory) -> list:
    return [e for e in memory.journal() if e.action == "profile edit"]


def test_a_new_memory_has_two_absent_files_beside_it(memory: Memory, db_path: Path) -> None:
    profile = memory.profile()
    assert [f.name for f in profile.files] == ["MEMORY.md", "USER.md"]
    assert all(f.version == "absent" and not f.exists and f.text == "" for f in profile.files)
    assert profile.folder == db_path.parent and profile.total == 0 and profile.budget == 2048
    assert not profile.over_budget and profile.warning is None


def test_save_writes_the_exact_text_and_journals_hashes_and_sizes_only(memory: Memory, db_path: Path) -> None:
    text = "# User\r\nMaya prefers short answers in Русский or English.\n"
    profile = memory.save_profile("USER.md", text, "absent")
    assert (db_path.parent / "USER.md").read_bytes() == text.encode("utf-8")
    saved = profile.file("user")
    assert saved.text == text and saved.exists and saved.version.startswith("sha256:")
    [entry] = profile_edits(memory)
    assert entry.details == {"file": "USER.md", "revision": 1, "hash_before": None, "hash_after": saved.version,
                             "chars_before": 0, "chars_after": len(text)}
    second = memory.save_profile("user", "# User\nMaya.\n", saved.version)
    entry = profile_edits(memory)[-1]
    assert entry.details["revision"] == 2 and entry.details["hash_before"] == saved.version
    assert entry.details["hash_after"] == second.file("USER.md").version
    assert [v.text for v in memory.profile_versions("USER.md")] == [text, "# User\nMaya.\n"]
    assert not [p for p in db_path.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_stale_version_is_refused_and_nothing_changes(memory: Memory, db_path: Path) -> None:
    first = memory.save_profile("MEMORY.md", "Deploys go through the staging cluster first.\n", "absent")
    memory.save_profile("MEMORY.md", "Deploys go through staging, then canary.\n", first.file("MEMORY.md").version)
    with pytest.raises(Conflict, match="changed since it was read"):
        memory.save_profile("MEMORY.md", "an edit based on the old text\n", first.file("MEMORY.md").version)
    assert (db_path.parent / "MEMORY.md").read_text() == "Deploys go through staging, then canary.\n"
    assert len(profile_edits(memory)) == 2
    with pytest.raises(Conflict):  # the file exists now, so "absent" is stale too
        memory.save_profile("MEMORY.md", "x\n", "absent")


def test_an_edit_made_in_an_editor_since_the_read_is_not_overwritten(memory: Memory, db_path: Path) -> None:
    read = memory.save_profile("USER.md", "Maya lives in Kazan.\n", "absent").file("USER.md")
    (db_path.parent / "USER.md").write_text("Maya lives in Kazan and works remotely.\n")
    with pytest.raises(Conflict):
        memory.save_profile("USER.md", "Maya lives in Berlin.\n", read.version)
    assert (db_path.parent / "USER.md").read_text() == "Maya lives in Kazan and works remotely.\n"
    fresh = memory.profile().file("USER.md")
    assert fresh.text == "Maya lives in Kazan and works remotely.\n"
    memory.save_profile("USER.md", "Maya lives in Berlin.\n", fresh.version)
    assert profile_edits(memory)[-1].details["chars_before"] == len(fresh.text)


def test_a_secret_is_rejected_without_being_echoed_stored_or_journaled(memory: Memory, db_path: Path) -> None:
    with pytest.raises(SecretRejected) as caught:
        memory.save_profile("MEMORY.md", f"The CI token is {SECRET} for now.\n", "absent")
    assert SECRET not in str(caught.value) and "MEMORY.md" in str(caught.value)
    assert not (db_path.parent / "MEMORY.md").exists()
    assert profile_edits(memory) == [] and memory.profile_versions("MEMORY.md") == []
    raw = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob("*-wal"))
    assert SECRET.encode() not in raw


def test_a_secret_put_in_the_file_by_hand_is_withheld_but_can_be_overwritten(memory: Memory, db_path: Path) -> None:
    (db_path.parent / "USER.md").write_text(f"token: {SECRET}\n")
    found = memory.profile().file("USER.md")
    assert found.text == "" and found.problem and SECRET not in found.problem and found.exists
    assert SECRET not in memory.preview_snapshot().text
    memory.save_profile("USER.md", "Maya, platform team.\n", found.version)
    assert memory.profile().file("USER.md").problem is None
    assert profile_edits(memory)[-1].details["chars_before"] is None


def test_a_file_that_is_not_utf8_is_reported_and_left_alone(memory: Memory, db_path: Path) -> None:
    (db_path.parent / "MEMORY.md").write_bytes(b"caf\xe9 notes\n")
    found = memory.profile().file("MEMORY.md")
    assert found.problem and "UTF-8" in found.problem and found.text == ""
    assert (db_path.parent / "MEMORY.md").read_bytes() == b"caf\xe9 notes\n"
    with pytest.raises(Conflict):
        memory.save_profile("MEMORY.md", "café notes\n", "absent")
    memory.save_profile("MEMORY.md", "café notes\n", found.version)
    assert (db_path.parent / "MEMORY.md").read_text(encoding="utf-8") == "café notes\n"


@pytest.mark.parametrize("name, text, message", [
    ("NOTES.md", "fine\n", "unknown profile file"),
    (None, "fine\n", "unknown profile file"),
    ("USER.md", b"bytes\n", "must be a string"),
    ("USER.md", "nul\x00byte\n", "control character 0x00"),
    ("USER.md", "bell\x07\n", "control character 0x07"),
    ("USER.md", "lone \ud800 surrogate\n", "cannot be written as UTF-8"),
    ("USER.md", "x" * 70_000, "the limit is 65,536"),
])
def test_bad_input_is_refused_and_nothing_is_written(memory: Memory, db_path: Path, name, text, message) -> None:
    with pytest.raises(InvalidInput, match=message):
        memory.save_profile(name, text, "absent")
    assert not (db_path.parent / "USER.md").exists() and profile_edits(memory) == []


def test_saving_the_same_text_again_journals_nothing(memory: Memory) -> None:
    saved = memory.save_profile("USER.md", "Maya.\n", "absent").file("USER.md")
    again = memory.save_profile("USER.md", "Maya.\n", saved.version).file("USER.md")
    assert again.version == saved.version and len(profile_edits(memory)) == 1


def test_the_budget_warns_past_its_size_and_is_configurable(db_path: Path, clock, embedder) -> None:
    settings = replace(Settings(), memory=MemorySettings(profile_budget=100))
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        profile = memory.save_profile("MEMORY.md", "m" * 60 + "\n", "absent")
        assert profile.total == 61 and not profile.over_budget
        profile = memory.save_profile("USER.md", "u" * 50 + "\n", "absent")  # saved anyway, with a warning
        assert profile.total == 112 and profile.over_budget
        assert "112" in profile.warning and "the budget is 100" in profile.warning
        assert profile.to_dict()["over_budget"] is True


def test_profile_dir_is_taken_from_the_memory_files_folder(tmp_path: Path, clock, embedder) -> None:
    settings = replace(Settings(), memory=MemorySettings(profile_dir="profile"))
    with Memory(tmp_path / "m.sqlite", settings, clock=clock, embedder=embedder) as memory:
        memory.save_profile("USER.md", "Maya.\n", "absent")
        assert memory.profile().folder == tmp_path / "profile"
        assert (tmp_path / "profile" / "USER.md").read_text() == "Maya.\n"
        assert not (tmp_path / "USER.md").exists()


def test_a_file_that_cannot_be_written_rolls_the_journal_back(tmp_path: Path, clock, embedder) -> None:
    (tmp_path / "blocker").write_text("a file where the profile folder should be")
    settings = replace(Settings(), memory=MemorySettings(profile_dir="blocker"))
    with Memory(tmp_path / "m.sqlite", settings, clock=clock, embedder=embedder) as memory:
        with pytest.raises(StoreError, match="cannot write"):
            memory.save_profile("USER.md", "Maya.\n", "absent")
        assert profile_edits(memory) == [] and memory.profile_versions("USER.md") == []


def test_saved_versions_cannot_be_deleted_or_rewritten(memory: Memory) -> None:
    memory.save_profile("USER.md", "Maya.\n", "absent")
    db = sqlite3.connect(memory.path)
    for statement in ("DELETE FROM profile_versions", "UPDATE profile_versions SET text = 'x'"):
        with pytest.raises(sqlite3.DatabaseError, match="memlens"):
            db.execute(statement)
    db.close()


def test_a_memory_created_beside_another_gets_a_profile_of_its_own(tmp_path: Path, embedder) -> None:
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    with Memory(first, Settings(), embedder=embedder) as memory:
        assert memory.profile().folder == tmp_path  # alone in its folder: the profile sits beside it
        memory.save_profile("USER.md", "The first memory's user.", "absent")
    with Memory(second, Settings(), embedder=embedder) as memory:
        assert memory.profile().folder == tmp_path / "second.profile"
        assert memory.profile().file("USER.md").text == "" and memory.profile().shared_with == ()
        memory.save_profile("USER.md", "The second memory's user.", "absent")
    with Memory(first, Settings(), embedder=embedder) as memory:
        assert memory.profile().file("USER.md").text == "The first memory's user."
        assert memory.profile().shared_with == ()


def test_files_sharing_a_profile_from_before_are_named(tmp_path: Path, embedder) -> None:
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    for path in (first, second):
        Memory(path, Settings(), embedder=embedder).close()
    (tmp_path / "second.profile").rmdir()  # as an earlier MemLens left them: both read the files beside
    with Memory(first, Settings(), embedder=embedder) as memory:
        assert memory.profile().shared_with == (second,)
    with Memory(first, Settings(memory=MemorySettings(profile_dir="team")), embedder=embedder) as memory:
        assert memory.profile().shared_with == ()  # a folder named on purpose is never reported
