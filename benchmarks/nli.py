"""How the heuristic absorb classifier does on labelled sentence pairs (``../shared/eval/nli/``).

Each pair ``(a, b)`` is classified as if ``a`` were stored and ``b`` arrived:
the real embedder gives the cosine, the real classifier the outcome
(duplicate / contradict / related / new; supersede needs triples, which the
pairs do not have). Prints per-label precision and recall and the confusion
matrix. The data is read in place, never copied.

    python -m benchmarks.nli [--limit N]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from engine.absorb.classify import Candidate, classify
from engine.config import Settings
from engine.embeddings import shared_embedder
from engine.absorb.validation import Incoming

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "nli" / "dev.jsonl"
LABELS = ("duplicate", "contradict", "related", "new")


def evaluate(limit: int | None = None) -> dict:
    if not DATA.is_file():
        return {"available": False, "message": f"NLI pairs not found at {DATA}; skipped"}
    with DATA.open(encoding="utf-8") as handle:
        pairs = [json.loads(line) for line in handle][:limit]
    embedder = shared_embedder()
    left = embedder.embed([p["a"] for p in pairs])
    right = embedder.embed([p["b"] for p in pairs])
    limits = Settings().memory
    confusion: Counter[tuple[str, str]] = Counter()
    for pair, va, vb in zip(pairs, left, right):
        candidate = Candidate(pair["a"], "agent", float(va @ vb), fact_id=1)
        decision = classify(Incoming(text=pair["b"], scope="agent", kind="explicit"), [candidate], limits)
        confusion[(pair["label"], decision.outcome)] += 1
    per_label = {}
    for label in LABELS:
        predicted = sum(n for (_, got), n in confusion.items() if got == label)
        actual = sum(n for (want, _), n in confusion.items() if want == label)
        hit = confusion[(label, label)]
        per_label[label] = {"precision": round(hit / predicted, 3) if predicted else None,
                            "recall": round(hit / actual, 3) if actual else None, "n": actual}
    accuracy = sum(confusion[(label, label)] for label in LABELS) / max(1, len(pairs))
    return {"available": True, "pairs": len(pairs), "accuracy": round(accuracy, 3), "per_label": per_label,
            "confusion": {f"{want}->{got}": n for (want, got), n in sorted(confusion.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description="Score the absorb classifier on labelled sentence pairs.")
    parser.add_argument("--limit", type=int, help="only the first N pairs")
    result = evaluate(parser.parse_args().limit)
    if not result["available"]:
        print(result["message"])
        return
    print(f"pairs {result['pairs']}, accuracy {result['accuracy']}")
    for label, figures in result["per_label"].items():
        print(f"  {label:<10} precision {figures['precision']}  recall {figures['recall']}  (n={figures['n']})")
    print("confusion (label->outcome):", json.dumps(result["confusion"]))


if __name__ == "__main__":
    main()
