"""A child process for test_disk_full.py: a real write error from the operating system.

Usage: ``python io_error_worker.py DB``

It opens the memory, then lowers its own file-size limit (``RLIMIT_FSIZE``) to just above
the files' current sizes, so the next large write fails in ``write(2)`` with EFBIG, which
SQLite reports as a disk I/O error. It absorbs a large batch under that limit, lifts the
limit and absorbs it again, and prints one JSON line: the error it got (class and message),
the counts before, after the failure and after the retry, and whether search still worked.
A process-wide limit would also hit pytest's own files, hence a child process.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
from pathlib import Path

from engine import Memory
from engine.models.embeddings import shared_embedder
from engine.errors import MemLensError


def counts(memory: Memory) -> list[int]:
    stats = memory.stats()
    return [stats["facts"], stats["plans"], len(memory.journal(limit=10_000))]


def main() -> None:
    path = Path(sys.argv[1])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else exceeding the limit kills the process
    big = [f"Long note {i}: the replica in Lisbon lags behind the primary whenever the batch queue of the "
           f"Ferrite ingest service overflows during the nightly reindex of the Atlas fleet map." for i in range(80)]
    with Memory(path, embedder=shared_embedder()) as memory:
        result = {"before": counts(memory)}
        sizes = [os.path.getsize(p) for p in (path, Path(f"{path}-wal")) if p.exists()]
        resource.setrlimit(resource.RLIMIT_FSIZE, (max(sizes) + 8192, resource.RLIM_INFINITY))
        try:
            memory.absorb(big)
            result["error"] = None
        except MemLensError as err:
            result["error"] = [type(err).__name__, str(err)]
        except Exception as err:  # noqa: BLE001 - reported to the test, which fails on it
            result["error"] = ["not a MemLensError: " + type(err).__name__, str(err)]
        result["after_failure"] = counts(memory)
        result["search"] = len(memory.search("Ferrite ingest", top_k=3))
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        result["retry"] = memory.absorb(big).status
        result["after_retry"] = counts(memory)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
