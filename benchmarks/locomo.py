"""Retrieval quality on real conversations: the LoCoMo protocol of ``../shared/eval/README.md``.

One memory per conversation; every dialogue turn is absorbed (one absorb per
session, with the session's date as the facts' time and the turn id as their
source); each question is searched in its own conversation's memory, asked
the day after the last session. Hits are mapped back to turn ids through
their sources (a merged turn counts for the fact it was merged into) and
scored with the data set's own ``score_recall.py``.

With ``--pack-chars N`` the turns of each session are first joined into long
texts of about N characters (1,500-3,900), one fact each, the shape of long
assistant replies in an imported chat; expected turn ids are mapped to the
pack that holds them and packs are what is ranked and scored.

The data is read from ``../shared/eval/locomo/`` and never copied here (a
pack run writes its remapped questions to a temporary folder).

    python -m benchmarks.locomo [--floor 0.5] [--rate 0.01] [--pool 200] [--top-k 10]
                                [--context-weight 0,0.2] [--budget 0,500]   (comma lists sweep)
                                [--pack-chars 2500] [--combine mean,first,first+mean]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
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


def pack_turns(turns: list[dict], target: int) -> tuple[list[dict], dict[str, str]]:
    """Consecutive turns of each session joined into texts of ~``target`` chars (at most PACK_MAX).

    Returns the packs as turn-shaped rows (``fact_id`` = ``<conv>:D<session>:P<n>``) and
    every turn id's pack id. A session's short remainder joins the pack before it when
    the two fit in PACK_MAX, so few packs fall under PACK_MIN.
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
                groups.append([])
            groups[-1].append(turn)
        if len(groups) > 1 and sum(len(t["text"]) + 1 for t in groups[-2] + groups[-1]) <= PACK_MAX \
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
    """Absorb one conversation session by session; returns the time questions are asked at."""
    clock = _Clock()
    sessions: dict[int, list[dict]] = defaultdict(list)
    for turn in turns:
        sessions[turn["session"]].append(turn)
    with Memory(path, clock=clock, actor="bench", embedder=embedder) as memory:
        for number in sorted(sessions):
            batch = sessions[number]
            when = _session_time(batch[0]["session_date_time"])
            clock.at = when
            items = [{"text": t["text"], "source": t["fact_id"], "scope": "user",
                      "created_at": datetime.fromtimestamp(when + k, timezone.utc).isoformat()}
                     for k, t in enumerate(batch)]
            started = time.perf_counter()
            memory.absorb(items)
            timings["absorb_ms_per_turn"].append((time.perf_counter() - started) * 1000 / len(items))
    return clock.at + DAY


def _ask(path: Path, asked_at: float, questions: list[dict], settings: Settings, top_k: int,
         timings: dict[str, list[float]], embedder: Embedder) -> dict[str, list[str]]:
    ranked = {}
    with Memory(path, settings, clock=lambda: asked_at, actor="bench", embedder=embedder) as memory:
        for question in questions:
            started = time.perf_counter()
            hits = memory.search(question["question"], top_k=top_k)
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
                     "text_match_budget": settings.memory.text_match_budget},
        "overall": overall, "per_category": {k: v for k, v in scores.items() if k not in ("ALL", "n_skipped")},
        "absorb_ms_per_turn": round(statistics.median(timings["absorb_ms_per_turn"]), 3),
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


def evaluate_many(variants: list[Settings], top_k: int = 10, pack_chars: int = 0,
                  embedder: Embedder | None = None) -> list[dict[str, Any]]:
    """Build each conversation's memory once, then search it under every settings variant."""
    embedder = embedder or shared_embedder()
    turns, questions = _load("turns.jsonl"), _load("queries.jsonl")
    results = []
    with tempfile.TemporaryDirectory(prefix="memlens-locomo-") as folder:
        scoring: dict[str, Any] = {}
        if pack_chars:
            turns, owner = pack_turns(turns, pack_chars)
            scoring["queries_path"] = str(_packed_queries(questions, owner, Path(folder)))
        by_conv: dict[str, list[dict]] = defaultdict(list)
        for turn in turns:
            by_conv[turn["conv_id"]].append(turn)
        build_timings: dict[str, list[float]] = defaultdict(list)
        built = {conv: (Path(folder) / f"{conv}.sqlite") for conv in by_conv}
        asked_at = {conv: _build(by_conv[conv], path, build_timings, embedder) for conv, path in sorted(built.items())}
        for settings in variants:
            timings = defaultdict(list, build_timings)
            run: dict[str, list[str]] = {}
            for conv, path in sorted(built.items()):
                asked = [q for q in questions if q["conv_id"] == conv]
                run.update(_ask(path, asked_at[conv], asked, settings, top_k, timings, embedder))
            result = _summary(_scorer()(run, "turns", (1, 5, 10), **scoring), settings, timings)
            lengths = sorted(len(t["text"]) for t in turns)
            result.update(turns=len(turns), questions=len(questions), pack_chars=pack_chars,
                          text_chars_min_median_max=(lengths[0], lengths[len(lengths) // 2], lengths[-1]),
                          combine=getattr(embedder, "combine", None))
            results.append(result)
    return results


def evaluate(settings: Settings | None = None, top_k: int = 10) -> dict[str, Any]:
    """Recall@5/10 and MRR overall and per category, plus timings; ``available`` False without the data."""
    if not (EVAL_DIR / "turns.jsonl").is_file():
        return {"available": False, "message": f"LoCoMo data not found at {EVAL_DIR}; skipped"}
    return evaluate_many([settings or Settings()], top_k)[0]


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Settings().memory
    parser.add_argument("--floor", type=_floats, default=[defaults.freshness_floor], help="comma list to sweep")
    parser.add_argument("--rate", type=_floats, default=[defaults.freshness_rate])
    parser.add_argument("--pool", type=_floats, default=[defaults.candidate_pool])
    parser.add_argument("--cosine-weight", type=_floats, default=[defaults.cosine_weight])
    parser.add_argument("--context-weight", type=_floats, default=[defaults.context_weight])
    parser.add_argument("--budget", type=_floats, default=[defaults.text_match_budget], help="text_match_budget")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--pack-chars", type=int, default=0,
                        help=f"join each session's turns into texts of ~N chars ({PACK_MIN}-{PACK_MAX}); 0 = turns")
    parser.add_argument("--combine", default="mean",
                        help=f"comma list of how a long text's windows make its vector: {', '.join(COMBINE)}")
    args = parser.parse_args()
    if not (EVAL_DIR / "turns.jsonl").is_file():
        print(f"LoCoMo data not found at {EVAL_DIR}; skipped")
        return
    variants = [replace(Settings(), memory=replace(defaults, freshness_floor=f, freshness_rate=r,
                                                   candidate_pool=int(p), cosine_weight=w,
                                                   bm25_weight=round(1 - w, 4), context_weight=c,
                                                   text_match_budget=int(b)))
                for f in args.floor for r in args.rate for p in args.pool for w in args.cosine_weight
                for c in args.context_weight for b in args.budget]
    for combine in args.combine.split(","):
        embedder = shared_embedder() if combine == "mean" else FastEmbedder(combine=combine)
        for result in evaluate_many(variants, args.top_k, args.pack_chars, embedder):
            print(json.dumps({**result["settings"], "combine": result["combine"], "pack_chars": args.pack_chars,
                              "facts": result["turns"], "chars_min_median_max": result["text_chars_min_median_max"]}))
            for label, value in result["summary_rows"]:
                print(f"  {label:<55} {value}")


if __name__ == "__main__":
    main()
