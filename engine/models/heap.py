"""Keeping the C heap from holding on to the model's transient buffers (glibc only; elsewhere a no-op).

A model run allocates and frees tens of megabytes of activations (at 16 windows of 256 tokens,
attention tensors of 50 MB each). glibc serves a block above its mmap threshold with its own
mapping, returned on free, but raises that threshold to the size of each such block freed (up to
32 MB), so from then on the 3-32 MB buffers come from the heap, whose freed pages stay resident
and fragment: one 8 x 256 run peaked 466 MB above the loaded model, 79 MB with large blocks
mapped (``benchmarks/embedding_memory.py``; CPU time per token the same, interleaved runs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from contextlib import contextmanager
from typing import Any, Iterator

M_MMAP_THRESHOLD = -3  # mallopt parameter (malloc.h)
RUN_THRESHOLD = 1 << 20  # during a model run: every block of 1 MB or more gets its own mapping
# Outside model runs: glibc's own ceiling for its sliding threshold (DEFAULT_MMAP_THRESHOLD_MAX on
# 64-bit), where a process that ran the model once stands anyway, so the rest of the engine's
# large temporaries keep being recycled from the heap as before.
IDLE_THRESHOLD = 32 << 20

_lock = threading.Lock()
_running = 0
_libc: Any = None


def _glibc() -> Any:
    global _libc
    if _libc is None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt  # noqa: B018  (not glibc: nothing to tune)
            libc.malloc_trim  # noqa: B018
            _libc = libc
        except (OSError, AttributeError):
            _libc = False
    return _libc


@contextmanager
def large_blocks_mapped() -> Iterator[None]:
    """Within the block, large allocations are mapped on their own and unmapped when freed.

    The threshold is process-wide: concurrent runs share one setting, restored when the last ends.
    """
    global _running
    libc = _glibc()
    if not libc:
        yield
        return
    with _lock:
        _running += 1
        if _running == 1:
            libc.mallopt(M_MMAP_THRESHOLD, RUN_THRESHOLD)
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                libc.mallopt(M_MMAP_THRESHOLD, IDLE_THRESHOLD)


def release_freed_memory() -> None:
    """Give the C heap's freed pages back to the system (``malloc_trim``).

    glibc keeps the freed pages of its per-thread arenas: between import chunks, without this,
    RSS grew ~25 MB per 1,000 imported facts (303 -> 382 MB over 4 chunks of 300), with it
    231 -> 249 MB.
    """
    libc = _glibc()
    if libc:
        libc.malloc_trim(0)
