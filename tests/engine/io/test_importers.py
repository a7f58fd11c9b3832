"""Importers from other memory tools (``Memory.import_from``): files built here in each format,
broken ones included; one bad entry is one rejected item and the rest go on."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine import IMPORT_FORMATS, Conflict, InvalidInput, Memory, SecretRejected, Settings, fixed_clock, parse_time
from engine.io.importers.markdown import blocks, front_matter

from tests.conftest import NOW

FAKE_AWS_KEY = "AKIA" + "IOSFODNN7" + "QWERTYZ"


def _facts(memory: Memory) -> dict[str, object]:
    """Every stored fact by its source."""
    ids = [r[0] for r in sqlite3.connect(memory.path).execute("SELECT id FROM facts")]
    return {f.source: f for f in memory.facts(ids).values()}


def _counts(db: Path) -> tuple[int, int, int]:
    con = sqlite3.connect(db)
    return tuple(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("facts", "journal", "plans"))


def _rejected(plan) -> dict[int, str]:
    return {it.index: it.reason for it in plan.items if it.outcome == "rejected"}


def _secret_absent(db: Path) -> None:
    for part in (db, db.with_name(db.name + "-wal")):
        if part.exists():
            assert FAKE_AWS_KEY.encode() not in part.read_bytes()


# -- hermes ---------------------------------------------------------------------------------

def _hermes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    entries = ["The user prefers dark mode in every editor they use at work.".encode(),
               "The user lives in Kazan and works at Northwind Robotics as an engineer.".encode(),
               "Caf\xe9 latte is what the user orders before every long planning meeting.".encode("latin-1"),
               "The user writes section references like § 4.2 when quoting the style guide.\nSecond line.".encode()]
    (folder / "USER.md").write_bytes("\n§\n".encode().join(entries))  # the third entry alone is Latin-1
    (folder / "MEMORY.md").write_text(
        "The staging cluster runs three replicas of the Ferrite ingest service.\n§\n"
        "Production deploys happen on Tuesdays right after the morning standup meeting.\n", encoding="utf-8")
    return folder


def test_hermes_entries_become_facts_with_scope_and_source(memory: Memory, tmp_path: Path) -> None:
    plan = memory.import_from("hermes", _hermes(tmp_path / "memories"))
    assert _rejected(plan) == {4: "hermes:USER.md#3: not valid UTF-8 (byte 3); save it as UTF-8 and import again"}
    facts = _facts(memory)
    assert set(facts) == {"hermes:MEMORY.md#1", "hermes:MEMORY.md#2", "hermes:USER.md#1", "hermes:USER.md#2",
                          "hermes:USER.md#4"}
    assert facts["hermes:MEMORY.md#1"].scope == "agent" and facts["hermes:USER.md#2"].scope == "user"
    # A § inside an entry is text, not a break, and a multi-line entry stays one fact.
    assert facts["hermes:USER.md#4"].text == ("The user writes section references like § 4.2 when quoting the "
                                              "style guide.\nSecond line.")
    assert all(f.created_at == NOW for f in facts.values())  # Hermes keeps no times: now it is


def test_hermes_accepts_one_file_and_the_hermes_home(memory: Memory, tmp_path: Path) -> None:
    _hermes(tmp_path / ".hermes" / "memories")
    plan = memory.import_from("hermes", tmp_path / ".hermes", dry_run=True)
    assert len(plan.items) == 6
    plan = memory.import_from("hermes", tmp_path / ".hermes" / "memories" / "MEMORY.md", dry_run=True)
    assert [it.incoming["source"] for it in plan.items] == ["hermes:MEMORY.md#1", "hermes:MEMORY.md#2"]
    with pytest.raises(InvalidInput, match="holds no MEMORY.md or USER.md"):
        memory.import_from("hermes", tmp_path)


def test_hermes_as_profile_saves_the_files_only_when_asked(memory: Memory, tmp_path: Path) -> None:
    source = _hermes(tmp_path / "h")
    (source / "USER.md").write_text("The user prefers dark mode.\n§\nThe user lives in Kazan.", encoding="utf-8")
    memory.import_from("hermes", source, dry_run=True, as_profile=True)
    assert not memory.profile().file("USER.md").exists  # a dry run writes no profile either
    memory.import_from("hermes", source)
    assert not memory.profile().file("USER.md").exists  # not asked
    memory.import_from("hermes", source, as_profile=True)
    profile = memory.profile()
    assert profile.file("USER.md").text == (source / "USER.md").read_text(encoding="utf-8")
    assert profile.file("MEMORY.md").text == (source / "MEMORY.md").read_text(encoding="utf-8")
    assert [v.revision for v in memory.profile_versions("USER.md")] == [1]


def test_hermes_as_profile_never_replaces_other_text(memory: Memory, tmp_path: Path) -> None:
    source = _hermes(tmp_path / "h")
    (source / "USER.md").write_text("The user prefers dark mode.", encoding="utf-8")
    mine = "My own notes about the user, written by hand."
    memory.save_profile("USER.md", mine, memory.profile().file("USER.md").version)
    before = _counts(memory.path)
    with pytest.raises(Conflict, match="USER.md already holds other text"):
        memory.import_from("hermes", source, as_profile=True)
    assert memory.profile().file("USER.md").text == mine
    assert _counts(memory.path) == before  # refused before the absorb: nothing half-imported


def test_hermes_as_profile_refuses_a_secret_before_writing(memory: Memory, tmp_path: Path) -> None:
    source = tmp_path / "h"
    source.mkdir()
    (source / "MEMORY.md").write_text(f"The mirror deploy key is {FAKE_AWS_KEY}.\n§\n"
                                      "The staging cluster runs three replicas of the ingest service.",
                                      encoding="utf-8")
    with pytest.raises(SecretRejected) as caught:
        memory.import_from("hermes", source, as_profile=True)
    assert FAKE_AWS_KEY not in str(caught.value)
    assert _counts(memory.path)[0] == 0
    plan = memory.import_from("hermes", source)  # without the profile: the secret entry alone is rejected
    assert [it.outcome for it in plan.items] == ["rejected", "new"] and "aws" in plan.items[0].reason
    _secret_absent(memory.path)


# -- mem0 -----------------------------------------------------------------------------------

MEM0 = [
    {"id": "a1", "memory": "Alice prefers green tea over coffee in the morning before work.", "hash": "h1",
     "metadata": {"tags": ["Drinks", "morning"]}, "created_at": "2024-07-20T01:21:41.633413-07:00",
     "updated_at": None, "user_id": "alice", "agent_id": None, "run_id": None},
    {"id": "a2", "memory": "", "user_id": "alice"},
    "not an object",
    {"id": "a4", "memory": "The agent is debugging the ingest service during this run today.", "run_id": "r-9",
     "created_at": "yesterday"},
    {"id": "a5", "memory": f"The mirror deploy key is {FAKE_AWS_KEY} for the nightly sync job.", "agent_id": "bot"},
    {"id": 6, "memory": "The agent is debugging the ingest service during this run today.", "run_id": "r-9",
     "created_at": None, "updated_at": "2024-07-22T10:00:00Z", "categories": ["work"], "metadata": {"tags": "x"}},
    {"memory": "The agent summarises every pull request in three bullet points for reviewers.",
     "agent_id": "bot", "metadata": None},
]


def test_mem0_fields_map_to_text_scope_times_tags_and_source(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": MEM0}), encoding="utf-8")
    plan = memory.import_from("mem0", path)
    assert _rejected(plan) == {1: "mem0 entry 2: no 'memory' text",
                               2: "mem0 entry 3: expected an object, got str",
                               3: "mem0 entry 4: created_at is not an ISO-8601 time",
                               4: plan.items[4].reason}
    assert plan.items[4].decided_by == "secrets" and FAKE_AWS_KEY not in plan.items[4].reason
    facts = _facts(memory)
    assert set(facts) == {"mem0:a1", "mem0:6", None}
    tea, run = facts["mem0:a1"], facts["mem0:6"]
    assert (tea.scope, tea.tags, tea.created_at) == ("user", ["drinks", "morning"],
                                                     parse_time("2024-07-20T08:21:41.633413Z"))
    assert (run.scope, run.session_id, run.tags) == ("run", "r-9", ["work"])
    assert run.created_at == parse_time("2024-07-22T10:00:00Z")  # updated_at when created_at is missing
    assert facts[None].scope == "agent" and facts[None].created_at == NOW
    _secret_absent(memory.path)


def test_mem0_plain_list_and_a_second_import_only_reinforces(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps([MEM0[0], MEM0[6]]), encoding="utf-8")
    assert [it.outcome for it in memory.import_from("mem0", path).items] == ["new", "new"]
    again = memory.import_from("mem0", path)
    assert [it.outcome for it in again.items] == ["duplicate", "duplicate"]
    assert _counts(memory.path)[0] == 2


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"),
    (b"  \n", "is empty"),
    (b'[{"id": "a1", "memory": "x"}', "not valid JSON"),
    (b'{"memories": []}', "expected a JSON list of memories"),
    (b'"just a string"', "expected a JSON list of memories"),
    (b'[{"memory": "caf\xe9"}]', "not valid UTF-8"),
    (b"[" * 100_000, "nested too deeply"),
])
def test_mem0_file_that_is_not_an_export_is_one_clear_error(memory: Memory, tmp_path: Path, content: bytes,
                                                             message: str) -> None:
    path = tmp_path / "mem0.json"
    path.write_bytes(content)
    with pytest.raises(InvalidInput, match=message):
        memory.import_from("mem0", path)
    assert _counts(memory.path) == (0, 0, 0)


def test_missing_path_and_unknown_format(memory: Memory, tmp_path: Path) -> None:
    for fmt in IMPORT_FORMATS:
        with pytest.raises(InvalidInput, match="no such file"):
            memory.import_from(fmt, tmp_path / "nowhere")
    with pytest.raises(InvalidInput, match="unknown import format 'letta'"):
        memory.import_from("letta", tmp_path)
    with pytest.raises(InvalidInput, match="needs format hermes"):
        memory.import_from("mem0", tmp_path, as_profile=True)


# -- markdown -------------------------------------------------------------------------------

NOTE = """---
title: Team
tags: [work, "Team"]
date: 2025-03-01
---
Team notes
==========

Maya leads the backend team at Northwind
and reviews every schema change herself.

## Deploys

- Production deploys go out on Tuesdays
  after the morning standup meeting.
- [ ] Write the migration guide for the v2 storage format.
- [x] Rotate the staging TLS certificates before they expire.
    - The staging certificates are kept in the team's Vault instance.

```sh
echo "a code block is not a fact"
```

| table | rows are skipped |
|-------|------------------|
> Quoted: the on-call rotation changes every Monday at noon.
"""


def test_markdown_blocks_headings_fences_tasks_and_wrapped_lines() -> None:
    meta, body = front_matter(NOTE)
    assert meta == {"tags": ["work", "Team"], "created_at": "2025-03-01"}
    assert list(blocks(body)) == [
        ("Maya leads the backend team at Northwind and reviews every schema change herself.", False),
        ("Production deploys go out on Tuesdays after the morning standup meeting.", False),
        ("Write the migration guide for the v2 storage format.", True),
        ("Rotate the staging TLS certificates before they expire.", False),
        ("The staging certificates are kept in the team's Vault instance.", False),
        ("Quoted: the on-call rotation changes every Monday at noon.", False),
    ]
    assert front_matter("---\ntags:\n  - personal\n  - '#health'\nother: 1\n---\nBody.") == (
        {"tags": ["personal", "health"]}, "Body.")
    assert front_matter("---\nno closing line\nText.") == ({}, "---\nno closing line\nText.")


def test_markdown_folder_keeps_tags_dates_sources_and_survives_bad_notes(memory: Memory, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / ".obsidian").mkdir()
    (notes / "team.md").write_text(NOTE, encoding="utf-8")
    (notes / "sub" / "health.md").write_text("---\ntags:\n  - personal\n---\n"
                                             "Runs five kilometres every Sunday morning along the river.\n",
                                             encoding="utf-8")
    (notes / "binary.md").write_bytes(b"PK\x03\x04\x00\x00 not markdown")
    (notes / "latin.md").write_bytes("R\xe9sum\xe9 of the quarter.".encode("latin-1"))
    (notes / "empty.md").write_bytes(b"")
    (notes / "readme.txt").write_text("Not a note: only .md files are read.", encoding="utf-8")
    (notes / ".obsidian" / "hidden.md").write_text("Editor state, not a note.", encoding="utf-8")
    plan = memory.import_from("markdown", notes)
    assert sorted(_rejected(plan).values()) == [
        "markdown:binary.md: contains a NUL byte (a binary file?)",
        "markdown:latin.md: not valid UTF-8 (byte 1); save it as UTF-8 and import again"]
    facts = _facts(memory)
    assert set(facts) == {"markdown:sub/health.md#1", *(f"markdown:team.md#{n}" for n in range(1, 7))}
    migration = facts["markdown:team.md#3"]
    assert migration.tags == ["work", "team", "todo"] and migration.created_at == parse_time("2025-03-01")
    assert facts["markdown:team.md#1"].tags == ["work", "team"]
    health = facts["markdown:sub/health.md#1"]
    assert health.tags == ["personal"] and health.created_at == NOW


def test_markdown_folder_without_notes_is_one_error(memory: Memory, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("text", encoding="utf-8")
    with pytest.raises(InvalidInput, match="holds no .md files"):
        memory.import_from("markdown", tmp_path / "notes")
    (tmp_path / "notes" / "only-headings.md").write_text("# Title\n\n## Section\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="holds no entries"):
        memory.import_from("markdown", tmp_path / "notes")


# -- every format: dry run and jsonl ----------------------------------------------------------

def test_dry_run_writes_only_the_draft_plan_and_applies_later(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(MEM0[:1]), encoding="utf-8")
    plan = memory.import_from("mem0", path, dry_run=True)
    assert plan.status == "draft" and _counts(memory.path) == (0, 0, 1)
    memory.apply_plan(plan.id)
    fact = _facts(memory)["mem0:a1"]
    assert fact.created_at == parse_time("2024-07-20T01:21:41.633413-07:00") and fact.tags == ["drinks", "morning"]


def test_jsonl_export_round_trip_is_exact(memory: Memory, tmp_path: Path, embedder) -> None:
    memory.absorb([{"text": "Maya's preferred editor is Neovim for her backend work at Northwind.",
                    "created_at": "2026-01-05T08:00:00Z", "tags": ["editor"], "source": "chat:1"},
                   {"text": "The staging cluster runs 3 replicas of the Ferrite ingest service."},
                   {"text": "The staging cluster runs 5 replicas of the Ferrite ingest service."}])
    export = tmp_path / "export.jsonl"
    with export.open("w", encoding="utf-8") as stream:
        memory.export(stream)
    copy_path = tmp_path / "copy.sqlite"
    with Memory(copy_path, Settings(), clock=fixed_clock(NOW + 3600), embedder=embedder) as copy:
        plan = copy.import_from("jsonl", export).plan
    assert plan.kind == "import" and plan.applied
    for sql in ("SELECT id, text, status, scope, created_at, last_reinforced, tags, source FROM facts ORDER BY id",
                "SELECT src_id, dst_id, type, created_at FROM edges ORDER BY id"):
        original = sqlite3.connect(memory.path).execute(sql).fetchall()
        assert sqlite3.connect(copy_path).execute(sql).fetchall() == original
