"""Arbitrary and hostile input through the facade: never a crash, never a secret, never lost history."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import EmbeddingUnavailable, Memory, MemLensError, load_settings
from engine.models.embeddings import FastEmbedder

SAFE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

items = st.one_of(
    st.text(max_size=600),
    st.dictionaries(st.sampled_from(["text", "scope", "kind", "tags", "subject", "predicate", "object",
                                     "entities", "relations", "confidence", "importance", "ttl_days",
                                     "created_at", "source", "session_id", "extra"]),
                    st.one_of(st.text(max_size=80), st.integers(), st.floats(allow_nan=True), st.none(),
                              st.lists(st.text(max_size=10), max_size=3), st.booleans()),
                    max_size=6),
    st.integers(), st.none(),
)


@SAFE
@given(batch=st.lists(items, min_size=1, max_size=6))
def test_any_batch_is_planned_item_by_item(memory: Memory, db_path: Path, batch: list) -> None:
    before = sqlite3.connect(db_path).execute("SELECT id, text, scope, created_at FROM facts").fetchall()
    plan = memory.absorb(batch)
    assert [it.index for it in plan.items] == list(range(len(batch)))
    for it in plan.items:
        if it.outcome == "rejected":
            assert it.incoming is None and it.reason
    after = sqlite3.connect(db_path).execute("SELECT id, text, scope, created_at FROM facts").fetchall()
    assert after[: len(before)] == before  # nothing rewritten or removed
    for (text,) in sqlite3.connect(db_path).execute("SELECT text FROM facts"):
        assert "\x00" not in text and text.strip() == text and text


@SAFE
@given(query=st.text(max_size=300))
def test_any_query_returns_a_list(memory: Memory, query: str) -> None:
    memory.absorb(["Northwind Robotics builds warehouse robots in its Kazan factory."])
    assert isinstance(memory.search(query), list)


def test_unknown_embedding_model_is_a_clear_error() -> None:
    with pytest.raises(EmbeddingUnavailable, match="could not be loaded"):
        FastEmbedder("no-such-org/no-such-model")


@pytest.mark.parametrize("content, message", [
    ("[memory\nfreshness_floor = ", "not valid TOML"),
    ("[memory]\nfreshness_flor = 0.5\n", "unknown key 'freshness_flor'"),
    ("[memory]\nfreshness_floor = 'high'\n", "must be float"),
    ("[colours]\nx = 1\n", "unknown section"),
])
def test_bad_config_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "memlens.toml"
    path.write_text(content)
    with pytest.raises(MemLensError, match=message):
        load_settings(path)


def test_config_overrides_defaults(tmp_path: Path) -> None:
    path = tmp_path / "memlens.toml"
    path.write_text("[memory]\nfreshness_floor = 0\ncandidates = 8\n")
    loaded = load_settings(path)
    assert loaded.memory.freshness_floor == 0.0 and loaded.memory.candidates == 8


def test_damaged_export_lines_are_rejected_and_the_rest_restored(memory: Memory, tmp_path: Path,
                                                                  clock, embedder) -> None:
    memory.absorb(["Sofia Marques designs the fleet map screens of Atlas Console.",
                   "Jonas Becker founded Spreeline Data in Berlin in 2019."])
    export = tmp_path / "export.jsonl"
    with export.open("w", encoding="utf-8") as stream:
        memory.export(stream)
    lines = export.read_text(encoding="utf-8").splitlines()
    hostile = dict(json.loads(lines[1]), id=99, text="The bot token is ghp_" + "Zq8Lm3Xv7Rt2Np5Kd9Wb4Yc6Hf1Gj0Ss3AeQ")
    bad_status = dict(json.loads(lines[2]), id=98, text="A perfectly fine text with a strange status value.",
                      status="deleted")
    export.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\n" + json.dumps(hostile).encode() + b"\n"
                       + json.dumps(bad_status).encode() + b"\n")
    with Memory(tmp_path / "copy.sqlite", clock=clock, embedder=embedder) as copy:
        plan = copy.import_file(export).plan
        assert [it.outcome for it in plan.items] == ["new", "new", "rejected", "rejected", "rejected"]
        assert "UTF-8" in plan.items[2].reason and "secret" in plan.items[3].reason
        assert "status" in plan.items[4].reason
        assert copy.stats()["facts"] == 2
    dump = "\n".join(sqlite3.connect(tmp_path / "copy.sqlite").iterdump())
    assert "Zq8Lm3Xv7Rt2" not in dump
