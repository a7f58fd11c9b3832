"""The trained pair model: how likely a close pair is a changed value, another thing, or the same
fact said again, from ``pair_features``. A LightGBM tree ensemble trained by
``benchmarks/pair_model_training.py`` on generated agent-memory pairs; its text file ships in
``resources/models``. Read once, asked one pair at a time on one thread."""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator

from engine.absorb.pair_features import NAMES, features
from engine.errors import MemLensError
from engine.resources import resource_path

MODEL_FILE = ("models", "pair-classifier.txt")
CLASSES = ("changed", "distinct", "same")  # the order the model was trained with


_override: list[Any] = []  # a model in use instead of the shipped one (a freshly trained one, in its test)


@contextmanager
def using(booster: Any) -> Iterator[None]:
    """Classify with ``booster`` (a ``lightgbm.Booster``) inside the block: a model just trained by
    ``benchmarks/pair_model_training.py``, tried before it replaces the shipped one."""
    _override.append(booster)
    try:
        yield
    finally:
        _override.pop()


@lru_cache(maxsize=1)
def _shipped() -> Any:
    import lightgbm  # imported on first use: the CLI's other commands never pay for it

    path = resource_path(*MODEL_FILE)
    booster = lightgbm.Booster(model_file=str(path))
    if tuple(booster.feature_name()) != NAMES:
        raise MemLensError(f"the pair model at {path} was trained on other features; retrain it with "
                           "python -m benchmarks.pair_model_training")
    return booster


def probabilities(stored: str, incoming: str, cosine: float, span_cosine: float) -> dict[str, float]:
    row = features(stored, incoming, cosine, span_cosine).reshape(1, -1)
    booster = _override[-1] if _override else _shipped()
    return dict(zip(CLASSES, (float(p) for p in booster.predict(row, num_threads=1)[0])))
