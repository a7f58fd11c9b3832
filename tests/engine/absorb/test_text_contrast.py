"""``text_contrast`` is fast, and says exactly what its plain first version said.

``profile`` caches per token and skips the sentence-start look unless a capitalised word could be
a name; ``contrast`` works out word order only when asked. The reference below is the plain
version, token by token, so any drift in what a text's profile holds shows here.
"""

from __future__ import annotations

import random

import pytest

from engine.absorb import text_contrast as tc
from engine.absorb.text_contrast import TextProfile, contrast, profile


def _reference_anchor(token: str, original: str, sentence_start: bool) -> bool:
    if tc._ANCHOR_MARK.search(token) or token in tc.DATE_WORDS:
        return True
    if token in tc._COUNT_WORDS:
        return True
    return original[:1].isupper() and not sentence_start and token not in tc.FUNCTION_WORDS


def _reference_profile(text: str) -> TextProfile:
    matches = list(tc._TOKEN.finditer(text))
    originals = [m.group() for m in matches]
    tokens = [tc._POSSESSIVE.sub("", t.lower()) for t in originals]
    sequence, numbers, anchors = [], set(), set()
    by_at, passive_aux = -1, False
    for tok, orig, match in zip(tokens, originals, matches):
        if tc._is_number(tok):
            numbers.add(tok.lstrip("$€£").replace(",", ""))
        before = text[:match.start()].rstrip()
        if _reference_anchor(tok, orig, sentence_start=not before or before[-1] in tc._SENTENCE_END):
            anchors.add(tok)
        if tok == "by" and by_at < 0 and passive_aux:
            by_at = len(sequence)
        passive_aux = passive_aux or tok in tc._AUXILIARIES
        if tok in tc.FUNCTION_WORDS or tok in tc.NEGATORS or tok == "no" or tok.endswith(("n't", "n’t")):
            continue
        sequence.append(tc.stem(tok))
    active: tuple[str, ...] = ()
    if 0 < by_at < len(sequence):
        active = (*sequence[by_at:], sequence[by_at - 1], *sequence[:by_at - 1])
    return TextProfile(tc._negations(tokens), frozenset(sequence), tuple(sequence), active, frozenset(numbers),
                       frozenset(anchors))


TEXTS = [
    "No one is here.", "Nobody isn't there", "There is no man; the dog's bone isn't Anna's.",
    "Maya's  team. Anna went home!  Then Bob", "The price is $1,200.50 and 3rd of 5k items, 40% off",
    "  Leading spaces. Then \"Quoted Name\" (Paren Name)\nNew Line Name", "some food is being fried by a woman",
    "it was written by", "By Anna", "no", "No", "NO LONGER", "no longer used", "a man with no shirt",
    "ÉCOLE Île São Paulo — Zürich’s bank won’t open",
    "v2.3.1 feature/alpha INV-1042 user@example.com #42 a:b",
    "", "...", "January 5 Monday today", "Can't won't didn’t", "the 1990s and 2000s 1st 2nd 3rd 4th 10m 5%",
    "Maya likes working from the Lisbon office on Fridays.", "Maya dislikes working from the Lisbon office.",
    "The staging cluster runs 3 replicas of the ingest service.", "Some food is being fried by a woman.",
    "He has no job. She says no. There is no way. Is it? No, never.", "€5 £3 $ 4 $x one two second half",
]
WORDS = ("Maya Lisbon the a is not no never don't likes dislikes 3 five $4 v2.1 feature/beta by was fried "
         "Monday May March one first . ! ? ; : ( \" ' Anna's dogs running stopped quit No The It").split()


def _generated(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 14))]
        out.append("".join(w if w in ".!?;:(\"'" else " " * rng.randint(0, 2) + w for w in words))
    return out


@pytest.mark.parametrize("text", TEXTS + _generated(400))
def test_profile_equals_the_plain_reference(text: str) -> None:
    assert profile(text) == _reference_profile(text)


def test_order_is_worked_out_when_asked_and_as_before() -> None:
    c = contrast("A dog is licking a baby.", "A baby is licking a dog.")
    assert "order" not in c.__dict__  # not computed until asked
    assert c.order == pytest.approx(1 / 3) and c.residual == 0
    passive = contrast("A woman is frying some food.", "Some food is being fried by a woman.")
    assert passive.order == 1.0


# The first token pattern: a separator counts only before a word character.
_FIRST_TOKEN = r"[$€£]?\w(?:[\w'’]|[./:#@+-](?=\w))*%?"


def test_tokens_are_those_of_the_first_pattern() -> None:
    import re

    first = re.compile(_FIRST_TOKEN, re.UNICODE)
    rng = random.Random(5)
    pieces = list("aZ9_'’./:#@+-$€£% \n\t,;é東") + ["by", "Is", "x.", ".y", "--", "''", "a'", "%%", "v2.3.1"]
    texts = TEXTS + _generated(400) + ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
                                       for _ in range(20_000)]
    for text in texts:
        assert [(m.span(), m.group()) for m in tc._TOKEN.finditer(text)] == \
            [(m.span(), m.group()) for m in first.finditer(text)], text


def _reference_contrast(a: str, b: str) -> tuple:
    """``contrast`` as first written: every set worked out, the cue words always taken out."""
    pa, pb = profile(a), profile(b)
    only_a, only_b = pa.words - pb.words, pb.words - pa.words
    opposed = [word for word in only_a if word in tc.ANTONYMS] if only_b else []
    pairs = [(word, other) for word in sorted(opposed) for other in sorted(tc.ANTONYMS[word] & only_b)]
    pair = min(pairs, key=lambda p: p not in tc.STANCE, default=None)
    nums_a, nums_b = pa.numbers - pb.numbers, pb.numbers - pa.numbers
    cue_words = set(pair or ()) | {tc.stem(n) for n in nums_a | nums_b}
    return (pa.negations != pb.negations, pair, (nums_a, nums_b), (pa.anchors - pb.anchors, pb.anchors - pa.anchors),
            len(only_a - cue_words), len(only_b - cue_words), max(len(pa.sequence), len(pb.sequence)))


def test_contrast_equals_the_plain_reference() -> None:
    rng = random.Random(9)
    swaps = "likes dislikes love hate big small 3 5 five two 2024 v2.1 not never no Anna the open closed up down".split()
    texts = TEXTS + _generated(600, seed=4)
    for text in list(texts):
        words = text.split() or ["x"]
        words[rng.randrange(len(words))] = rng.choice(swaps)
        texts.append(" ".join(words))
    for _ in range(20_000):
        a, b = rng.choice(texts), rng.choice(texts)
        c = tc.contrast.__wrapped__(a, b)
        assert (c.negation_flip, c.antonyms, c.numbers, c.anchors, c.only_a, c.only_b, c.length) == \
            _reference_contrast(a, b), (a, b)
