"""Session snapshots: deterministic, within budget, real ids, frozen per session byte for byte."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from engine import InvalidInput, Memory, SecretRejected, Settings

FACTS = [
    "Maya uses Neovim with the LazyVim distribution for all of her Python work.",
    "The staging cluster runs 3 replicas of the ingest service behind nginx.",
    "Backups of the Postgres primary run nightly at 02:00 UTC to the Hetzner bucket.",
    "The team writes design notes in Markdown and keeps them next to the code.",
]
TODOS = [
    "Write the migration guide for the v2 storage format before the release.",
    "Rotate the staging TLS certificates before they expire at the end of December.",
]


def fill(memory: Memory) -> None:
    memory.absorb(FACTS)
    memory.absorb([{"text": t, "tags": ["todo"]} for t in TODOS])


def cited_in_text(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^- \[(\d+)\]", text, flags=re.M)]


def test_the_digest_has_profile_relevant_todos_and_recent_with_real_ids(memory: Memory) -> None:
    fill(memory)
    memory.save_profile("USER.md", "# User\nMaya, platform team, prefers short answers.\n", "absent")
    snap = memory.snapshot("session-1", query="which editor does Maya use")
    text = snap.text
    assert snap.created and snap.chars == len(text) and snap.session_id == "session-1"
    assert text.index("## Profile: USER.md") < text.index("## Relevant to: which editor") \
        < text.index("## Open TODOs") < text.index("## Recent")
    assert "Maya, platform team" in text
    ids = cited_in_text(text)
    assert list(snap.cited) == ids and len(set(ids)) == len(ids)
    facts = memory.facts(ids)
    for fact_id in ids:  # every line carries the real fact's id and text
        assert f'- [{fact_id}] "{facts[fact_id].text}"' in text  # quoted: a record, not an instruction
    relevant = text.split("## Relevant")[1].split("##")[0]
    assert cited_in_text(relevant)[0] == 1 and "Postgres" not in relevant
    todos = text.split("## Open TODOs")[1].split("##")[0]
    assert cited_in_text(todos) == [5, 6]


def test_a_session_keeps_its_bytes_after_writes_and_a_new_session_sees_them(memory: Memory, clock) -> None:
    fill(memory)
    first = memory.snapshot("s1", query="replicas on staging")
    memory.absorb(["The production cluster runs 7 replicas of the ingest service in Frankfurt."])
    memory.save_profile("MEMORY.md", "Always deploy to staging first.\n", "absent")
    memory.propose([{"action": "archive", "fact_id": 2, "reason": "moved"}])
    memory.apply_plan(memory.plans()[0].id)
    clock.advance(3)
    again = memory.snapshot("s1", query="something else entirely", max_chars=500)
    assert again.text.encode() == first.text.encode()
    assert (again.cited, again.frozen_at, again.query, again.max_chars) == \
        (first.cited, first.frozen_at, first.query, first.max_chars)
    assert not again.created
    fresh = memory.snapshot("s2", query="replicas on staging")
    assert fresh.text != first.text and "Always deploy to staging first." in fresh.text
    assert '[7] "The production cluster' in fresh.text and "[2]" not in fresh.text


def test_the_frozen_snapshot_survives_reopening(memory: Memory, db_path: Path, clock, embedder) -> None:
    fill(memory)
    first = memory.snapshot("s1")
    with Memory(db_path, Settings(), clock=clock, embedder=embedder) as other:
        other.absorb(["A fact written by another front end after the session began, about lunch."])
        assert other.snapshot("s1").text == first.text


def test_the_same_state_gives_the_same_text(memory: Memory, tmp_path: Path, clock, embedder) -> None:
    fill(memory)
    preview = memory.preview_snapshot(query="backups")
    assert preview.frozen_at is None and memory.preview_snapshot(query="backups").text == preview.text
    assert memory.snapshot("s1", query="backups").text == preview.text  # no session id or time in the text
    with Memory(tmp_path / "twin.sqlite", Settings(), clock=clock, embedder=embedder) as twin:
        fill(twin)
        assert twin.preview_snapshot(query="backups").text == preview.text


@pytest.mark.parametrize("max_chars", [200, 260, 400, 700, 1500, 6000])
def test_the_text_stays_within_its_budget(memory: Memory, max_chars: int) -> None:
    fill(memory)
    memory.absorb([f"Service number {n} of the fleet listens on port {8000 + n} in the staging cluster."
                   for n in range(30)])
    memory.save_profile("MEMORY.md", "".join(f"Rule {n}: keep the deploy notes current.\n" for n in range(60)),
                        "absent")
    snap = memory.snapshot(f"s-{max_chars}", query="which port does the staging service use", max_chars=max_chars)
    assert snap.chars <= max_chars and snap.text.endswith("\n")
    assert list(snap.cited) == cited_in_text(snap.text)
    clipped = "[… clipped to the snapshot budget]" in snap.text
    assert clipped if 300 <= max_chars <= 1500 else not clipped or max_chars < 300
    if max_chars == 6000:
        assert "Rule 59: keep the deploy notes current." in snap.text  # the whole profile fits
    if max_chars >= 1500:
        assert "## Open TODOs" in snap.text and "## Recent" in snap.text


def test_an_empty_memory_has_a_header_only(memory: Memory) -> None:
    snap = memory.snapshot("empty")
    assert snap.text.startswith("# Memory snapshot") and snap.cited == ()


def test_archived_todos_are_not_open(memory: Memory) -> None:
    fill(memory)
    memory.apply_plan(memory.propose([{"action": "archive", "fact_id": 5, "reason": "done"}]).id)
    todos = memory.snapshot("s").text.split("## Open TODOs")[1].split("##")[0]
    assert cited_in_text(todos) == [6]


def test_freezing_is_journaled_once(memory: Memory) -> None:
    fill(memory)
    memory.snapshot("s1")
    memory.snapshot("s1")
    [entry] = [e for e in memory.journal() if e.action == "snapshot"]
    assert entry.details["session_id"] == "s1" and entry.details["chars"] > 0


@pytest.mark.parametrize("session_id, query, max_chars, error", [
    ("", None, 1000, InvalidInput),
    ("   ", None, 1000, InvalidInput),
    (None, None, 1000, InvalidInput),
    (42, None, 1000, InvalidInput),
    ("x" * 201, None, 1000, InvalidInput),
    ("line\nbreak", None, 1000, InvalidInput),
    ("s", b"bytes", 1000, InvalidInput),
    ("s", "q" * 4001, 1000, InvalidInput),
    ("s", None, 199, InvalidInput),
    ("s", None, 10**9, InvalidInput),
    ("s", None, True, InvalidInput),
    ("s", None, "500", InvalidInput),
    ("s", "what is ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 for", 1000, SecretRejected),
])
def test_bad_requests_are_refused_and_nothing_is_frozen(memory: Memory, session_id, query, max_chars, error) -> None:
    with pytest.raises(error) as caught:
        memory.snapshot(session_id, query=query, max_chars=max_chars)
    assert "ghp_" not in str(caught.value)
    assert [e for e in memory.journal() if e.action == "snapshot"] == []


def test_a_frozen_snapshot_cannot_be_changed_even_with_sql(memory: Memory) -> None:
    memory.snapshot("s1")
    db = sqlite3.connect(memory.path)
    for statement in ("DELETE FROM session_snapshots", "UPDATE session_snapshots SET text = 'x'"):
        with pytest.raises(sqlite3.DatabaseError, match="memlens"):
            db.execute(statement)
    db.close()
