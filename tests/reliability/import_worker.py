"""A child process for test_import_resume.py: a chunked JSONL import, to be killed part way.

Usage: ``python import_worker.py DB FILE CHUNK_ITEMS``

It prints ``ready`` once the model is loaded, imports FILE into DB in chunks of CHUNK_ITEMS
items, and prints the run's summary if nobody killed it first.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine import Memory
from engine.models.embeddings import shared_embedder


def main() -> None:
    db, path, chunk = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    embedder = shared_embedder()
    embedder.embed(["warm up"])
    with Memory(db, embedder=embedder) as memory:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        run = memory.import_file(path, chunk_items=chunk)
        sys.stdout.write(run.summary() + "\n")


if __name__ == "__main__":
    main()
