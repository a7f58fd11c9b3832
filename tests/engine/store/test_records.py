"""Content hashes must never change for a stored text: the fast normalisation equals the original one."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, strategies as st

from engine.store.records import content_hash, normalise_text

_SPACES = re.compile(r"\s+")


def _original(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\u00a0\u2003\u2028\u3000\u200bAbßΣς\ufb01é1"),
               max_size=30) | st.text(max_size=60))
def test_normalisation_is_the_original_regex_one(text: str) -> None:
    assert normalise_text(text) == _original(text)


def test_hash_ignores_case_and_spacing_only() -> None:
    assert content_hash("  The  Staging\tcluster ") == content_hash("the staging cluster")
    assert content_hash("the staging cluster") != content_hash("the staging clusters")


def test_a_journal_entrys_hashed_content_is_the_encoders_byte_for_byte() -> None:
    """The chain commits to the JSON array of an entry; the direct writing of it must never drift."""
    import json
    import random

    from engine.store import journal_chain

    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    rng = random.Random(1)
    texts = ["", "bench", 'a"b\\c', "é東\u2028\n\t\x00", "\ud800x", '{"k": [1, 2.5, null]}', "ab" * 32]
    for _ in range(20_000):
        entry = [rng.choice([1, 10 ** 12, 0, -5, True]),
                 rng.choice([0.0, 1.5, 1764000000.123456, 1e16, 1e-7, -0.0, float("inf"), float("nan")]),
                 rng.choice(texts), rng.choice(texts), rng.choice([None, 3, 10 ** 9]), rng.choice([None, 0, 7]),
                 rng.choice(texts), rng.choice([None, *texts])]
        assert journal_chain._content(*entry) == encoder(entry)


def test_the_set_up_once_encoder_writes_what_the_standard_one_writes() -> None:
    import json
    import random

    from engine.store.json_text import encoder

    rng = random.Random(2)
    atoms = [None, True, False, 0, -3, 10 ** 20, 1.5, -0.0, 1e-7, float("inf"), float("nan"), "", 'é東\n"\\',
             "\ud800", "plain"]

    def value(depth: int = 0) -> object:
        roll = rng.random()
        if depth > 3 or roll < 0.5:
            return rng.choice(atoms)
        if roll < 0.75:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(["b", "a", "é", "z", "10"]): value(depth + 1) for _ in range(rng.randint(0, 4))}

    for options in ({"ensure_ascii": False, "sort_keys": True}, {"ensure_ascii": False},
                    {"ensure_ascii": False, "separators": (",", ":")}, {}):
        fast, standard = encoder(**options), json.JSONEncoder(**options).encode  # type: ignore[arg-type]
        for _ in range(5_000):
            item = value()
            assert fast(item) == standard(item), (options, item)


def test_loaded_facts_equal_their_rows_read_by_name(tmp_path) -> None:
    """load_facts fills Facts from plain tuples by position: every field must land where reading the
    same row by column name puts it, damaged columns included."""
    import sqlite3
    from dataclasses import fields

    from engine import Memory
    from engine.store.records import FACT_COLUMNS, Fact, fact_from_row, load_facts

    assert [f.name for f in fields(Fact)][:-1] == [c.strip() for c in FACT_COLUMNS.split(",")]
    with Memory(tmp_path / "m.sqlite") as memory:
        memory.absorb([{"text": "Ravi prefers tea in the morning", "tags": ["drinks"], "scope": "user"}])
        memory.absorb([{"text": "The deploy script lives in ops/deploy.sh, run it from the repository root"}])
    db = sqlite3.connect(tmp_path / "m.sqlite")
    db.row_factory = sqlite3.Row
    ids = [r["id"] for r in db.execute("SELECT id FROM facts ORDER BY id")]
    db.execute("UPDATE facts SET metadata = '{not json' WHERE id = ?", (ids[-1],))
    by_name = {r["id"]: fact_from_row(r) for r in db.execute(f"SELECT {FACT_COLUMNS} FROM facts")}
    loaded = load_facts(db, ids + [ids[0], 10 ** 6])
    assert len(ids) == 2 and loaded == by_name
    assert loaded[ids[-1]].damaged and loaded[ids[-1]].metadata == {} and loaded[ids[0]].tags == ["drinks"]
