"""Ranking variants replayed in numpy over cached cosines and BM25, in seconds instead of hours.

Building the benchmark stores and searching them through the engine takes many
minutes per variant (LongMemEval's pooled memory alone holds 5,033 turns, half
of them 2,000-character replies). Ranking only needs, per question, every fact's
cosine, its BM25 (FTS5's ``bm25()`` over the same match expression the engine
builds, budget included), its time, its batch neighbours and its text. Those are
worked out once per shape and kept in ``--cache``; a variant is then a numpy
formula over them. The engine's own figures (``benchmarks.locomo``,
``benchmarks.longmemeval``) remain the reference: the replay skips what absorb
merges and the index's float16 rows, so it tracks them closely but not exactly.

Shapes: LoCoMo's ``turns``, ``observations``, ``pack2500``, ``mixed2500`` (one store
per conversation, as ``benchmarks.locomo``), ``turns-pooled`` (its turns in one store, as
``benchmarks.locomo --pooled``) and ``lme`` (LongMemEval's development
half pooled into one memory, as ``benchmarks.longmemeval``). Folds: LoCoMo by
conversation (the sorted ids dealt round-robin), LongMemEval by question (sorted
ids dealt round-robin within each question type); fold k of every shape is held
out together, and a variant is chosen on the other folds by mean recall@5 over the
shapes among those lowering no shape's training recall@5 below the baseline's.

    python -m benchmarks.ranking_replay [--cache /tmp/retrieval-cache] [--folds 3] [--shapes turns,...,lme]
        [--grid answer-kind|share-voice]
"""

from __future__ import annotations

import argparse
import pickle
import sqlite3
import statistics
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from engine import Settings
from engine.search.fts import RAREST_STRETCH, _quoted, match_expression
from engine.search.hybrid import match_budget
from engine.search.question_kind import SCORED_KINDS, asked_kinds, carried_kinds
from engine.search.voice import asks_about_self, person_shares
from engine.store.decay import age_days, freshness

LOCOMO_SHAPES = ("turns", "observations", "pack2500", "mixed2500", "turns-pooled")
SHAPES = (*LOCOMO_SHAPES, "lme")
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as the store's facts_fts (store/migrations.py)


@dataclass
class Shape:
    """One text shape's facts and questions, with every question's BM25 over its own store."""
    name: str
    ids: list[str]  # the id a hit is scored by (turn, observation or pack id; LongMemEval source)
    texts: list[str]
    store: np.ndarray  # which store (conversation) each fact is in
    batch: np.ndarray  # absorb batch per fact (unique over the shape); neighbours share one
    created: np.ndarray  # epoch seconds
    questions: list[dict[str, Any]]  # qid, store, text, expected ids, category, fold
    asked_at: dict[int, float]  # per store
    vectors: np.ndarray = field(default=None, repr=False)  # fact vectors, unit length
    query_vectors: np.ndarray = field(default=None, repr=False)
    bm25: list[tuple[np.ndarray, np.ndarray]] = field(default=None, repr=False)  # per question: (facts, -bm25())
    # BM25 under other text-match budgets, keyed by (text_match_share, text_match_ceiling); worked out on demand.
    bm25_by_budget: dict[tuple[float, int], list] = field(default_factory=dict, repr=False)
    cache: Path | None = field(default=None, repr=False)  # where ``bm25_under`` keeps what it works out

    def neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """Index of the fact before / after each fact in its batch (-1: none)."""
        n = len(self.ids)
        before, after = np.full(n, -1), np.full(n, -1)
        same = (self.batch[1:] == self.batch[:-1]) & (self.store[1:] == self.store[:-1])
        after[:-1][same] = np.arange(1, n)[same]
        before[1:][same] = np.arange(n - 1)[same]
        return before, after


def _locomo_shape(name: str) -> Shape:
    from benchmarks.locomo import _load, _session_time, pack_turns

    questions = _load("queries.jsonl")
    target = "observations" if name == "observations" else "turns"
    rows = _load(f"{target}.jsonl")
    key = "expected_observation_ids" if target == "observations" else "expected_turn_ids"
    owner: dict[str, str] | None = None
    if name.startswith(("pack", "mixed")):
        rows, owner = pack_turns(rows, int(name.lstrip("packmixed")), mixed=name.startswith("mixed"))
    convs = sorted({r["conv_id"] for r in rows})
    store_of = {c: k for k, c in enumerate(convs)}
    # The benchmark absorbs conversation by conversation, session by session, turn k at the session time + k s.
    rows = sorted(enumerate(rows), key=lambda kr: (kr[1]["conv_id"], kr[1]["session"], kr[0]))
    batches: dict[tuple[str, int], int] = {}
    created, offset, last = [], 0, None
    for _, r in rows:
        b = batches.setdefault((r["conv_id"], r["session"]), len(batches))
        offset = offset + 1 if b == last else 0
        last = b
        created.append(_session_time(r["session_date_time"]) + offset)
    facts = [r for _, r in rows]
    store = np.asarray([store_of[r["conv_id"]] for r in facts])
    batch = np.asarray([batches[(r["conv_id"], r["session"])] for r in facts])
    created = np.asarray(created, np.float64)
    asked = {s: float(created[store == s].max()) + 86_400.0 for s in range(len(convs))}
    folds = {c: k % 3 for k, c in enumerate(convs)}
    asked_questions = []
    for q in questions:
        expected = q[key] if owner is None else list(dict.fromkeys(owner[t] for t in q[key] if t in owner))
        if expected:
            asked_questions.append({"qid": q["qid"], "store": store_of[q["conv_id"]], "text": q["question"],
                                    "expected": expected, "category": q["category_name"], "fold": folds[q["conv_id"]]})
    return Shape(name, [r["fact_id"] for r in facts], [r["text"] for r in facts], store, batch, created,
                 asked_questions, asked)


def _pooled(shape: Shape) -> Shape:
    """LoCoMo's conversations pooled into ONE memory (one file, one store), asked a day after its last turn;
    folds stay by conversation."""
    return Shape(f"{shape.name}-pooled", shape.ids, shape.texts, np.zeros(len(shape.ids), int), shape.batch,
                 shape.created, [dict(q, store=0) for q in shape.questions], {0: max(shape.asked_at.values())},
                 shape.vectors, shape.query_vectors)


def _lme_shape() -> Shape:
    from benchmarks import longmemeval_data as lme

    pool = lme.load()
    ids, texts, batch, created = [], [], [], []
    for b, session in enumerate(pool.sessions):
        for turn in session.turns:
            ids.append(turn.source)
            texts.append(turn.text)
            batch.append(b)
            created.append(session.when)
    by_kind: dict[str, list[str]] = defaultdict(list)
    for q in pool.questions:
        by_kind[q.kind].append(q.qid)
    fold = {qid: k % 3 for qids in by_kind.values() for k, qid in enumerate(sorted(qids))}
    questions = [{"qid": q.qid, "store": 0, "text": q.question, "expected": q.expected, "category": q.kind,
                  "fold": fold[q.qid]} for q in pool.questions]
    n = len(ids)
    return Shape("lme", ids, texts, np.zeros(n, int), np.asarray(batch), np.asarray(created, np.float64),
                 questions, {0: pool.asked_at})


def _bm25(shape: Shape, limits) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per question, the facts of its store FTS5 matches (best first, at most the engine's limit) and -bm25(),
    under the engine's budget for a store of that size (``match_budget``)."""
    found: list[tuple[np.ndarray, np.ndarray]] = [None] * len(shape.questions)  # type: ignore[list-item]
    for store in sorted(set(shape.store.tolist())):
        members = np.flatnonzero(shape.store == store)
        budget = match_budget(limits, len(members))
        cap = budget * RAREST_STRETCH + 1
        limit = max(2 * limits.candidate_pool, budget)
        db = sqlite3.connect(":memory:")
        db.execute(f"CREATE VIRTUAL TABLE facts_fts USING fts5(text, tokenize='{FTS_TOKENIZER}')")
        db.executemany("INSERT INTO facts_fts(rowid, text) VALUES (?, ?)",
                       ((int(m) + 1, shape.texts[m]) for m in members))
        counts: dict[str, int] = {}

        def frequency(term: str) -> int:
            if term not in counts:
                counts[term] = db.execute("SELECT count(*) FROM (SELECT 1 FROM facts_fts WHERE facts_fts MATCH ? "
                                          "LIMIT ?)", (_quoted(term), cap)).fetchone()[0]
            return counts[term]

        for k, q in enumerate(shape.questions):
            if q["store"] != store:
                continue
            expression = match_expression(q["text"], frequency, budget)
            rows = [] if expression is None else db.execute(
                "SELECT rowid, bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?",
                (expression, limit)).fetchall()
            found[k] = (np.asarray([r[0] - 1 for r in rows], np.int64), -np.asarray([r[1] for r in rows], np.float64))
        db.close()
    return found


class _ShapeUnpickler(pickle.Unpickler):
    """Reads a shape pickled by ``python -m benchmarks.ranking_replay`` (its classes then live in
    ``__main__``) from any other module too."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__" and name in ("Shape", "Prepared"):
            return globals()[name]
        return super().find_class(module, name)


def load_shapes(cache: Path, names: tuple[str, ...] = SHAPES, log: Callable[[str], None] = print) -> list[Shape]:
    """Every shape with its vectors and BM25, from ``cache`` or worked out and kept there."""
    from benchmarks.vector_cache import CachedEmbedder
    from engine.models.embeddings import shared_embedder

    embedder = None
    shapes = []
    for name in names:
        path = cache / f"replay-{name}.pkl"
        if path.is_file():
            with path.open("rb") as handle:
                shape = _ShapeUnpickler(handle).load()
            shape.bm25_by_budget, shape.cache = {}, cache
            shapes.append(shape)
            continue
        if name.endswith("-pooled"):
            shape = _pooled(load_shapes(cache, (name.removesuffix("-pooled"),), log)[0])
            shape.cache = cache
            shape.bm25 = bm25_under(shape, Settings().memory.text_match_share, Settings().memory.text_match_ceiling)
            shapes.append(shape)
            continue
        shape = _lme_shape() if name == "lme" else _locomo_shape(name)
        embedder = embedder or CachedEmbedder(shared_embedder(), cache)
        log(f"{name}: {len(shape.ids)} facts, {len(shape.questions)} questions: embedding what is not cached")
        shape.vectors = embedder.embed(shape.texts)
        shape.query_vectors = embedder.embed([q["text"] for q in shape.questions])
        embedder.save()
        shape.bm25 = _bm25(shape, Settings().memory)
        with path.open("wb") as handle:
            pickle.dump(shape, handle)
        shape.cache = cache
        shapes.append(shape)
    return shapes


def bm25_under(shape: Shape, share: float, ceiling: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The shape's BM25 under ``text_match_share`` / ``text_match_ceiling`` (kept in its cache when it has one)."""
    key = (float(share), int(ceiling))
    cache = shape.cache
    if key not in shape.bm25_by_budget:
        path = None if cache is None else cache / f"bm25-{shape.name}-share{key[0]}-ceiling{key[1]}.pkl"
        if path is not None and path.is_file():
            with path.open("rb") as handle:
                shape.bm25_by_budget[key] = pickle.load(handle)
        else:
            limits = replace(Settings().memory, text_match_share=key[0], text_match_ceiling=key[1])
            shape.bm25_by_budget[key] = _bm25(shape, limits)
            if path is not None:
                with path.open("wb") as handle:
                    pickle.dump(shape.bm25_by_budget[key], handle)
    return shape.bm25_by_budget[key]


# ---- features of texts ---------------------------------------------------------------------------------

# Features of texts come from the engine's own code (engine/search/voice.py), so the replay ranks by the same.


@dataclass
class Prepared:
    """A shape's per-fact features and per-question cosines, worked out once for every variant."""
    shape: Shape
    before: np.ndarray
    after: np.ndarray
    chars: np.ndarray
    first: np.ndarray
    second: np.ndarray
    q_first: np.ndarray
    q_second: np.ndarray
    about_self: np.ndarray
    members: dict[int, np.ndarray]
    carried: np.ndarray = None  # kinds of answer each fact carries (engine/search/question_kind.py), bits
    asked: np.ndarray = None  # kinds of answer each question asks for, bits


def prepare(shape: Shape) -> Prepared:
    before, after = shape.neighbours()
    shares = np.asarray([person_shares(t) for t in shape.texts]).reshape(-1, 2)
    q_shares = np.asarray([person_shares(q["text"]) for q in shape.questions]).reshape(-1, 2)
    members = {s: np.flatnonzero(shape.store == s) for s in sorted(set(shape.store.tolist()))}
    return Prepared(shape, before, after, np.asarray([len(t) for t in shape.texts], np.float64),
                    shares[:, 0], shares[:, 1], q_shares[:, 0], q_shares[:, 1],
                    np.asarray([asks_about_self(q["text"]) for q in shape.questions], bool), members,
                    np.asarray([carried_kinds(t) for t in shape.texts], np.int64),
                    np.asarray([asked_kinds(q["text"]) for q in shape.questions], np.int64))


Variant = dict[str, float]
# A variant names only what it changes; every other knob is today's setting (engine/config.py, ``_get``).


def _get(v: Variant, name: str, default: float = 0.0) -> float:
    memory = Settings().memory
    defaults = {"cosine_weight": memory.cosine_weight, "bm25_weight": memory.bm25_weight,
                "context_weight": memory.context_weight, "context_length": memory.context_length,
                "bm25_power": memory.bm25_power, "freshness_rate": memory.freshness_rate,
                "freshness_floor": memory.freshness_floor, "own_voice": memory.voice_weight,
                "text_match_share": memory.text_match_share, "text_match_ceiling": memory.text_match_ceiling,
                "answer_kind": memory.answer_kind_weight}
    return v.get(name, defaults.get(name, default))


def rank(p: Prepared, v: Variant, top_k: int = 10) -> list[list[str]]:
    """Every question's ranked ids under variant ``v``."""
    return [list(dict.fromkeys(p.shape.ids[i] for i in rows)) for rows, _ in rank_rows(p, v, top_k)]


def rank_rows(p: Prepared, v: Variant, top_k: int = 10) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every question's ``top_k`` facts (indexes into the shape) under variant ``v``, with their scores."""
    shape = p.shape
    runs = []
    cw, bw = _get(v, "cosine_weight"), _get(v, "bm25_weight")
    ctx_w, ctx_len = _get(v, "context_weight"), _get(v, "context_length")
    power = _get(v, "bm25_power")
    lend_gain = np.ones(len(p.chars))
    if ctx_len > 0:
        lend_gain = np.minimum(1.0, ctx_len / np.maximum(p.chars, 1))
    # A borrower's own length: a long text takes less from its neighbours.
    borrow_len = _get(v, "borrow_length")
    borrow_gain = np.ones(len(p.chars)) if borrow_len <= 0 else np.minimum(1.0, borrow_len / np.maximum(p.chars, 1))
    # Replies: long texts that speak to the reader (second person) rank lower.
    reply = _get(v, "reply_discount")
    reply_factor = np.ones(len(p.chars))
    if reply > 0:
        length_part = np.clip((p.chars - _get(v, "reply_from")) / max(1.0, _get(v, "reply_span") or 1000), 0, 1)
        voice = np.clip((p.second - p.first) / max(1e-6, _get(v, "reply_voice") or 0.02), 0, 1)
        if _get(v, "reply_needs_voice") > 0:
            reply_factor = 1 - reply * length_part * voice
        else:
            reply_factor = 1 - reply * length_part
    own_voice = _get(v, "own_voice")  # first-person questions favour first-person facts
    matches = bm25_under(shape, _get(v, "text_match_share"), int(_get(v, "text_match_ceiling")))
    for k, q in enumerate(shape.questions):
        m = p.members[q["store"]]
        cos = np.maximum(0.0, shape.vectors[m] @ shape.query_vectors[k]).astype(np.float64)
        text = np.zeros(len(shape.ids))
        rows, values = matches[k]
        if len(rows) and values[0] > 0:
            text[rows] = (np.maximum(values, 0) / values[0]) ** power
        fresh = freshness(age_days(shape.asked_at[q["store"]], shape.created[m]), _get(v, "freshness_rate"),
                          _get(v, "freshness_floor"))
        full = np.zeros(len(shape.ids))
        full[m] = (cw * cos + bw * text[m]) * fresh
        if reply > 0:
            full *= reply_factor
        # What the question asks for (a time, a number, a name): facts carrying that kind of answer gain.
        asked = int(p.asked[k]) & int(_get(v, "answer_kind_mask", SCORED_KINDS))
        if _get(v, "answer_kind") > 0 and asked:
            full *= 1 + _get(v, "answer_kind") * ((p.carried & asked) > 0)
        voiced = own_voice > 0 and (p.about_self[k] if _get(v, "voice_gate", 1) else p.q_first[k] > 0)
        gain = borrow_gain
        if voiced:
            fact_voice = np.clip((p.first - p.second) * _get(v, "voice_scale", 10), -1, 1)
            full *= 1 + own_voice * fact_voice
            # A text speaking to the asker borrows less from its neighbours (the statement it answers).
            gain = borrow_gain * (1 - _get(v, "voice_borrow") * np.maximum(0.0, -fact_voice))
        score = full.copy()
        # The context part for a question about the asker: lent mostly by the asker's statement to the reply.
        # As the engine: a question about the asker takes no context part while the voice part is on.
        ctx_q = v.get("self_context", 0.0 if own_voice > 0 else ctx_w) if p.about_self[k] else ctx_w
        if ctx_q > 0:
            lent = full * lend_gain
            lent_b = np.where(p.before >= 0, lent[np.maximum(p.before, 0)], 0.0)
            lent_a = np.where(p.after >= 0, lent[np.maximum(p.after, 0)], 0.0)
            score = full + ctx_q * gain * np.maximum(lent_b, lent_a)
        sub = score[m]
        order = np.argsort(-sub, kind="stable")[:top_k]
        runs.append((m[order], sub[order]))
    return runs


def recalls(shape: Shape, runs: list[list[str]], k: int = 5) -> np.ndarray:
    """Per question recall@k (share of its expected ids in the first k)."""
    return np.asarray([len(set(q["expected"]) & set(r[:k])) / len(set(q["expected"]))
                       for q, r in zip(shape.questions, runs)])


def hits(shape: Shape, runs: list[list[str]], k: int = 5) -> np.ndarray:
    return np.asarray([float(bool(set(q["expected"]) & set(r[:k]))) for q, r in zip(shape.questions, runs)])


def bm25_runs(shape: Shape, top_k: int = 10) -> list[list[str]]:
    """FTS5 BM25 alone over the same expressions (the engine's budget; ties as FTS5 orders them)."""
    memory = Settings().memory
    matches = bm25_under(shape, memory.text_match_share, memory.text_match_ceiling)
    return [list(dict.fromkeys(shape.ids[i] for i in matches[k][0][:top_k])) for k in range(len(shape.questions))]


def cross_validate(prepared: list[Prepared], variants: dict[str, Variant], folds: int = 3,
                   baseline: str = "baseline") -> dict[str, Any]:
    """Per fold, the variant with the best mean training recall@5 over the shapes, among those lowering no
    shape's training recall@5 below the baseline's; its held-out recall@5 per shape, pooled over folds."""
    runs = {name: [rank(p, v) for p in prepared] for name, v in variants.items()}
    per = {name: [recalls(p.shape, r) for p, r in zip(prepared, rs)] for name, rs in runs.items()}
    per_hits = {name: [hits(p.shape, r) for p, r in zip(prepared, rs)] for name, rs in runs.items()}
    fold_of = [np.asarray([q["fold"] for q in p.shape.questions]) for p in prepared]
    choices, held = [], [np.zeros(len(p.shape.questions)) for p in prepared]
    held_hits = [np.zeros(len(p.shape.questions)) for p in prepared]
    for f in range(folds):
        def train(name: str) -> list[float]:
            return [float(r[fo != f].mean()) for r, fo in zip(per[name], fold_of)]
        floor = train(baseline)
        eligible = [n for n in variants if all(a >= b - 1e-12 for a, b in zip(train(n), floor))]
        chosen = max(eligible, key=lambda n: (statistics.mean(train(n)), -list(variants).index(n)))
        choices.append(chosen)
        for s, (r, fo) in enumerate(zip(per[chosen], fold_of)):
            held[s][fo == f] = r[fo == f]
            held_hits[s][fo == f] = per_hits[chosen][s][fo == f]
    return {"choices": choices, "held_out": held, "held_out_hits": held_hits, "per_variant": per,
            "per_variant_hits": per_hits}


def by_category(shape: Shape, values: np.ndarray) -> dict[str, tuple[int, float]]:
    groups: dict[str, list[float]] = defaultdict(list)
    for q, v in zip(shape.questions, values):
        groups[q["category"]].append(v)
    return {c: (len(vs), round(float(np.mean(vs)), 3)) for c, vs in sorted(groups.items())}


def variant_grid() -> dict[str, Variant]:
    """The variants ``main`` chooses among: the formula shipped before the text-match budget followed the
    memory's size (``baseline``: a fixed ``text_match_budget``, nothing may go below it), and the budget as
    a share of the store (``text_match_share``, engine/search/hybrid.py ``match_budget``) at several shares,
    each with the voice part (engine/search/voice.py) at three weights. (The variants the voice part was
    chosen among — borrowing, context off, reply discounts — are in this file's history.)"""
    grid: dict[str, Variant] = {"baseline": {"text_match_share": 0.0}}
    for share in (0.1, 0.15, 0.2, 0.3):
        for voice in (0.4, 0.6, 0.8):
            grid[f"text_match_share={share},voice_weight={voice}"] = {"text_match_share": share, "own_voice": voice}
    return grid


def answer_kind_grid() -> dict[str, Variant]:
    """Today's settings (``baseline``: nothing may go below it) and the answer-kind part
    (engine/search/question_kind.py) at several weights, for every kind a question can ask for or for one
    kind only (``answer_kind_mask``: 1 a time, 2 a number, 4 a name)."""
    grid: dict[str, Variant] = {"baseline": {"answer_kind": 0.0}}
    for mask, kinds in ((7, "all"), (1, "time"), (2, "number"), (4, "name"), (3, "time+number")):
        for weight in (0.05, 0.1, 0.15, 0.25, 0.35, 0.5):
            grid[f"answer_kind={weight},{kinds}"] = {"answer_kind": weight, "answer_kind_mask": mask}
    return grid


def answer_kind_weight_grid() -> dict[str, Variant]:
    """The shipped answer-kind part (a time, a number: ``SCORED_KINDS``) at the weights it was chosen among."""
    grid: dict[str, Variant] = {"baseline": {"answer_kind": 0.0}}
    for weight in (0.15, 0.25, 0.35):
        grid[f"answer_kind_weight={weight}"] = {"answer_kind": weight}
    return grid


GRIDS = {"share-voice": variant_grid, "answer-kind": answer_kind_grid, "answer-kind-weight": answer_kind_weight_grid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default="/tmp/retrieval-cache")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--grid", choices=sorted(GRIDS), default="answer-kind")
    args = parser.parse_args()
    shapes = load_shapes(Path(args.cache), tuple(args.shapes.split(",")))
    prepared = [prepare(s) for s in shapes]
    grid = GRIDS[args.grid]()
    found = cross_validate(prepared, grid, args.folds)
    print(f"{'recall@5 (all questions)':<44}" + "".join(f"{p.shape.name:>12}" for p in prepared))
    for name, per_shape in found["per_variant"].items():
        print(f"{name:<44}" + "".join(f"{float(r.mean()):>12.4f}" for r in per_shape))
    print("folds chose: " + ", ".join(f"fold {f}: {c}" for f, c in enumerate(found["choices"])))
    print(f"{'held out (pooled over folds)':<44}" + "".join(f"{float(r.mean()):>12.4f}" for r in found["held_out"]))
    base = found["per_variant"]["baseline"]
    print(f"{'baseline, same questions':<44}" + "".join(f"{float(r.mean()):>12.4f}" for r in base))
    print(f"{'hit@5 held out':<44}" + "".join(f"{float(r.mean()):>12.4f}" for r in found["held_out_hits"]))
    print(f"{'hit@5 baseline':<44}" + "".join(f"{float(r.mean()):>12.4f}" for r in found["per_variant_hits"]["baseline"]))
    for p, held, before in zip(prepared, found["held_out"], base):
        bm = recalls(p.shape, bm25_runs(p.shape))
        print(f"\n{p.shape.name}: recall@5 by category (n, baseline, held out, BM25 alone)")
        cats_before, cats_held, cats_bm = (by_category(p.shape, x) for x in (before, held, bm))
        for cat in cats_before:
            print(f"  {cat:<28}{cats_before[cat][0]:>5}{cats_before[cat][1]:>9}{cats_held[cat][1]:>9}{cats_bm[cat][1]:>9}")
        print(f"  {'ALL':<28}{len(held):>5}{float(before.mean()):>9.3f}{float(held.mean()):>9.3f}{float(bm.mean()):>9.3f}")


if __name__ == "__main__":
    main()
