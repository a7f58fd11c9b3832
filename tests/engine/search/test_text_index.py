"""The in-memory text index gives FTS5's own answers: the same matches, the same bm25() values, the
same order, the same document counts; after every kind of write, from this process or another, and
after a writer is killed; and search ranks the same with it as with FTS5."""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Settings
from engine.search.fts import _quoted, adjacent_pairs, query_terms
from engine.search.hybrid import Searcher, SearchFilters
from engine.search.text_index import TextIndex
from engine.store.fts_tokens import DEFAULT_SPEC, FtsTokenizer, splits_on_whitespace, tokenizer_spec

CORPUS = [
    "Café Zürich: naïve résumé — façade & coöperate!",
    "CAFE zurich cafe CAFÉ, the café in Zürich.",
    "北京大学的学生 visited 東京 in 2024-11-30; 北京大学 again, 東京 twice: 東京.",
    "Straße strasse STRASSE İstanbul istanbul ıstanbul",
    "ﬁne fine ﬁnance finance",
    "e\u0301cole école ecole Ecole",
    "Ελληνικά Κείμενα ελληνικα; Русский текст, русские тексты",
    "العربية نص عربي والنص",
    "foo_bar foo-bar foo.bar foo/bar foo\\bar foobar",
    "3.14159 3,5 1e10 0x1F 2024-11-30T12:00:00Z v1.2.3 version 1.2.3",
    "emoji 🙂 party 🎉🎉 test✓ done✔",
    "running runs ran runner RUNNING deployed deploying deployment",
    "data data data data pipeline data",
    "tab\tseparated\nnew\u00a0line\u3000ideographic\u2028separator\u2029end",
    "'quoted' \"double\" (paren) [bracket] {brace} <angle> #hash @at $dollar %percent",
    " ".join(["a"] * 40) + " long fact with many a tokens",
    "supercalifragilisticexpialidocious" * 3 + " is one long token",
    "Ravi Berg is based in Lyon; Ravi's office is in Lyon too.",
    "don't can't won't it's O'Brien",
    "x",
    "Ünïcödé ÀÉÎÕÜ àéîõü ÅÆØ åæø",
    "ǅemal ǆ Kelvin ﬀ ﬃ",
    "zero\u200bwidth soft\u00adhyphen non\u2011breaking",
    "Ravi Berg leads the Ember Portal team; Ember Portal ships on Friday.",
    "The ember portal outage: ember, portal, portal ember.",
]
FILLER = [f"Filler note {k}: the staging cluster runs {k % 7} replicas of the ingest service in Lyon."
          for k in range(40)]


def fts_ranked(db: sqlite3.Connection, parts: list[str], table: str = "facts_fts") -> tuple[list[int], list[float]]:
    """FTS5's own answer: every match of the OR of quoted parts, best first, with bm25() negated."""
    rows = db.execute(f"SELECT rowid, bm25({table}) AS rank FROM {table} WHERE {table} MATCH ? ORDER BY rank",
                      (" OR ".join(_quoted(p) for p in parts),)).fetchall()
    return [r[0] for r in rows], [-r[1] for r in rows]


def fts_count(db: sqlite3.Connection, part: str, table: str = "facts_fts") -> int:
    return db.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (_quoted(part),)).fetchone()[0]


def queries_from(texts: list[str], seed: int = 7, mixed: int = 150) -> list[list[str]]:
    """Each word and adjacent pair of the texts alone, words in no text, and random OR-ed mixtures."""
    parts: list[str] = []
    for text in texts:
        parts += query_terms(text) + adjacent_pairs(text)
    parts = list(dict.fromkeys(parts)) + ["absentword", "北京", "zürich café", "data data", "ember portal ember"]
    rng = random.Random(seed)
    return [[p] for p in parts] + [rng.sample(parts, rng.randint(2, min(8, len(parts)))) for _ in range(mixed)]


def assert_same_as_fts(db: sqlite3.Connection, index: TextIndex, queries: list[list[str]],
                       table: str = "facts_fts") -> None:
    for parts in queries:
        ids, scores = fts_ranked(db, parts, table)
        found = index.ranked(parts)
        assert found.fact_ids.tolist() == ids, parts
        # The same operations in the same order on the same doubles: equal, not merely close.
        np.testing.assert_allclose(found.scores, scores, rtol=1e-12, atol=0, err_msg=str(parts))
        for part in parts:
            assert index.frequency(part) == fts_count(db, part, table), part
        limited = index.ranked(parts, 3)
        assert limited.fact_ids.tolist() == ids[:3]


def plain_fts(texts: list[str]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{DEFAULT_SPEC}')")
    db.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", [(k + 1, t) for k, t in enumerate(texts)])
    return db


def test_tokens_are_fts5s_own() -> None:
    tokens = FtsTokenizer().tokens(["Running replicas of one-on-one, Café 北京大学 foo_bar", "", "— …"])
    assert tokens == [["run", "replica", "of", "on", "on", "on", "cafe", "北京大学", "foo", "bar"], [], []]


def test_the_index_reads_the_files_tokenizer(memory: Memory) -> None:
    with memory.store.guard():
        assert tokenizer_spec(memory.store.db) == DEFAULT_SPEC == "porter unicode61 remove_diacritics 2"
    assert splits_on_whitespace(DEFAULT_SPEC) and splits_on_whitespace("porter") and splits_on_whitespace("ascii")
    # Spaces may be token characters, or the tokenizer is not a word tokenizer: the index stands aside.
    assert not splits_on_whitespace("unicode61 tokenchars ' '") and not splits_on_whitespace("trigram")


def test_bm25_equals_fts5_on_a_varied_corpus() -> None:
    texts = CORPUS + FILLER
    db = plain_fts(texts)
    index = TextIndex(FtsTokenizer().tokens)
    index.add(list(range(1, len(texts) + 1)), texts)
    assert index.documents == len(texts)
    assert_same_as_fts(db, index, queries_from(texts), table="t")


def test_facts_added_one_by_one_merge_segments_and_stay_equal() -> None:
    texts = CORPUS + FILLER
    db = plain_fts(texts)
    index = TextIndex(FtsTokenizer().tokens)
    rng = random.Random(3)
    start = 0
    while start < len(texts):
        step = rng.choice((1, 1, 2, 5))
        index.add(list(range(start + 1, min(start + step, len(texts)) + 1)), texts[start:start + step])
        start += step
    assert len(index._segments) <= 8  # merged as they came, O(log n)
    assert_same_as_fts(db, index, queries_from(texts, seed=11, mixed=60), table="t")


def test_tied_scores_come_in_id_order_as_fts5_returns_them() -> None:
    texts = [f"Identical shape {w} here" for w in ("alpha", "beta", "gamma", "delta")] * 3
    db = plain_fts(texts)
    index = TextIndex(FtsTokenizer().tokens)
    index.add(list(range(1, len(texts) + 1)), texts)
    ids, scores = fts_ranked(db, ["shape"], "t")
    assert len(set(scores)) == 1 and index.ranked(["shape"]).fact_ids.tolist() == ids == sorted(ids)


ABSORBABLE = [t for t in CORPUS if len(t.split()) >= 3] + FILLER[:12]


def index_of(memory: Memory) -> TextIndex:
    memory.search("warm up the indexes")
    with memory.store.guard():
        memory.index.ready()
        return memory.index.text(wait=True)


def check_file(memory: Memory, texts: list[str], mixed: int = 40) -> None:
    """The memory's text index (brought up to date as a search would) against the file's facts_fts."""
    memory.search("bring the indexes up to date")
    with memory.store.guard():
        memory.index.ready()
        index = memory.index.text(wait=True)
        db = memory.store.db
        assert index.documents == db.execute("SELECT count(*) FROM facts").fetchone()[0]
        assert_same_as_fts(db, index, queries_from(texts, mixed=mixed))


def test_equal_to_the_files_fts5_after_absorb_version_and_archive(memory: Memory) -> None:
    memory.absorb(ABSORBABLE[:10])
    built = index_of(memory)
    check_file(memory, ABSORBABLE)
    memory.absorb(ABSORBABLE[10:])
    ids = memory.browse()
    memory.version_fact(ids[0], "Ravi Berg moved from Lyon to Zürich; the café stays.")
    memory.archive_fact(ids[1])
    memory.archive_fact(ids[2])
    assert memory.index.text_index is built  # appended to, not rebuilt
    check_file(memory, ABSORBABLE + ["Ravi Berg moved from Lyon to Zürich; the café stays."])


def test_equal_after_another_process_writes(memory: Memory, db_path, clock, embedder) -> None:
    memory.absorb(ABSORBABLE[:8])
    built = index_of(memory)
    more = ["Ember portal notes from the other process: Zürich café, 北京大学 visit.",
            "The other process records naïve façade repairs in Lyon on 2024-11-30."]
    with Memory(db_path, clock=clock, embedder=embedder, actor="other") as other:
        other.absorb(more)
        other.archive_fact(other.browse()[-1])
    check_file(memory, ABSORBABLE[:8] + more)
    assert memory.index.text_index is built


def _lines(side: Path) -> int:
    return side.read_text(encoding="utf-8").count("\n") if side.exists() else 0


def _wait_for_writes(side: Path, count: int, deadline_s: float = 120.0) -> None:
    """Until the worker's side file holds ``count`` lines (it appends one per committed write)."""
    until = time.monotonic() + deadline_s
    while _lines(side) < count:
        assert time.monotonic() < until, f"the worker recorded fewer than {count} writes in {deadline_s:.0f} s"
        time.sleep(0.05)


def test_rebuilt_from_the_file_after_a_writer_is_killed(tmp_path: Path, embedder) -> None:
    """A writer SIGKILLed mid-write (tests/reliability's worker): this process's index catches up with
    what it committed, and a fresh open builds an equal one from the file."""
    db_path, side = tmp_path / "memory.sqlite", tmp_path / "committed.jsonl"
    worker = Path(__file__).parents[2] / "reliability" / "crash_worker.py"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    with Memory(db_path, embedder=embedder) as memory:
        memory.absorb([{"text": f"Seed run note {k}: the Ferrite ingest batch finished late.", "scope": "run"}
                       for k in range(6)])
        built = index_of(memory)
        for kill in range(2):
            written = _lines(side)
            child = subprocess.Popen([sys.executable, str(worker), str(db_path), str(side), str(kill)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            try:
                assert child.stdout.readline() == "ready\n", child.stderr.read()
                _wait_for_writes(side, written + 1)  # on a loaded machine a fixed sleep could kill it before any write
                time.sleep(0.3 + 0.4 * kill)
                os.kill(child.pid, signal.SIGKILL)
            finally:
                child.wait()
                child.stdout.close()
                child.stderr.close()
            with memory.store.guard():
                texts = [r[0] for r in memory.store.db.execute("SELECT text FROM facts ORDER BY id DESC LIMIT 30")]
            check_file(memory, texts, mixed=20)
            assert memory.index.text_index is built
        with memory.store.guard():
            assert memory.index.text_index.documents > 6  # the workers did write before they were killed
    with Memory(db_path, embedder=embedder) as reopened:
        check_file(reopened, texts, mixed=20)


def test_an_id_written_below_the_mark_is_still_indexed() -> None:
    index = TextIndex(FtsTokenizer().tokens)
    index.add([5, 9], ["ember portal notes", "lyon café"])
    index.add([7], ["ember in lyon"])  # a restore writing a lower id later
    assert index.ranked(["ember"]).fact_ids.tolist() == [5, 7]  # tied: by id
    assert index.has([5, 6, 7, 9, 10]).tolist() == [True, False, True, True, False]
    assert index.mark == 9


WORDS = re.compile(r"\w+")


@pytest.mark.parametrize("budget", [100, 3, 0])
def test_search_with_the_text_index_equals_search_with_fts5(db_path, clock, embedder, budget) -> None:
    """The whole search, hits and every part of their scores, with the text index and with FTS5, on many
    queries: the budget's kept words, the matches past the 2 × pool limit, ties and all."""
    from benchmarks.synthetic import Generator

    settings = replace(Settings(), memory=replace(Settings().memory, text_match_budget=budget, candidate_pool=20))
    generator = Generator(5)
    facts = [it["text"] for it in generator.facts(160)] + ABSORBABLE
    queries = generator.queries(60) + [t.split(";")[0] for t in ABSORBABLE[:10]] + ["ravi", "lyon replicas", "a"]
    with Memory(db_path, settings, clock=clock, embedder=embedder) as memory:
        memory.absorb(facts)
        ids = memory.browse()
        for fid in ids[:: 9]:
            memory.archive_fact(fid)
        vectors = embedder.embed(queries)
        memory.search("warm up")
        with memory.store.guard():
            index, text = memory.index.ready(), memory.index.text(wait=True)
            for query, vector in zip(queries, vectors):
                for filters in (SearchFilters(), SearchFilters(min_confidence=0.1), SearchFilters(scope="user")):
                    with_index = Searcher(memory.store.db, index, settings.memory, text).search(
                        query, vector, 10, filters, clock())
                    with_fts = Searcher(memory.store.db, index, settings.memory, None).search(
                        query, vector, 10, filters, clock())
                    assert [(h.fact.id, h.score, h.cosine, h.bm25, h.context) for h in with_index] == \
                        [(h.fact.id, h.score, h.cosine, h.bm25, h.context) for h in with_fts], (query, filters)


def test_the_build_waits_between_chunks_for_whoever_paces_it(memory: Memory, monkeypatch) -> None:
    import threading
    from engine.search import index_sync
    monkeypatch.setattr(index_sync._TextBuild, "CHUNK", 5)
    memory.absorb([f"Rack {n} in hall {n % 3} holds the {n}th spare disk of the archive" for n in range(22)])
    gate, waits = threading.Event(), []

    def wait() -> None:  # a window's "not while a person scrolls"
        waits.append(1)
        gate.wait(30)

    memory.pace_background(wait)
    with memory.store.guard():
        memory.index.ready()
        assert memory.index.text() is None  # building, and held after its first chunk
    while not waits:
        threading.Event().wait(0.01)
    with memory.store.guard():
        assert memory.index.text() is None and len(waits) == 1
    gate.set()
    with memory.store.guard():
        built = memory.index.text(wait=True)
    assert built is not None and len(waits) == 5  # 22 facts in chunks of 5: a wait after each
    assert all(built.has(list(range(1, 23))))
