"""Peak memory and speed of the embedder on long and short texts.

Each case runs in a fresh process so its peak RSS (``ru_maxrss``, model
included) is its own. Long texts are generated facts joined into 1,500-3,900
characters, the shape of long assistant replies in an imported chat; short
texts are single generated facts (50-500 characters).

    python -m benchmarks.embedding_memory                 (90 long, 2,000 long, 2,000 short)
    python -m benchmarks.embedding_memory --case long:90  (one case, in this process)
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from typing import Any

from benchmarks.synthetic import Generator

DEFAULT_CASES = ("long:90", "long:2000", "short:2000")


def long_texts(n: int, seed: int = 7) -> list[str]:
    """``n`` texts of 1,500-3,900 characters, each a run of generated facts."""
    rng = random.Random(seed)
    pool = [item["text"] for item in Generator(seed).facts(n * 14)]
    texts, at = [], 0
    for _ in range(n):
        target, parts = rng.randint(1500, 3900), []
        while sum(len(p) + 1 for p in parts) < target:
            parts.append(pool[at % len(pool)])
            at += 1
        texts.append(" ".join(parts)[:target])
    return texts


def short_texts(n: int, seed: int = 11) -> list[str]:
    return [item["text"] for item in Generator(seed).facts(n)]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def run_case(case: str) -> dict[str, Any]:
    kind, _, count = case.partition(":")
    texts = (long_texts if kind == "long" else short_texts)(int(count))
    from engine.models.embeddings import shared_embedder

    started = time.perf_counter()
    embedder = shared_embedder()
    loaded_s, loaded_mb = time.perf_counter() - started, _peak_mb()
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    seconds = time.perf_counter() - started
    return {"case": case, "texts": len(texts), "chars_mean": round(sum(map(len, texts)) / len(texts)),
            "rows": int(vectors.shape[0]), "load_s": round(loaded_s, 2), "rss_after_load_mb": round(loaded_mb),
            "embed_s": round(seconds, 2), "texts_per_s": round(len(texts) / seconds, 1),
            "peak_rss_mb": round(_peak_mb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="long:N or short:N; repeatable")
    args = parser.parse_args()
    if args.case and len(args.case) == 1:
        print(json.dumps(run_case(args.case[0])))
        return
    for case in args.case or DEFAULT_CASES:
        done = subprocess.run([sys.executable, "-m", "benchmarks.embedding_memory", "--case", case],
                              capture_output=True, text=True, check=False)
        print(done.stdout.strip() or f'{{"case": "{case}", "error": {json.dumps(done.stderr[-500:])}}}',
              flush=True)


if __name__ == "__main__":
    main()
