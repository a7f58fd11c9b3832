"""Measure the secret detector against the shared labelled set, in sample and held out.

    python -m benchmarks.secrets_eval [--path P] [--repeat N] [--folds K] [--budget F]

Reads ``../shared/eval/secrets/dev.jsonl`` (outside the project; never copied
in). Reports recall on ``secret`` rows, the false-positive rate on code-like
``not_secret`` rows and on natural dialogue (``locomo``) separately, under:

- in-sample: the shipped thresholds (``engine.absorb.secret_entropy.DEFAULT_KNOBS``);
- leave-one-source-out and grouped K-fold (whole upstream groups per fold):
  the detector's knobs (entropy and length thresholds, ``KNOB_GRID``) are chosen
  on the training rows only (highest provider-blind recall with no dialogue false
  positive and a code false-positive rate within ``--budget``) and scored on the
  held-out rows;
- provider-blind ("written without looking at the group"): each group is scored
  with every provider-specific rule that fires on it switched off, and its
  provider's name dropped from the vendor lexicon, as if nobody had ever written
  a rule for it. Only generic evidence is left (keyword assignments, context
  words, entropy, structure: PEM, JWT, URLs, manifests, the generic
  ``prefix_`` + random shape).

It also prints the ids and groups of every in-sample miss and false positive and
the mean CPU time of ``first_secret`` per text. Only ids and groups are printed:
the rows hold (fake) credentials and this output may end up in logs.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from engine.absorb.secret_catalogue import VENDOR_NAMES
from engine.absorb.secret_entropy import DEFAULT_KNOBS, Knobs
from engine.absorb.secrets import first_secret, scan

DEFAULT_PATH = Path(__file__).resolve().parents[1].parent / "shared/eval/secrets/dev.jsonl"
NATURAL_SOURCES = frozenset({"locomo"})
# Rules that name no provider: what is left when a provider is unknown.
GENERIC_RULES = frozenset({
    "secret-assignment", "password-assignment", "bearer-token", "url-credentials", "curl-credentials",
    "private-key-block", "private-key-body", "jwt", "jwt-base64", "prefixed-token", "connection-string-password",
    "kubernetes-secret", "keyword-context", "vendor-context", "high-entropy-string",
})
CONTEXT_RULES = frozenset({"keyword-context", "vendor-context", "high-entropy-string"})
# The knobs and the values each protocol may choose from (``bare_min_len`` 10**6 switches quoted
# high-entropy strings off). ``bare_*`` stay at least as strict as ``near_*``.
KNOB_GRID = {
    "near_min_len": (12, 16),
    "near_deficit": (0.35, 0.5, 0.7),
    "near_wordy": (0.3, 0.4),
    "near_hex_min_len": (24, 32),
    "bare_min_len": (20, 24, 32, 10**6),
    "bare_wordy": (0.2, 0.3),
    "bare_unquoted": (False, True),
}
# The loosest value of each knob: a row this setting does not flag, no setting flags.
_LOOSEST = {"near_min_len": min, "near_deficit": max, "near_wordy": max, "near_hex_min_len": min,
            "bare_min_len": min, "bare_wordy": max, "bare_unquoted": max}


def load_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _kind(row: dict) -> str:
    if row["label"] == "secret":
        return "secret"
    return "natural" if row["source"] in NATURAL_SOURCES else "code"


def _group(row: dict) -> str:
    return f"{row['source']}/{row['group']}"


# --- provider-blind settings ---------------------------------------------------


def blind_settings(rows: list[dict]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per group: the provider rules to switch off and the provider names to ignore.

    The rules are found by running the detector: every non-generic rule that fires
    on one of the group's secret rows, repeated until none fires (switching one
    off may let a sibling take over).
    """
    by_group: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row["label"] == "secret":
            by_group[_group(row)].append(row["text"])
    settings = {}
    for group, texts in by_group.items():
        compact = re.sub(r"[^a-z0-9]", "", group.split("/", 1)[1].lower())
        names = frozenset(name for name in VENDOR_NAMES if name in compact)
        disabled: set[str] = set()
        for _ in range(6):
            knobs = dataclasses.replace(DEFAULT_KNOBS, disabled=frozenset(disabled), blind_vendors=names,
                                        pinned_prefixes=False)
            fired = {f.rule for text in texts for f in scan(text, knobs)} - GENERIC_RULES
            if not fired:
                break
            disabled |= fired
        settings[group] = (frozenset(disabled), names)
    return settings


def _with_blind(knobs: Knobs, setting: tuple[frozenset[str], frozenset[str]] | None) -> Knobs:
    if setting is None:
        return knobs
    return dataclasses.replace(knobs, disabled=knobs.disabled | setting[0], blind_vendors=setting[1],
                               pinned_prefixes=False)


# --- flagging every row under every knob setting --------------------------------


def knob_grid() -> list[Knobs]:
    keys = list(KNOB_GRID)
    return [dataclasses.replace(DEFAULT_KNOBS, **dict(zip(keys, values)))
            for values in itertools.product(*(KNOB_GRID[k] for k in keys))]


def flag_table(rows: list[dict], grid: list[Knobs], blind: dict) -> tuple[list[list[bool]], list[list[bool]]]:
    """``normal[c][i]`` and ``blind[c][i]``: whether row ``i`` is flagged under knob setting ``c``.

    Only the context rules read the knobs, and looser knobs only add findings: a row
    flagged without the context rules is flagged under every setting, and a row the
    loosest setting leaves alone is left alone by all; only the rows between are
    scanned once per setting.
    """
    without = dataclasses.replace(DEFAULT_KNOBS, disabled=CONTEXT_RULES)
    loosest = dataclasses.replace(DEFAULT_KNOBS, **{k: pick(KNOB_GRID[k]) for k, pick in _LOOSEST.items()})
    tables = []
    for blinded in (False, True):
        def knobs_for(row: dict, knobs: Knobs, blinded: bool = blinded) -> Knobs:
            return _with_blind(knobs, blind.get(_group(row))) if blinded and row["label"] == "secret" else knobs

        low = [bool(scan(r["text"], knobs_for(r, without))) for r in rows]
        high = [lo or bool(scan(r["text"], knobs_for(r, loosest))) for r, lo in zip(rows, low)]
        open_rows = [i for i in range(len(rows)) if high[i] and not low[i]]
        table = []
        for knobs in grid:
            flags = list(low)
            for i in open_rows:
                flags[i] = bool(scan(rows[i]["text"], knobs_for(rows[i], knobs)))
            table.append(flags)
        tables.append(table)
    return tables[0], tables[1]


def rates(rows: list[dict], flags: list[bool], indices: list[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for i in indices:
        pair = out[_kind(rows[i])]
        pair[0] += flags[i]
        pair[1] += 1
    return out


def looseness(knobs: Knobs) -> int:
    """How far toward its loosest value each knob is set (summed ranks): ties go to the stricter setting."""
    total = 0
    for key, pick in _LOOSEST.items():
        values = sorted(KNOB_GRID[key], reverse=pick is max)  # strictest first
        value = getattr(knobs, key)
        total += values.index(value) if value in values else 0
    return total


def choose(rows: list[dict], normal: list, blinded: list, train: list[int], budget: float,
           grid: list[Knobs]) -> int:
    """The knob setting with the best provider-blind recall on ``train`` within the false-positive
    limits (no dialogue false positive, code-like ones within ``budget``); then the fewest code false
    positives; then the strictest."""
    best, best_key = 0, None
    for c in range(len(normal)):
        fp = rates(rows, normal[c], train)
        rec = rates(rows, blinded[c], train)["secret"]
        code_fp = fp["code"][0] / fp["code"][1] if fp["code"][1] else 0.0
        ok = fp["natural"][0] == 0 and code_fp <= budget
        key = (ok, rec[0] if ok else -code_fp, -code_fp, -looseness(grid[c]))
        if best_key is None or key > best_key:
            best, best_key = c, key
    return best


# --- protocols ----------------------------------------------------------------


def held_out(rows: list[dict], normal: list, blinded: list, folds: list[list[int]], budget: float,
             grid: list[Knobs]) -> dict:
    """Pool each held-out fold's flags under the knobs chosen without it."""
    pooled_normal, pooled_blind = [False] * len(rows), [False] * len(rows)
    chosen = []
    everything = set(range(len(rows)))
    for fold in folds:
        train = sorted(everything - set(fold))
        c = choose(rows, normal, blinded, train, budget, grid)
        chosen.append(c)
        for i in fold:
            pooled_normal[i], pooled_blind[i] = normal[c][i], blinded[c][i]
    return {"normal": pooled_normal, "blind": pooled_blind, "chosen": chosen}


def source_folds(rows: list[dict]) -> dict[str, list[int]]:
    folds: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        folds[row["source"]].append(i)
    return dict(folds)


def group_folds(rows: list[dict], k: int) -> list[list[int]]:
    """Whole upstream groups per fold (dealt in a fixed hashed order); dialogue rows spread by id."""
    def h(key: str) -> int:
        return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)

    groups = sorted({_group(r) for r in rows if r["source"] not in NATURAL_SOURCES}, key=h)
    fold_of = {g: n % k for n, g in enumerate(groups)}
    folds: list[list[int]] = [[] for _ in range(k)]
    for i, row in enumerate(rows):
        folds[h(row["id"]) % k if row["source"] in NATURAL_SOURCES else fold_of[_group(row)]].append(i)
    return folds


def _rate(pair: list[int]) -> str:
    flagged, total = pair
    return f"{flagged / total:.3f} ({flagged}/{total})" if total else "n/a"


def _line(label: str, rows: list[dict], normal: list[bool], blind: list[bool], indices: list[int]) -> str:
    n, b = rates(rows, normal, indices), rates(rows, blind, indices)
    return (f"  {label:<24} recall {_rate(n['secret']):<18} blind {_rate(b['secret']):<18} "
            f"code FP {_rate(n['code']):<16} dialogue FP {_rate(n['natural'])}")


def _print_rows(title: str, rows: list[dict]) -> None:
    by_group: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_group[_group(row)].append(row["id"])
    print(f"\n{title}: {len(rows)}")
    for group, ids in sorted(by_group.items()):
        print(f"  {group}: {', '.join(ids)}")


def time_first_secret(texts: list[str], repeat: int) -> float:
    """Mean CPU microseconds per ``first_secret`` call, from the fastest of ``repeat`` passes.

    CPU time of this process, and the fastest pass: the least disturbed by other work on the machine.
    """
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for text in texts:
            first_secret(text)
        best = min(best, time.process_time() - start)
    return best / len(texts) * 1e6


def report(rows: list[dict], repeat: int, k: int, budget: float) -> None:
    everything = list(range(len(rows)))
    blind = blind_settings(rows)
    grid = knob_grid()
    default = dataclasses.replace(DEFAULT_KNOBS)
    grid_index = grid.index(default) if default in grid else None
    settings = grid + ([] if grid_index is not None else [default])
    normal, blinded = flag_table(rows, settings, blind)
    d = grid_index if grid_index is not None else len(grid)
    print(f"rows: {len(rows)}; knob settings tried: {len(grid)}; code FP budget when choosing: {budget}")
    print("\nin sample (shipped knobs):")
    print(_line("all rows", rows, normal[d], blinded[d], everything))
    for source, fold in sorted(source_folds(rows).items()):
        print(_line(source, rows, normal[d], blinded[d], fold))
    tuned = choose(rows, normal, blinded, everything, budget, settings)
    print(_line("knobs chosen on all", rows, normal[tuned], blinded[tuned], everything))

    print("\nleave one source out (knobs chosen on the other sources):")
    loso = held_out(rows, normal, blinded, list(source_folds(rows).values()), budget, settings)
    for source, fold in sorted(source_folds(rows).items()):
        print(_line(f"held out: {source}", rows, loso["normal"], loso["blind"], fold))
    print(_line("pooled", rows, loso["normal"], loso["blind"], everything))

    print(f"\ngrouped {k}-fold (whole upstream groups; knobs chosen on the other folds):")
    kfold = held_out(rows, normal, blinded, group_folds(rows, k), budget, settings)
    print(_line("pooled", rows, kfold["normal"], kfold["blind"], everything))
    keys = list(KNOB_GRID)
    for name, result in (("leave-one-source-out", loso), (f"{k}-fold", kfold)):
        chosen = [{key: getattr(grid[c] if c < len(grid) else default, key) for key in keys} for c in result["chosen"]]
        print(f"  knobs chosen per fold ({name}): {chosen}")
    on_all = settings[tuned]
    print(f"  chosen on all rows: { {key: getattr(on_all, key) for key in keys} }")
    print(f"  shipped knobs: { {key: getattr(default, key) for key in keys} }")

    misses = [r for r, f in zip(rows, normal[d]) if r["label"] == "secret" and not f]
    false_positives = [r for r, f in zip(rows, normal[d]) if r["label"] != "secret" and f]
    blind_misses = [r for r, f in zip(rows, blinded[d]) if r["label"] == "secret" and not f]
    _print_rows("misses (in sample)", misses)
    _print_rows("false positives (in sample)", false_positives)
    _print_rows("misses with the group's provider rules switched off", blind_misses)

    natural = [r["text"] for r in rows if r["source"] in NATURAL_SOURCES]
    print(f"\nfirst_secret CPU time (mean per text, fastest of {repeat} passes):")
    for label, texts in (("natural dialogue", natural), ("all rows", [r["text"] for r in rows])):
        if texts:
            mean_len = sum(map(len, texts)) / len(texts)
            print(f"  {label + ':':<18}{time_first_secret(texts, repeat):7.2f} us/text (mean {mean_len:.0f} chars)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="labelled JSONL file")
    parser.add_argument("--repeat", type=int, default=20, help="timing passes over the texts")
    parser.add_argument("--folds", type=int, default=5, help="folds of whole upstream groups")
    parser.add_argument("--budget", type=float, default=0.06, help="code-like FP rate allowed when choosing knobs")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(f"secrets eval skipped: no labelled data at {args.path}")
        return 0
    report(load_rows(args.path), max(1, args.repeat), max(2, args.folds), args.budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
