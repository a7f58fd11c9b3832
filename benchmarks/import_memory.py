"""Peak memory and speed of a large JSONL import (issue 18): chunked, so memory stays bounded.

The input is generated: ``--short`` synthetic facts (50-500 characters, with triples, times and
episodes, as ``benchmarks.synthetic`` makes them) with ``--long`` texts of 1,500-3,900 characters
spread among them. It is imported into a fresh memory in a fresh process, so the peak RSS
(``ru_maxrss``, the model included) is the import's own. RSS is also sampled after each chunk,
which shows whether memory grows with the file or stays flat.

    python -m benchmarks.import_memory                          (20,000 short + 300 long)
    python -m benchmarks.import_memory --short 2000 --long 50   (a quick look)
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.embedding_memory import long_texts
from benchmarks.synthetic import Generator


def write_input(path: Path, short: int, long: int, seed: int = 5) -> int:
    """The JSONL file; returns its number of lines."""
    items = Generator(seed).facts(short)
    rng = random.Random(seed)
    for text in long_texts(long, seed):
        items.insert(rng.randrange(len(items) + 1), {"text": text, "kind": "episodic"})
    with path.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    return len(items)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def run_import(db: Path, path: Path, chunk_items: int | None) -> dict[str, Any]:
    from engine import Memory
    from engine.models.embeddings import shared_embedder

    embedder = shared_embedder()
    embedder.embed(["warm up"])
    loaded_mb = _peak_mb()
    samples: list[tuple[int, float]] = []
    last = [0]

    def progress(done: int, total: int) -> None:
        if done - last[0] >= 1000 or done == total:
            samples.append((done, round(_rss_mb())))
            last[0] = done
            print(json.dumps({"line": done, "of": total, "s": round(time.perf_counter() - started, 1),
                              "rss_mb": samples[-1][1], "peak_rss_mb": round(_peak_mb())}),
                  file=sys.stderr, flush=True)
    started = time.perf_counter()
    with Memory(db, embedder=embedder) as memory:
        run = memory.import_file(path, progress=progress, chunk_items=chunk_items)
        facts = memory.stats()["facts"]
    seconds = time.perf_counter() - started
    return {"lines": run.total_lines, "bytes": run.source.size, "plans": len(run.chunks), "items": run.items,
            "counts": dict(run.counts), "facts": facts, "import_s": round(seconds, 1),
            "items_per_s": round(run.items / seconds, 1), "rss_after_model_mb": round(loaded_mb),
            "rss_by_line": samples[:: max(1, len(samples) // 12)] + samples[-1:],
            "peak_rss_mb": round(_peak_mb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=20_000, help="short synthetic facts")
    parser.add_argument("--long", type=int, default=300, help="texts of 1,500-3,900 characters")
    parser.add_argument("--chunk-items", type=int, default=None, help="items per chunk (default: the engine's)")
    parser.add_argument("--child", nargs=2, metavar=("DB", "JSONL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_import(Path(args.child[0]), Path(args.child[1]), args.chunk_items)))
        return
    with tempfile.TemporaryDirectory(prefix="memlens-import-bench-") as folder:
        path, db = Path(folder) / "input.jsonl", Path(folder) / "memory.sqlite"
        write_input(path, args.short, args.long)
        command = [sys.executable, "-m", "benchmarks.import_memory", "--child", str(db), str(path)]
        if args.chunk_items:
            command += ["--chunk-items", str(args.chunk_items)]
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)  # stderr: progress
        print(done.stdout.strip() or json.dumps({"error": f"exit {done.returncode}"}), flush=True)


if __name__ == "__main__":
    main()
