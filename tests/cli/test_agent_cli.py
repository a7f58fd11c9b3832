"""``memlens snapshot``, ``profile``, ``serve`` from the command line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import serving

from tests.cli.conftest import NOW


def test_snapshot_prints_the_same_bytes_for_a_session(run) -> None:
    run("absorb", "Maya uses Neovim with the LazyVim distribution for all of her Python work.")
    code, first, err = run("snapshot", "--session", "s1", "--query", "which editor does Maya use")
    assert code == 0 and '[1] "Maya uses Neovim' in first and "frozen now" in err
    run("absorb", "The staging cluster runs 3 replicas of the ingest service behind nginx.")
    assert run("snapshot", "--session", "s1")[1] == first
    code, out, _ = run("snapshot", "--session", "s2", "--json")
    data = json.loads(out)
    assert data["cited"] == [2, 1] and data["chars"] == len(data["text"]) and data["created"]
    code, out, _ = run("snapshot", "--preview", "--max-chars", "300")
    assert code == 0 and len(out) <= 300


@pytest.mark.parametrize("args, code, message", [
    (["snapshot"], 1, "give --session ID, or --preview"),
    (["snapshot", "--session", "s", "--max-chars", "5"], 1, "max_chars must be"),
    (["snapshot", "--session", "s", "--max-chars", "many"], 2, "digits 0-9"),
    (["profile", "edit", "NOTES.md", "--from", "-"], 1, "unknown profile file"),
])
def test_snapshot_and_profile_errors_are_one_line(run, args, code, message) -> None:
    run("absorb", "Maya uses Neovim with the LazyVim distribution for all of her Python work.")
    got, out, err = run(*args, stdin=b"x\n")
    assert got == code and message in err and len(err.strip().splitlines()) == 1


def test_profile_edit_from_stdin_and_show(run, db_path: Path) -> None:
    code, out, _ = run("profile", "edit", "USER.md", "--from", "-", stdin="# User\nMaya, Kazan.\n".encode())
    assert code == 0 and "saved USER.md: 20 characters" in out
    assert (db_path.parent / "USER.md").read_text() == "# User\nMaya, Kazan.\n"
    code, out, _ = run("profile", "show", "USER.md")
    assert out == "# User\nMaya, Kazan.\n"
    shown = json.loads(run("profile", "show", "--json")[1])
    assert shown["total"] == 20 and shown["files"][0]["version"] == "absent"
    stale = run("profile", "edit", "USER.md", "--from", "-", "--expect", "absent", stdin=b"other\n")
    assert stale[0] == 1 and "changed since it was read" in stale[2]
    bad = run("profile", "edit", "USER.md", "--from", "-", stdin=b"caf\xe9\n")
    assert bad[0] == 1 and "not valid UTF-8" in bad[2]
    secret = run("profile", "edit", "USER.md", "--from", "-", stdin=b"key AKIAZ5QX3NV7RBK2TW4M\n")
    assert secret[0] == 1 and "AKIA" not in secret[2]
    assert (db_path.parent / "USER.md").read_text() == "# User\nMaya, Kazan.\n"


def test_profile_edit_through_the_editor(run, db_path: Path, tmp_path: Path, monkeypatch) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nprintf 'Edited in the editor.\\n' >> \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    run("profile", "edit", "MEMORY.md", "--from", "-", stdin=b"Line one.\n")
    assert run("profile", "edit", "memory")[0] == 0
    assert (db_path.parent / "MEMORY.md").read_text() == "Line one.\nEdited in the editor.\n"


def test_serve_refuses_a_public_address_without_a_token(run) -> None:
    code, _, err = run("serve", "--host", "0.0.0.0")
    assert code == 1 and "without a token" in err
    code, _, err = run("serve", "--host", "0.0.0.0", "--token-env", "MEMLENS_TEST_UNSET_TOKEN")
    assert code == 1 and "not set or is empty" in err


@pytest.mark.slow
def test_serve_answers_with_a_token(db_path: Path) -> None:
    env = {**os.environ, "MEMLENS_TOKEN": "t0ken-for-tests"}
    auth = {"Authorization": "Bearer t0ken-for-tests"}
    with serving(db_path, *NOW, serve_args=("--token-env", "MEMLENS_TOKEN"), env=env) as url:
        assert httpx.get(url + "/stats").status_code == 401
        plan = httpx.post(url + "/absorb", headers=auth, json={
            "items": ["The staging cluster runs 3 replicas of the ingest service behind nginx."]}).json()
        assert plan["status"] == "applied"
        hits = httpx.post(url + "/search", headers=auth, json={"query": "replicas on staging"}).json()["results"]
        assert hits[0]["id"] == plan["items"][0]["fact_id"]
