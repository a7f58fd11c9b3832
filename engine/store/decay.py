"""The two decays of DESIGN §5, both computed on read (there is no scheduler).

* freshness ranks search hits: ``max(floor, 1 - rate * age_days)``;
* effective confidence fades per kind: ``confidence * exp(-lambda * days)``.
Both take the age since the last reinforcement, so a re-confirmed fact is fresh.
"""

from __future__ import annotations

import numpy as np

from engine.clock import SECONDS_PER_DAY

# kind -> (lambda per day, initial confidence), from seed 003.
KIND_DECAY: dict[str, tuple[float, float]] = {
    "explicit": (0.05, 0.4),
    "user_preference": (0.02, 0.5),
    "episodic": (0.30, 0.4),
    "derived": (0.02, 0.5),
}


def initial_confidence(kind: str) -> float:
    return KIND_DECAY[kind][1]


def decay_rate(kind: str) -> float:
    return KIND_DECAY[kind][0]


def age_days(now: float, since: np.ndarray | float) -> np.ndarray | float:
    """Days from ``since`` to ``now``, never negative (works on arrays of times)."""
    return np.maximum(0.0, (now - since) / SECONDS_PER_DAY)


def effective_confidence(confidence: np.ndarray | float, rate: np.ndarray | float,
                         days: np.ndarray | float) -> np.ndarray | float:
    """``confidence · exp(−λ · days)``; ``rate`` is the kind's λ (see ``decay_rate``)."""
    return confidence * np.exp(-rate * np.maximum(days, 0.0))


def freshness(days: np.ndarray | float, rate: float, floor: float) -> np.ndarray | float:
    return np.maximum(floor, 1.0 - rate * np.maximum(days, 0.0))


def reinforced(confidence: float, gain: float, cap: float) -> float:
    """Bounded gain: the closer to the cap, the smaller the step."""
    return min(cap, confidence + gain * (1.0 - confidence))
