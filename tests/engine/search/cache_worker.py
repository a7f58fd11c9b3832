"""A child process for test_vector_cache.py: writes to a memory whose vector index is cached, until killed.

Usage: ``python tests/engine/search/cache_worker.py DB SEED``

It loads the index (from the cache the parent saved), prints ``ready``, then absorbs a few facts,
archives one now and then, and searches, printing ``wrote N`` after each write. Its background
saves wait only 10 ms for quiet, so a SIGKILL can land in the middle of one.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from engine import Memory, Settings
from engine.config import MemorySettings
from engine.models.embeddings import shared_embedder

WORDS = ("ingest", "latency", "Ferrite", "batch", "queue", "Kazan", "deploy", "rollback", "schema", "index",
         "vector", "Atlas", "Maya", "editor", "cache", "replica", "shard", "timeout", "retry", "budget")


def main() -> None:
    db, seed = Path(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    embedder = shared_embedder()
    with Memory(db, Settings(memory=MemorySettings(vector_cache_rows=1)), embedder=embedder, actor="worker") as memory:
        memory.index.QUIET_S = 0.01
        memory.search("warm up")
        print("ready", flush=True)
        step = 0
        while True:
            texts = [f"Worker note {seed}-{step}-{k}: " + " ".join(rng.choice(WORDS) for _ in range(9)) for k in range(3)]
            memory.absorb(texts)
            if step % 3 == 2:
                memory.archive_fact(memory.search(rng.choice(WORDS), top_k=1)[0].fact.id, reason="worker")
            print(f"wrote {step}", flush=True)
            step += 1
            time.sleep(0.02)  # room for a background save between writes


if __name__ == "__main__":
    main()
