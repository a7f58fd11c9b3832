"""The speed figures of DESIGN §12, measured on copies of the cached synthetic stores.

Every timed call runs after warm-up calls that are not counted (index load,
first SQLite page reads, ONNX session warm-up) and is timed alone with
``time.perf_counter_ns``; figures are medians and 95th percentiles. Work
happens in copies, so the cached stores never change (searches write access
counters, absorbs write facts). Cold start and peak RSS come from fresh
subprocesses, so nothing in-process is warm while the OS page cache is.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from engine import Memory, Settings, fixed_clock
from engine.config import CROSS_ENCODER_DEPTH, CROSS_ENCODER_ENV
from engine.models.embeddings import Embedder
from engine.search.fts import RAREST_STRETCH, TermCounts, match_expression
from engine.search.hybrid import match_budget
from engine.search.question_kind import SCORED_KINDS, asked_kinds, carried_kinds
from engine.search.voice import asks_about_self, voice
from engine.search.index_file import cache_path
from engine.store.records import content_hash

from benchmarks.synthetic import NOW, Generator, LookupEmbedder

Item = dict[str, Any]


@dataclass(frozen=True)
class Reps:
    """How many timed calls each figure gets (warm-up calls come on top)."""
    warmup: int = 5
    warmup_batches: int = 1
    absorb_b1: int = 200
    absorb_b100: int = 20
    e2e_b1: int = 100
    e2e_b100: int = 8
    reabsorb: int = 30
    search_rounds: int = 2
    cold: int = 3
    correctness: int = 100
    cross_encoder: int = 100

    def fresh_needed(self) -> int:
        return self.warmup + self.absorb_b1 + 100 * (self.warmup_batches + self.absorb_b100)


FULL = Reps()
QUICK = Reps(warmup=3, absorb_b1=60, absorb_b100=5, e2e_b1=30, e2e_b100=3, reabsorb=15, search_rounds=1, cold=1,
             cross_encoder=30)
SMOKE = Reps(warmup=1, warmup_batches=0, absorb_b1=3, absorb_b100=1, e2e_b1=2, e2e_b100=1, reabsorb=2,
             search_rounds=1, cold=1, correctness=10, cross_encoder=2)


def summary(samples_ns: Sequence[float], per_unit_ns: float) -> dict[str, float]:
    """p50 and p95 of ``samples_ns`` in the unit of ``per_unit_ns`` nanoseconds."""
    values = np.asarray(samples_ns, dtype=np.float64) / per_unit_ns
    return {"p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95)),
            "n": int(len(values))}


def timed(calls: Iterable[Callable[[], Any]], warmup: int) -> list[int]:
    """Run every call, time each alone, and drop the first ``warmup`` timings."""
    samples = []
    for call in calls:
        start = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - start)
    return samples[warmup:]


def copy_store(source: Path, target: Path) -> Path:
    """A private copy of a (cleanly closed, so WAL-free) cached store."""
    for stale in (target, Path(f"{target}-wal"), Path(f"{target}-shm"), cache_path(target)):
        stale.unlink(missing_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    # Flush the copy now: otherwise the kernel writes ~340 MB back (at 100k) during the timings.
    with target.open("rb+") as handle:
        os.fsync(handle.fileno())
    return target


def open_memory(path: Path, embedder: Embedder, cross_encoder_depth: int = 0) -> Memory:
    """The memory as the benchmarks time it: search figures are the engine's own ranking, so the
    cross-encoder's second pass is off unless asked for (its cost is its own row, ``cross_encoder_figure``)."""
    settings = Settings()
    settings = replace(settings, memory=replace(settings.memory, cross_encoder_depth=cross_encoder_depth))
    return Memory(path, settings, clock=fixed_clock(NOW), actor="bench", embedder=embedder)


# -- absorb -------------------------------------------------------------------------

def fresh_items(store: Path, count: int, seed: int = 424242) -> list[Item]:
    """``count`` generated facts whose texts are not in ``store`` (so none takes the hash fast path)."""
    with closing(sqlite3.connect(f"file:{store}?mode=ro&immutable=1", uri=True)) as db:  # no -shm beside the cache
        known = {row[0] for row in db.execute("SELECT content_hash FROM facts")}
    items = Generator(seed).facts(count + count // 10 + 10)
    return [it for it in items if content_hash(it["text"]) not in known][:count]


def _absorb_runs(memory: Memory, items: list[Item], singles: int, batches: int,
                 reps: Reps) -> tuple[list[int], list[int]]:
    """Distinct items for every call: re-absorbing one would take the hash fast path."""
    one = items[:reps.warmup + singles]
    rest = items[reps.warmup + singles:]
    hundreds = [rest[k * 100:(k + 1) * 100] for k in range(reps.warmup_batches + batches)]
    t1 = timed((lambda it=it: memory.absorb([it]) for it in one), reps.warmup)
    t100 = timed((lambda b=b: memory.absorb(b) for b in hundreds), reps.warmup_batches)
    return t1, [t / 100 for t in t100]


def absorb_figures(store: Path, work: Path, items: list[Item], vectors: np.ndarray, embedder: Embedder,
                   reps: Reps) -> dict[str, dict[str, float]]:
    """µs per fact for batches of 1 and 100: pipeline only (vectors looked up) and end to end."""
    table = dict(zip((it["text"] for it in items), vectors))
    figures = {}
    for label, model, singles, batches in (("pipeline", LookupEmbedder(table), reps.absorb_b1, reps.absorb_b100),
                                           ("e2e", embedder, reps.e2e_b1, reps.e2e_b100)):
        with open_memory(copy_store(store, work / f"absorb-{label}.sqlite"), model) as memory:
            memory.search("warm up", query_vector=vectors[0])  # loads the vector index outside the timings
            t1, t100 = _absorb_runs(memory, items, singles, batches, reps)
        figures[f"absorb_{label}_b1_us"] = summary(t1, 1e3)
        figures[f"absorb_{label}_b100_us"] = summary(t100, 1e3)
    return figures


def reabsorb_figure(store: Path, work: Path, reps: Reps) -> dict[str, float]:
    """ms to absorb 100 texts already stored; an empty lookup table proves nothing is embedded."""
    path = copy_store(store, work / "reabsorb.sqlite")
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT text, scope, kind, session_id FROM facts WHERE status = 'active' "
                          "ORDER BY id").fetchall()
    step = max(1, len(rows) // 100)
    items = [{"text": t, "scope": s, "kind": k, "session_id": sid} for t, s, k, sid in rows[::step][:100]]
    with open_memory(path, LookupEmbedder({})) as memory:
        samples = timed((lambda: memory.absorb(items) for _ in range(reps.warmup + reps.reabsorb)), reps.warmup)
        plan = memory.absorb(items)
    outcomes = {(it.outcome, it.decided_by) for it in plan.items}
    if outcomes != {("duplicate", "hash")}:
        raise AssertionError(f"re-absorb did not take the hash fast path: {sorted(outcomes)}")
    return summary(samples, 1e6)


# -- search -----------------------------------------------------------------------

def search_figures(memory: Memory, queries: list[str], vectors: np.ndarray, reps: Reps) -> dict[str, dict[str, float]]:
    """Latency of ``search`` with a given query vector (engine only) and with embedding (end to end)."""
    pairs = list(zip(queries, vectors)) * reps.search_rounds
    memory.warm_up(wait=True)  # the text index builds in a thread: time searches once it is there
    warm = pairs[:20]
    engine = timed((lambda q=q, v=v: memory.search(q, query_vector=v) for q, v in warm + pairs), len(warm))
    e2e = timed((lambda q=q: memory.search(q) for q, _ in warm + pairs), len(warm))
    return {"search_engine_ms": summary(engine, 1e6), "search_e2e_ms": summary(e2e, 1e6)}


def cross_encoder_figure(path: Path, embedder: Embedder, queries: list[str], vectors: np.ndarray,
                         reps: Reps) -> dict[str, float]:
    """ms of the cross-encoder's pass alone (``Timing.rerank_ms``) at the shipped depth, per search."""
    with open_memory(path, embedder, Settings().memory.cross_encoder_depth or CROSS_ENCODER_DEPTH) as memory:
        memory.warm_up(wait=True)
        pairs = list(zip(queries, vectors))[: reps.warmup + reps.cross_encoder]
        spent = [memory.search_timed(q, query_vector=v)[1].rerank_ms for q, v in pairs]
    return summary([ms * 1e6 for ms in spent[reps.warmup:]], 1e6)


CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter_ns()
import numpy
import engine
t1 = time.perf_counter_ns()
path, mode, query, vector_file, now = sys.argv[1:]
vector = numpy.load(vector_file)
t2 = time.perf_counter_ns()
memory = engine.Memory(path, clock=engine.fixed_clock(float(now)))
t3 = time.perf_counter_ns()
hits = memory.search(query, query_vector=vector) if mode == "engine" else memory.search(query)
t4 = time.perf_counter_ns()
hwm = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")]
print(json.dumps({"import_ms": (t1 - t0) / 1e6, "open_ms": (t3 - t2) / 1e6, "first_search_ms": (t4 - t3) / 1e6,
                  "total_ms": (t4 - t2) / 1e6, "hits": len(hits),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "vm_hwm_mb": int(hwm[0]) / 1024 if hwm else None}))
"""
# Linux carries a process's peak RSS across exec, so a child spawned straight from this
# (large) process would report our peak as its ru_maxrss. A small shell forks the child
# instead, so its ru_maxrss starts from zero.
SPAWN = ["/bin/sh", "-c", '"$@" & wait $!', "sh"]


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.median(known)) if known else None


def _cold_run(store: Path, mode: str, query: str, vector_file: Path) -> dict[str, Any]:
    # Cold start is the engine's open and first search: without the cross-encoder pass, as every search figure.
    done = subprocess.run([*SPAWN, sys.executable, "-c", CHILD, str(store), mode, query, str(vector_file),
                           str(NOW)], capture_output=True, text=True, check=True,
                          env={**os.environ, CROSS_ENCODER_ENV: "0"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def cold_start(store: Path, work: Path, query: str, vector: np.ndarray, reps: Reps) -> dict[str, Any]:
    """Open + first search in fresh processes: with the query vector given, and with the model loaded.

    The store was opened before (the search figures), so a big one has its vector cache beside it:
    these are the opens a user sees every day. The very first open of a file, which builds the
    index from SQLite, is measured once with the cache moved aside.
    """
    vector_file = work / "cold-query.npy"
    np.save(vector_file, vector)
    cache = cache_path(store)
    rebuild = None
    if cache.exists():
        aside = cache.with_name(cache.name + ".aside")
        cache.rename(aside)
        try:
            rebuild = _cold_run(store, "engine", query, vector_file)
        finally:
            aside.replace(cache)
    found: dict[str, Any] = {}
    for mode in ("engine", "e2e"):
        runs = [_cold_run(store, mode, query, vector_file) for _ in range(reps.cold)]
        found[mode] = {key: _median([r[key] for r in runs]) for key in runs[0]}
    # Below the cache's threshold every open builds the index from SQLite: the first open is any open.
    found["engine_without_cache"] = rebuild or found["engine"]
    return {"cold_start_engine_s": found["engine"]["total_ms"] / 1e3,
            "cold_start_no_cache_s": found["engine_without_cache"]["total_ms"] / 1e3,
            "cold_start_e2e_s": found["e2e"]["total_ms"] / 1e3,
            "import_s": found["engine"]["import_ms"] / 1e3,
            "peak_rss_mb": found["e2e"]["peak_rss_mb"], "peak_rss_no_model_mb": found["engine"]["peak_rss_mb"],
            "cold_detail": found}


# -- correctness --------------------------------------------------------------------

class Reference:
    """Hybrid search done the obvious way: every active fact scored exactly."""

    def __init__(self, db: sqlite3.Connection, model_id: str) -> None:
        rows = db.execute("SELECT f.id, v.vector, f.last_reinforced, f.plan_id, length(f.text) FROM facts f "
                          "JOIN fact_vectors v ON v.fact_id = f.id WHERE f.status = 'active' "
                          "AND f.embedding_model = ? ORDER BY f.id", (model_id,)).fetchall()
        self.db, self.limits = db, Settings().memory
        self.ids = np.array([r[0] for r in rows], np.int64)
        self.matrix = np.stack([np.frombuffer(r[1], np.float32) for r in rows])
        days = np.maximum(0.0, (NOW - np.array([r[2] for r in rows], np.float64)) / 86_400.0)
        self.fresh = np.maximum(self.limits.freshness_floor, 1.0 - self.limits.freshness_rate * days)
        self.row_of = {int(i): k for k, i in enumerate(self.ids)}
        self._voices: np.ndarray | None = None
        self._kinds: np.ndarray | None = None
        # Context neighbours: the active facts with the next lower / higher id, absorbed in the same plan.
        plans = [r[3] for r in rows]
        pairs = [k for k in range(1, len(rows)) if self.ids[k] == self.ids[k - 1] + 1
                 and plans[k] is not None and plans[k] == plans[k - 1]]
        self.before = np.full(len(rows), -1)
        self.after = np.full(len(rows), -1)
        self.before[pairs] = np.asarray(pairs, int) - 1
        self.after[np.asarray(pairs, int) - 1] = pairs
        # The share of its score each fact lends its neighbours: all of it up to context_length characters.
        chars = np.array([r[4] for r in rows], np.float64)
        length = self.limits.context_length
        self.gain = np.minimum(1.0, length / chars) if length > 0 else np.ones(len(rows))

    def parts(self, query: str, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cosine, BM25 part as the engine normalises it) of every active fact; BM25 is 0 where the text does not match."""
        cosine = (self.matrix @ vector).astype(np.float64)
        text = np.zeros(len(self.ids))
        budget = match_budget(self.limits, len(self.ids))
        # The same query terms as the engine's (the rarest within the budget), counted here afresh.
        expression = match_expression(query, TermCounts(budget * RAREST_STRETCH + 1).bind(self.db), budget) if budget > 0 \
            else match_expression(query)
        if expression is not None:
            rows = self.db.execute("SELECT rowid, bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ?",
                                   (expression,)).fetchall()
            active = [(self.row_of[r[0]], -r[1]) for r in rows if r[0] in self.row_of]
            best = max((value for _, value in active), default=0.0)
            for row, value in active:
                text[row] = (max(value, 0.0) / best) ** self.limits.bm25_power if best > 0 else 0.0
        return cosine, text

    def voices(self) -> np.ndarray:
        """Every active fact's voice (engine/search/voice.py), read once, when a question about the asker comes."""
        if self._voices is None:
            texts = dict(self.db.execute("SELECT id, text FROM facts WHERE status = 'active'"))
            self._voices = np.fromiter((voice(texts[int(i)]) for i in self.ids), np.float64, len(self.ids))
        return self._voices

    def kinds(self) -> np.ndarray:
        """The kinds of answer every active fact carries (engine/search/question_kind.py), read once."""
        if self._kinds is None:
            texts = dict(self.db.execute("SELECT id, text FROM facts WHERE status = 'active'"))
            self._kinds = np.fromiter((carried_kinds(texts[int(i)]) for i in self.ids), np.int64, len(self.ids))
        return self._kinds

    def scores(self, cosine: np.ndarray, text: np.ndarray, query: str = "") -> np.ndarray:
        """Base score plus ``context_weight`` times the more a neighbour lends (its base score times its share);
        for a question about the asker, the base times its voice factor and no context part; for a question
        asking when or how many, the base times the answer-kind factor."""
        w = self.limits
        base = (w.cosine_weight * np.maximum(0.0, cosine) + w.bm25_weight * text) * self.fresh
        asked = asked_kinds(query) & SCORED_KINDS
        if w.answer_kind_weight > 0 and asked:
            base = base * (1.0 + w.answer_kind_weight * ((self.kinds() & asked) > 0))
        if w.voice_weight > 0 and asks_about_self(query):
            return base * (1.0 + w.voice_weight * self.voices())
        padded = np.append(base * self.gain, 0.0)  # index -1: no neighbour
        return base + w.context_weight * np.maximum(padded[self.before], padded[self.after])

    def neighbours(self, rows: np.ndarray) -> np.ndarray:
        near = np.concatenate([self.before[rows], self.after[rows]])
        return near[near >= 0]

    def top(self, query: str, vector: np.ndarray, k: int = 10) -> list[int]:
        """Top ``k`` ids over all facts (ties: the higher id first, as the engine breaks them)."""
        score = self.scores(*self.parts(query, vector), query)
        order = np.lexsort((-self.ids, -score))[:k]
        return [int(self.ids[i]) for i in order]

    def explain(self, query: str, vector: np.ndarray, fact_id: int) -> dict[str, Any]:
        """Where a fact the engine missed ranks by each part alone and by the full score."""
        cosine, text = self.parts(query, vector)
        score = self.scores(cosine, text, query)
        row = self.row_of[fact_id]
        return {"id": fact_id, "score": float(score[row]), "score_rank": int((score > score[row]).sum()) + 1,
                "cosine": float(cosine[row]), "cosine_rank": int((cosine > cosine[row]).sum()) + 1,
                "bm25": float(text[row]),
                "bm25_rank": int((text > text[row]).sum()) + 1 if text[row] > 0 else None,
                "freshness": float(self.fresh[row])}


def correctness(memory: Memory, queries: list[str], vectors: np.ndarray) -> dict[str, Any]:
    """Engine top-10 against the exhaustive reference."""
    with closing(sqlite3.connect(f"file:{memory.path}?mode=ro", uri=True)) as db:
        reference = Reference(db, memory.model_id)
        differences = []
        for query, vector in zip(queries, vectors):
            engine_ids = [h.fact.id for h in memory.search(query, query_vector=vector, top_k=10)]
            expected = reference.top(query, vector)
            if engine_ids != expected:
                missing = [reference.explain(query, vector, i) for i in expected if i not in engine_ids]
                differences.append({"query": query, "engine": engine_ids, "reference": expected,
                                    "missing_from_engine": missing})
    return {"queries": len(queries), "agree": len(queries) - len(differences),
            "pool": reference.limits.candidate_pool, "differences": differences}


def reps_dict(reps: Reps) -> dict[str, int]:
    return asdict(reps)
