"""How the heuristic absorb classifier does on rated sentence pairs (``../shared/eval/nli/``).

Each pair ``(a, b)`` is classified as if ``a`` were stored and ``b`` arrived:
the real embedder gives the cosine, the real classifier (``engine.classify``)
the outcome: duplicate / contradict / related / new (supersede needs triples,
which the pairs do not have). The data is read in place, never copied; its
embeddings are cached in the temp dir (``--cache``) so reruns take seconds.

Protocol, so that tuning to these pairs does not pass for quality:

1. **in-sample**: the shipped settings (``engine/config.py``) on every pair.
   Those settings were chosen by looking at these pairs, so this figure is
   optimistic.
2. **held-out, k folds**: pairs are grouped so that pairs sharing a sentence
   (SICK reuses each sentence in several pairs) never straddle folds; groups
   are dealt into k folds (seeded shuffle). For each fold the classifier's
   thresholds (duplicate cosine, order and words apart; contradict cosine and
   words apart) are calibrated on the other folds, then the real classifier
   with those thresholds scores the fold. The folds' predictions are pooled
   into one confusion matrix.
3. **held-out source**: calibrated on one source (SICK or STS-B), scored on
   the other. STS-B has no rated contradictions, so calibrating on it cannot
   choose contradiction thresholds; it falls back to the strictest ones.

Calibration picks, on the calibration pairs only, the thresholds with the most
duplicate plus contradict recall whose precision reaches ``--dup-precision``
(0.97) and ``--contradict-precision`` (0.95). The targets are 0.95 and 0.80;
the margin is for pairs unlike these (every false contradiction is an item in
a person's review queue). Ties go to the stricter thresholds, i.e. toward
``related``. The shipped settings are this calibration run on all pairs.

    python -m benchmarks.nli [--folds 5] [--limit N] [--cache PATH] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from engine.absorb.classify import Candidate, by_pair_model, classify, one_value_apart, restatement_blocked
from engine.absorb.conflict import conflict_cue, difference
from engine.absorb.frame_contrast import compare
from engine.absorb.pair_features import differing_words
from engine.absorb.text_contrast import contrast
from engine.absorb.validation import Incoming
from engine.config import MemorySettings, Settings

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "nli" / "dev.jsonl"
CACHE = Path(tempfile.gettempdir()) / "memlens-nli-embeddings.npz"
LABELS = ("duplicate", "contradict", "related", "new")
CHANGES = frozenset({"contradict", "supersede"})  # a supersede on these pairs claims a conflict too
GRID = {
    "duplicate_threshold": (0.80, 0.85, 0.90, 0.93, 0.95, 0.97),
    "duplicate_min_order": (0.8, 0.9, 1.0),
    "duplicate_max_apart": (0, 1),
    "contradict_threshold": (0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80),
    "contradict_max_apart": (0, 1, 2, 3, 4),
}


def load_pairs(limit: int | None = None) -> list[dict[str, Any]]:
    with DATA.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle][:limit]


def cosines(pairs: list[dict[str, Any]], cache: Path) -> np.ndarray:
    """Cosine of each pair, embedding every distinct sentence once (cached by the texts' digest)."""
    texts = sorted({t for p in pairs for t in (p["a"], p["b"])})
    model = Settings().embedding.model
    digest = hashlib.sha256("\n".join([model, *texts]).encode()).hexdigest()
    vectors = None
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as stored:
            if str(stored["digest"]) == digest:
                vectors = stored["vectors"]
    if vectors is None:
        from engine.models.embeddings import shared_embedder
        vectors = shared_embedder(model).embed(texts)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, digest=np.array(digest), vectors=vectors)
    row = {t: k for k, t in enumerate(texts)}
    return np.array([float(vectors[row[p["a"]]] @ vectors[row[p["b"]]]) for p in pairs])


@dataclass
class Features:
    """What the classifier's thresholds act on, per pair, so a threshold grid is array arithmetic."""
    cosine: np.ndarray
    cue: np.ndarray          # 0 none, 1 negation/stance, 2 number
    residual: np.ndarray
    order: np.ndarray
    different: np.ndarray    # a cue, an identifier/number/date/name or an opposite of its own
    frame: np.ndarray        # the frame reading (engine/absorb/frames.py): changed, same, distinct or ""
    frame_newer: np.ndarray
    frame_shared: np.ndarray  # a changed value said with the stored text's verb
    frame_cue: np.ndarray     # a negation or opposite: never a restatement
    model: np.ndarray         # the pair model's call where the frame reading left the pair: changed, same or ""
    one_value: np.ndarray     # few enough words differ for a changed value or a restatement (classify.one_value_apart)


def span_cosines(pairs: list[dict[str, Any]], cache: Path) -> np.ndarray:
    """How alike each pair's differing words are (``engine/absorb/span_similarity.py``), as absorb
    measures them; 0 where one side has none."""
    from benchmarks.agent_pairs import cached_embed
    embed = cached_embed(cache.with_name(cache.stem + "-spans.npz"))
    spans = [differing_words(p["a"], p["b"]) for p in pairs]
    texts = sorted({t for lost, gained in spans if lost and gained for t in (lost, gained)})
    vectors = dict(zip(texts, embed(texts))) if texts else {}
    return np.array([float(vectors[lost] @ vectors[gained]) if lost and gained else 0.0 for lost, gained in spans])


class _Measured:
    """A pair's differing-words similarity, measured beforehand for every pair at once."""

    def __init__(self, value: float) -> None:
        self.value = value

    def cosine(self, stored: str, incoming: str) -> float:
        return self.value


def _candidate(pair: dict[str, Any], cosine: float, span_cosine: float, limits: MemorySettings) -> Candidate:
    """The stored side as absorb's planner hands it over."""
    return Candidate(pair["a"], "agent", cosine, fact_id=1, spans=_Measured(span_cosine))


def model_calls(pairs: list[dict[str, Any]], cos: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """The pair model's call on each pair (changed, same or ""), with the model in use."""
    shipped = Settings().memory
    calls = []
    for p, cosine, span in zip(pairs, cos, spans):
        said = by_pair_model(Incoming(text=p["b"], scope="agent", kind="explicit"),
                             [_candidate(p, float(cosine), float(span), shipped)], shipped)
        calls.append("" if said is None else "same" if said.outcome == "duplicate" else "changed")
    return np.array(calls, dtype=object)


def features(pairs: list[dict[str, Any]], cos: np.ndarray, spans: np.ndarray) -> Features:
    shipped = Settings().memory
    cue, residual, order, different = [], [], [], []
    frame, newer, shared, frame_cue = [], [], [], []
    for p in pairs:
        read = compare(p["a"], p["b"])
        frame.append(read.verdict or "")
        newer.append(read.newer)
        shared.append(read.shared_predicate)
        frame_cue.append(restatement_blocked(p["b"], p["a"]))
        c = contrast(p["b"], p["a"])
        kind = conflict_cue(p["b"], p["a"])
        cue.append(0 if kind is None else 2 if kind.startswith("number") else 1)
        residual.append(c.residual)
        order.append(c.order)
        different.append(difference(p["b"], p["a"]) is not None)
    return Features(cos, np.array(cue), np.array(residual), np.array(order), np.array(different),
                    np.array(frame, dtype=object), np.array(newer), np.array(shared), np.array(frame_cue),
                    model_calls(pairs, cos, spans),
                    np.array([one_value_apart(p["a"], p["b"], shipped) for p in pairs]))


def predict(f: Features, s: MemorySettings) -> np.ndarray:
    """``classify`` for one candidate, vectorised; checked against the real one in ``evaluate``."""
    allowed = np.where(f.cue == 2, 0, s.contradict_max_apart)
    close = f.cosine >= s.related_threshold
    reworded = np.where(f.frame_newer, s.change_reworded_threshold, s.contradict_reworded_threshold)
    changed = (f.frame == "changed") & (f.cosine >= s.change_threshold) & (f.frame_shared | (f.cosine >= reworded)) \
        & f.one_value
    restated = close & (f.frame == "same") & (f.cosine >= s.restate_threshold) & ~f.frame_cue & f.one_value
    contra = (f.cosine >= s.contradict_threshold) & (f.cue > 0) & (f.residual <= allowed) & close & \
        (f.frame != "distinct")
    dup = ~contra & close & (f.cosine >= s.duplicate_threshold) & \
        (f.residual <= s.duplicate_max_apart) & (f.order >= s.duplicate_min_order) & ~f.different
    out = np.where(close, "related", "new").astype(object)
    out[dup] = "duplicate"
    out[contra] = "contradict"
    out[f.model == "changed"] = "contradict"  # the model is asked before the cue and near-copy rules
    out[f.model == "same"] = "duplicate"
    out[restated] = "duplicate"
    out[changed] = "contradict"  # supersede or contradict: either says the two disagree
    return out


def scores(labels: np.ndarray, predicted: np.ndarray) -> dict[str, dict[str, Any]]:
    per = {}
    for label in LABELS:
        hit = int(((predicted == label) & (labels == label)).sum())
        said, actual = int((predicted == label).sum()), int((labels == label).sum())
        per[label] = {"precision": round(hit / said, 3) if said else None,
                      "recall": round(hit / actual, 3) if actual else None, "n": actual, "predicted": said}
    return per


def _settings_grid(base: MemorySettings) -> Iterable[MemorySettings]:
    keys = list(GRID)
    for values in itertools.product(*(GRID[k] for k in keys)):
        yield replace(base, **dict(zip(keys, values)))


def _strictness(s: MemorySettings) -> tuple:
    return (s.duplicate_threshold, s.duplicate_min_order, -s.duplicate_max_apart,
            s.contradict_threshold, -s.contradict_max_apart)


def calibrate(f: Features, labels: np.ndarray, dup_precision: float, contra_precision: float) -> MemorySettings:
    """The thresholds with the most duplicate + contradict recall at the required precisions."""
    best, best_key = None, None
    for s in _settings_grid(MemorySettings()):
        got = scores(labels, predict(f, s))
        gain = 0.0
        for label, floor in (("duplicate", dup_precision), ("contradict", contra_precision)):
            p, r = got[label]["precision"], got[label]["recall"]
            if p is not None and p >= floor and r:
                gain += r
        key = (round(gain, 6), _strictness(s))
        if best_key is None or key > best_key:
            best, best_key = s, key
    assert best is not None
    return best


def classify_pairs(pairs: list[dict[str, Any]], cos: np.ndarray, spans: np.ndarray,
                   limits: MemorySettings) -> np.ndarray:
    """The real classifier on each pair: ``a`` stored, ``b`` arriving."""
    out = []
    for pair, cosine, span in zip(pairs, cos, spans):
        candidate = _candidate(pair, float(cosine), float(span), limits)
        outcome = classify(Incoming(text=pair["b"], scope="agent", kind="explicit"), [candidate], limits).outcome
        out.append("contradict" if outcome in CHANGES else outcome)
    return np.array(out, dtype=object)


def groups(pairs: list[dict[str, Any]]) -> list[int]:
    """Connected components of pairs that share a sentence (case and spacing ignored)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    norm = [(" ".join(p["a"].lower().split()), " ".join(p["b"].lower().split())) for p in pairs]
    for a, b in norm:
        parent[root(a)] = root(b)
    ids: dict[str, int] = {}
    return [ids.setdefault(root(a), len(ids)) for a, _ in norm]


def confusion(labels: np.ndarray, predicted: np.ndarray) -> dict[str, int]:
    counts = Counter(zip(labels.tolist(), predicted.tolist()))
    return {f"{want}->{got}": n for (want, got), n in sorted(counts.items())}


def evaluate(limit: int | None = None, folds: int = 5, cache: Path = CACHE, dup_precision: float = 0.97,
             contra_precision: float = 0.95, seed: int = 7) -> dict[str, Any]:
    if not DATA.is_file():
        return {"available": False, "message": f"NLI pairs not found at {DATA}; skipped"}
    pairs = load_pairs(limit)
    cos = cosines(pairs, cache)
    labels = np.array([p["label"] for p in pairs], dtype=object)
    spans = span_cosines(pairs, cache)
    f = features(pairs, cos, spans)
    shipped = Settings().memory
    in_sample = classify_pairs(pairs, cos, spans, shipped)
    mismatch = int((in_sample != predict(f, shipped)).sum())  # the grid's mirror must be the classifier

    group = np.array(groups(pairs))
    order = list(dict.fromkeys(group.tolist()))
    random.Random(seed).shuffle(order)
    fold_of_group = {g: k % folds for k, g in enumerate(order)}
    fold = np.array([fold_of_group[g] for g in group])
    held_out = np.empty(len(pairs), dtype=object)
    chosen = []
    for k in range(folds):
        test = fold == k
        s = calibrate(_subset(f, ~test), labels[~test], dup_precision, contra_precision)
        chosen.append({key: getattr(s, key) for key in GRID})
        idx = np.flatnonzero(test)
        held_out[idx] = classify_pairs([pairs[i] for i in idx], cos[idx], spans[idx], s)

    by_source = {}
    sources = np.array([p["source"] for p in pairs], dtype=object)
    for source in sorted(set(sources.tolist())):
        test = sources == source
        s = calibrate(_subset(f, ~test), labels[~test], dup_precision, contra_precision)
        idx = np.flatnonzero(test)
        got = classify_pairs([pairs[i] for i in idx], cos[idx], spans[idx], s)
        by_source[source] = {"calibrated_on": sorted(set(sources[~test].tolist())),
                             "thresholds": {key: getattr(s, key) for key in GRID},
                             "per_label": scores(labels[idx], got), "confusion": confusion(labels[idx], got)}
    return {"available": True, "pairs": len(pairs), "groups": len(order), "folds": folds,
            "mirror_mismatches": mismatch,
            "in_sample": {"thresholds": {key: getattr(shipped, key) for key in GRID},
                          "per_label": scores(labels, in_sample), "confusion": confusion(labels, in_sample)},
            "held_out": {"thresholds_per_fold": chosen, "per_label": scores(labels, held_out),
                         "confusion": confusion(labels, held_out)},
            "held_out_source": by_source}


def _subset(f: Features, mask: np.ndarray) -> Features:
    return Features(*(getattr(f, column.name)[mask] for column in fields(f)))


def _print_block(title: str, block: dict[str, Any]) -> None:
    print(title)
    for label, fig in block["per_label"].items():
        print(f"  {label:<10} precision {fig['precision']}  recall {fig['recall']}  "
              f"(n={fig['n']}, predicted {fig['predicted']})")
    print("  confusion (label->outcome):", json.dumps(block["confusion"]))


def main() -> None:
    parser = argparse.ArgumentParser(description="Score the absorb classifier on rated sentence pairs.")
    parser.add_argument("--limit", type=int, help="only the first N pairs")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--cache", type=Path, default=CACHE, help="embedding cache file")
    parser.add_argument("--dup-precision", type=float, default=0.97)
    parser.add_argument("--contradict-precision", type=float, default=0.95)
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args()
    result = evaluate(args.limit, args.folds, args.cache, args.dup_precision, args.contradict_precision)
    if args.json or not result["available"]:
        print(json.dumps(result, indent=1) if result["available"] else result["message"])
        return
    print(f"pairs {result['pairs']} in {result['groups']} sentence groups; "
          f"grid mirror mismatches {result['mirror_mismatches']}")
    _print_block(f"in-sample, shipped thresholds {json.dumps(result['in_sample']['thresholds'])}", result["in_sample"])
    _print_block(f"held-out, {result['folds']} grouped folds (thresholds calibrated per fold)", result["held_out"])
    for chosen in result["held_out"]["thresholds_per_fold"]:
        print("  fold thresholds:", json.dumps(chosen))
    for source, block in result["held_out_source"].items():
        _print_block(f"held-out source {source} (calibrated on {', '.join(block['calibrated_on'])}, "
                     f"thresholds {json.dumps(block['thresholds'])})", block)


if __name__ == "__main__":
    main()
