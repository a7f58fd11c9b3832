"""Does a local cross-encoder's second pass help? Replayed over the shipped ranking, held out by folds.

For every question of a shape (``benchmarks.ranking_replay``'s shapes and folds), the shipped
ranking's first ``--depth`` facts are scored by the cross-encoder (engine/models/cross_encoder.py),
scores kept in ``--cache``. A variant re-orders the first ``n`` of them by

    (1 - w) · score / best score + w · sigmoid(cross-encoder logit)

and leaves the rest in place (w = 1: the cross-encoder's order alone). Per fold, the variant with the
best mean training recall@5 over the shapes among those lowering no shape's training recall@5 below
the shipped ranking's is chosen; its held-out recall@5 and hit@5 per shape are reported beside the
shipped ranking's, with the cross-encoder's time per question.

    python -m benchmarks.rerank_replay [--cache /tmp/retrieval-cache] [--shapes turns,observations,lme]
                                       [--depth 20] [--max-tokens 256] [--folds 3] [--every pack2500=3,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.ranking_replay import Prepared, hits, load_shapes, prepare, rank_rows, recalls
from engine.models.cross_encoder import shared_cross_encoder
from engine.search.cross_rerank import mixed_order

# (how many leading facts are re-ordered, the cross-encoder's weight, whether a fact whose pair was cut
# keeps its own score in the cross-encoder's part); (0, 0, False): none
Variant = tuple[int, float, bool]


def cross_scores(p: Prepared, runs: list[tuple[np.ndarray, np.ndarray]], depth: int, max_tokens: int,
                 cache: Path, log=print) -> tuple[list[np.ndarray], float]:
    """Each question's cross-encoder logits for its first ``depth`` facts (kept in ``cache``), and the
    mean seconds a question took to score."""
    path = cache / f"cross-{p.shape.name}-{depth}-{max_tokens}.npz"
    qids = [str(q["qid"]) for q in p.shape.questions]
    if path.is_file():
        saved = np.load(path, allow_pickle=False)
        if list(saved["qids"]) == qids:
            return [saved["scores"][k][: len(runs[k][0])] for k in range(len(qids))], float(saved["seconds"])
    model = shared_cross_encoder(max_tokens)
    found = np.full((len(qids), depth), np.nan, np.float32)
    started = time.perf_counter()
    for k, (q, (rows, _)) in enumerate(zip(p.shape.questions, runs)):
        found[k, : len(rows)] = model.scores(q["text"], [p.shape.texts[i] for i in rows])
        if k % 100 == 99:
            log(f"{p.shape.name}: {k + 1} of {len(qids)} questions scored")
    seconds = (time.perf_counter() - started) / max(1, len(qids))
    np.savez(path, qids=np.asarray(qids), scores=found, seconds=seconds)
    return [found[k][: len(runs[k][0])] for k in range(len(qids))], seconds


def cut_pairs(p: Prepared, runs: list[tuple[np.ndarray, np.ndarray]], max_tokens: int) -> list[np.ndarray]:
    """Per question, which of its facts the cross-encoder read only in part (the pair was cut)."""
    model = shared_cross_encoder(max_tokens)
    return [np.asarray(model.cut(q["text"], [p.shape.texts[i] for i in rows]), bool)
            for q, (rows, _) in zip(p.shape.questions, runs)]


def reordered(p: Prepared, runs: list[tuple[np.ndarray, np.ndarray]], logits: list[np.ndarray],
              variant: Variant, cuts: list[np.ndarray] | None = None) -> list[list[str]]:
    """Every question's ranked ids with its first ``n`` facts re-ordered by the variant's mix."""
    n, weight, trust_whole_only = variant
    ranked = []
    for k, ((rows, scores), logit) in enumerate(zip(runs, logits)):
        rows = rows.copy()
        head = min(n, len(rows))
        if head > 1:
            cut = cuts[k][:head] if trust_whole_only and cuts is not None else None
            rows[:head] = rows[:head][mixed_order(scores[:head], logit[:head], weight, cut)]
        ranked.append(list(dict.fromkeys(p.shape.ids[i] for i in rows)))
    return ranked


def variants(depth: int) -> dict[str, Variant]:
    grid: dict[str, Variant] = {"shipped": (0, 0.0, False)}
    for whole_only in (False, True):
        for n in (10, 15, 20, 30):
            if n <= depth:
                for weight in (0.1, 0.15, 0.25, 0.5, 0.75, 1.0):
                    grid[f"first {n}, w {weight}" + (", cut pairs keep their score" if whole_only else "")] = \
                        (n, weight, whole_only)
    return grid


def cross_validate(prepared: list[Prepared], runs: list[list], logits: list[list], grid: dict[str, Variant],
                   folds: int, cuts: list[list[np.ndarray]] | None = None) -> dict[str, Any]:
    cuts = cuts or [None] * len(prepared)
    ranked = {name: [reordered(p, r, lg, v, c) for p, r, lg, c in zip(prepared, runs, logits, cuts)]
              for name, v in grid.items()}
    per = {name: [recalls(p.shape, rs) for p, rs in zip(prepared, r)] for name, r in ranked.items()}
    per_hits = {name: [hits(p.shape, rs) for p, rs in zip(prepared, r)] for name, r in ranked.items()}
    fold_of = [np.asarray([q["fold"] for q in p.shape.questions]) for p in prepared]
    held = [np.zeros(len(p.shape.questions)) for p in prepared]
    held_hits = [np.zeros(len(p.shape.questions)) for p in prepared]
    choices = []
    for f in range(folds):
        def train(name: str) -> list[float]:
            return [float(r[fo != f].mean()) for r, fo in zip(per[name], fold_of)]
        floor = train("shipped")
        eligible = [n for n in grid if all(a >= b - 1e-12 for a, b in zip(train(n), floor))]
        chosen = max(eligible, key=lambda n: (statistics.mean(train(n)), -list(grid).index(n)))
        choices.append(chosen)
        for s, fo in enumerate(fold_of):
            held[s][fo == f] = per[chosen][s][fo == f]
            held_hits[s][fo == f] = per_hits[chosen][s][fo == f]
    return {"choices": choices, "held": held, "held_hits": held_hits, "per": per, "per_hits": per_hits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/retrieval-cache"))
    parser.add_argument("--shapes", default="turns,observations,lme")
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--every", default="", help="shape=K,...: score only every K-th question of a shape "
                                                    "(long texts take seconds a question)")
    args = parser.parse_args()
    shapes = load_shapes(args.cache, tuple(args.shapes.split(",")))
    every = {name: int(k) for name, k in (part.split("=") for part in args.every.split(",") if part)}
    prepared, runs = [], []
    for shape in shapes:
        p = prepare(shape)
        ranked = rank_rows(p, {}, args.depth)  # ranked over the whole shape: BM25 is per question, in order
        keep = range(0, len(shape.questions), every.get(shape.name, 1))
        prepared.append(replace(p, shape=replace(shape, questions=[shape.questions[k] for k in keep])))
        runs.append([ranked[k] for k in keep])
    scored = [cross_scores(p, r, args.depth, args.max_tokens, args.cache) for p, r in zip(prepared, runs)]
    logits = [lg for lg, _ in scored]
    grid = variants(args.depth)
    cuts = [cut_pairs(p, r, args.max_tokens) for p, r in zip(prepared, runs)]
    result = cross_validate(prepared, runs, logits, grid, args.folds, cuts)
    print(f"folds chose: {result['choices']}")
    print("| shape | questions | shipped recall@5 (hit@5) | held out recall@5 (hit@5) | best in sample | "
          "cross-encoder s / question |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s, p in enumerate(prepared):
        base, base_hits = result["per"]["shipped"][s], result["per_hits"]["shipped"][s]
        best = max(grid, key=lambda n: result["per"][n][s].mean())
        print(f"| {p.shape.name} | {len(base)} | {base.mean():.4f} ({base_hits.mean():.3f}) | "
              f"{result['held'][s].mean():.4f} ({result['held_hits'][s].mean():.3f}) | "
              f"{best}: {result['per'][best][s].mean():.4f} | {scored[s][1]:.3f} |")
    print(json.dumps({name: [round(float(r.mean()), 4) for r in rs] for name, rs in result["per"].items()}))


if __name__ == "__main__":
    main()
