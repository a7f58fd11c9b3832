"""Absorb at 10k, pipeline only, without the rest of ``make bench``: for before/after comparisons.

    python -m benchmarks.absorb_pipeline [--runs 3] [--profile b1|b100|reabsorb] [--bench-dir .bench]

Uses the cached 10k store and fresh items of ``python -m benchmarks --quick`` (``.bench/``; run that
once first) and ``benchmarks.speed``'s reps and functions: batches of 1 and 100 with vectors looked
up (the embedder excluded), and re-absorb of 100 known facts. Each run works on a fresh copy of the
store and prints one JSON line: wall-clock p50 (µs per fact, ms per re-absorb), CPU-time medians
(steadier than wall time on a shared machine) and the load average before and after. ``--profile``
runs cProfile around one figure's timed calls and prints the top functions instead.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from engine.models.embeddings import shared_embedder

from benchmarks import speed
from benchmarks.synthetic import BENCH_DIR, LookupEmbedder, cached_embedded, store_path

SIZE = 10_000


def _timed(calls: Iterable[Callable[[], Any]], warmup: int, cpu: list[list[int]],
           profiler: cProfile.Profile | None) -> list[int]:
    """``speed.timed``, also keeping each call's CPU time, optionally under a profiler."""
    wall, used = [], []
    for call in calls:
        start_cpu, start = time.process_time_ns(), time.perf_counter_ns()
        if profiler is not None:
            profiler.enable()
        call()
        if profiler is not None:
            profiler.disable()
        wall.append(time.perf_counter_ns() - start)
        used.append(time.process_time_ns() - start_cpu)
    cpu.append(used[warmup:])
    return wall[warmup:]


def run(work: Path, reps: speed.Reps, profile: str | None = None, bench_dir: Path = BENCH_DIR) -> dict[str, Any]:
    store = store_path(SIZE, bench_dir)
    fresh, vectors = cached_embedded(f"fresh-{SIZE}-{reps.fresh_needed()}",
                                     lambda: speed.fresh_items(store, reps.fresh_needed()), shared_embedder, bench_dir)
    profiler = cProfile.Profile() if profile else None
    cpu: list[list[int]] = []
    load_before = os.getloadavg()
    original = speed.timed
    try:
        speed.timed = lambda calls, warmup: _timed(  # type: ignore[assignment]
            calls, warmup, cpu, profiler if profile == ("b1", "b100", "reabsorb")[len(cpu)] else None)
        table = dict(zip((it["text"] for it in fresh), vectors))
        copy = speed.copy_store(store, work / "absorb-pipeline.sqlite")
        with speed.open_memory(copy, LookupEmbedder(table)) as memory:
            memory.search("warm up", query_vector=vectors[0])
            t1, t100 = speed._absorb_runs(memory, fresh, reps.absorb_b1, reps.absorb_b100, reps)
        reabsorb = speed.reabsorb_figure(store, work, reps)
    finally:
        speed.timed = original  # type: ignore[assignment]
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return {"b1_us": round(speed.summary(t1, 1e3)["p50"]), "b100_us": round(speed.summary(t100, 1e3)["p50"]),
            "reabsorb_ms": round(reabsorb["p50"], 2), "cpu_b1_us": round(float(np.median(cpu[0])) / 1e3),
            "cpu_b100_us": round(float(np.median(cpu[1])) / 1e5),
            "cpu_reabsorb_ms": round(float(np.median(cpu[2])) / 1e6, 2),
            "load": [round(v, 2) for v in (*load_before, *os.getloadavg())]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", choices=("b1", "b100", "reabsorb"))
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR, help="where the cached stores are")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="absorb-pipeline-") as tmp:
        for _ in range(args.runs):
            print(json.dumps(run(Path(tmp), speed.QUICK, args.profile, args.bench_dir)), flush=True)


if __name__ == "__main__":
    main()
