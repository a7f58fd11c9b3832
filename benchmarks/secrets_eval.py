"""Measure the secret detector against the shared labelled set.

    python -m benchmarks.secrets_eval [--path P] [--repeat N]

Reads ``../shared/eval/secrets/dev.jsonl`` (outside the project; never copied
in) and prints recall on ``secret`` rows, the false-positive rate on the
code-like ``not_secret`` rows and on natural dialogue separately, per-source
figures, the ids and groups of every miss and false positive, and the mean
time of ``first_secret`` per text. Only ids and groups are printed: the rows
hold (fake) credentials and this output may end up in logs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from engine.absorb.secrets import first_secret

DEFAULT_PATH = Path(__file__).resolve().parents[1].parent / "shared/eval/secrets/dev.jsonl"
NATURAL_SOURCES = frozenset({"locomo"})


def load_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def score(rows: list[dict]) -> dict:
    """Flag every row once and bucket the outcomes by source and by kind of row."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # bucket -> [flagged, total]
    misses, false_positives = [], []
    for row in rows:
        flagged = first_secret(row["text"]) is not None
        natural = row["source"] in NATURAL_SOURCES
        if row["label"] == "secret":
            buckets = ("secret", f"{row['source']}:secret")
            if not flagged:
                misses.append(row)
        else:
            buckets = ("natural" if natural else "code", f"{row['source']}:not_secret")
            if flagged:
                false_positives.append(row)
        for bucket in buckets:
            tally[bucket][0] += flagged
            tally[bucket][1] += 1
    return {"tally": tally, "misses": misses, "false_positives": false_positives}


def time_first_secret(texts: list[str], repeat: int) -> float:
    """Mean microseconds per ``first_secret`` call over ``texts``, from the fastest of ``repeat`` passes.

    The fastest pass is the least disturbed by whatever else the machine is doing.
    """
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            first_secret(text)
        best = min(best, time.perf_counter() - start)
    return best / len(texts) * 1e6


def _rate(pair: list[int]) -> str:
    flagged, total = pair
    return f"{flagged / total:.3f} ({flagged}/{total})" if total else "n/a"


def _print_rows(title: str, rows: list[dict]) -> None:
    by_group: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_group[f"{row['source']}/{row['group']}"].append(row["id"])
    print(f"\n{title}: {len(rows)}")
    for group, ids in sorted(by_group.items()):
        print(f"  {group}: {', '.join(ids)}")


def report(rows: list[dict], repeat: int) -> None:
    result = score(rows)
    tally = result["tally"]
    print(f"rows: {len(rows)}")
    print(f"recall (secret rows):            {_rate(tally['secret'])}")
    print(f"FP rate (non-natural not_secret): {_rate(tally['code'])}")
    print(f"FP rate (natural dialogue):       {_rate(tally['natural'])}")
    print("\nper source (share flagged):")
    for bucket in sorted(k for k in tally if ":" in k):
        print(f"  {bucket:<26} {_rate(tally[bucket])}")
    _print_rows("misses", result["misses"])
    _print_rows("false positives", result["false_positives"])
    natural = [r["text"] for r in rows if r["source"] in NATURAL_SOURCES]
    everything = [r["text"] for r in rows]
    print(f"\nfirst_secret timing (mean per text, fastest of {repeat} passes):")
    for label, texts in (("natural dialogue", natural), ("all rows", everything)):
        if texts:
            mean_len = sum(map(len, texts)) / len(texts)
            print(f"  {label + ':':<18}{time_first_secret(texts, repeat):7.2f} us/text (mean {mean_len:.0f} chars)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="labelled JSONL file")
    parser.add_argument("--repeat", type=int, default=20, help="timing passes over the texts")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(f"secrets eval skipped: no labelled data at {args.path}")
        return 0
    report(load_rows(args.path), max(1, args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
