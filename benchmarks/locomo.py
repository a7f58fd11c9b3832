"""Retrieval quality on real conversations: the LoCoMo protocol of ``../shared/eval/README.md``.

One memory per conversation; every dialogue turn is absorbed (one absorb per
session, with the session's date as the facts' time and the turn id as their
source); each question is searched in its own conversation's memory, asked
the day after the last session. Hits are mapped back to turn ids through
their sources (a merged turn counts for the fact it was merged into) and
scored with the data set's own ``score_recall.py``.

With ``--observations`` the memory holds the data set's observations instead (short,
self-contained facts an LLM wrote per session: the ordinary short-fact case) and
questions are scored on their expected observation ids.

With ``--mixed N`` packs of about N characters alternate with single turns: short texts
next to long ones in one batch, as in a chat whose user writes a line and whose
assistant answers at length.

With ``--pack-chars N`` the turns of each session are first joined into long
texts of about N characters (1,500-3,900), one fact each, the shape of long
assistant replies in an imported chat; expected turn ids are mapped to the
pack that holds them and packs are what is ranked and scored.

With ``--pooled`` the turns of every conversation also go into ONE memory (conversation by
conversation, session by session), the shape of one long history where many sessions say
similar things; each question is asked of that one memory, folds stay by conversation.

The data is read from ``../shared/eval/locomo/`` and never copied here (a
pack run writes its remapped questions to a temporary folder).

    python -m benchmarks.locomo [--floor 0.5] [--rate 0.01] [--pool 200] [--top-k 10]
                                [--context-weight 0,0.2] [--context-length 0,500] [--budget 0,500] [--share 0,0.15]
                                [--bm25-power 1,2]  (comma lists sweep)
                                [--pack-chars 0,2500] [--observations] [--mixed 2500] [--pooled]
                                [--combine mean,first,first+mean]
                                [--folds 3] [--cache /tmp/recall] [--vector-cache /tmp/retrieval-cache]

With ``--folds N`` the swept variants are chosen honestly: conversations are
dealt into N folds; for each fold the variant with the best recall@5 on the
other folds' conversations is scored on that fold's, and the held-out figure
pools those scores (each question counts once). The in-sample figure (best
variant on all six) and the current defaults are printed beside it, per category.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine import Memory, Settings
from engine.models.embeddings import COMBINE, Embedder, FastEmbedder, shared_embedder

EVAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "locomo"
DAY = 86_400.0
PACK_MIN, PACK_MAX = 1500, 3900


def _session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' -> epoch seconds (UTC)."""
    parsed = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return parsed.replace(tzinfo=timezone.utc).timestamp()


def _load(name: str) -> list[dict[str, Any]]:
    with (EVAL_DIR / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _scorer():
    spec = importlib.util.spec_from_file_location("locomo_score_recall", EVAL_DIR / "score_recall.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score


class _Clock:
    def __init__(self) -> None:
        self.at = 0.0

    def __call__(self) -> float:
        return self.at


def pack_turns(turns: list[dict], target: int, mixed: bool = False) -> tuple[list[dict], dict[str, str]]:
    """Consecutive turns of each session joined into texts of ~``target`` chars (at most PACK_MAX).

    Returns the packs as turn-shaped rows (``fact_id`` = ``<conv>:D<session>:P<n>``) and
    every turn id's pack id. A session's short remainder joins the pack before it when
    the two fit in PACK_MAX, so few packs fall under PACK_MIN. ``mixed`` leaves every turn
    after a pack on its own: short texts next to long ones in one batch, the shape of a chat
    whose user writes a line and whose assistant answers at length.
    """
    sessions: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for turn in turns:
        sessions[(turn["conv_id"], turn["session"])].append(turn)
    packs: list[dict] = []
    owner: dict[str, str] = {}
    for (conv, number), rows in sessions.items():
        groups: list[list[dict]] = [[]]
        for turn in rows:
            size = sum(len(t["text"]) + 1 for t in groups[-1])
            if groups[-1] and (size >= target or size + len(turn["text"]) > PACK_MAX):
                if mixed:  # the turn after a full pack stands alone
                    groups += [[turn], []]
                    continue
                groups.append([])
            groups[-1].append(turn)
        groups = [group for group in groups if group]
        if not mixed and len(groups) > 1 and sum(len(t["text"]) + 1 for t in groups[-2] + groups[-1]) <= PACK_MAX \
                and sum(len(t["text"]) + 1 for t in groups[-1]) < PACK_MIN:
            tail = groups.pop()
            groups[-1] += tail
        for k, group in enumerate(groups):
            pack_id = f"{conv}:D{number}:P{k}"
            packs.append({**group[0], "fact_id": pack_id, "text": "\n".join(t["text"] for t in group)})
            owner.update((t["fact_id"], pack_id) for t in group)
    return packs, owner


def _packed_queries(questions: list[dict], owner: dict[str, str], folder: Path) -> Path:
    """The questions with expected turn ids replaced by the ids of the packs that hold them."""
    path = folder / "queries-packed.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for question in questions:
            expected = list(dict.fromkeys(owner[t] for t in question["expected_turn_ids"] if t in owner))
            handle.write(json.dumps({**question, "expected_turn_ids": expected}) + "\n")
    return path


def _build(turns: list[dict], path: Path, timings: dict[str, list[float]], embedder: Embedder) -> float:
    """Absorb conversations (one, or all in a pooled store) session by session; returns the time questions
    are asked at (a day after the last session absorbed)."""
    clock = _Clock()
    sessions: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for turn in turns:
        sessions[(turn["conv_id"], turn["session"])].append(turn)
    last = 0.0
    with Memory(path, clock=clock, actor="bench", embedder=embedder) as memory:
        for number in sorted(sessions):
            batch = sessions[number]
            when = _session_time(batch[0]["session_date_time"])
            clock.at, last = when, max(last, when)
            items = [{"text": t["text"], "source": t["fact_id"], "scope": "user",
                      "created_at": datetime.fromtimestamp(when + k, timezone.utc).isoformat()}
                     for k, t in enumerate(batch)]
            started = time.perf_counter()
            memory.absorb(items)
            timings["absorb_ms_per_turn"].append((time.perf_counter() - started) * 1000 / len(items))
    return last + DAY


def _ask(path: Path, asked_at: float, questions: list[dict], settings: Settings, top_k: int,
         timings: dict[str, list[float]], embedder: Embedder,
         vectors: dict[str, Any] | None = None, warmup: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Each question's ranked turn ids; with ``vectors`` (qid -> query vector) the query is not embedded
    and nothing is written (no read counters), so a cached store stays as it was built. ``warmup``
    queries are searched first, untimed and without read counters (the store's index loads on them)."""
    ranked = {}
    with Memory(path, settings, clock=lambda: asked_at, actor="bench", embedder=embedder) as memory:
        for text in warmup:
            memory.search(text, top_k=top_k, count_access=False)
        for question in questions:
            started = time.perf_counter()
            if vectors is None:
                hits = memory.search(question["question"], top_k=top_k)
            else:
                hits = memory.search(question["question"], top_k=top_k, query_vector=vectors[question["qid"]],
                                     count_access=False)
            timings["search_ms"].append((time.perf_counter() - started) * 1000)
            ranked[question["qid"]] = list(dict.fromkeys(s for h in hits for s in h.fact.sources))
    return ranked


def _summary(scores: dict[str, Any], settings: Settings, timings: dict[str, list[float]]) -> dict[str, Any]:
    overall = scores["ALL"]
    search_ms = sorted(timings["search_ms"])
    result = {
        "available": True,
        "settings": {"freshness_floor": settings.memory.freshness_floor,
                     "freshness_rate": settings.memory.freshness_rate,
                     "candidate_pool": settings.memory.candidate_pool,
                     "cosine_weight": settings.memory.cosine_weight,
                     "context_weight": settings.memory.context_weight,
                     "context_length": settings.memory.context_length,
                     "text_match_budget": settings.memory.text_match_budget,
                     "text_match_share": settings.memory.text_match_share,
                     "bm25_power": settings.memory.bm25_power, "voice_weight": settings.memory.voice_weight},
        "overall": overall, "per_category": {k: v for k, v in scores.items() if k not in ("ALL", "n_skipped")},
        "absorb_ms_per_turn": round(statistics.median(timings["absorb_ms_per_turn"]), 3)
        if timings["absorb_ms_per_turn"] else None,  # None: stores cached before their timings were kept
        "search_ms_p50": round(statistics.median(search_ms), 3),
        "search_ms_p95": round(search_ms[int(0.95 * (len(search_ms) - 1))], 3),
    }
    result["summary_rows"] = [
        ("LoCoMo recall@5 (target >= 0.60, reference 0.526)", overall["recall@5"]),
        ("LoCoMo recall@1 / recall@10 / MRR", f"{overall['recall@1']} / {overall['recall@10']} / {overall['mrr']}"),
        *((f"  {cat} recall@5 (n={v['n']})", v["recall@5"]) for cat, v in sorted(result["per_category"].items())),
        ("LoCoMo absorb ms/turn (median per session)", result["absorb_ms_per_turn"]),
        ("LoCoMo search ms p50 / p95", f"{result['search_ms_p50']} / {result['search_ms_p95']}"),
    ]
    return result


def _build_all(turns: list[dict], folder: Path, timings: dict[str, list[float]],
               embedder: Embedder, pooled: bool = False) -> tuple[dict[str, Path], dict[str, float]]:
    """Every conversation's store in ``folder`` (``pooled``: one store, ``POOLED``, of them all), built unless
    a finished one is there already.

    A store counts as finished when its ``<conv>.json`` (the time questions are asked at) exists;
    it is written after the store, which is built under a temporary name and then renamed.
    """
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for turn in turns:
        by_conv[POOLED if pooled else turn["conv_id"]].append(turn)
    built, asked_at = {}, {}
    for conv in sorted(by_conv):
        path, marker = folder / f"{conv}.sqlite", folder / f"{conv}.json"
        if not marker.is_file():
            partial = folder / f"{conv}.partial.sqlite"
            for leftover in folder.glob(f"{conv}.partial.sqlite*"):
                leftover.unlink()
            own: dict[str, list[float]] = defaultdict(list)
            when = _build(by_conv[conv], partial, own, embedder)
            partial.replace(path)
            marker.write_text(json.dumps({"asked_at": when, "absorb_ms_per_turn": own["absorb_ms_per_turn"]}),
                              encoding="utf-8")
        done = json.loads(marker.read_text(encoding="utf-8"))
        built[conv], asked_at[conv] = path, done["asked_at"]
        timings["absorb_ms_per_turn"].extend(done.get("absorb_ms_per_turn", []))  # as measured when built
    return built, asked_at


def _query_vectors(questions: list[dict], cache: Path, embedder: Embedder) -> dict[str, Any]:
    """qid -> query vector, embedded once and kept in ``cache`` (one file per model)."""
    import numpy as np

    path = cache / f"queries-{embedder.model_id.replace('/', '_')}.npz"
    if path.is_file():
        stored = np.load(path)
        if all(q["qid"] in stored.files for q in questions):
            return {q["qid"]: stored[q["qid"]] for q in questions}
    vectors = embedder.embed([q["question"] for q in questions])
    found = {q["qid"]: np.asarray(v, np.float32) for q, v in zip(questions, vectors)}
    np.savez(path, **found)
    return found


POOLED = "pooled"  # the one store's name when every conversation is pooled into one memory


@dataclass
class Prepared:
    """The conversations' stores, built once, and what scoring a run of them needs."""
    turns: list[dict]
    questions: list[dict]
    queries_path: Path  # the questions as scored (pack ids in a pack run)
    built: dict[str, Path]
    asked_at: dict[str, float]
    build_timings: dict[str, list[float]]
    folder: Path
    vectors: dict[str, Any] | None = None
    target: str = "turns"  # what the questions' expected ids name: "turns" or "observations"

    def run(self, settings: Settings, top_k: int, embedder: Embedder,
            timings: dict[str, list[float]] | None = None) -> dict[str, list[str]]:
        """qid -> ranked ids over every conversation under ``settings``."""
        timings = timings if timings is not None else defaultdict(list)
        ranked: dict[str, list[str]] = {}
        for conv, path in sorted(self.built.items()):
            asked = [q for q in self.questions if conv in (POOLED, q["conv_id"])]
            ranked.update(_ask(path, self.asked_at[conv], asked, settings, top_k, timings, embedder, self.vectors))
        return ranked

    def score(self, run: dict[str, list[str]], convs: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The data set's own scores of ``run``, over the questions of ``convs`` (all when None)."""
        path = self.queries_path
        if convs is not None:
            path = self.folder / f"queries-{'-'.join(sorted(convs))}.jsonl"
            if not path.is_file():
                wanted = set(convs)
                lines = self.queries_path.read_text(encoding="utf-8").splitlines()
                path.write_text("".join(line + "\n" for line in lines if json.loads(line)["conv_id"] in wanted),
                                encoding="utf-8")
        return _scorer()(run, self.target, (1, 5, 10), queries_path=str(path))


SHAPES = ("turns", "observations", "pack<N>", "mixed<N>", "<shape>-pooled")


def _pack_size(shape: str) -> int:
    """``pack2500`` / ``mixed2500`` -> 2500; 0 for the unpacked shapes."""
    shape = shape.removesuffix("-pooled")
    for prefix in ("pack", "mixed"):
        if shape.startswith(prefix) and shape[len(prefix):].isdigit():
            return int(shape[len(prefix):])
    if shape in ("turns", "observations"):
        return 0
    raise ValueError(f"unknown shape {shape!r}: one of {', '.join(SHAPES)}")


def shape_of(pack_chars: int) -> str:
    """``--pack-chars`` values as shapes: 0 the turns, N packs of ~N characters."""
    return f"pack{pack_chars}" if pack_chars else "turns"


def prepare(shape: str, folder: Path, embedder: Embedder, cache: Path | None = None) -> Prepared:
    """Stores and questions for a run: in ``folder``, or reused from and kept in ``cache``.

    ``shape`` is the text shape: ``turns``; ``observations``; ``packN``, turns packed into
    ~N characters; ``mixedN``, packs of ~N characters each followed by a single turn; any of them
    with ``-pooled``, every conversation in one memory (``turns-pooled``). A cache
    holds one folder of stores per shape (``turns``, ``pack2500-mean``...) and the query
    vectors; delete it after any change to how facts are absorbed or embedded.
    """
    folder.mkdir(parents=True, exist_ok=True)
    questions = _load("queries.jsonl")
    queries_path = EVAL_DIR / "queries.jsonl"
    pooled = shape.endswith("-pooled")
    target = "observations" if shape.removesuffix("-pooled") == "observations" else "turns"
    turns = _load(f"{target}.jsonl")
    if pack_chars := _pack_size(shape):
        turns, owner = pack_turns(turns, pack_chars, mixed=shape.startswith("mixed"))
        queries_path = _packed_queries(questions, owner, folder)
    stores = folder
    if cache is not None:
        stores = cache / (f"{shape}-{getattr(embedder, 'combine', None) or 'mean'}" if pack_chars else shape)
        stores.mkdir(parents=True, exist_ok=True)
    build_timings: dict[str, list[float]] = defaultdict(list)
    built, asked_at = _build_all(turns, stores, build_timings, embedder, pooled)
    vectors = _query_vectors(questions, cache, embedder) if cache is not None else None
    return Prepared(turns, questions, queries_path, built, asked_at, build_timings, folder, vectors, target)


def evaluate_many(variants: list[Settings], top_k: int = 10, shape: str = "turns",
                  embedder: Embedder | None = None, cache: Path | None = None) -> list[dict[str, Any]]:
    """Build each conversation's memory once, then search it under every settings variant."""
    embedder = embedder or shared_embedder()
    results = []
    with tempfile.TemporaryDirectory(prefix="memlens-locomo-") as folder:
        prepared = prepare(shape, Path(folder), embedder, cache)
        for settings in variants:
            timings = defaultdict(list, prepared.build_timings)
            run = prepared.run(settings, top_k, embedder, timings)
            result = _summary(prepared.score(run), settings, timings)
            lengths = sorted(len(t["text"]) for t in prepared.turns)
            result.update(turns=len(prepared.turns), questions=len(prepared.questions), shape=shape,
                          text_chars_min_median_max=(lengths[0], lengths[len(lengths) // 2], lengths[-1]),
                          combine=getattr(embedder, "combine", None))
            results.append(result)
    return results


def fold_split(convs: list[str], folds: int) -> list[tuple[str, ...]]:
    """Held-out conversations per fold: the sorted ids dealt round-robin (6 ids, 3 folds: 2 each)."""
    ordered = sorted(convs)
    return [tuple(ordered[k::folds]) for k in range(folds)]


def cross_validate(prepared: list[Prepared], runs: list[dict[str, dict[str, list[str]]]], baseline: str,
                   folds: int) -> list[dict[str, Any]]:
    """Choose a variant on the training conversations of each fold, score it on the held-out ones.

    ``prepared[m]`` is one text shape (turns, packs) and ``runs[m]`` maps each variant's label to
    its run over every conversation in it. A fold's variant is the one with the best recall@5 on
    its training questions, averaged over the shapes (ties to the earlier label), among those
    that lower no shape's training recall@5 below the ``baseline``'s (the rule a change ships
    by), so one setting is chosen for all of them. The held-out figure pools the questions of every fold's held-out
    conversations, each scored under the variant its fold chose, so every question counts once
    and never under a choice it took part in. The in-sample figure is the variant best on all
    conversations, scored on them: an upper bound, not a forecast. One report per shape.
    """
    labels = list(runs[0])
    convs = sorted({q["conv_id"] for q in prepared[0].questions})

    def recall(label: str, on: tuple[str, ...]) -> float:
        return statistics.mean(p.score(r[label], on)["ALL"]["recall@5"] for p, r in zip(prepared, runs))

    def choose(on: tuple[str, ...]) -> str:
        floor = [p.score(r[baseline], on)["ALL"]["recall@5"] for p, r in zip(prepared, runs)]
        eligible = [label for label in labels
                    if all(p.score(r[label], on)["ALL"]["recall@5"] >= f for p, r, f in zip(prepared, runs, floor))]
        return max(eligible, key=lambda label: (recall(label, on), -labels.index(label)))

    choices = [(held, choose(tuple(c for c in convs if c not in held))) for held in fold_split(convs, folds)]
    best = choose(tuple(convs))
    reports = []
    for shape, shape_runs in zip(prepared, runs):
        per_fold, pooled = [], {}
        for held, chosen in choices:
            train = tuple(c for c in convs if c not in held)
            per_fold.append({"held_out": held, "chosen": chosen,
                             "train_recall@5": shape.score(shape_runs[chosen], train)["ALL"]["recall@5"],
                             "held_out_recall@5": shape.score(shape_runs[chosen], held)["ALL"]["recall@5"],
                             "baseline_held_out_recall@5": shape.score(shape_runs[baseline], held)["ALL"]["recall@5"]})
            pooled.update({q: ranked for q, ranked in shape_runs[chosen].items() if q.split(":")[0] in held})
        reports.append({"folds": per_fold, "baseline": baseline, "in_sample_choice": best,
                        "scores": {"baseline": shape.score(shape_runs[baseline]), "held_out": shape.score(pooled),
                                   "in_sample": shape.score(shape_runs[best])}})
    return reports


def fold_rows(report: dict[str, Any]) -> list[str]:
    """The cross-validation as printable lines: each fold's choice, then recall@5 per category."""
    lines = [f"  fold held out {'+'.join(f['held_out'])}: chose {f['chosen']}; train {f['train_recall@5']}, "
             f"held out {f['held_out_recall@5']} (baseline {f['baseline_held_out_recall@5']})"
             for f in report["folds"]]
    lines.append(f"  in-sample choice: {report['in_sample_choice']}")
    scores = report["scores"]
    lines.append(f"  {'recall@5':<14}{'n':>6}{'baseline':>10}{'held-out':>10}{'in-sample':>11}")
    for cat in sorted(k for k in scores["baseline"] if k not in ("ALL", "n_skipped")) + ["ALL"]:
        row = [scores[name][cat]["recall@5"] for name in ("baseline", "held_out", "in_sample")]
        lines.append(f"  {cat:<14}{scores['baseline'][cat]['n']:>6}" + "".join(f"{v:>10}" for v in row[:2])
                     + f"{row[2]:>11}")
    return lines


def variant_label(settings: Settings) -> str:
    """The settings that differ from the defaults, e.g. ``context_weight=0.3`` (``defaults`` if none)."""
    default, memory = Settings().memory, settings.memory
    changed = [f"{name}={getattr(memory, name)}" for name in
               ("freshness_floor", "freshness_rate", "candidate_pool", "cosine_weight", "context_weight",
                "context_length", "text_match_budget", "text_match_share", "bm25_power", "voice_weight")
               if getattr(memory, name) != getattr(default, name)]
    return ",".join(changed) or "defaults"


def evaluate(settings: Settings | None = None, top_k: int = 10) -> dict[str, Any]:
    """Recall@5/10 and MRR overall and per category, plus timings; ``available`` False without the data."""
    if not (EVAL_DIR / "turns.jsonl").is_file():
        return {"available": False, "message": f"LoCoMo data not found at {EVAL_DIR}; skipped"}
    return evaluate_many([settings or Settings()], top_k)[0]


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def _baseline(text: str, defaults: Any) -> Settings | None:
    """``--baseline context_weight=0.2,bm25_power=1`` -> those [memory] settings over the defaults."""
    if not text:
        return None
    pairs = dict(item.split("=", 1) for item in text.split(","))
    return replace(Settings(), memory=replace(defaults, **{k: type(getattr(defaults, k))(float(v))
                                                          for k, v in pairs.items()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Settings().memory
    parser.add_argument("--floor", type=_floats, default=[defaults.freshness_floor], help="comma list to sweep")
    parser.add_argument("--rate", type=_floats, default=[defaults.freshness_rate])
    parser.add_argument("--pool", type=_floats, default=[defaults.candidate_pool])
    parser.add_argument("--cosine-weight", type=_floats, default=[defaults.cosine_weight])
    parser.add_argument("--context-weight", type=_floats, default=[defaults.context_weight])
    parser.add_argument("--context-length", type=_floats, default=[defaults.context_length],
                        help="context part scaled by min(1, this / characters); 0 = no scaling")
    parser.add_argument("--budget", type=_floats, default=[defaults.text_match_budget], help="text_match_budget")
    parser.add_argument("--share", type=_floats, default=[defaults.text_match_share], help="text_match_share")
    parser.add_argument("--bm25-power", type=_floats, default=[defaults.bm25_power],
                        help="BM25 part = (bm25 / best) ** this")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--pack-chars", type=lambda text: [int(v) for v in text.split(",")], default=[0],
                        help=f"join each session's turns into texts of ~N chars ({PACK_MIN}-{PACK_MAX}); 0 = turns; "
                             "a comma list with --folds chooses one setting for all (e.g. 0,2500)")
    parser.add_argument("--mixed", type=lambda text: [int(v) for v in text.split(",")], default=[],
                        help="also run packs of ~N chars each followed by a single turn (short next to long texts)")
    parser.add_argument("--observations", action="store_true",
                        help="also run the observations shape (short self-contained facts; scored on observation ids)")
    parser.add_argument("--pooled", action="store_true",
                        help="also run the turns of all conversations pooled into one memory (turns-pooled)")
    parser.add_argument("--folds", type=int, default=0,
                        help="cross-validate by conversation: choose among the swept variants on the others, "
                             "report recall@5 on each fold's held-out conversations (3: two held out per fold)")
    parser.add_argument("--cache", default="",
                        help="folder to keep the built stores and query vectors in and reuse (e.g. /tmp/recall)")
    parser.add_argument("--baseline", default="",
                        help="with --folds, the settings to compare with and not fall below, as name=value,... "
                             "over [memory] (default: the current defaults)")
    parser.add_argument("--combine", default="mean",
                        help=f"comma list of how a long text's windows make its vector: {', '.join(COMBINE)}")
    parser.add_argument("--vector-cache", default="",
                        help="folder of embeddings kept between runs (benchmarks.vector_cache), e.g. /tmp/retrieval-cache")
    args = parser.parse_args()
    if not (EVAL_DIR / "turns.jsonl").is_file():
        print(f"LoCoMo data not found at {EVAL_DIR}; skipped")
        return
    variants = [replace(Settings(), memory=replace(defaults, freshness_floor=f, freshness_rate=r,
                                                   candidate_pool=int(p), cosine_weight=w,
                                                   bm25_weight=round(1 - w, 4), context_weight=c,
                                                   context_length=int(n),
                                                   text_match_budget=int(b), text_match_share=h, bm25_power=e))
                for f in args.floor for r in args.rate for p in args.pool for w in args.cosine_weight
                for c in args.context_weight for n in args.context_length for b in args.budget for h in args.share
                for e in args.bm25_power]
    cache = Path(args.cache) if args.cache else None
    shapes = [shape_of(n) for n in args.pack_chars] + (["observations"] if args.observations else []) \
        + [f"mixed{n}" for n in args.mixed] + (["turns-pooled"] if args.pooled else [])
    for combine in args.combine.split(","):
        embedder = shared_embedder() if combine == "mean" else FastEmbedder(combine=combine)
        if args.vector_cache:
            from benchmarks.vector_cache import CachedEmbedder

            embedder = CachedEmbedder(embedder, Path(args.vector_cache))
        if args.folds:
            _print_folds(variants, args.folds, args.top_k, shapes, embedder, cache,
                         _baseline(args.baseline, defaults))
            continue
        for result in (r for shape in shapes for r in evaluate_many(variants, args.top_k, shape, embedder, cache)):
            print(json.dumps({**result["settings"], "combine": result["combine"], "shape": result["shape"],
                              "facts": result["turns"], "chars_min_median_max": result["text_chars_min_median_max"]}))
            for label, value in result["summary_rows"]:
                print(f"  {label:<55} {value}")


def _print_folds(variants: list[Settings], folds: int, top_k: int, shape_names: list[str], embedder: Embedder,
                 cache: Path | None, baseline: Settings | None = None) -> None:
    """``--folds``: every variant searched once per text shape, then chosen per fold on its training
    conversations (mean recall@5 over the shapes), and scored on its held-out ones."""
    baseline = baseline or Settings()
    variants = [baseline, *(v for v in variants if v != baseline)]
    with tempfile.TemporaryDirectory(prefix="memlens-locomo-") as folder:
        shapes = [prepare(name, Path(folder) / name, embedder, cache) for name in shape_names]
        runs = [{variant_label(v): shape.run(v, top_k, embedder) for v in variants} for shape in shapes]
        reports = cross_validate(shapes, runs, variant_label(baseline), folds)
    for name, report in zip(shape_names, reports):
        print(json.dumps({"folds": folds, "shape": name, "combine": getattr(embedder, "combine", None),
                          "variants": len(variants), "chosen_over": shape_names}))
        for line in fold_rows(report):
            print(line)

if __name__ == "__main__":
    main()
