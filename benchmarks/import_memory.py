"""Peak memory and speed of a large JSONL import (issue 18): chunked, so memory stays bounded.

The input is generated: ``--short`` synthetic facts (50-500 characters, with triples, times and
episodes, as ``benchmarks.synthetic`` makes them) with ``--long`` texts of 1,500-3,900 characters
spread among them. It is imported into a fresh memory in a fresh process, so the peak RSS
(``ru_maxrss``, the model included) is the import's own. RSS is also sampled after each chunk,
which shows whether memory grows with the file or stays flat.

With ``--composed`` the short facts get composed vectors (``benchmarks.synthetic``: the real
model's vectors of their pieces, from ``.bench/pieces-v2.npz`` or ``--bench-dir``) and only the
long texts go through the real model, so a 20,000-line import takes minutes, not the hours of
embedding 20,000 texts on a shared VM, while its peak still includes the model's long-window runs.
``--tracemalloc`` adds the Python heap (traced bytes) to each sample.

    python -m benchmarks.import_memory                          (20,000 short + 300 long)
    python -m benchmarks.import_memory --short 2000 --long 50   (a quick look)
    python -m benchmarks.import_memory --short 20000 --long 150 --composed --chunk-items 1000
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
import tracemalloc
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from benchmarks.embedding_memory import long_texts
from benchmarks.synthetic import BENCH_DIR, Generator, composed

SEED = 5


def write_input(path: Path, short: int, long: int, seed: int = SEED) -> int:
    """The JSONL file; returns its number of lines."""
    items = list(Generator(seed).facts(short))
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


class ComposedEmbedder:
    """The generated short facts' composed vectors, looked up; every other text through ``model``."""

    def __init__(self, model: Any, table: dict[str, np.ndarray]) -> None:
        self.model, self.table = model, table
        self.model_id, self.dim = model.model_id, model.dim
        self.model_texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        unknown = [i for i, t in enumerate(texts) if t not in self.table]
        for i, text in enumerate(texts):
            if text in self.table:
                out[i] = self.table[text]
        if unknown:
            out[unknown] = self.model.embed([texts[i] for i in unknown])
            self.model_texts += len(unknown)
        return out


def composed_table(short: int, seed: int, model: Any, bench_dir: Path) -> dict[str, np.ndarray]:
    made = Generator(seed).memory(short)
    vectors = composed(made, model, bench_dir, log=lambda m: print(m, file=sys.stderr, flush=True))(0, len(made.items))
    return {item["text"]: vector for item, vector in zip(made.items, vectors)}


def run_import(db: Path, path: Path, chunk_items: int | None, composed_short: int = 0,
               bench_dir: Path | None = None, trace: bool = False) -> dict[str, Any]:
    from engine import Memory
    from engine.models.embeddings import shared_embedder

    model = shared_embedder()
    model.embed(["warm up"])
    embedder: Any = model
    if composed_short:
        embedder = ComposedEmbedder(model, composed_table(composed_short, SEED, model, bench_dir or BENCH_DIR))
    loaded_mb = _peak_mb()
    if trace:
        tracemalloc.start()
    samples: list[dict[str, Any]] = []
    every = chunk_items or 1000
    last = [0]

    def progress(done: int, total: int) -> None:
        if done - last[0] >= every or done == total:
            sample = {"line": done, "s": round(time.perf_counter() - started, 1), "rss_mb": round(_rss_mb()),
                      "peak_rss_mb": round(_peak_mb())}
            if trace:
                sample["py_heap_mb"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)
            samples.append(sample)
            last[0] = done
            print(json.dumps({**sample, "of": total}), file=sys.stderr, flush=True)
    started = time.perf_counter()
    with Memory(db, embedder=embedder) as memory:
        run = memory.import_file(path, progress=progress, chunk_items=chunk_items)
        facts = memory.stats()["facts"]
    seconds = time.perf_counter() - started
    return {"lines": run.total_lines, "bytes": run.source.size, "plans": len(run.chunks), "items": run.items,
            "counts": dict(run.counts), "facts": facts, "import_s": round(seconds, 1),
            "items_per_s": round(run.items / seconds, 1), "rss_after_model_mb": round(loaded_mb),
            "model_texts": getattr(embedder, "model_texts", run.items),
            "rss_by_line": samples[:: max(1, len(samples) // 12)] + samples[-1:],
            "peak_rss_mb": round(_peak_mb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=20_000, help="short synthetic facts")
    parser.add_argument("--long", type=int, default=300, help="texts of 1,500-3,900 characters")
    parser.add_argument("--chunk-items", type=int, default=None, help="items per chunk (default: the engine's)")
    parser.add_argument("--composed", action="store_true", help="composed vectors for the short facts")
    parser.add_argument("--bench-dir", type=Path, default=None, help="where pieces-v2.npz is (default .bench)")
    parser.add_argument("--tracemalloc", action="store_true", help="sample the Python heap too")
    parser.add_argument("--child", nargs=2, metavar=("DB", "JSONL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_import(Path(args.child[0]), Path(args.child[1]), args.chunk_items,
                                    args.short if args.composed else 0, args.bench_dir, args.tracemalloc)))
        return
    with tempfile.TemporaryDirectory(prefix="memlens-import-bench-") as folder:
        path, db = Path(folder) / "input.jsonl", Path(folder) / "memory.sqlite"
        write_input(path, args.short, args.long, SEED)
        command = [sys.executable, "-m", "benchmarks.import_memory", "--child", str(db), str(path),
                   "--short", str(args.short)]
        if args.chunk_items:
            command += ["--chunk-items", str(args.chunk_items)]
        if args.composed:
            command += ["--composed"] + (["--bench-dir", str(args.bench_dir)] if args.bench_dir else [])
        if args.tracemalloc:
            command += ["--tracemalloc"]
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)  # stderr: progress
        print(done.stdout.strip() or json.dumps({"error": f"exit {done.returncode}"}), flush=True)


if __name__ == "__main__":
    main()
