"""Time as the engine sees it: UTC epoch seconds, with an injectable "now".

Facts store times as epoch seconds (REAL) so decay can be computed over whole
columns at once; ISO-8601 is only for input and output.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Callable

from engine.errors import InvalidInput

Clock = Callable[[], float]
SECONDS_PER_DAY = 86_400.0


def system_clock() -> float:
    return time.time()


def fixed_clock(at: float) -> Clock:
    """A clock frozen at ``at`` (``--now``), so replays and tests are deterministic."""
    return lambda: at


def parse_time(value: str) -> float:
    """ISO-8601 to epoch seconds; a time without a zone is taken as UTC."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("time must be an ISO-8601 string such as 2026-11-30T12:00:00Z")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput("not an ISO-8601 time (such as 2026-11-30T12:00:00Z)") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def format_time(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
