"""``python -m benchmarks``: the speed half of ``make bench`` (DESIGN §12), plus LoCoMo when present.

    python -m benchmarks [--quick] [--sizes 1k,10k,1m] [--out benchmarks/results.json]

Synthetic stores of 1k, 10k and 100k facts (``--quick``: 1k and 10k; ``--sizes``
any, e.g. 1m) are built once and cached in ``.bench/`` (below 100k through
``Memory.absorb``, from 100k by ``benchmarks.bulk``); then absorb, re-absorb,
search, cold start and peak RSS are measured, the engine's top-10 is checked
against a plain reference implementation, and one table is printed. The exit
status is 1 when the engine and the reference disagree on more than 1 % of queries, or LoCoMo failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from engine.models.embeddings import Embedder, shared_embedder
from engine.search.index_file import cache_path

from benchmarks import report, speed
from benchmarks.synthetic import BENCH_DIR, Generator, cached_embedded, cached_store, log_err

QUERY_SEED = 9001
QUERY_COUNT = 300
Log = Callable[[str], None]


def _per_size(store: Path, work: Path, size: int, check: bool, queries: list[str], vectors: Any,
              embedder: Embedder, reps: speed.Reps, log: Log) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Search latency, optionally the correctness check, then cold start on a private copy."""
    copy = speed.copy_store(store, work / f"search-{size}.sqlite")
    checked = None
    with speed.open_memory(copy, embedder) as memory:
        log(f"search at {size:,}: {len(queries) * reps.search_rounds} queries, engine only and end to end")
        figures: dict[str, Any] = speed.search_figures(memory, queries, vectors, reps)
    if check:  # where the top 10 is checked: the pass reads 20 facts' texts, whatever the store's size
        log(f"the cross-encoder's pass at {size:,}: {reps.cross_encoder} searches")
        figures["cross_encoder_ms"] = speed.cross_encoder_figure(copy, embedder, queries, vectors, reps)
    with speed.open_memory(copy, embedder) as memory:
        if check:
            log(f"correctness at {size:,}: engine top-10 vs the reference on {reps.correctness} queries")
            checked = {"size": size, **speed.correctness(memory, queries[:reps.correctness],
                                                         vectors[:reps.correctness])}
    log(f"cold start at {size:,}: {reps.cold} fresh process(es) per mode")
    figures.update(speed.cold_start(copy, work, queries[0], vectors[0], reps))
    copy.unlink()
    # The copy's vector cache goes beside the cached store, where the GUI benchmark's copy picks it up:
    # a user's every open after the first has one. (Searching wrote nothing to the journal; were it
    # stale, the engine would see that from the journal's chain hash and rebuild.)
    if cache_path(copy).exists():
        cache_path(copy).replace(cache_path(store))
    return figures, checked


def _absorb(store: Path, work: Path, size: int, embedder: Embedder, reps: speed.Reps, bench_dir: Path,
            log: Log) -> dict[str, Any]:
    count = reps.fresh_needed()
    fresh, vectors = cached_embedded(f"fresh-{size}-{count}", lambda: speed.fresh_items(store, count),
                                     lambda: embedder, bench_dir)
    log(f"absorb at {size:,}: batches of 1 and 100, pipeline only and end to end")
    figures = speed.absorb_figures(store, work, fresh, vectors, embedder, reps)
    log(f"re-absorb of 100 known facts at {size:,}")
    figures["reabsorb_100_known_ms"] = speed.reabsorb_figure(store, work, reps)
    return figures


def run(sizes: list[int], reps: speed.Reps, embedder: Embedder, bench_dir: Path = BENCH_DIR,
        log: Log = log_err, query_count: int = QUERY_COUNT) -> dict[str, Any]:
    """Every figure at every size, as the JSON record (without LoCoMo)."""
    figures: dict[str, dict[str, Any]] = defaultdict(dict)
    stores = {size: cached_store(size, lambda: embedder, bench_dir, log) for size in sizes}
    for size, (_, meta) in stores.items():
        figures["build_s"][str(size)] = meta["build_seconds"]
        figures["facts"][str(size)] = [meta["facts"], meta["active"]]
    queries, vectors = cached_embedded(f"queries-{query_count}", lambda: Generator(QUERY_SEED).queries(query_count),
                                       lambda: embedder, bench_dir)
    main_size = 10_000 if 10_000 in sizes else max(sizes)
    checked: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=bench_dir, prefix="work-") as tmp:
        work = Path(tmp)
        for key, value in _absorb(stores[main_size][0], work, main_size, embedder, reps, bench_dir, log).items():
            figures[key][str(main_size)] = value
        for size in sizes:
            # From the main size up: above 32k rows the index switches to float16 rows and batch absorb
            # to the sketch, so the largest store is checked too.
            found, check = _per_size(stores[size][0], work, size, size >= main_size, queries, vectors,
                                     embedder, reps, log)
            checked += [check] if check else []
            for key, value in found.items():
                figures[key][str(size)] = value
    return {"machine": report.machine(), "config": {"sizes": sizes, "reps": speed.reps_dict(reps),
                                                    "queries": len(queries)},
            "stores": {str(s): meta for s, (_, meta) in stores.items()}, "figures": dict(figures),
            "correctness": checked[0], "correctness_by_size": checked, "targets": report.evaluate_targets(figures)}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only 1k and 10k, fewer repetitions")
    parser.add_argument("--sizes", help="comma-separated store sizes, e.g. 1000,10000 or 10k,1m (skips LoCoMo)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results.json"), help="where the JSON goes")
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR, help="cache of built stores")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")] if args.sizes else ([1000, 10_000] if args.quick
                                                                                 else [1000, 10_000, 100_000])
    started = time.perf_counter()
    result = run(sizes, speed.QUICK if args.quick else speed.FULL, shared_embedder(), args.bench_dir)
    locomo_started = time.perf_counter()
    # LoCoMo alone takes ~1 minute; quick mode promises the speed table in under one, and chosen
    # sizes are about speed (LoCoMo's stores are its own, whatever the size).
    locomo = None if args.quick or args.sizes else report.locomo()
    if args.quick or args.sizes:
        print("LoCoMo retrieval quality: skipped with --quick or --sizes (run 'make bench' for it)")
    if locomo is not None:
        result["locomo"] = locomo
        result["locomo_seconds"] = round(time.perf_counter() - locomo_started, 1)
    gui = None if args.quick else _gui_figures(max(sizes))
    if gui is not None:
        result["gui"] = gui
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    print(report.table(result))
    print(f"JSON: {args.out}  ({result['seconds']} s)")
    return max(_verdict(check, locomo) for check in result["correctness_by_size"])


def parse_size(text: str) -> int:
    """``1000``, ``10k``, ``1m`` -> a number of facts."""
    text = text.strip().lower().replace("_", "")
    factor = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def _gui_figures(size: int) -> dict[str, Any] | None:
    """The desktop app on the largest store (``benchmarks.gui``), in its own process: it needs Qt,
    which the engine's figures above must not pay for."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "gui.json"
        done = subprocess.run([sys.executable, "-m", "benchmarks.gui", "--size", str(size), "--out", str(out)],
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, capture_output=True, text=True)
        if done.returncode != 0 or not out.exists():
            print(f"GUI figures: skipped ({done.stderr.strip().splitlines()[-1:] or 'no output'})", file=sys.stderr)
            return None
        figures = json.loads(out.read_text(encoding="utf-8"))
    print(f"GUI at {size:,} facts: first rows {figures['first_rows_s']} s, first results "
          f"{figures['first_search_s']} s{' (words only)' if figures.get('first_search_text_only') else ''}, "
          f"by meaning too {figures.get('first_hybrid_search_s')} s, worst stall while typing {figures['typing_worst_stall_ms']} ms, "
          f"while scrolling {figures['scroll_worst_stall_ms']} ms; "
          f"graph of {figures['graph_nodes']:,} nodes / {figures['graph_edges']:,} edges: frame p50 "
          f"{figures['graph_frame_p50_ms']} ms, p95 {figures['graph_frame_p95_ms']} ms")
    return figures


# Issue 18: the top 10 equals the exhaustive reference on at least 99 % of queries at every size. The
# engine chooses which facts to score exactly from estimates, so a rare miss is by design; every one is
# printed above.
AGREEMENT_TARGET = 0.99


def _verdict(check: dict[str, Any], locomo: dict[str, Any] | None) -> int:
    """Exit status: 1 when the engine's top 10 differs from the reference's on more than 1 % of queries
    (every difference is printed on stderr)."""
    for diff in check["differences"]:
        print(f"DISAGREEMENT on {diff['query']!r}: engine {diff['engine']} vs reference {diff['reference']}",
              file=sys.stderr)
        for fact in diff["missing_from_engine"]:
            print(f"    fact {fact['id']} (score {fact['score']:.4f}, cosine rank {fact['cosine_rank']}, "
                  f"BM25 rank {fact['bm25_rank']}): {fact.get('why', '')}", file=sys.stderr)
    if check["agree"] < AGREEMENT_TARGET * check["queries"]:
        print(f"FAILED: the engine's top-10 differs from the reference on "
              f"{check['queries'] - check['agree']} of {check['queries']} queries at {check['size']:,} "
              f"(at most {1 - AGREEMENT_TARGET:.0%} may differ)", file=sys.stderr)
        return 1
    return 1 if locomo and "error" in locomo else 0


if __name__ == "__main__":
    sys.exit(main())
