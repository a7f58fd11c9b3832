"""The saved index read ahead without the store's guard (``IndexSync.preload``, what ``warm_up`` does so
that a text-first search is not held up): ``ready`` still vets it against the file before using it."""

from __future__ import annotations

import shutil

from engine.search import index_file
from tests.engine.search.test_vector_cache import _open, _results, _state, _texts, saved  # noqa: F401  (fixture)


def test_a_preloaded_cache_is_used_and_equals_a_rebuild(saved, clock, embedder) -> None:
    with _open(saved, clock, embedder, cache_rows=0) as fresh:
        expected, expected_results = _state(fresh), _results(fresh)
    with _open(saved, clock, embedder) as memory:
        memory.index.preload()
        assert not memory.index.loaded and memory.index._preloaded is not None
        assert _state(memory) == expected and memory.index.source == "cache"
        assert _results(memory) == expected_results
        assert memory.index._preloaded is None  # adopted, not kept twice


def test_a_preloaded_cache_is_caught_up_with_writes_made_after_it_was_read(saved, clock, embedder) -> None:
    with _open(saved, clock, embedder) as memory:
        memory.index.preload()
        memory.absorb(_texts(5, seed=7))  # the index is not loaded: the write reaches only the file
        found = _state(memory)
        assert memory.index.source == "cache"
    with _open(saved, clock, embedder, cache_rows=0) as fresh:
        assert _state(fresh) == found


def test_a_preloaded_cache_of_another_file_is_not_trusted(saved, tmp_path, clock, embedder) -> None:
    other = tmp_path / "other.sqlite"
    with _open(other, clock, embedder) as memory:
        memory.absorb(_texts(40, seed=9))
        memory.search("load", top_k=1)
    shutil.copy(index_file.cache_path(other), index_file.cache_path(saved))  # a cache swapped in
    with _open(saved, clock, embedder) as memory:
        memory.index.preload()
        assert memory.index._preloaded is not None  # read without checks ...
        memory.search("load", top_k=1)
        assert memory.index.source == "file" and "another journal" in memory.index.cache_note  # ... then vetted
