"""What a stored fact and an incoming one share and where they differ, as numbers the pair model reads.

The frame reading (``frame_contrast``) decides a pair when its parse of both texts holds; on shapes
it was not written for ("Seating plan: Aiko at desk 4B", "Jonas is vegetarian" with an unknown
first name) it gives up and the pair became ``related``. These features keep its verdict and add
what survives any shape: which names, numbers and content words are kept, lost or gained, where in
each sentence the difference sits (a subject opens a sentence, a value mostly closes it), whether
the sort of the differing anchors agrees, and the embedding's similarity. ``pair_model`` weighs them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from engine.absorb.frame_contrast import compare
# one reading of words for the frames and the features: the frame reader's own helpers
from engine.absorb.frames import (SUBORDINATORS, _CLAUSE_COMMA, _is_anchor, _kind, _lemma,  # noqa: PLC2701
                                  frame, fronting, unwrap)
from engine.absorb.text_contrast import FUNCTION_WORDS, NEGATORS, NUMBER_WORDS

_WORD = re.compile(r"[\w$€£#][\w'’.:/@+-]*\w|[\w$€£#]", re.UNICODE)
_VERDICTS = ("changed", "same", "distinct", None)

NAMES = (
    "bias", "cosine", "cosine_squared",
    "verdict_changed", "verdict_same", "verdict_distinct", "verdict_unsure",
    "newer", "shared_predicate", "both_subjects", "subject_a_in_b", "subject_b_in_a", "one_thing",
    "content_overlap", "lost_share", "gained_share",
    "lost_anchors", "gained_anchors", "shared_anchors", "anchor_swapped",
    "first_anchor_a_kept", "first_anchor_b_kept", "last_word_a_kept", "last_word_b_kept",
    "first_word_a_kept", "first_word_b_kept", "swapped_same_sort",
    "negation_differs", "old_value_named", "length_ratio", "first_difference_a", "first_difference_b",
    "nothing_lost", "value_first_kept",
    "first_anchor_kept_rest_swapped", "first_anchor_swapped_rest_kept", "words_swapped_anchors_kept",
    "anchors_swapped_words_kept", "verdict_changed_newer", "only_words_differ",
    "span_cosine", "span_cosine_squared", "spans_on_both_sides",
    # What sort of text it is: a scene of anyone ("A man is slicing ..."), clauses joined (a news
    # sentence), a long text, a name both hold.
    "scene", "compound", "anyone", "words", "shares_name",
)


class _Words:
    """A text's content words in order (lemmas), which of them are anchors, and the anchors' sorts."""

    __slots__ = ("lemmas", "anchors", "sorts", "negated")

    def __init__(self, text: str) -> None:
        self.lemmas: list[str] = []
        self.anchors: list[str] = []
        self.sorts: dict[str, str] = {}
        self.negated = False
        for k, match in enumerate(_WORD.finditer(text)):
            written = match.group().removesuffix("'s").removesuffix("’s").rstrip(".:")
            lower = written.lower()
            if not lower:
                continue
            if lower in NEGATORS or lower.endswith(("n't", "n’t")):
                self.negated = True
            if lower in FUNCTION_WORDS:
                continue
            lemma = _lemma(lower)
            self.lemmas.append(lemma)
            if _is_anchor(written, lower, k == 0):
                self.anchors.append(lemma)
                self.sorts[lemma] = _kind(written, lower, k == 0)


@lru_cache(maxsize=16384)
def _words(text: str) -> _Words:
    return _Words(text)


_ANYONE = frozenset("a an two three four five six several some many people someone somebody".split())


def opens_with_anyone(text: str) -> bool:
    """Opens with "a", "an", a count or "someone": not one known thing."""
    first = text.lstrip(" \"'“(").split(" ", 1)[0].lower()
    return first in _ANYONE


def _first_difference(own: list[str], other: set[str]) -> float:
    """Where the first word the other text lacks stands, 0 (opening) to 1 (closing); 1 if none."""
    for k, lemma in enumerate(own):
        if lemma not in other:
            return k / max(1, len(own) - 1)
    return 1.0


def joins_clauses(text: str) -> bool:
    """More than one statement: a subordinate clause ("which ...", "because ..."), a parenthesis,
    or a clause set apart by a comma (only a phrase set in front may have one: "Since March, ...").
    Words that only tell the reader what to do with the fact ("When ordering lunch, remember ...")
    are not a clause of it."""
    text = unwrap(text)
    words = [w.lower() for w in _WORD.findall(text)]
    commas = len(_CLAUSE_COMMA.findall(text))
    fronted = bool(words) and fronting(words[0])
    return bool(set(words) & SUBORDINATORS) or "(" in text or commas > (1 if fronted else 0)


def differing_words(stored: str, incoming: str) -> tuple[str, str]:
    """The content words only ``stored`` has and those only ``incoming`` has, each in its order:
    "vegetarian" / "ordering lunch remember vegan". Their embeddings' similarity says whether the
    difference is two values of one sort (a diet and a diet) or two things said (a diet and a seat)."""
    a, b = _words(stored), _words(incoming)
    kept_a, kept_b = set(a.lemmas), set(b.lemmas)
    return " ".join(w for w in a.lemmas if w not in kept_b), " ".join(w for w in b.lemmas if w not in kept_a)


def features(stored: str, incoming: str, cosine: float, span_cosine: float) -> np.ndarray:
    """The pair's feature vector, in the order of ``NAMES``; ``span_cosine`` is the similarity of the
    embeddings of ``differing_words`` (0 when either side has none)."""
    read = compare(stored, incoming)
    a, b = frame(stored), frame(incoming)
    wa, wb = _words(stored), _words(incoming)
    set_a, set_b = set(wa.lemmas), set(wb.lemmas)
    anchors_a, anchors_b = set(wa.anchors), set(wb.anchors)
    lost, gained = set_a - set_b, set_b - set_a
    lost_anchors, gained_anchors = anchors_a - anchors_b, anchors_b - anchors_a
    shared_anchors = anchors_a & anchors_b
    sorts_lost = {wa.sorts[x] for x in lost_anchors}
    sorts_gained = {wb.sorts[x] for x in gained_anchors}
    union = set_a | set_b
    replaced = b.replaced
    values = [
        1.0, cosine, cosine * cosine,
        *(float(read.verdict == v) for v in _VERDICTS),
        float(read.newer), float(read.shared_predicate),
        float(a.subject is not None and b.subject is not None),
        float(a.subject is not None and set(a.subject.lemmas) <= b.lemmas),
        float(b.subject is not None and set(b.subject.lemmas) <= a.lemmas),
        float(a.definite and b.definite),
        len(set_a & set_b) / max(1, len(union)),
        len(lost) / max(1, len(set_a)), len(gained) / max(1, len(set_b)),
        min(len(lost_anchors), 3) / 3, min(len(gained_anchors), 3) / 3, min(len(shared_anchors), 3) / 3,
        float(bool(lost_anchors) and bool(gained_anchors)),
        float(bool(wa.anchors) and wa.anchors[0] in anchors_b),
        float(bool(wb.anchors) and wb.anchors[0] in anchors_a),
        float(bool(wa.lemmas) and wa.lemmas[-1] in set_b),
        float(bool(wb.lemmas) and wb.lemmas[-1] in set_a),
        float(bool(wa.lemmas) and wa.lemmas[0] in set_b),
        float(bool(wb.lemmas) and wb.lemmas[0] in set_a),
        float(bool(sorts_lost) and sorts_lost == sorts_gained),
        float(wa.negated != wb.negated),
        float(replaced is not None and set(replaced.lemmas) <= a.lemmas),
        min(len(wa.lemmas), len(wb.lemmas)) / max(1, len(wa.lemmas), len(wb.lemmas)),
        _first_difference(wa.lemmas, set_b), _first_difference(wb.lemmas, set_a),
        float(not lost),
        float(bool(wa.anchors) and bool(wb.anchors) and wa.anchors[0] == wb.anchors[0]),
        # A subject opens the sentence and is mostly a name; a value is swapped behind it.
        float(bool(wa.anchors) and wa.anchors[0] in anchors_b and bool(lost_anchors) and bool(gained_anchors)),
        float(bool(wa.anchors) and wa.anchors[0] not in anchors_b and not (lost - lost_anchors)),
        float(bool(lost - lost_anchors) and bool(gained - gained_anchors) and not lost_anchors and not gained_anchors
              and bool(shared_anchors)),
        float(bool(lost_anchors) and bool(gained_anchors) and not (lost - lost_anchors)
              and not (gained - gained_anchors)),
        float(read.verdict == "changed" and read.newer),
        float(not lost_anchors and not gained_anchors and bool(lost or gained)),
        span_cosine, span_cosine * span_cosine, float(bool(lost) and bool(gained)),
        float(a.scene or b.scene), float(a.compound or b.compound),
        float(opens_with_anyone(stored) or opens_with_anyone(incoming)),
        min(len(wa.lemmas) + len(wb.lemmas), 60) / 60,
        float(any(anchor not in NUMBER_WORDS for anchor in shared_anchors)),
    ]
    return np.asarray(values, dtype=np.float64)
