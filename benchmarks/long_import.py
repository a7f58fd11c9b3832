"""A long import end to end against a plain ONNX embedding of the same texts (issue 29: ≤ 1.25×, ≤ 1 GB).

The texts are every turn of every session of LongMemEval's ``dev.json`` (``../shared/eval/longmemeval``,
read in place), as ``benchmarks.longmemeval`` pools them: source ``"{session}#{turn}"``, the
session's date as the fact's time, scope user, kind episodic, cut at 3,900 characters. They are
written to a temporary JSONL file and timed two ways in one run, so the machine's load weighs on both:

- **plain**: ``import_throughput.PlainOnnx`` (the model's ONNX file and tokenizer, no MemLens code)
  over the texts in input order, ``--plain-batch`` at a time (fastembed's default is 256; 256 texts
  of 512 tokens need ~3 GB for the attention tensors alone, so 64 by default);
- **import**: ``memlens import`` of the file into a fresh memory, in a child process, so its peak
  RSS (``ru_maxrss``, the model included) is the import's own.

    python -m benchmarks.long_import                  (all 5,033 turns)
    python -m benchmarks.long_import --n 500          (a quick look)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import longmemeval_data
from engine.clock import format_time
from benchmarks.import_throughput import PlainOnnx, TimedEmbedder


def write_input(path: Path, n: int | None) -> list[str]:
    pool = longmemeval_data.load()
    lines, texts = [], []
    for session in pool.sessions:
        for turn in session.turns:
            if not turn.text.strip():
                continue
            lines.append(json.dumps({"text": turn.text, "source": turn.source, "scope": "user", "kind": "episodic",
                                     "created_at": format_time(session.when)}, ensure_ascii=False))
            texts.append(turn.text)
    if n is not None:
        lines, texts = lines[:n], texts[:n]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return texts


def import_child(db: Path, source: Path) -> None:
    """Run in the child: import ``source`` into ``db`` and print wall, CPU and peak RSS as JSON."""
    from engine import Memory
    from engine.models.embeddings import shared_embedder

    started, cpu = time.perf_counter(), time.process_time()
    embedder = TimedEmbedder(shared_embedder())  # loaded inside the timing, as a user's import loads it
    with Memory(db, embedder=embedder) as memory:
        run = memory.import_file(source)
    print(json.dumps({"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu,
                      "embed_wall_s": embedder.wall, "embed_cpu_s": embedder.cpu, "items": run.items,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, help="only the first N turns")
    parser.add_argument("--plain-batch", type=int, default=64)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        import_child(Path(args.child[0]), Path(args.child[1]))
        return
    if not longmemeval_data.available():
        print(json.dumps({"skipped": "the shared LongMemEval data is not there"}))
        return
    from engine.models.embeddings import default_model_dir

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="memlens-long-import-") as name:
        folder = Path(name)
        source = folder / "turns.jsonl"
        texts = write_input(source, args.n)
        # The import first: its child loads the model itself (counted, as a user's import would).
        done = subprocess.run([sys.executable, "-m", "benchmarks.long_import", "--child", str(folder / "m.sqlite"),
                               str(source)], stdout=subprocess.PIPE, text=True, check=True)
        imported = json.loads(done.stdout.strip().splitlines()[-1])
        plain = PlainOnnx(default_model_dir())
        plain.embed(texts[:8])  # warm, as the import's model is by its first chunk
        started, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(texts), args.plain_batch):
            plain.embed(texts[start:start + args.plain_batch])
        plain_wall, plain_cpu = time.perf_counter() - started, time.process_time() - cpu
    print(json.dumps({"texts": len(texts), "megabytes": round(sum(len(t.encode()) for t in texts) / 1e6, 2),
                      "import_wall_s": round(imported["wall_s"], 1), "import_cpu_s": round(imported["cpu_s"], 1),
                      "plain_wall_s": round(plain_wall, 1), "plain_cpu_s": round(plain_cpu, 1),
                      "ratio_wall": round(imported["wall_s"] / plain_wall, 3),
                      "ratio_cpu": round(imported["cpu_s"] / plain_cpu, 3),
                      "import_embed_wall_s": round(imported["embed_wall_s"], 1),
                      "import_embed_share_wall": round(imported["embed_wall_s"] / imported["wall_s"], 3),
                      "import_peak_rss_mb": round(imported["peak_rss_mb"]), "items": imported["items"],
                      "load": [round(v, 2) for v in (*load_start, *os.getloadavg())]}))


if __name__ == "__main__":
    main()
