"""Time as the engine sees it: UTC epoch seconds, with an injectable "now".

Facts store times as epoch seconds (REAL) so decay can be computed over whole
columns at once; ISO-8601 is only for input and output.
"""

from __future__ import annotations

import math
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


# The earliest and latest instants every face can print back: a time that is valid in its own zone
# but leaves years 1-9999 once moved to UTC ("9999-12-31T23:59:59-01:00") would be stored and then
# break every read that formats it, so it is refused where it enters.
EARLIEST = datetime(1, 1, 1, tzinfo=timezone.utc).timestamp()
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc).timestamp()
OUT_OF_RANGE = "time is outside years 1-9999 once converted to UTC"


def parse_time(value: str) -> float:
    """ISO-8601 to epoch seconds; a time without a zone is taken as UTC; only years 1-9999 in UTC."""
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
    try:
        epoch = parsed.timestamp()
    except (OverflowError, ValueError):
        raise InvalidInput(OUT_OF_RANGE) from None
    return check_epoch(epoch)


def check_epoch(epoch: float) -> float:
    """``epoch`` if a face can print it as an ISO-8601 UTC time, else ``InvalidInput``."""
    if not EARLIEST <= epoch <= LATEST:
        raise InvalidInput(OUT_OF_RANGE)
    return epoch


# The Gregorian calendar repeats every 400 years, so a time beyond Python's years 1-9999 is
# printed by shifting it whole cycles into range and writing the year back (ISO-8601's expanded form).
_CYCLE_YEARS = 400
_CYCLE_SECONDS = 146_097 * SECONDS_PER_DAY


def format_time(epoch: float | None) -> str | None:
    """ISO-8601 UTC. Times outside years 1-9999 cannot enter any more, but a file written before that
    rule may hold one; it still prints (as ``+10000-…``), so such a fact can be read and archived."""
    if epoch is None or not math.isfinite(epoch):
        return None
    cycles = 0
    if not EARLIEST <= epoch <= LATEST + 1:
        cycles = int((epoch - EARLIEST) // _CYCLE_SECONDS) - (1 if epoch > LATEST else 0)
        epoch -= cycles * _CYCLE_SECONDS
    text = datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    if not cycles:
        return text
    year, rest = text.split("-", 1)
    shown = int(year) + cycles * _CYCLE_YEARS
    sign = "" if 0 <= shown <= 9999 else "+" if shown > 0 else "-"
    return f"{sign}{abs(shown):04d}-{rest}"
