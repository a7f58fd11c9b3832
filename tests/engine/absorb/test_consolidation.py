"""Consolidation never loses a distinct fact (issue 17, part 3), and its memory stays bounded.

Each pair below is near by cosine with the real offline model (checked, so the
test means something) yet holds two facts: they must neither merge in a batch
nor be called duplicates of each other.
"""

from __future__ import annotations

import random
import sqlite3
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Settings
from engine.absorb.planner import earlier_close, merge_near, BatchItem
from engine.absorb.validation import Incoming

DISTINCT = [
    ("The user asked to rename the git branch feature/alpha before the release review.",
     "The user asked to rename the git branch feature/beta before the release review.", "feature/beta"),
    ("The weekly planning meeting with the platform team is held in room 204 on the third floor.",
     "The weekly planning meeting with the platform team is held in room 206 on the third floor.", "206"),
    ("The deployment pipeline pins the Ferrite client library at version v2.3.1 for now.",
     "The deployment pipeline pins the Ferrite client library at version v2.4.0 for now.", "v2.4.0"),
    ("The customer reported that invoice INV-1042 was charged twice in the last billing run.",
     "The customer reported that invoice INV-1043 was charged twice in the last billing run.", "INV-1043"),
    ("The design review for the checkout page was led by Anna from the payments team.",
     "The design review for the checkout page was led by Maria from the payments team.", "Maria"),
    ("The quarterly security audit of the build servers is scheduled for 2026-03-14.",
     "The quarterly security audit of the build servers is scheduled for 2026-03-21.", "2026-03-21"),
]


def _fts_ids(db_path: Path, word: str) -> set[int]:
    query = '"' + word.replace('"', '""') + '"'
    rows = sqlite3.connect(db_path).execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?", (query,))
    return {r[0] for r in rows}


@pytest.mark.parametrize("first, second, word", DISTINCT, ids=[w for _, _, w in DISTINCT])
def test_near_texts_with_different_facts_do_not_fold_in_a_batch(memory: Memory, embedder, db_path: Path,
                                                                 first: str, second: str, word: str) -> None:
    va, vb = embedder.embed([first, second])
    assert float(va @ vb) >= Settings().memory.consolidate_threshold  # cosine alone would merge them
    plan = memory.absorb([first, second])
    assert [it.outcome for it in plan.items][0] == "new"
    assert plan.items[1].outcome not in ("merged", "duplicate")
    assert plan.items[1].fact_id is not None and plan.items[1].fact_id != plan.items[0].fact_id
    assert plan.items[1].fact_id in _fts_ids(db_path, word)  # its own words are searchable


@pytest.mark.parametrize("first, second, word", DISTINCT, ids=[w for _, _, w in DISTINCT])
def test_near_texts_with_different_facts_are_not_duplicates_of_stored_ones(memory: Memory, first: str,
                                                                           second: str, word: str) -> None:
    stored = memory.absorb([first]).items[0].fact_id
    item = memory.absorb([second]).items[0]
    assert item.outcome not in ("duplicate", "merged")
    assert item.fact_id is not None and item.fact_id != stored


def test_a_merged_text_stays_findable_by_its_own_words(memory: Memory, db_path: Path) -> None:
    # The tagged item is the richer, but only the other holds every word of both: it survives.
    plan = memory.absorb([
        {"text": "Maya prefers dark mode in every editor she uses.", "tags": ["ui", "editor"]},
        {"text": "Maya prefers dark mode in every code editor that she uses."},
    ])
    merged, kept = plan.items
    assert merged.outcome == "merged" and merged.merged_into == 1 and kept.outcome == "new"
    assert _fts_ids(db_path, "code") == {kept.fact_id}
    assert memory.search("code editor dark mode", top_k=1)[0].fact.id == kept.fact_id


def test_near_texts_each_with_words_of_their_own_do_not_merge(memory: Memory, embedder, db_path: Path) -> None:
    first = "Maya prefers dark mode in every code editor that she uses at work."
    second = "Maya prefers dark mode in every text editor that she uses at work."
    va, vb = embedder.embed([first, second])
    assert float(va @ vb) >= Settings().memory.consolidate_threshold
    plan = memory.absorb([first, second])
    assert [it.outcome for it in plan.items] != ["new", "merged"] and plan.items[0].outcome != "merged"
    assert _fts_ids(db_path, "text") == {plan.items[1].fact_id}


# --- bounded memory: blocks give the same merges as the whole matrix -------------------------------

NAMES = ["Ferrite", "Northwind", "Quill", "Basalt", "Juniper", "Tarn", "Osprey", "Lumen"]


def _generated(n: int, seed: int = 3) -> list[BatchItem]:
    """Clusters of near vectors whose texts sometimes fold (same or fewer words) and sometimes must not."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    works, centres = [], []
    while len(works) < n:
        centre = rng.normal(size=384)
        centre /= np.linalg.norm(centre)
        name, count = pick.choice(NAMES), pick.randrange(2, 60)
        base = f"The {name.lower()} ingest service keeps {count} worker replicas in the staging cluster"
        variants = [base, base, base + " tonight", base.replace(f"{count} ", f"{count + 1} "),
                    base.replace(name.lower(), pick.choice(NAMES).lower()) + " cluster"]
        for text in variants[: pick.randrange(1, len(variants) + 1)]:
            noise = rng.normal(size=384) * pick.choice([0.01, 0.03, 0.5])
            vector = (centre + noise).astype(np.float32)
            works.append((text, vector / np.linalg.norm(vector)))
    pick.shuffle(works)
    out = []
    for index, (text, vector) in enumerate(works[:n]):
        w = BatchItem(index, Incoming(text=text, scope="agent", kind="explicit"), f"h{index}")
        w.vector = vector
        out.append(w)
    return out


def _outcome(merged, kept) -> tuple:
    return ([(it.index, it.merged_into, round(it.similarity, 5)) for it in merged], [w.index for w in kept],
            {w.index: [e["text"] for e in w.evidence] for w in kept})


def test_blocked_consolidation_makes_the_same_merges_as_the_whole_matrix() -> None:
    limits = Settings().memory
    blocked = _outcome(*merge_near(_generated(3000), limits, block=64))
    whole = _outcome(*merge_near(_generated(3000), limits, block=3000))
    assert blocked == whole
    assert len(blocked[0]) > 100
    assert sum(1 for index, into, _ in blocked[0] if index // 64 != into // 64) > 50  # across block edges
    kept = np.stack([w.vector for w in _generated(3000) if w.index in set(blocked[1])])
    close_but_kept = int((np.triu(kept @ kept.T, 1) >= limits.consolidate_threshold).sum())
    assert close_but_kept > 50  # and refusals: other numbers and names were kept apart


def test_blocked_consolidation_memory_does_not_grow_with_the_square_of_the_batch() -> None:
    work = _generated(4000)
    tracemalloc.start()
    try:
        merge_near(work, Settings().memory, block=128)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The whole matrix alone would be 4000^2 float32 = 64 MB; vectors are 6 MB, 128-row blocks 2 MB.
    assert peak < 16_000_000


def test_earlier_close_pairs_match_the_whole_matrix() -> None:
    work = _generated(700, seed=11)
    vectors = np.stack([w.vector for w in work])
    sims = vectors @ vectors.T
    expected = [{j: pytest.approx(float(sims[i, j]), abs=1e-5) for j in np.flatnonzero(sims[i, :i] >= 0.5)}
                for i in range(len(work))]
    assert list(earlier_close(vectors, 0.5, block=50)) == expected
