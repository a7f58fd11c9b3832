"""Side doors around the secret scan (issue 19): every way in meets the detector absorb uses.

Tags were lower-cased before the scan (a Google key or a JWT lower-cased no longer looks
like one), a Markdown file's path became a fact's source unscanned, and the profile and
the session snapshot called the detector on their own: one detector, one place.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine import Memory, SecretRejected
from engine.absorb import secrets as detector
from engine.absorb.secrets import SecretFinding
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
FACT = "The deploy pipeline runs on the staging cluster every night at two."


def all_bytes(db_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))


@pytest.mark.parametrize("secret", [GOOGLE, JWT], ids=["google", "jwt"])
def test_a_tag_is_scanned_before_it_is_lower_cased(run: Run, db_path: Path, secret: str) -> None:
    code, out, err = run("absorb", FACT, "--tags", f"deploy,{secret}", "--json")
    assert json.loads(out)["items"][0]["outcome"] == "rejected" and "looks like a secret" in err
    assert secret.lower().encode() not in all_bytes(db_path) and secret.encode() not in all_bytes(db_path)


def test_a_markdown_path_holding_a_token_is_not_a_source(run: Run, tmp_path: Path, db_path: Path) -> None:
    notes = tmp_path / "notes" / GITHUB
    notes.mkdir(parents=True)
    (notes / "deploy.md").write_text(f"- {FACT}\n", encoding="utf-8")
    (notes / "bad.md").write_bytes(b"- not \xff utf-8\n")
    code, out, err = run("import", str(tmp_path / "notes"), "--from", "markdown", "--json")
    assert [it["outcome"] for it in json.loads(out)["items"]] == ["rejected", "rejected"]
    assert GITHUB not in out + err
    assert GITHUB.encode() not in all_bytes(db_path)


def test_the_profile_and_the_snapshot_use_absorbs_detector(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A detector that learns a new format (a truncated key here) guards every way in at once."""
    truncated = "sk-ant-api03-" + "a1B2c3D4e5" * 2

    def learned(text: str) -> SecretFinding | None:
        at = text.find("sk-ant-")
        return SecretFinding("anthropic-api-key", at, at + 33) if at >= 0 else None

    monkeypatch.setattr(detector, "first_secret", learned)
    assert memory.absorb([f"{FACT} Key {truncated}."]).items[0].outcome == "rejected"
    with pytest.raises(SecretRejected):
        memory.save_profile("MEMORY.md", f"# Notes\nThe key is {truncated}\n", "absent")
    (memory.profile_folder / "USER.md").write_text(f"Maya's key: {truncated}\n", encoding="utf-8")
    assert memory.profile().file("USER.md").problem  # an editor's save is withheld, not used
    with pytest.raises(SecretRejected):
        memory.snapshot("session-1", query=f"what is {truncated}")
    memory.snapshot("session-2")
    db = sqlite3.connect(memory.path)
    stored = db.execute("SELECT group_concat(text) FROM session_snapshots").fetchone()[0] or ""
    stored += db.execute("SELECT coalesce(group_concat(text), '') FROM profile_versions").fetchone()[0]
    assert "sk-ant-" not in stored


def test_a_truncated_anthropic_key_never_reaches_the_profile_or_a_snapshot(memory: Memory) -> None:
    truncated = "sk-ant-api03-" + "riGp_58WAm-dX3a5IDnOdcdbWB2dC4xq7Lm"  # cut short, as pasted from a log
    with pytest.raises(SecretRejected):
        memory.save_profile("MEMORY.md", f"# Notes\nThe staging key is {truncated} for now.\n", "absent")
    assert memory.profile_versions("MEMORY.md") == []
    (memory.profile_folder / "MEMORY.md").write_text(f"Key {truncated} pasted by hand.\n", encoding="utf-8")
    snapshot = memory.snapshot("s1")
    assert truncated not in snapshot.text
    with memory.store.guard():
        stored = memory.store.db.execute("SELECT group_concat(text) FROM session_snapshots").fetchone()[0] or ""
    assert truncated not in stored
