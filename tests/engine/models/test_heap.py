"""The C heap setting around model runs: set for the outermost run only, restored when the last ends."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from engine.models import heap


class FakeLibc:
    """Records mallopt calls instead of changing this test process's allocator."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.trims = 0

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.trims += 1
        return 1


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> Any:
    fake = FakeLibc()
    monkeypatch.setattr(heap, "_libc", fake)
    return fake


def test_nested_runs_set_the_threshold_once_and_restore_it_after_the_last(libc: FakeLibc) -> None:
    with heap.large_blocks_mapped():
        with heap.large_blocks_mapped():
            assert libc.calls == [(heap.M_MMAP_THRESHOLD, heap.RUN_THRESHOLD)]
        assert len(libc.calls) == 1, "an inner run ending leaves the outer one's setting"
    assert libc.calls[-1] == (heap.M_MMAP_THRESHOLD, heap.IDLE_THRESHOLD)


def test_a_failing_run_still_restores_the_threshold(libc: FakeLibc) -> None:
    with pytest.raises(RuntimeError):
        with heap.large_blocks_mapped():
            raise RuntimeError("model failed")
    assert libc.calls == [(heap.M_MMAP_THRESHOLD, heap.RUN_THRESHOLD), (heap.M_MMAP_THRESHOLD, heap.IDLE_THRESHOLD)]


def test_concurrent_runs_share_one_setting(libc: FakeLibc) -> None:
    inside, release = threading.Barrier(3), threading.Event()

    def run() -> None:
        with heap.large_blocks_mapped():
            inside.wait()
            release.wait()
    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert libc.calls == [(heap.M_MMAP_THRESHOLD, heap.RUN_THRESHOLD)]
    release.set()
    for t in threads:
        t.join()
    assert libc.calls[-1] == (heap.M_MMAP_THRESHOLD, heap.IDLE_THRESHOLD) and len(libc.calls) == 2


def test_without_glibc_nothing_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_libc", False)
    with heap.large_blocks_mapped():
        heap.release_freed_memory()
