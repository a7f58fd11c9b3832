"""Retrieval on one long pooled memory: LongMemEval's development half (``../shared/eval/README.md``).

Every turn of every session in ``longmemeval/dev.json`` is absorbed into ONE memory
(one absorb per session, oldest first; source ``"{session_id}#{turn}"``, the session's
date as the facts' time, scope user, kind episodic, text cut at 3,900 characters);
each of the 226 questions with an answering turn is searched against the whole pool
at the last question date + 1 day. Scored: turn recall@5 (share of the answering
turns among the first five hits' sources) and hit@5 (any of them), per question type
and per fold of questions (ids dealt round-robin within each type, as
``benchmarks.ranking_replay`` tunes on), beside FTS5 BM25 alone over the same turns
(every query word OR-ed, and the engine's own match expression).

The store takes minutes to build (the absorb classifier runs over every turn); with
``--cache`` it is built once and reused, and embeddings are kept there too
(``benchmarks.vector_cache``). Delete the cache after changing how facts are absorbed.

    python -m benchmarks.longmemeval [--cache /tmp/retrieval-cache] [--set name=value,...] [--top-k 10]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks import longmemeval_data as lme
from benchmarks.vector_cache import CachedEmbedder
from engine import Memory, Settings
from engine.models.embeddings import shared_embedder
from engine.search.fts import RAREST_STRETCH, _quoted, match_expression, query_terms
from engine.search.hybrid import match_budget

FOLDS = 3


class _Clock:
    def __init__(self) -> None:
        self.at = 0.0

    def __call__(self) -> float:
        return self.at


def build(pool: lme.Pool, path: Path, embedder: Any, log=print) -> float:
    """The pooled memory at ``path`` (built under a temporary name, then renamed); seconds it took."""
    partial = path.with_suffix(".partial.sqlite")
    for leftover in path.parent.glob(partial.name + "*"):
        leftover.unlink()
    clock = _Clock()
    started = time.perf_counter()
    with Memory(partial, clock=clock, actor="bench", embedder=embedder) as memory:
        for n, session in enumerate(pool.sessions, start=1):
            clock.at = session.when
            when = datetime.fromtimestamp(session.when, timezone.utc).isoformat()
            memory.absorb([{"text": t.text, "source": t.source, "scope": "user", "kind": "episodic",
                            "created_at": when} for t in session.turns])
            if n % 50 == 0:
                log(f"absorbed {n}/{len(pool.sessions)} sessions, {time.perf_counter() - started:.0f} s")
    partial.replace(path)
    return time.perf_counter() - started


def folds_of(pool: lme.Pool) -> dict[str, int]:
    """Question id -> fold: sorted ids dealt round-robin within each question type."""
    by_kind: dict[str, list[str]] = defaultdict(list)
    for q in pool.questions:
        by_kind[q.kind].append(q.qid)
    return {qid: k % FOLDS for qids in by_kind.values() for k, qid in enumerate(sorted(qids))}


def score(pool: lme.Pool, ranked: dict[str, list[str]], k: int = 5) -> dict[str, dict[str, Any]]:
    """recall@k and hit@k per question type, per fold and over all questions."""
    fold = folds_of(pool)
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for q in pool.questions:
        top, expected = set(ranked.get(q.qid, [])[:k]), set(q.expected)
        pair = (len(top & expected) / len(expected), float(bool(top & expected)))
        for group in (q.kind, f"fold {fold[q.qid]}", "ALL"):
            groups[group].append(pair)
    return {g: {"n": len(v), f"recall@{k}": round(statistics.mean(p[0] for p in v), 4),
                f"hit@{k}": round(statistics.mean(p[1] for p in v), 4)} for g, v in groups.items()}


def bm25_runs(pool: lme.Pool, settings: Settings, top_k: int) -> dict[str, dict[str, list[str]]]:
    """FTS5 BM25 alone over the pooled turns: every query word OR-ed, and the engine's match expression."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text, source UNINDEXED, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t(text, source) VALUES (?, ?)", ((t.text, t.source) for t in pool.turns))
    budget = match_budget(settings.memory, len(pool.turns))  # as the engine's for a memory of this size
    cap = budget * RAREST_STRETCH + 1
    counts: dict[str, int] = {}

    def frequency(term: str) -> int:
        if term not in counts:
            counts[term] = db.execute("SELECT count(*) FROM (SELECT 1 FROM t WHERE t MATCH ? LIMIT ?)",
                                      (_quoted(term), cap)).fetchone()[0]
        return counts[term]

    def ranked(expression: str | None) -> list[str]:
        if not expression:
            return []
        rows = db.execute("SELECT source FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (expression, top_k))
        return [r[0] for r in rows]

    runs: dict[str, dict[str, list[str]]] = {"bm25 (all words)": {}, "bm25 (engine expression)": {}}
    for q in pool.questions:
        words = query_terms(q.question)
        runs["bm25 (all words)"][q.qid] = ranked(" OR ".join(_quoted(w) for w in words) if words else None)
        runs["bm25 (engine expression)"][q.qid] = ranked(
            match_expression(q.question, frequency, budget))
    db.close()
    return runs


def search_all(pool: lme.Pool, path: Path, settings: Settings, embedder: Any, top_k: int
               ) -> tuple[dict[str, list[str]], list[float]]:
    """Each question's ranked sources, and each search's engine time in ms (query vectors given)."""
    vectors = embedder.embed([q.question for q in pool.questions])
    ranked, times = {}, []
    with Memory(path, settings, clock=lambda: pool.asked_at, actor="bench", embedder=embedder) as memory:
        memory.search(pool.questions[0].question, top_k=top_k, query_vector=vectors[0], count_access=False)
        for q, vector in zip(pool.questions, vectors):
            started = time.perf_counter()
            hits = memory.search(q.question, top_k=top_k, query_vector=vector, count_access=False)
            times.append((time.perf_counter() - started) * 1000)
            ranked[q.qid] = list(dict.fromkeys(s for h in hits for s in h.fact.sources))
    return ranked, times


def evaluate(settings: Settings | None = None, cache: Path | None = None, top_k: int = 10, log=print
             ) -> dict[str, Any]:
    if not lme.available():
        return {"available": False, "message": f"LongMemEval data not found at {lme.EVAL_DIR}; skipped"}
    settings = settings or Settings()
    pool = lme.load()
    with tempfile.TemporaryDirectory(prefix="memlens-lme-") as folder:
        place = cache or Path(folder)
        embedder = CachedEmbedder(shared_embedder(), place)
        path = place / "lme-dev-pool.sqlite"
        build_s = None
        if not path.is_file():
            embedder.fill([t.text for t in pool.turns], log=log)
            build_s = build(pool, path, embedder, log)
        ranked, times = search_all(pool, path, settings, embedder, top_k)
        embedder.save()
        times.sort()
        result = {"available": True, "turns": len(pool.turns), "questions": len(pool.questions),
                  "memlens": score(pool, ranked),
                  **{name: score(pool, run) for name, run in bm25_runs(pool, settings, top_k).items()},
                  "search_ms_p50": round(statistics.median(times), 2),
                  "search_ms_p95": round(times[int(0.95 * (len(times) - 1))], 2), "build_s": build_s}
    return result


def _settings(text: str) -> Settings:
    """``name=value,...`` over [memory] -> Settings (``context_weight=0,voice_weight=0.5``)."""
    memory = Settings().memory
    if text:
        pairs = dict(item.split("=", 1) for item in text.split(","))
        memory = replace(memory, **{k: type(getattr(memory, k))(float(v)) for k, v in pairs.items()})
    return replace(Settings(), memory=memory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default="", help="folder to keep the built store and embeddings in")
    parser.add_argument("--set", default="", help="[memory] settings over the defaults, name=value,...")
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args()
    result = evaluate(_settings(args.set), Path(args.cache) if args.cache else None, args.top_k)
    if not result["available"]:
        print(result["message"])
        return
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, dict)}))
    systems = ("memlens", "bm25 (all words)", "bm25 (engine expression)")
    print(f"{'recall@5 / hit@5':<28}{'n':>5}" + "".join(f"{s:>28}" for s in systems))
    groups = sorted(g for g in result["memlens"] if g != "ALL") + ["ALL"]
    for g in groups:
        cells = "".join(f"{result[s][g]['recall@5']:>19.3f} / {result[s][g]['hit@5']:.3f}" for s in systems)
        print(f"{g:<28}{result['memlens'][g]['n']:>5}{cells}")


if __name__ == "__main__":
    main()
