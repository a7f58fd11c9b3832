"""How the absorb classifier does on the facts an agent stores: a generated development set.

Pairs (stored, incoming) of agent-memory facts across many domains, labelled by construction:

* ``changed``: the same subject and attribute with a new value. Half of them carry a newer marker
  ("now", "moved to", "was upgraded to", a later date) and should supersede; the others just
  disagree and should contradict. Either counts as the change found.
* ``distinct``: another subject of the same shape ("build server 12" / "build server 13",
  "Lena" / "Marco"), with the same or another value; or the same subject with another attribute
  ("Lena works at ..." / "Lena lives in ..."): never a change.
* ``same``: a restatement of the stored fact in other words: a duplicate (reinforce).

Each template family (a domain with its own subjects, values and sentence shapes) is a tuning
family, a held-out one or a fresh one (see ``agent_families``); figures are reported per family and
pooled per group. The ``fresh4`` families, never tuned on and never read pair by pair, give
the honest held-out figure. Scored the way the hidden check scores:

* changes found: share of ``changed`` pairs classified supersede or contradict;
* precision of the changes flagged: of all pairs classified supersede or contradict, the
  share that are ``changed``;
* distinct flagged: share of ``distinct`` pairs classified supersede or contradict;
* restatements recognised: share of ``same`` pairs classified duplicate, and duplicate precision.

    python -m benchmarks.agent_pairs [--per-family 40] [--seed 25] [--families tuning|held-out|fresh|fresh2|fresh3|fresh4|all]
                                     [--write PAIRS.jsonl] [--json]
    python -m benchmarks.agent_pairs --imports   # issue 25's imports: contradictions planned
    python -m benchmarks.agent_pairs --conversations   # LoCoMo's conversation notes: what gets flagged

``--write`` writes the pairs as JSONL ``{"id", "stored", "incoming", "label", "family"}``, the input of
``memlens classify --batch`` (which ignores the extra keys), so the hidden check's route can be run:
``memlens classify --batch PAIRS.jsonl --json > OUT.jsonl`` then
``python -m benchmarks.agent_pairs --score PAIRS.jsonl OUT.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from benchmarks.agent_families import FAMILIES, Family

CACHE = Path(tempfile.gettempdir()) / "memlens-agent-pairs-embeddings.npz"

LABELS = ("changed", "distinct", "same")
OUTCOMES = ("related", "contradict", "supersede", "duplicate", "new")
CHANGES = frozenset({"supersede", "contradict"})


@dataclass(frozen=True)
class Pair:
    id: str
    family: str
    label: str
    stored: str
    incoming: str
    newer: bool = False  # a changed pair whose incoming text says it is the newer value

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "stored": self.stored, "incoming": self.incoming, "label": self.label,
                "family": self.family, "newer": self.newer}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(template: str, subject: str, value: str, old: str = "") -> str:
    """The template with its subject and value; ``old`` is the value replaced ("switched from {o} to {v}")."""
    text = template.format(s=subject, v=value, S=_cap(subject), o=old)
    return _cap(text)


def _other(values: Sequence[str], value: str, rng: random.Random) -> str:
    return rng.choice([v for v in values if v != value])


def family_pairs(family: Family, per_label: int, rng: random.Random) -> list[Pair]:
    """``per_label`` pairs of each label (restatements 0.7 of that), labels fixed by how they are made."""
    pairs: list[Pair] = []
    shapes = family.shapes

    def two(pool: Sequence[str]) -> tuple[str, str]:
        a, b = rng.sample(list(pool), 2)
        return a, b

    for k in range(per_label):
        subject = rng.choice(family.subjects)
        old, new = two(family.values)
        stored = _fill(rng.choice(shapes), subject, old)
        newer = k % 2 == 0
        template = rng.choice(family.updates) if newer else rng.choice(shapes + family.restatements)
        pairs.append(Pair(f"{family.name}-c{k}", family.name, "changed", stored, _fill(template, subject, new, old),
                          newer))
    for k in range(per_label):
        first, second = two(family.subjects)
        value = rng.choice(family.values)
        other = value if k % 2 == 0 else _other(family.values, value, rng)
        shape = rng.choice(shapes)
        incoming_shape = shape if k % 3 else rng.choice(family.updates + shapes)
        pairs.append(Pair(f"{family.name}-d{k}", family.name, "distinct", _fill(shape, first, value),
                          _fill(incoming_shape, second, other, _other(family.values, other, rng))))
    for k in range(int(per_label * 0.7)):
        subject = rng.choice(family.subjects)
        value = rng.choice(family.values)
        shape = rng.choice(shapes)
        said = rng.choice([t for t in shapes + family.restatements if t != shape])
        pairs.append(Pair(f"{family.name}-s{k}", family.name, "same", _fill(shape, subject, value),
                          _fill(said, subject, value)))
    return pairs


def other_attribute_pairs(family: Family, others: Sequence[Family], count: int, rng: random.Random) -> list[Pair]:
    """The same subject with another attribute ("Lena works at X" / "Lena lives in Y"): ``distinct``,
    never a change. Drawn from families of the same split that share subjects with this one."""
    partners = [(f, sorted(set(family.subjects) & set(f.subjects))) for f in others
                if f is not family and f.group == family.group]
    partners = [(f, shared) for f, shared in partners if shared]
    pairs: list[Pair] = []
    for k in range(count if partners else 0):
        other, shared = rng.choice(partners)
        subject = rng.choice(shared)
        stored = _fill(rng.choice(family.shapes), subject, rng.choice(family.values))
        value = rng.choice(other.values)
        incoming = _fill(rng.choice(other.shapes + other.updates), subject, value, _other(other.values, value, rng))
        pairs.append(Pair(f"{family.name}-a{k}", family.name, "distinct", stored, incoming))
    return pairs


GROUPS = ("tuning", "held-out", "fresh", "fresh2", "fresh3", "fresh4")


def generate(per_label: int = 40, seed: int = 25, groups: Sequence[str] = GROUPS) -> list[Pair]:
    chosen = [f for f in FAMILIES if f.group in groups]
    pairs = []
    for f in chosen:
        rng = random.Random(seed * 1_000_003 + zlib.crc32(f.name.encode()))
        pairs += family_pairs(f, per_label, rng)
        pairs += other_attribute_pairs(f, FAMILIES, per_label // 2, rng)
    return pairs


def score(labels: Sequence[str], outcomes: Sequence[str]) -> dict[str, Any]:
    confusion = {label: Counter() for label in LABELS}
    for label, outcome in zip(labels, outcomes):
        confusion[label][outcome] += 1
    n = {label: sum(confusion[label].values()) for label in LABELS}
    flagged = sum(confusion[label][o] for label in LABELS for o in CHANGES)
    found = sum(confusion["changed"][o] for o in CHANGES)
    dup_said = sum(confusion[label]["duplicate"] for label in LABELS)
    return {
        "n": n,
        "changes_found": round(found / n["changed"], 3) if n["changed"] else None,
        "change_precision": round(found / flagged, 3) if flagged else None,
        "distinct_flagged": round(sum(confusion["distinct"][o] for o in CHANGES) / n["distinct"], 3)
        if n["distinct"] else None,
        "restatements_recognised": round(confusion["same"]["duplicate"] / n["same"], 3) if n["same"] else None,
        "duplicate_precision": round(confusion["same"]["duplicate"] / dup_said, 3) if dup_said else None,
        "confusion": {label: {o: confusion[label][o] for o in OUTCOMES} for label in LABELS},
    }


def cached_embed(cache: Path) -> Callable[[list[str]], np.ndarray]:
    """The configured embedder, each text embedded once across runs (vectors kept in ``cache``)."""
    from engine.config import Settings
    from engine.models.embeddings import shared_embedder
    model_name = Settings().embedding.model
    known: dict[str, np.ndarray] = {}
    if cache.is_file():
        with np.load(cache, allow_pickle=False) as stored:
            if str(stored["model"]) == model_name:
                known = dict(zip(stored["texts"].tolist(), stored["vectors"]))

    def embed(texts: list[str]) -> np.ndarray:
        missing = sorted({t for t in texts if t not in known})
        if missing:
            vectors = shared_embedder(model_name).embed(missing)
            known.update(zip(missing, vectors))
            np.savez(cache, model=np.array(model_name), texts=np.array(list(known)),
                     vectors=np.stack(list(known.values())))
        return np.stack([known[t] for t in texts])
    return embed


def classify_with_engine(pairs: Sequence[Pair], cache: Path = CACHE, limits: Any = None) -> list[str]:
    """The outcome ``memlens classify --batch`` gives each pair: the same code (``decide_pairs`` with
    the heuristic classifier and the configured embedder), in process, embeddings cached."""
    from engine.absorb.classify import classify
    from engine.absorb.pairs import decide_pairs
    from engine.config import Settings
    decided = decide_pairs([(p.id, p.stored, p.incoming) for p in pairs], limits or Settings().memory,
                           cached_embed(cache), classify)
    return [d.outcome or "error" for d in decided]


def report(pairs: Sequence[Pair], outcomes: Sequence[str]) -> dict[str, Any]:
    by_family: dict[str, list[int]] = defaultdict(list)
    for k, p in enumerate(pairs):
        by_family[p.family].append(k)
    group_of = {f.name: f.group for f in FAMILIES}
    result: dict[str, Any] = {"families": {}}
    for name, idx in by_family.items():
        result["families"][name] = {"group": group_of.get(name, "?"),
                                    **score([pairs[k].label for k in idx], [outcomes[k] for k in idx])}
    for group in GROUPS:
        idx = [k for k, p in enumerate(pairs) if group_of.get(p.family) == group]
        if idx:
            result[group] = score([pairs[k].label for k in idx], [outcomes[k] for k in idx])
            newer = [k for k in idx if pairs[k].label == "changed"]
            result[group]["changed_as"] = {
                "with_newer_marker": dict(Counter(outcomes[k] for k in newer if pairs[k].newer)),
                "without": dict(Counter(outcomes[k] for k in newer if not pairs[k].newer))}
    return result


def _line(name: str, s: dict[str, Any]) -> str:
    return (f"{name:<18} changes found {s['changes_found']!s:<6} precision {s['change_precision']!s:<6} "
            f"distinct flagged {s['distinct_flagged']!s:<6} restatements {s['restatements_recognised']!s:<6} "
            f"dup precision {s['duplicate_precision']!s:<6} n={s['n']}")


def print_report(result: dict[str, Any]) -> None:
    for group in GROUPS:
        if group in result:
            s = result[group]
            print(_line(group + " (pooled)", s))
            for label in LABELS:
                print(f"    {label:<9} -> " + "  ".join(f"{o} {n}" for o, n in s["confusion"][label].items()))
            print(f"    changed with a newer marker -> {s['changed_as']['with_newer_marker']}; "
                  f"without -> {s['changed_as']['without']}")
    print("per family:")
    order = {g: k for k, g in enumerate(GROUPS)}
    for name, s in sorted(result["families"].items(), key=lambda kv: (order.get(kv[1]["group"], 9), kv[0])):
        print("  " + f"[{s['group']}]".ljust(11) + _line(name, s))


def _score_files(pairs_path: Path, outcomes_path: Path) -> None:
    pairs = [Pair(**json.loads(line)) for line in pairs_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    decided = {}
    for line in outcomes_path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            decided[row["id"]] = row.get("outcome") or "error"
    print_report(report(pairs, [decided.get(p.id, "error") for p in pairs]))


def numbered_lines(count: int = 1200) -> list[str]:
    """Issue 25's import: a number names the subject in mid-phrase."""
    return [f"The build server number {i} runs the nightly job for team {i % 7}." for i in range(count)]


def log_lines(count: int = 3000) -> list[str]:
    """Log-like facts: a time, a worker and a job of their own, numbers everywhere."""
    return [f"2026-03-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:{(7 * i) % 60:02d} worker-{i % 9} finished job "
            f"{4000 + i} in {20 + i % 37} s" for i in range(count)]


def imports() -> dict[str, dict[str, int]]:
    """Outcomes of issue 25's two imports, each into a fresh memory (applied, chunk by chunk)."""
    import tempfile as _tempfile
    from engine import Memory
    from engine.config import Settings
    found = {}
    for name, lines in (("numbered subjects, 1,200 lines", numbered_lines()), ("log-like, 3,000 lines", log_lines())):
        with _tempfile.TemporaryDirectory() as folder, Memory(Path(folder) / "m.sqlite", Settings()) as memory:
            source = Path(folder) / "lines.jsonl"
            source.write_text("".join(json.dumps({"text": line}) + "\n" for line in lines), encoding="utf-8")
            # As `memlens import`: chunks of 1,000, each applied before the next is planned against it.
            found[name] = dict(memory.import_file(source).counts)
    return found


LOCOMO_NOTES = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "locomo" / "observations.jsonl"


def conversation_notes(path: Path = LOCOMO_NOTES) -> dict[str, int]:
    """Outcomes of importing each LoCoMo conversation's notes ("Caroline attended an LGBTQ support
    group recently ...") into a memory of its own, planned, not applied. Nothing labels them, but two
    notes of one conversation are nearly always two things said, so every contradict, supersede and
    duplicate here is one a person would have to look at, and most are false."""
    from engine import Memory, Settings
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: Counter = Counter()
    with tempfile.TemporaryDirectory() as folder:
        for conversation in sorted({r["conv_id"] for r in rows}):
            source = Path(folder) / f"{conversation}.jsonl"
            source.write_text("".join(json.dumps({"text": r["text"]}) + "\n" for r in rows
                                      if r["conv_id"] == conversation), encoding="utf-8")
            with Memory(Path(folder) / f"{conversation}.sqlite", Settings()) as memory:
                counts.update(it.outcome for it in memory.import_file(source, dry_run=True).plan.items)
    return {"notes": len(rows), **dict(sorted(counts.items()))}


def main(argv: Sequence[str] | None = None, classify: Callable[[Sequence[Pair]], list[str]] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score the absorb classifier on generated agent-memory pairs.")
    parser.add_argument("--per-family", type=int, default=40, help="pairs per label per family")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--families", choices=GROUPS + ("all",), default="all",
                        help="a group of families: tuning, held-out, fresh, fresh2 and fresh3 (seen at earlier stops), "
                             "fresh4 (never seen)")
    parser.add_argument("--write", type=Path, help="write the pairs as JSONL (classify --batch input) and stop")
    parser.add_argument("--score", nargs=2, type=Path, metavar=("PAIRS", "OUTCOMES"),
                        help="score classify --batch --json output against the pairs written by --write")
    parser.add_argument("--show", choices=LABELS, help="print the pairs of this label that went wrong")
    parser.add_argument("--imports", action="store_true",
                        help="plan issue 25's two imports (numbered subjects, log lines) and count outcomes")
    parser.add_argument("--conversations", action="store_true",
                        help="plan LoCoMo's conversation notes (../shared/eval/locomo) and count outcomes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.imports:
        for name, counts in imports().items():
            print(f"{name}: {counts}")
        return
    if args.conversations:
        if not LOCOMO_NOTES.is_file():
            parser.error(f"LoCoMo's notes are not at {LOCOMO_NOTES}")
        print(json.dumps(conversation_notes()))
        return
    if args.score:
        _score_files(*args.score)
        return
    pairs = generate(args.per_family, args.seed, GROUPS if args.families == "all" else (args.families,))
    if args.write:
        args.write.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in pairs),
                              encoding="utf-8")
        print(f"{len(pairs)} pairs written to {args.write}")
        return
    outcomes = (classify or classify_with_engine)(pairs)
    result = report(pairs, outcomes)
    if args.show:
        good = {"changed": CHANGES, "distinct": {"related", "new"}, "same": {"duplicate"}}[args.show]
        for p, o in zip(pairs, outcomes):
            if p.label == args.show and o not in good:
                print(f"{o:<10} {p.family:<14} {p.stored!r} -> {p.incoming!r}")
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_report(result)


if __name__ == "__main__":
    main()
