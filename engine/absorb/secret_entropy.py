"""How random a candidate value is, judged against what chance would give.

Shannon entropy on its own says little about a 20-character string: almost any
short string of distinct letters scores near ``log2(n)``. So a value is
compared with the entropy a *uniformly random* string of the same length and
alphabet would have (hex, lowercase and digits, base64, ...), and further tests
catch what entropy misses in identifiers: English letter pairs
(``DefaultSettings``), long camelCase chunks, snake_case names, versions, UUIDs.

The thresholds are the detector's tunable knobs, gathered in ``Knobs``; the
benchmark (``python -m benchmarks.secrets_eval``) chooses them on training folds
and reports on held-out ones. ``DEFAULT_KNOBS`` is what every write uses.
Stdlib only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from engine.absorb import secret_rules as R

_HEX = frozenset("0123456789abcdef")
_HEX_UPPER = frozenset("0123456789ABCDEF")
_DIGITS = frozenset("0123456789")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# ``IBM_IAM_API_KEY_ENV``, ``max_retry_count2``: names, each part a word or a number.
_SNAKE_NAME = re.compile(r"(?:[A-Z]+|[0-9]+)(?:_(?:[A-Z]+|[0-9]+))+|(?:[a-z]+|[0-9]+)(?:_(?:[a-z]+|[0-9]+))+")


@dataclass(frozen=True, slots=True)
class Knobs:
    """Every tunable threshold of the detector, and rules switched off for experiments.

    The defaults are the values ``python -m benchmarks.secrets_eval`` chooses on all
    of its labelled rows (``KNOB_GRID``; the held-out figures choose them without the
    scored rows). ``window`` and ``bare_deficit``/``bare_max_len`` are fixed by hand.

    ``near_*`` judge a value with a credential word or a provider name within
    ``window`` characters before it (``"apiKey": "..."``, ``mailgun: ...``);
    ``bare_*`` judge a quoted value with no such word at all (also an unquoted one
    standing alone if ``bare_unquoted``). ``*_deficit`` is how many bits per
    character below a random string's expected entropy a value may fall;
    ``*_wordy`` the largest share of its letters in English-looking words.
    """

    near_min_len: int = 16
    near_deficit: float = 0.7
    near_wordy: float = 0.4
    near_hex_min_len: int = 24
    bare_min_len: int = 20
    bare_deficit: float = 0.35
    bare_wordy: float = 0.3
    bare_max_len: int = 100
    bare_unquoted: bool = False
    window: int = 48
    # For experiments (provider-blind scoring): rules switched off, provider names ignored, and
    # whether a value carrying a pinned prefix (``ghp_``, ``sk-ant-``) is left to its format rule.
    disabled: frozenset[str] = field(default_factory=frozenset)
    blind_vendors: frozenset[str] = field(default_factory=frozenset)
    pinned_prefixes: bool = True


DEFAULT_KNOBS = Knobs()


@lru_cache(maxsize=4096)
def expected_entropy(n: int, k: int) -> float:
    """Mean Shannon entropy (bits/char) of ``n`` uniform draws from ``k`` symbols.

    Each symbol's count is Binomial(n, 1/k); summing ``-q log2 q`` over its law is exact,
    not the large-``n`` approximation, so short strings are judged fairly.
    """
    if n <= 1 or k <= 1:
        return 0.0
    p = 1.0 / k
    pmf = (1 - p) ** n
    total = 0.0
    for c in range(1, n + 1):
        pmf *= (n - c + 1) / c * p / (1 - p)
        total -= pmf * (c / n) * math.log2(c / n)
        if pmf < 1e-12 and c > n * p:
            break
    return k * total


def alphabet_size(value: str) -> int:
    """The smallest usual key alphabet holding ``value``: digits, hex, [a-z0-9], base64, ..."""
    chars = set(value)
    if chars <= _DIGITS:
        return 10
    if chars <= _HEX or chars <= _HEX_UPPER:
        return 16
    lower = not chars.isdisjoint(_LOWER)
    upper = not chars.isdisjoint(_UPPER)
    digit = not chars.isdisjoint(_DIGITS)
    symbols = [c for c in chars if not c.isalnum()]
    if any(c not in "-_." for c in symbols):
        return 64 + max(0, len(symbols) - 2)  # base64 and wider
    # Separators (``-``, ``_``, ``.``) join groups of the alphanumeric alphabet.
    return 26 * lower + 26 * upper + 10 * digit + len(symbols)


def entropy_deficit(value: str) -> float:
    """Bits per character by which ``value`` falls short of a random string of its alphabet."""
    return expected_entropy(len(value), alphabet_size(value)) - R.entropy(value)


def is_hex(value: str) -> bool:
    chars = set(value)
    return chars <= _HEX or chars <= _HEX_UPPER


def random_token(value: str, min_len: int, max_deficit: float, max_wordy: float, hex_min_len: int) -> bool:
    """Whether ``value`` reads as machine-generated at the given strictness.

    Besides length, entropy against chance and wordiness: a mixed-alphabet key
    of 16+ characters almost surely holds a digit, so a digitless value must
    break into short camelCase chunks (``qZ``, ``Xk``) to pass.
    """
    n = len(value)
    if n < min_len or not R.is_literal(value) or R.is_stand_in(value):
        return False
    if value.isdigit() or "://" in value or value.startswith(("/", "./", "~/")):
        return False
    if is_hex(value):  # a 16-symbol alphabet leaves short strings more spread: 0.15 bit more slack
        return n >= hex_min_len and entropy_deficit(value) <= max_deficit + 0.15
    if R.is_uuid(value) or R.has_version(value) or R.has_file_suffix(value) or _SNAKE_NAME.fullmatch(value):
        return False
    if not any(c.isdigit() for c in value) and R.mean_chunk(value) > 3.0:
        return False  # words in camelCase (``floatToFixedToStr``), not random
    if entropy_deficit(value) > max_deficit:
        return False
    return R.wordy_share(value) <= max_wordy


def near_random(value: str, knobs: Knobs) -> bool:
    """A value with a credential word or provider name just before it."""
    return random_token(value, knobs.near_min_len, knobs.near_deficit, knobs.near_wordy, knobs.near_hex_min_len)


def bare_random(value: str, knobs: Knobs) -> bool:
    """A quoted value with no context: random, mixed-case with digits, not a hash or a blob."""
    if len(value) > knobs.bare_max_len or R.char_classes(value) < 3 or R.mean_chunk(value) > 3.0:
        return False  # ``zai-org/GLM-ASR-Nano-2512``: a name in parts, not a random string
    if ("/" in value or "+" in value) and ("-" in value or "_" in value or "." in value):
        return False  # two base64 alphabets mixed: a path or a name (``org/Model-2-7b``), not one token
    return random_token(value, knobs.bare_min_len, knobs.bare_deficit, knobs.bare_wordy, hex_min_len=10**6)
