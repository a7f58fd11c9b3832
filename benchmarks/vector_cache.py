"""Embeddings kept on disk between benchmark runs, keyed by the exact text embedded.

Embedding LongMemEval's pooled development memory (5,033 turns, half of them
2,000-character replies) takes minutes on a small shared machine; retrieval
benchmarks and the ranking replay (``benchmarks.ranking_replay``) embed the same
texts again and again. ``CachedEmbedder`` wraps the engine's embedder: a text seen
before gets its stored vector (the one the same model made for the same string),
a new text is embedded and kept. One file per model, so two models' vectors never mix.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

import numpy as np

from engine.models.embeddings import Embedder

CHUNK = 256  # texts embedded per call while filling the cache, so progress shows and a stop loses little


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class CachedEmbedder:
    """An ``Embedder`` that remembers every vector it made, in ``folder/vectors-<model>.npz``."""

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.combine = getattr(inner, "combine", None)
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"vectors-{inner.model_id.replace('/', '_')}.npz"
        self._vectors: dict[str, np.ndarray] = {}
        if self.path.is_file():
            with np.load(self.path) as stored:
                keys, rows = stored["keys"], stored["vectors"]
            self._vectors = {str(k): rows[n] for n, k in enumerate(keys)}
        self._unsaved = 0

    def __len__(self) -> int:
        return len(self._vectors)

    def save(self) -> None:
        if not self._unsaved:
            return
        keys = list(self._vectors)
        partial = self.path.with_suffix(".partial.npz")
        np.savez(partial, keys=np.asarray(keys), vectors=np.stack([self._vectors[k] for k in keys]))
        partial.replace(self.path)
        self._unsaved = 0

    def fill(self, texts: Sequence[str], log=print) -> None:
        """Embed every text not cached yet, ``CHUNK`` at a time, saving after each chunk."""
        missing = list(dict.fromkeys(t for t in texts if text_key(t) not in self._vectors))
        for start in range(0, len(missing), CHUNK):
            self.embed(missing[start:start + CHUNK])
            self.save()
            log(f"embedded {min(start + CHUNK, len(missing))}/{len(missing)}")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing)):
                self._vectors[text_key(text)] = np.asarray(vector, np.float32)
            self._unsaved += len(missing)
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self._vectors[k] for k in keys])
