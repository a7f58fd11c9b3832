"""The vector index saved beside the file: reused when it matches the file, ignored otherwise, and
in every case equal to an index rebuilt from the file after writes, other processes' writes,
kills and reopens."""

from __future__ import annotations

import random
import shutil
import subprocess
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import engine.search.vectors as vectors
from engine import Memory, Settings
from engine.search import index_file
from engine.search.index_sync import IndexSync
from engine.search.vectors import VectorIndex
from engine.store import vector_rows
from tests.reliability.workers import run_and_kill

WORKER = Path(__file__).with_name("cache_worker.py")
WORDS = ("ingest", "latency", "Ferrite", "batch", "queue", "Kazan", "deploy", "rollback", "schema", "index",
         "vector", "Atlas", "Maya", "editor", "cache", "replica", "shard", "timeout", "retry", "budget")
QUERIES = ("Ferrite ingest latency", "Kazan deploy rollback", "replica shard timeout")


def _settings(cache_rows: int) -> Settings:
    return replace(Settings(), memory=replace(Settings().memory, vector_cache_rows=cache_rows))


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"Note {seed}-{k}: the team saw " + " ".join(rng.choice(WORDS) for _ in range(10)) for k in range(count)]


def _open(path: Path, clock, embedder, cache_rows: int = 1) -> Memory:
    return Memory(path, _settings(cache_rows), clock=clock, embedder=embedder)


def _state(memory: Memory) -> dict[int, tuple[bytes, bytes]]:
    """Fact id -> (its row as float32, its ranking columns) of the loaded index."""
    memory.search("load the index", top_k=1)
    index = memory.index.index
    return {int(fid): (index.vector(int(fid)).tobytes(), index.meta[row].tobytes()) for row, fid in enumerate(index.ids)}


def _results(memory: Memory) -> list[list[tuple[int, float]]]:
    return [[(h.fact.id, round(h.score, 9)) for h in memory.search(q, top_k=5)] for q in QUERIES]


def _assert_equals_rebuild(path: Path, clock, embedder, source: str) -> Memory:
    """Open with the cache, check where the index came from, and compare it with a rebuild from the file."""
    with _open(path, clock, embedder, cache_rows=0) as fresh:
        expected, expected_results = _state(fresh), _results(fresh)
        assert fresh.index.source == "file"
    memory = _open(path, clock, embedder)
    assert _state(memory) == expected
    assert memory.index.source == source, memory.index.cache_note
    assert _results(memory) == expected_results
    return memory


@pytest.fixture
def saved(db_path: Path, clock, embedder) -> Path:
    """A memory of 40 facts whose index was saved when it closed."""
    with _open(db_path, clock, embedder) as memory:
        memory.absorb(_texts(40, seed=1))
        memory.search("load", top_k=1)
    assert index_file.cache_path(db_path).exists()
    return db_path


def test_a_reopen_loads_the_cache_without_reading_vectors_from_the_file(saved, clock, embedder, monkeypatch) -> None:
    with _open(saved, clock, embedder, cache_rows=0) as fresh:
        expected, expected_results = _state(fresh), _results(fresh)

    def no_full_read(*_args):
        raise AssertionError("the index was rebuilt from the file")

    monkeypatch.setattr(vector_rows, "active_vectors", no_full_read)
    with _open(saved, clock, embedder) as memory:
        assert _state(memory) == expected
        assert memory.index.source == "cache"
        assert _results(memory) == expected_results


def test_cache_off_neither_reads_nor_writes_it(db_path, clock, embedder) -> None:
    with _open(db_path, clock, embedder, cache_rows=0) as memory:
        memory.absorb(_texts(5, seed=2))
        memory.search("load", top_k=1)
    assert not index_file.cache_path(db_path).exists()


def test_writes_in_process_reach_the_next_open(saved, clock, embedder) -> None:
    with _open(saved, clock, embedder) as memory:
        memory.search("load", top_k=1)
        assert memory.index.source == "cache"
        memory.absorb(_texts(6, seed=3))
        victim = memory.search("Ferrite", top_k=1)[0].fact.id
        memory.archive_fact(victim, reason="test")
        clock.advance(1)
        memory.absorb(_texts(3, seed=1)[:3])  # the same texts again: reinforcements
    with _assert_equals_rebuild(saved, clock, embedder, "cache") as memory:
        assert victim not in memory.index.index
        # Saved at close up to the session's last write: its own writes moved the mark along.
        assert memory.index.cache_mark == memory.journal_high_water()


def test_writes_by_another_process_are_caught_up(saved, clock, embedder) -> None:
    before = index_file.cache_path(saved).read_bytes()
    with _open(saved, clock, embedder) as reader:
        reader.search("load", top_k=1)
        with _open(saved, clock, embedder, cache_rows=0) as other:  # writes without touching the cache
            other.absorb(_texts(5, seed=4))
            other.archive_fact(other.search("Kazan", top_k=1)[0].fact.id, reason="test")
        reader.search("catch up", top_k=1)
    # The reader saved what it caught up.
    assert index_file.cache_path(saved).read_bytes() != before
    with _open(saved, clock, embedder, cache_rows=0) as other:  # and once more while nobody has it open
        other.absorb(_texts(4, seed=5))
    with _assert_equals_rebuild(saved, clock, embedder, "cache") as memory:
        assert memory.index.cache_mark < memory.journal_high_water()  # caught up from the cache's mark


def test_a_worker_killed_mid_session_leaves_a_cache_equal_to_the_file(saved, clock, embedder) -> None:
    def after_some_writes(child: subprocess.Popen) -> None:
        for _ in range(8):
            line = child.stdout.readline()
            assert line.startswith("wrote"), child.stderr.read()

    for seed in range(2):
        run_and_kill(WORKER, [str(saved), str(seed)], after_some_writes)
        # Whatever the kill interrupted, the cache is a whole one (its own or an earlier save).
        with _assert_equals_rebuild(saved, clock, embedder, "cache") as memory:
            memory.absorb(_texts(3, seed=10 + seed))
            assert memory.index.save()
        assert not list(saved.parent.glob("*.tmp-*"))  # a killed writer's temporary file went with the next save


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "garbage", "empty", "newer format"])
def test_a_damaged_cache_is_ignored_and_rebuilt(saved, clock, embedder, damage) -> None:
    cache = index_file.cache_path(saved)
    data = bytearray(cache.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "flipped byte":
        data[len(data) // 3] ^= 0x40
    elif damage == "garbage":
        data = bytearray(random.Random(0).randbytes(len(data)))
    elif damage == "empty":
        data = bytearray()
    else:
        data = data.replace(b'"format": 1', b'"format": 9')
    cache.write_bytes(bytes(data))
    with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
        assert memory.index.cache_note
    # The damaged cache was replaced at close by a good one.
    with _open(saved, clock, embedder) as memory:
        memory.search("load", top_k=1)
        assert memory.index.source == "cache"


def test_another_memorys_cache_is_ignored(saved, tmp_path, clock, embedder) -> None:
    other = tmp_path / "other.sqlite"
    clock.advance(3)  # the same texts at another time: another journal, as long as this one
    with _open(other, clock, embedder, cache_rows=0) as memory:
        memory.absorb(_texts(40, seed=1))
        memory.absorb(_texts(5, seed=6))
    shutil.copy(index_file.cache_path(saved), index_file.cache_path(other))
    with _assert_equals_rebuild(other, clock, embedder, "file") as memory:
        assert "another journal" in memory.index.cache_note


def _restore(backup: Path, path: Path) -> None:
    for companion in ("-wal", "-shm"):
        path.with_name(path.name + companion).unlink(missing_ok=True)
    shutil.copy(backup, path)


def test_a_file_restored_to_an_older_copy_rebuilds(saved, tmp_path, clock, embedder) -> None:
    backup = tmp_path / "backup.sqlite"
    shutil.copy(saved, backup)
    with _open(saved, clock, embedder) as memory:
        memory.absorb(_texts(5, seed=7))
    # Restored: the journal is shorter than the cache's mark.
    _restore(backup, saved)
    with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
        assert "ahead" in memory.index.cache_note
        memory.absorb(_texts(8, seed=8))
    cache = index_file.cache_path(saved).read_bytes()
    # Restored again and written past the cache's mark, differently: a journal as long, but another.
    _restore(backup, saved)
    with _open(saved, clock, embedder, cache_rows=0) as memory:
        memory.absorb(_texts(12, seed=9))
    index_file.cache_path(saved).write_bytes(cache)
    with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
        assert "another journal" in memory.index.cache_note


# -- the file format, on an index with a sketch and int8 rows ----------------------------------------

def _index(monkeypatch: pytest.MonkeyPatch, rows: int = 5000) -> VectorIndex:
    monkeypatch.setattr(vectors, "HALF_ROWS", 1000)
    monkeypatch.setattr(vectors, "INT8_ROWS", 2000)
    rng = np.random.default_rng(0)
    found = rng.standard_normal((rows, 384)).astype(np.float32)
    found /= np.linalg.norm(found, axis=1, keepdims=True)
    index = VectorIndex(384)
    ids = list(range(1, rows + 1))
    index.fill(rows, [(ids, found.tobytes(), [(k, 0.5, 0.01, k // 7, 100) for k in ids])])
    index.remove(ids[10:40])
    index.add([9_000_000, 5], found[:2] * -1, np.ones((2, 5)))
    return index


def _header(index: VectorIndex) -> dict:
    scalars, _ = index.saved_state()
    return {"model": "m", "dim": index.dim, "index": scalars}


def test_an_int8_index_with_a_sketch_restores_equal(tmp_path, monkeypatch) -> None:
    index = _index(monkeypatch)
    assert index.matrix.dtype == np.int8 and index.saved_state()[1].keys() >= {"sketch", "scale", "basis"}
    path = tmp_path / "x.vector-cache"
    assert index_file.write(path, _header(index), index.saved_state()[1], threading.RLock(), lambda: True)
    restored, _ = index_file.read(path, {"model": "m"}, lambda header: None)
    assert restored.matrix.dtype == np.int8 and restored.error == index.error
    for name, array in index.saved_state()[1].items():
        assert np.array_equal(restored.saved_state()[1][name], array, equal_nan=True), name
    queries = np.random.default_rng(1).standard_normal((5, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    for query in queries:
        assert np.array_equal(restored.estimated_cosines(query), index.estimated_cosines(query))
        assert [a.tolist() for a in restored.top_cosines(query, 10)] == [a.tolist() for a in index.top_cosines(query, 10)]
    assert restored.nearest_many(queries, 5) == index.nearest_many(queries, 5)
    # And both follow the same writes the same way (the restored one has room to grow in place).
    for each in (index, restored):
        each.add([7_000, 3], queries[:2], np.zeros((2, 5)))
        each.remove([5, 100])
    assert np.array_equal(restored.ids, index.ids) and np.array_equal(restored.matrix, index.matrix)
    assert 7_000 in restored and 9_000_000 in restored and 5 not in restored


def test_a_save_overtaken_by_a_write_keeps_the_old_cache(tmp_path, monkeypatch) -> None:
    index = _index(monkeypatch)
    path = tmp_path / "x.vector-cache"
    path.write_bytes(b"the previous cache")
    answers = iter([True, True, False])
    assert not index_file.write(path, _header(index), index.saved_state()[1], threading.RLock(),
                                lambda: next(answers, False))
    assert path.read_bytes() == b"the previous cache" and list(tmp_path.iterdir()) == [path]


def test_a_cache_wider_than_the_store_now_needs_is_rebuilt_narrower(saved, clock, embedder, monkeypatch) -> None:
    monkeypatch.setattr(vectors, "HALF_ROWS", 10)  # as if the store had grown past HALF_ROWS since the save
    with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
        assert memory.index.index.matrix.dtype == np.float16 and "wider" in memory.index.cache_note
    with _open(saved, clock, embedder) as memory:  # the float16 cache saved at close is used
        memory.search("load", top_k=1)
        assert memory.index.source == "cache" and memory.index.index.matrix.dtype == np.float16


def test_a_cache_far_behind_the_file_is_rebuilt(saved, clock, embedder, monkeypatch) -> None:
    with _open(saved, clock, embedder, cache_rows=0) as other:
        other.absorb(_texts(20, seed=11))
    monkeypatch.setattr(IndexSync, "CATCH_UP_ROWS", 5)  # 20 new rows behind a cache of 40: more than a quarter
    with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
        assert "behind" in memory.index.cache_note


def test_a_catch_up_cut_short_is_done_again_and_never_saved_as_done(saved, clock, embedder, monkeypatch) -> None:
    with _open(saved, clock, embedder) as reader:
        reader.search("load", top_k=1)
        mark = reader.index.journal_mark
        with _open(saved, clock, embedder, cache_rows=0) as other:
            added = other.absorb(_texts(3, seed=21)).changes.facts_added
        real_reload = IndexSync._reload

        def interrupted(self, fact_ids) -> None:
            raise KeyboardInterrupt  # Ctrl-C in the CLI while another process's facts are read

        monkeypatch.setattr(IndexSync, "_reload", interrupted)
        with pytest.raises(KeyboardInterrupt):
            reader.search("catch up", top_k=1)
        assert reader.index.journal_mark == mark  # not taken as done
        monkeypatch.setattr(IndexSync, "_reload", real_reload)
        reader.search("catch up", top_k=1)
        assert all(fid in reader.index.index for fid in added)
    with _assert_equals_rebuild(saved, clock, embedder, "cache") as memory:
        assert all(fid in memory.index.index for fid in added)


def test_a_header_claiming_other_sizes_than_its_arrays_is_ignored(saved, clock, embedder) -> None:
    cache = index_file.cache_path(saved)
    data = cache.read_bytes()
    # The index's own width (and row count) in the header, changed without the arrays: before the
    # check, a width of 8 under a 384-wide header was trusted and every search then failed.
    # (Forged in place at the same length: the header's length is written after it.)
    for original, forged in ((b'"dim": 384, "dtype"', b'"dim": 8,   "dtype"'), (b'"rows": 40,', b'"rows":4e9,')):
        assert original in data
        cache.write_bytes(data.replace(original, forged))
        with _assert_equals_rebuild(saved, clock, embedder, "file") as memory:
            assert "do not match" in memory.index.cache_note


def test_a_closed_memory_lets_go_of_its_index(saved, clock, embedder) -> None:
    memory = _open(saved, clock, embedder)
    memory.search("load", top_k=1)
    sync = memory.index
    memory.close()
    assert sync.index is None and sync.text_index is None  # freed now, not at some collector pass
