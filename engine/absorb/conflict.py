"""Cues that two close texts disagree: negation, antonyms, changed numbers.

Cosine alone cannot tell "runs 3 replicas" from "runs 5 replicas" (both are
near 0.95), so the classifier and in-batch consolidation ask these cues
before calling two texts the same.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[^\W\d_]+(?:'[a-z]+)?|\d+(?:[.,]\d+)?", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")

NEGATIONS = frozenset({
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot",
    "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "won't", "wouldn't",
    "can't", "couldn't", "shouldn't", "hasn't", "haven't", "hadn't", "nowhere", "stopped", "quit",
    "не", "нет", "никогда", "ни",
})

_ANTONYM_PAIRS = [
    ("like", "dislike"), ("love", "hate"), ("prefer", "avoid"), ("always", "never"), ("enable", "disable"),
    ("enabled", "disabled"), ("true", "false"), ("yes", "no"), ("start", "stop"), ("open", "closed"),
    ("increase", "decrease"), ("more", "less"), ("before", "after"), ("early", "late"), ("allow", "forbid"),
    ("allow", "deny"), ("accept", "reject"), ("win", "lose"), ("buy", "sell"), ("arrive", "leave"),
    ("include", "exclude"), ("add", "remove"), ("hot", "cold"), ("happy", "sad"), ("good", "bad"),
    ("best", "worst"), ("success", "failure"), ("pass", "fail"), ("online", "offline"), ("public", "private"),
    ("remote", "onsite"), ("morning", "evening"), ("day", "night"), ("light", "dark"), ("fast", "slow"),
    ("cheap", "expensive"), ("easy", "hard"), ("big", "small"), ("large", "small"), ("high", "low"),
    ("old", "new"), ("married", "single"), ("alive", "dead"), ("present", "absent"), ("agree", "disagree"),
    ("approve", "reject"), ("join", "leave"), ("hire", "fire"), ("up", "down"), ("on", "off"),
    ("first", "last"), ("min", "max"), ("minimum", "maximum"), ("all", "none"), ("must", "optional"),
]
ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _ANTONYM_PAIRS:
    ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
    ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # A crude English stemmer is enough to match "likes"/"liked" to "like". Cached: every new text
    # is profiled (absorb meets thousands), but its words are mostly ones seen before.
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + "e" if suffix in ("ing", "ed") and base + "e" in ANTONYMS else base
    return word


def _words(text: str) -> list[str]:
    return list(map(str.lower, _WORD.findall(text)))


def _negated(words: list[str]) -> bool:
    return sum(1 for w in words if w in NEGATIONS or w.endswith("n't")) % 2 == 1


@lru_cache(maxsize=8192)
def _profile(text: str) -> tuple[bool, frozenset[str], tuple[str, ...]]:
    """(negated, stems, numbers) of a text; cached because one text meets many candidates."""
    words = _words(text)
    return _negated(words), frozenset(map(_stem, words)), tuple(sorted(_NUMBER.findall(text)))


def conflict_cue(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` disagree ("negation", "antonym: like/dislike", "number: 3 vs 5"), or None."""
    neg_a, sa, na = _profile(a)
    neg_b, sb, nb = _profile(b)
    if neg_a != neg_b:
        return "negation"
    only_a, only_b = sa - sb, sb - sa
    for word in only_a:
        opposite = ANTONYMS.get(word, frozenset()) & only_b
        if opposite:
            return f"antonym: {word}/{sorted(opposite)[0]}"
    if na and nb and na != nb:
        return f"number: {', '.join(sorted(set(na) - set(nb)) or na)} vs {', '.join(sorted(set(nb) - set(na)) or nb)}"
    return None
