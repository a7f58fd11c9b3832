"""The in-memory text index against FTS5: speed of whole searches, and exactness and cost on a big corpus.

    python -m benchmarks.text_index ab --size 10000 [--rounds 3]
    python -m benchmarks.text_index corpus --size 100000

``ab`` opens a copy of a cached benchmark store (``make bench`` builds them) and runs
every query of the benchmark through ``Memory.search`` twice, once with the text part
from FTS5 (as before the index) and once from the index, alternating which goes first,
so both see the same load; it prints wall and CPU (thread) time per search and whether
the hits are identical. ``corpus`` writes an FTS5-only file of SIZE facts made from the
10k store's texts (a copy beyond the first 10k has two words swapped for others of the
corpus and an identifier added), builds the index from it as the engine does (4,096
facts at a time), and checks each benchmark query's kept words, counts, matches, order
and ``bm25()`` values against FTS5's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import numpy as np

from benchmarks import speed
from benchmarks.synthetic import BENCH_DIR, LookupEmbedder
from engine.search.fts import RAREST_STRETCH, _quoted, match_parts
from engine.search.text_index import TextIndex
from engine.store.fts_tokens import FtsTokenizer


def _queries(bench_dir: Path) -> tuple[list[str], np.ndarray]:
    cached = np.load(bench_dir / "queries-300-v1.npz", allow_pickle=True)
    return [json.loads(str(q)) for q in cached["entries"]], cached["vectors"]


def _ms(values: list[int]) -> str:
    return f"{np.percentile(values, 50) / 1e6:.2f} / {np.percentile(values, 95) / 1e6:.2f}"


def ab(size: int, rounds: int, bench_dir: Path) -> None:
    queries, vectors = _queries(bench_dir)
    copy = speed.copy_store(bench_dir / f"store-{size}-v1.sqlite", bench_dir / f"ab-text-{size}.sqlite")
    with speed.open_memory(copy, LookupEmbedder({})) as memory:
        memory.search(queries[0], query_vector=vectors[0])
        with memory.store.guard():
            memory.index.ready()
            memory.index.text(wait=True)
        built = memory.index.text

        def use_index(on: bool) -> None:
            memory.index.text = built if on else (lambda wait=False: None)  # None: FTS5 answers

        for on in (False, True):  # warm both: FTS5's term counts, the index's phrase cache
            use_index(on)
            for query, vector in zip(queries, vectors):
                memory.search(query, query_vector=vector)
        wall: dict[bool, list[int]] = {False: [], True: []}
        cpu: dict[bool, list[int]] = {False: [], True: []}
        same = 0
        for r in range(rounds):
            for k, (query, vector) in enumerate(zip(queries, vectors)):
                hits = {}
                for on in ((False, True) if (k + r) % 2 == 0 else (True, False)):
                    use_index(on)
                    start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
                    found = memory.search(query, query_vector=vector)
                    cpu[on].append(time.thread_time_ns() - start_cpu)
                    wall[on].append(time.perf_counter_ns() - start)
                    hits[on] = [(h.fact.id, h.score, h.bm25) for h in found]
                same += hits[False] == hits[True]
    copy.unlink()
    print(f"{size:,} facts, {len(wall[True])} searches each, p50 / p95 ms (load {os.getloadavg()[0]:.1f}):\n"
          f"  wall  FTS5 {_ms(wall[False])}   text index {_ms(wall[True])}\n"
          f"  CPU   FTS5 {_ms(cpu[False])}   text index {_ms(cpu[True])}\n"
          f"  identical hits: {same}/{len(wall[True])}")


def _corpus(size: int, bench_dir: Path) -> Path:
    path = bench_dir / f"fts-corpus-{size}.sqlite"
    if path.exists():
        return path
    with closing(sqlite3.connect(f"file:{bench_dir / 'store-10000-v1.sqlite'}?mode=ro&immutable=1", uri=True)) as db:
        base = [row[0] for row in db.execute("SELECT text FROM facts ORDER BY id")]
    rng = random.Random(1)
    vocabulary = sorted({w for text in base for w in text.split()})
    texts = []
    for k in range(size):
        words = base[k % len(base)].split()
        if k >= len(base):
            for _ in range(2):
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
            words.append(f"ref-{rng.randrange(50_000)}")
        texts.append(" ".join(words))
    with closing(sqlite3.connect(path)) as db:
        db.executescript("""
            CREATE TABLE facts (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            CREATE VIRTUAL TABLE facts_fts USING fts5(text, content='facts', content_rowid='id',
                tokenize='porter unicode61 remove_diacritics 2');
            CREATE TRIGGER facts_index_text AFTER INSERT ON facts BEGIN
                INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text); END;""")
        db.executemany("INSERT INTO facts (id, text) VALUES (?, ?)", enumerate(texts, 1))
        db.commit()
    return path


def corpus(size: int, bench_dir: Path, budget: int = 100, limit: int = 400) -> None:
    queries, _ = _queries(bench_dir)
    with closing(sqlite3.connect(_corpus(size, bench_dir))) as db:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start, start_cpu = time.perf_counter(), time.process_time()
        index, mark = TextIndex(FtsTokenizer().tokens), 0
        while rows := db.execute("SELECT id, text FROM facts WHERE id > ? ORDER BY id LIMIT 4096", (mark,)).fetchall():
            index.add([r[0] for r in rows], [r[1] for r in rows])
            mark = rows[-1][0]
        print(f"{size:,} facts: built in {time.perf_counter() - start:.2f} s wall, {time.process_time() - start_cpu:.2f} s CPU;"
              f" {index.nbytes / 1e6:.1f} MB of arrays, {len(index.terms):,} terms, {index.tokens:,} tokens;"
              f" peak RSS +{(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024:.0f} MB"
              f" (load {os.getloadavg()[0]:.1f})")
        cap = budget * RAREST_STRETCH + 1
        differ, cold, warm, fts_counts, fts_rank = 0, [], [], [], []
        for query in queries:
            index._phrases, index._counts = {}, {}  # every query as if its words were new
            for times in (cold, warm):
                start = time.perf_counter_ns()
                parts = match_parts(query, lambda p: min(index.frequency(p), cap), budget)
                found = index.ranked(parts, limit)
                times.append(time.perf_counter_ns() - start)
            start = time.perf_counter_ns()
            expected = match_parts(query, lambda p: db.execute(
                "SELECT count(*) FROM (SELECT 1 FROM facts_fts WHERE facts_fts MATCH ? LIMIT ?)",
                (_quoted(p), cap)).fetchone()[0], budget)
            counted = time.perf_counter_ns()
            rows = db.execute("SELECT rowid, bm25(facts_fts) AS rank FROM facts_fts WHERE facts_fts MATCH ? "
                              "ORDER BY rank LIMIT ?", (" OR ".join(map(_quoted, expected)), limit)).fetchall() \
                if expected else []
            fts_counts.append(counted - start)
            fts_rank.append(time.perf_counter_ns() - counted)
            if (parts != expected or [r[0] for r in rows] != found.fact_ids.tolist()
                    or [-r[1] for r in rows] != found.scores.tolist()):
                differ += 1
        print(f"  {len(queries)} queries, {differ} differing from FTS5 (kept words, counts, ids, order, bm25 values)\n"
              f"  p50 / p95 ms: index, words new {_ms(cold)}, words counted before {_ms(warm)};"
              f" FTS5 counting the words {_ms(fts_counts)}, ranking {_ms(fts_rank)}")
        start = time.perf_counter()
        for k in range(200):
            index.add([size + 1 + k], [f"Appended fact {k} about the Lyon office and Ember Portal."])
        print(f"  appending one fact: {(time.perf_counter() - start) / 200 * 1e3:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("ab", "corpus"))
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    args = parser.parse_args()
    if args.what == "ab":
        ab(args.size, args.rounds, args.bench_dir)
    else:
        corpus(args.size, args.bench_dir)


if __name__ == "__main__":
    main()
