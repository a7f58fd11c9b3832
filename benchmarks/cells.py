"""Would scanning part of the sketch keep search exact? Cells (IVF) and a shorter sketch, measured.

At 1M facts a search's rough score reads the whole 64-dimension sketch (~11 ms on a quiet core, 246 MB),
and issue 29 asks for a search p50 of 20 ms with the top 10 equal to the exhaustive reference on 99 % of
queries. Two ways to read less, each measured against the shortlist the engine re-scores today:

* **cells**: k-means centroids over the sketch (trained on a sample), every row in its nearest cell,
  the rows stored cell by cell; a query scans the cells nearest to it until a share of the rows is read,
  and the other rows get no estimate;
* **a shorter sketch**: the first d principal directions for every row, the rest only for the best
  rows by that first estimate.

For each, the share of the query's true top 10 and top 100 by exact cosine that fall inside the
shortlist (what search scores exactly; a fact outside it can still rank by its text, so this is the
vector side of exactness) and the time of the scan. The queries are ``make bench``'s.

    python -m benchmarks.cells [--size 1000000] [--queries 60] [--cells 1024]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from scipy.cluster.vq import kmeans2

from benchmarks import speed
from benchmarks.synthetic import BENCH_DIR, LookupEmbedder, store_path
from engine.search.vectors import VectorIndex, _largest


def _median_ms(call: Callable[[], Any], reps: int = 15) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return round(1e3 * float(np.median(times)), 2)


def _nearest_centre(columns: np.ndarray, centres: np.ndarray, chunk: int = 65_536) -> np.ndarray:
    """The nearest centre of each column of ``columns`` (dims x rows)."""
    norms = (centres * centres).sum(axis=1)[:, None]
    found = np.empty(columns.shape[1], np.int32)
    for start in range(0, columns.shape[1], chunk):
        found[start:start + chunk] = (2 * (centres @ columns[:, start:start + chunk]) - norms).argmax(axis=0)
    return found


def measure(index: VectorIndex, queries: np.ndarray, cells: int = 1024, shares: tuple[float, ...] = (0.05, 0.1, 0.2),
            prefixes: tuple[int, ...] = (16, 24, 32), keeps: tuple[int, ...] = (25_000, 50_000, 100_000),
            seed: int = 1) -> dict[str, Any]:
    """Every variant's top-10 / top-100 share inside the shortlist and its scan time (ms, p50)."""
    n = len(index)
    sketch, basis = index._sketch[:, :n], index._basis  # noqa: SLF001 - what is measured is the index's own sketch
    if basis is None:
        raise SystemExit("the index has no sketch at this size: nothing to measure")
    shortlist = index._shortlist(200)  # noqa: SLF001
    rng = np.random.default_rng(seed)
    sample = np.ascontiguousarray(sketch[:, rng.choice(n, min(n, 60 * cells), replace=False)].T)
    started = time.perf_counter()
    centres, _ = kmeans2(sample, cells, iter=8, minit="points", seed=rng)
    assigned = _nearest_centre(sketch, centres)
    layout_s = time.perf_counter() - started
    order = np.argsort(assigned, kind="stable")
    counts = np.bincount(assigned, minlength=cells)
    starts = np.concatenate([[0], np.cumsum(counts)])
    by_cell = np.ascontiguousarray(sketch[:, order])

    def cell_estimates(projected: np.ndarray, share: float) -> np.ndarray:
        nearest = np.argsort(-(centres @ projected))
        read = int(np.searchsorted(np.cumsum(counts[nearest]), share * n)) + 1
        found = np.zeros(n, np.float32)
        for cell in np.sort(nearest[:read]):
            found[order[starts[cell]:starts[cell + 1]]] = projected @ by_cell[:, starts[cell]:starts[cell + 1]]
        return found

    def prefix_estimates(projected: np.ndarray, dims: int, keep: int, full: np.ndarray) -> np.ndarray:
        found = projected[:dims] @ sketch[:dims]
        best = _largest(found, keep)
        found[best] = full[best]
        return found

    variants: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {"full sketch (today)": lambda p, f: f}
    for share in shares:
        variants[f"cells {cells}, {share:.0%} of rows read"] = lambda p, f, s=share: cell_estimates(p, s)
    for dims in prefixes:
        for keep in keeps:
            variants[f"first {dims} dims, best {keep:,} completed"] = \
                lambda p, f, d=dims, k=keep: prefix_estimates(p, d, k, f)
    inside = {name: [0, 0] for name in variants}
    for query in queries:
        projected = query @ basis
        full = projected @ sketch
        exact = index.cosine(query)
        top100 = np.argpartition(-exact, 100)[:100]
        top10 = top100[np.argsort(-exact[top100])][:10]
        for name, estimate in variants.items():
            listed = _largest(estimate(projected, full), shortlist)
            inside[name][0] += len(np.intersect1d(top10, listed))
            inside[name][1] += len(np.intersect1d(top100, listed))
    projected = queries[0] @ basis
    scan = {"full sketch (today)": _median_ms(lambda: projected @ sketch)}
    for share in shares:
        scan[f"cells {cells}, {share:.0%} of rows read"] = _median_ms(lambda s=share: cell_estimates(projected, s))
    for dims in prefixes:
        head = np.ascontiguousarray(sketch[:dims])
        ms = _median_ms(lambda h=head, d=dims: projected[:d] @ h)
        for keep in keeps:
            scan[f"first {dims} dims, best {keep:,} completed"] = ms
    q = len(queries)
    return {"rows": n, "shortlist": shortlist, "queries": q, "cells_layout_s": round(layout_s, 1),
            "variants": [{"variant": name, "top10_inside": round(inside[name][0] / (10 * q), 3),
                          "top100_inside": round(inside[name][1] / (100 * q), 3), "scan_ms": scan[name]}
                         for name in variants]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--cells", type=int, default=1024)
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    args = parser.parse_args()
    saved = np.load(args.bench_dir / "queries-300-v2.npz")
    queries = saved["vectors"].astype(np.float32)[: args.queries]
    with speed.open_memory(store_path(args.size, args.bench_dir), LookupEmbedder({})) as memory:
        result = measure(memory.index.ready(), queries, cells=args.cells)
    print("| variant | true top 10 inside the shortlist | true top 100 inside | scan (ms, p50) |")
    print("| --- | --- | --- | --- |")
    for row in result["variants"]:
        print(f"| {row['variant']} | {row['top10_inside']:.3f} | {row['top100_inside']:.3f} | {row['scan_ms']} |")
    print(json.dumps({k: v for k, v in result.items() if k != "variants"}))


if __name__ == "__main__":
    main()
