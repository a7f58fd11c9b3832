"""The vector cache beside the file is checked against the file, not only against its own checksums
(issue 26): a cache edited with its CRC recomputed changed search results while ``verify`` said ok,
and a cache that was a symlink to a FIFO hung search."""

from __future__ import annotations

import json
import os
import threading
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Settings
from engine.search import index_file
from tests.cli.conftest import Run, run  # noqa: F401  (the fixture)

TEXTS = [f"Note {k}: the {w} team moved the Ferrite ingest {v} to the Kazan cluster on day {k}."
         for k, (w, v) in enumerate([("data", "queue"), ("infra", "batch"), ("search", "index"), ("ops", "shard"),
                                     ("web", "cache"), ("ml", "vector"), ("qa", "replica"), ("sre", "budget")] * 3)]


def _settings() -> Settings:
    return replace(Settings(), memory=replace(Settings().memory, vector_cache_rows=1))


@pytest.fixture
def cached(db_path: Path, clock, embedder) -> Path:
    with Memory(db_path, _settings(), clock=clock, embedder=embedder) as memory:
        memory.absorb(TEXTS)
        memory.search("load", top_k=1)
    assert index_file.cache_path(db_path).is_file()
    return db_path


def _rewrite(path: Path, change) -> None:
    """Change the cache's matrix with ``change(matrix)`` and recompute its CRC, as a hand edit would."""
    data = bytearray(path.read_bytes())
    magic = index_file.MAGIC
    length = int.from_bytes(data[-8 - len(magic):-len(magic)], "little")
    header = json.loads(bytes(data[-8 - len(magic) - length:-8 - len(magic)]))
    entry = header["arrays"]["matrix"]
    count = int(np.prod(entry["shape"]))
    start, size = entry["offset"], count * np.dtype(entry["dtype"]).itemsize
    matrix = np.frombuffer(bytes(data[start:start + size]), dtype=entry["dtype"]).reshape(entry["shape"]).copy()
    change(matrix)
    data[start:start + size] = matrix.tobytes()
    entry["crc32"] = zlib.crc32(matrix.tobytes())
    body = bytes(data[:-8 - len(magic) - length])
    text = json.dumps(header).encode()
    path.write_bytes(body + text + len(text).to_bytes(8, "little") + magic)


def _swap_first_rows(matrix: np.ndarray) -> None:
    matrix[[0, 1]] = matrix[[1, 0]]


def test_a_cache_edited_with_its_crc_recomputed_is_not_used_and_verify_reports_it(cached: Path, clock, embedder,
                                                                                 run: Run) -> None:
    with Memory(cached, _settings(), clock=clock, embedder=embedder) as memory:
        expected = [[h.fact.id for h in memory.search(t, top_k=3)] for t in TEXTS[:4]]
        assert memory.index.source == "cache"
    _rewrite(index_file.cache_path(cached), _swap_first_rows)
    code, out, err = run("verify")
    assert code == 1 and "cache" in out and "disagree" in out, out + err
    with Memory(cached, _settings(), clock=clock, embedder=embedder) as memory:
        assert [[h.fact.id for h in memory.search(t, top_k=3)] for t in TEXTS[:4]] == expected
        assert memory.index.source == "file" and "disagree" in memory.index.cache_note


def test_an_untouched_cache_is_used_and_verify_is_ok(cached: Path, clock, embedder, run: Run) -> None:
    code, out, err = run("verify")
    assert code == 0, out + err
    with Memory(cached, _settings(), clock=clock, embedder=embedder) as memory:
        memory.search("load", top_k=1)
        assert memory.index.source == "cache", memory.index.cache_note


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_cache_that_is_a_symlink_to_a_fifo_is_ignored(cached: Path, tmp_path: Path, clock, embedder,
                                                        run: Run) -> None:
    cache = index_file.cache_path(cached)
    cache.unlink()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cache.symlink_to(fifo)
    answers: list = []

    def search() -> None:
        answers.append(run("search", "Ferrite ingest queue", "--json"))

    worker = threading.Thread(target=search, daemon=True)
    worker.start()
    worker.join(timeout=120)
    if worker.is_alive():  # unblock the reader so the test process can end, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("search waited on the FIFO")
    code, out, err = answers[0]
    assert code == 0 and json.loads(out)["results"], err
