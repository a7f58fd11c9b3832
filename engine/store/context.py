"""What every service of one open memory shares: the file, the settings, the clock, who acts,
and the embedding model (loaded on first need)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from engine.clock import Clock
from engine.config import Settings
from engine.models.embeddings import DEFAULT_DIM, Embedder, shared_embedder
from engine.errors import StoreError
from engine.store.connection import Store


# One Memory can serve two faces in one process (``memlens serve`` answers the API and MCP); the face
# a call comes through is who acts, so the journal tells an agent's MCP writes from a script's HTTP ones.
_acting_face: ContextVar[str | None] = ContextVar("memlens_acting_face", default=None)


@contextmanager
def acting_as(actor: str) -> Iterator[None]:
    """Calls made inside (in this thread or task) are journaled as ``actor``, whatever the Memory's own."""
    token = _acting_face.set(actor)
    try:
        yield
    finally:
        _acting_face.reset(token)


class Context:
    """One per ``Memory``; services hold it rather than copies, so a changed setting reaches them all."""

    def __init__(self, store: Store, settings: Settings, clock: Clock, actor: str, embedder: Embedder | None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self._actor = actor
        self._embedder = embedder

    @property
    def actor(self) -> str:
        return _acting_face.get() or self._actor

    @actor.setter
    def actor(self, value: str) -> None:
        self._actor = value

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def read_only(self) -> bool:
        return self.store.read_only

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            wanted = self.settings.embedding
            self._embedder = shared_embedder(wanted.model, wanted.batch_size, wanted.token_budget)
        return self._embedder

    @property
    def model_loaded(self) -> bool:
        """Whether embedding would start at once: the model is loaded (an embedder may say it is not
        ``ready`` yet, as one loading in another thread does)."""
        return self._embedder is not None and bool(getattr(self._embedder, "ready", True))

    @property
    def model_id(self) -> str:
        return self._embedder.model_id if self._embedder is not None else self.settings.embedding.model

    def default_dim(self) -> int:
        return getattr(self._embedder, "dim", DEFAULT_DIM)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def refuse_if_read_only(self, what: str) -> None:
        if self.read_only:
            raise StoreError(f"{self.path} is read-only: {what}")
