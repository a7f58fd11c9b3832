"""How alike the words two close facts do not share are: the one embedding the pair model needs
beyond the facts' own, measured only for the pairs the model reads (one short embedding call each;
a batch's differing words repeat, values and names, so each text is embedded once)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from engine.absorb.pair_features import differing_words

_REMEMBERED = 50_000  # texts whose vectors are kept


class SpanSimilarity:
    def __init__(self, embed: Callable[[list[str]], np.ndarray]) -> None:
        self.embed = embed
        self._vectors: dict[str, np.ndarray] = {}

    def cosine(self, stored: str, incoming: str) -> float:
        """Cosine of the embeddings of ``differing_words``; 0 when one side differs in nothing."""
        lost, gained = differing_words(stored, incoming)
        if not (lost and gained):
            return 0.0
        self._embed_missing([lost, gained])
        return float(self._vectors[lost] @ self._vectors[gained])

    def _embed_missing(self, texts: list[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            if len(self._vectors) + len(missing) > _REMEMBERED:
                self._vectors.clear()
            self._vectors.update(zip(missing, self.embed(missing)))
