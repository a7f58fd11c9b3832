"""The ranking replay ranks as the engine does, and the embedding cache gives back what the model made.

The replay (benchmarks/ranking_replay.py) is where search settings are chosen; a replay that
drifted from the engine would choose them for a formula the engine does not run.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Settings, fixed_clock, parse_time
from benchmarks.ranking_replay import Shape, _bm25, prepare, rank
from benchmarks.vector_cache import CachedEmbedder

NOW = parse_time("2026-11-30T12:00:00Z")
CHAT = [
    "I finally adopted a beagle puppy last weekend and named her Luna.",
    "Congratulations on your new puppy! Choosing a name for your dog is a big decision. Here are some tips for "
    "your first weeks with your new dog: set up a quiet space where your puppy can rest, start house training "
    "right away and reward your dog with treats, and book a vet visit for vaccinations. Beagles are curious "
    "hounds with a strong nose, so you will want to keep your beagle on a leash on walks.",
    "Can you suggest a good dog park nearby?",
    "Sure, Riverside Park has a fenced dog run and opens at seven.",
    "My sister Ana moved to Porto in March for her new job at a bakery.",
    "That sounds like a big change for her! Porto is lovely in spring, and you could visit her there.",
]
QUESTIONS = ["What did I name my new puppy?", "Which park has a fenced dog run?",
             "What tips did you give me for my new puppy?", "Where did my sister move?", "bakery job"]


class CountingEmbedder:
    """The real model, counting the texts it was asked to embed."""

    def __init__(self, inner) -> None:
        self.inner, self.model_id, self.dim, self.texts = inner, inner.model_id, inner.dim, 0

    def embed(self, texts):
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_cached_vectors_are_the_models_and_are_not_made_twice(tmp_path: Path, embedder) -> None:
    counting = CountingEmbedder(embedder)
    cache = CachedEmbedder(counting, tmp_path)
    first = cache.embed(CHAT[:3])
    cache.save()
    again = CachedEmbedder(counting, tmp_path).embed(CHAT[:3] + CHAT[:1])
    assert counting.texts == 3
    assert np.allclose(again[:3], first) and np.allclose(again[3], first[0])
    assert np.allclose(first, embedder.embed(CHAT[:3]), atol=1e-6)


@pytest.mark.parametrize("voice_weight", [0.0, 0.6])
def test_the_replay_ranks_as_the_engine_does(tmp_path: Path, embedder, voice_weight: float) -> None:
    settings = replace(Settings(), memory=replace(Settings().memory, voice_weight=voice_weight))
    with Memory(tmp_path / "m.sqlite", settings, clock=fixed_clock(NOW), actor="test", embedder=embedder) as memory:
        ids = [item.fact_id for item in memory.absorb(CHAT).items]
        engine = [[ids.index(h.fact.id) for h in memory.search(q, top_k=4)] for q in QUESTIONS]
    n = len(CHAT)
    shape = Shape("chat", [str(k) for k in range(n)], CHAT, np.zeros(n, int), np.zeros(n, int),
                  np.full(n, NOW), [{"qid": str(k), "store": 0, "text": q, "expected": ["0"], "category": "x",
                                     "fold": 0} for k, q in enumerate(QUESTIONS)], {0: NOW})
    shape.vectors = embedder.embed(CHAT)
    shape.query_vectors = embedder.embed(QUESTIONS)
    shape.bm25 = _bm25(shape, settings.memory)
    replayed = rank(prepare(shape), {"own_voice": voice_weight}, 4)
    assert [[int(i) for i in run] for run in replayed] == engine
