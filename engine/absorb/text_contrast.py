"""What differs between two close texts, word by word: the evidence behind an absorb outcome.

Cosine says two texts are about the same thing; it cannot say whether they
agree. "runs 3 replicas" / "runs 5 replicas", "rename branch feature/alpha" /
"... feature/beta" and "Anna" / "Maria" all sit near 0.95. So the classifier
and in-batch consolidation look at the words each text has that the other
lacks:

* ``negation_flip``: one text denies what the other states (clause negation:
  "not", "n't", "never", "there is no", "nobody"; "a man with no shirt" is an
  attribute, not a denial, and is left out);
* ``antonyms``: a word of one text has its opposite in the other (a *stance*
  flip, "likes"/"dislikes", can make a contradiction; a descriptive one,
  "big"/"small", only keeps two texts apart);
* ``numbers``: numbers (digits or number words) that only one text has;
* ``anchors``: identifiers, numbers, versions, dates and names that only one
  text has; two texts differing in one are never the same fact;
* ``residual``: the remaining content words that only one text has (crudely
  stemmed, function words dropped). A contradiction is a near copy that flips
  one thing, so a cue only counts when little else differs;
* ``other_subject``: both texts open on a numbered name of one kind ("Shelf 0
  holds fuses" / "Shelf 1 holds fuses"): they are about two things, so nothing
  else they differ in is a disagreement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

# Identifiers keep their inner punctuation ("feature/alpha", "INV-1042", "v2.3.1", "$44.01"): split
# at it, "alpha" vs "beta" would be two ordinary words and the identifier would vanish.
# Written as runs of word characters joined by single separators, the last run possessive: the
# same tokens as "\w(?:[\w'’]|[./:#@+-](?=\w))*" (a separator only before a word character), matched
# a third faster (a run is one repeat, not a choice per character; nothing after it can fail).
_TOKEN = re.compile(r"[$€£]?\w[\w'’]*(?:[./:#@+-]\w[\w'’]*)*+%?", re.UNICODE)
_DIGIT = re.compile(r"\d")
_ANCHOR_MARK = re.compile(r"[\d/_.:#@]")  # a digit or an identifier's separator
_SENTENCE_END = frozenset(".!?:;\"'(\n")
_POSSESSIVE = re.compile(r"['’]s$")
_LABEL_NUMBER = re.compile(r"^#?\d+$")
_ARTICLES = frozenset({"the", "a", "an"})
_YEAR = re.compile(r"^(1[89]|20)\d\d$")
# What follows a numbered name: a verb ("holds", "failed") or one of these; never a unit of the number.
_LABEL_PREDICATES = frozenset("is are was were has have had will would can could does did should must may "
                              "might".split())
# ... or what the numbered thing is about: "Note 7 about the build queue" (a note of an agent's log).
_LABEL_TOPICS = frozenset("about regarding concerning".split())
_QUANTITY_WORDS = frozenset("""years months weeks days hours minutes seconds times percent people persons
    items units pieces kg km cm mm lbs miles euros dollars pounds points steps reps calories beds rooms""".split())
_NUMERIC = re.compile(r"^[$€£]?\d+(?:[.,]\d+)*(?:st|nd|rd|th|s|k|m|%)?%?$")

NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
    billion dozen first second third fourth fifth sixth seventh eighth ninth tenth half""".split())
# "one" is as often a pronoun ("one is kissing the mother") as a count; it is no number cue.
_COUNT_WORDS = NUMBER_WORDS - {"one", "second", "half"}
DATE_WORDS = frozenset(
    """january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu
    fri sat sun today yesterday tomorrow tonight""".split()) - {"may", "march", "sun", "wed", "sat", "mar"}

# Words that carry no fact of their own: leaving them out of the residual keeps "a man is
# playing" and "the man plays" a word-for-word match.
FUNCTION_WORDS = frozenset(
    """a an the is are was were be been being am do does did has have had having there here it its this that
    these those some any of in on at to for by with from into onto as and or but so than then also very
    just who whom which what whose while when where he she they them his her hers their theirs
    him i me my we us our you your one ones another other someone somebody something person people being
    will would shall should can could may might must""".split())

_AUXILIARIES = frozenset({"is", "are", "was", "were", "being", "been", "be"})

NEGATORS = frozenset({
    "not", "never", "nobody", "nothing", "none", "neither", "nor", "cannot", "nowhere", "noone",
    "stopped", "quit", "не", "нет", "никогда", "ни",
})

# Opposites that flip whether a claim holds: "likes"/"dislikes" the same thing cannot both be true.
STANCE_OPPOSITES = [
    ("like", "dislike"), ("love", "hate"), ("prefer", "avoid"), ("always", "never"), ("enable", "disable"),
    ("enabled", "disabled"), ("true", "false"), ("start", "stop"), ("open", "closed"), ("allow", "forbid"),
    ("allow", "deny"), ("accept", "reject"), ("approve", "reject"), ("agree", "disagree"), ("win", "lose"),
    ("include", "exclude"), ("success", "failure"), ("pass", "fail"), ("online", "offline"),
    ("public", "private"), ("remote", "onsite"), ("married", "single"), ("alive", "dead"),
    ("present", "absent"), ("must", "optional"), ("valid", "invalid"), ("correct", "incorrect"),
    ("possible", "impossible"), ("available", "unavailable"), ("supported", "unsupported"),
]
# Opposites that describe which thing or how: "a big dog" and "a small dog" may be two dogs, "walking
# up" and "walking down" two walks. Rated by people on ../shared/eval/nli, 28 of 32 such near-copies
# were "related", not contradictions; they still keep two texts from being duplicates.
DESCRIPTIVE_OPPOSITES = [
    ("increase", "decrease"), ("more", "less"), ("before", "after"), ("early", "late"), ("buy", "sell"),
    ("arrive", "leave"), ("add", "remove"), ("hot", "cold"), ("happy", "sad"), ("good", "bad"),
    ("best", "worst"), ("morning", "evening"), ("day", "night"), ("light", "dark"), ("fast", "slow"),
    ("cheap", "expensive"), ("easy", "hard"), ("big", "small"), ("large", "small"), ("high", "low"),
    ("old", "new"), ("join", "leave"), ("hire", "fire"), ("up", "down"), ("on", "off"), ("first", "last"),
    ("min", "max"), ("minimum", "maximum"), ("all", "none"), ("sit", "stand"), ("asleep", "awake"),
    ("empty", "full"), ("wet", "dry"), ("inside", "outside"), ("indoor", "outdoor"), ("indoors", "outdoors"),
    ("enter", "exit"), ("push", "pull"), ("rise", "fall"), ("gain", "loss"),
]
_ANTONYM_PAIRS = STANCE_OPPOSITES + DESCRIPTIVE_OPPOSITES
STANCE = frozenset(STANCE_OPPOSITES) | frozenset((b, a) for a, b in STANCE_OPPOSITES)
ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _ANTONYM_PAIRS:
    ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
    ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}
_HAS_OPPOSITE = frozenset(ANTONYMS)
_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stemmer: "likes"/"liked"/"liking" -> "like", "renamed"/"rename" -> "renam"."""
    if word in ANTONYMS or word in NUMBER_WORDS or not word.isalpha():
        return word  # opposites are looked up by their stems; identifiers are matched as written
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) >= len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            base = word[: -len(suffix)]
            if base + "e" in ANTONYMS:
                return base + "e"
            if suffix in ("ing", "ed") and len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # "running" -> "run", "stopped" -> "stop"
            return _ending(base)
    return _ending(word)


def _ending(base: str) -> str:
    # "rename"/"renam(ed)" and "fry"/"fri(ed)" are one word to the comparison.
    if len(base) > 2 and base.endswith("e"):
        return base[:-1]
    return base[:-1] + "y" if len(base) > 2 and base.endswith("i") else base


def _is_number(token: str) -> bool:
    return bool(_NUMERIC.match(token)) or token in _COUNT_WORDS


@dataclass(frozen=True)
class TextProfile:
    negations: int
    words: frozenset[str]      # stems of content words (function words and negators left out)
    sequence: tuple[str, ...]  # the same stems in text order
    active: tuple[str, ...]    # a passive clause's stems in active order ("X is V-ed by Y" -> Y V X), else ()
    numbers: frozenset[str]
    anchors: frozenset[str]    # lowercase identifiers, numbers, dates and names


def _negations(tokens: list[str]) -> int:
    count = 0
    for k, tok in enumerate(tokens):
        if tok in NEGATORS or tok.endswith("n't") or tok.endswith("n’t"):
            count += 1
        elif tok == "no" and (k == 0 or tokens[k - 1] in {"is", "are", "was", "were", "there", "has", "have",
                                                           "had", "says", "said"}):
            # "there is no man", "No dog is ...", "has no job": a denial. "a man with no shirt" is not.
            count += 1
        elif tok == "no" and k + 1 < len(tokens) and tokens[k + 1] in {"one", "longer"}:
            count += 1
    return count


def _starts_sentence(text: str, at: int) -> bool:
    """Whether only white space, or a sentence end, stands before ``at`` (no copy of the text before it:
    absorb profiles thousands of texts, and slicing each prefix made this quadratic)."""
    k = at - 1
    while k >= 0 and text[k].isspace():
        k -= 1
    return k < 0 or text[k] in _SENTENCE_END


@lru_cache(maxsize=65536)
def _token(original: str) -> tuple[str, str | None, bool, bool, str | None, bool]:
    """What ``profile`` needs of one token as written, whatever text it stands in (cached: a
    vocabulary repeats, texts do not): (lowercase token, its number or None, always an anchor,
    a name unless it starts a sentence, its stem as a content word or None, may count as a negation).
    """
    tok = _POSSESSIVE.sub("", original.lower())
    number = tok.lstrip("$€£").replace(",", "") if _is_number(tok) else None
    # An anchor: an identifier's mark or a digit, a date or a count word wherever the token stands; a
    # capitalised word mid-sentence is a name ("Anna", "Ferrite"), but at the start it may only be the
    # sentence's first word, so only an unusual one counts (the one part that needs the text).
    fixed = bool(_ANCHOR_MARK.search(tok) or tok in DATE_WORDS or tok in _COUNT_WORDS)
    name = not fixed and original[:1].isupper() and tok not in FUNCTION_WORDS
    negating = tok in NEGATORS or tok.endswith(("n't", "n’t")) or tok == "no"
    content = None if tok in FUNCTION_WORDS or negating else stem(tok)
    return tok, number, fixed, name, content, negating


@lru_cache(maxsize=16384)
def profile(text: str) -> TextProfile:
    """Cached: one text meets many candidates, and absorb profiles thousands."""
    tokens, sequence, numbers, anchors = [], [], set(), set()
    by_at, passive_aux, negating = -1, False, False  # where a passive's agent starts in ``sequence``
    for match in _TOKEN.finditer(text):
        tok, number, fixed, name, content, may_negate = _token(match.group())
        tokens.append(tok)
        negating = negating or may_negate
        if number is not None:
            numbers.add(number)
        if fixed or (name and not _starts_sentence(text, match.start())):
            anchors.add(tok)
        if tok == "by" and by_at < 0 and passive_aux:
            by_at = len(sequence)
        passive_aux = passive_aux or tok in _AUXILIARIES
        if content is not None:
            sequence.append(content)
    active: tuple[str, ...] = ()
    if 0 < by_at < len(sequence):
        # "some food is being fried by a woman" -> woman fry food: agent, verb, then the rest.
        active = (*sequence[by_at:], sequence[by_at - 1], *sequence[:by_at - 1])
    # Without a negator, "n't" or "no" among the tokens there is nothing for ``_negations`` to count.
    return TextProfile(_negations(tokens) if negating else 0, frozenset(sequence), tuple(sequence), active,
                       frozenset(numbers), frozenset(anchors))


@dataclass(frozen=True)
class Contrast:
    negation_flip: bool
    antonyms: tuple[str, str] | None
    numbers: tuple[frozenset[str], frozenset[str]]   # only in a, only in b
    anchors: tuple[frozenset[str], frozenset[str]]   # only in a, only in b
    only_a: int      # content words only a has, cue words excluded
    only_b: int
    length: int      # content words of the longer text
    profiles: tuple[TextProfile, TextProfile] = field(repr=False, compare=False)
    other_subject: tuple[str, str] | None = None  # "shelf 0", "shelf 1": two numbered things of one kind

    @cached_property
    def order(self) -> float:
        """Longest common subsequence of the shared content words over their count: 1 = same order.

        Same words in another order is another fact ("a dog is licking a baby" / "a baby is licking
        a dog"). Only shared words are compared, so a swapped synonym does not count as disorder.
        Worked out when first asked: only the duplicate check needs it, and it is the dearest part.
        """
        pa, pb = self.profiles
        return max((_order(x, y, pa.words & pb.words) for x in (pa.sequence, pa.active)
                    for y in (pb.sequence, pb.active) if x and y), default=1.0)

    @property
    def residual(self) -> int:
        return self.only_a + self.only_b

    @property
    def number_change(self) -> bool:
        return bool(self.numbers[0] and self.numbers[1])

    @property
    def stance_flip(self) -> bool:
        return self.antonyms is not None and self.antonyms in STANCE

    @property
    def differs_in_anchor(self) -> bool:
        return bool(self.anchors[0] or self.anchors[1])


@lru_cache(maxsize=16384)
def subject_label(text: str) -> tuple[str, str] | None:
    """The numbered name a text opens on ("Shelf 0 holds ..." -> ("shelf", "0")), or None.

    A number after the opening word names what the sentence is about only when a predicate follows
    it ("Shelf 0 holds", "Pallet 7 is", "Build 41 failed") or what it is about ("Note 7 about ...").
    Otherwise it is a value: "Age 34.", "Height 180 cm", "Sleeps 8 hours" (an opening verb),
    "Deadline 2026 for ..." (a year).
    """
    opening = []
    for match in _TOKEN.finditer(text):
        opening.append(match.group().lower())
        if len(opening) == 4:
            break
    if opening and opening[0] in _ARTICLES:
        opening = opening[1:]
    if len(opening) < 3 or not _LABEL_NUMBER.match(opening[1]):
        return None
    kind, number, after = opening[0], opening[1].lstrip("#"), opening[2]
    if (not kind.isalpha() or kind.endswith("s") or kind in FUNCTION_WORDS or kind in NUMBER_WORDS
            or kind in DATE_WORDS or _YEAR.match(number) or after in _QUANTITY_WORDS):
        return None
    if after in _LABEL_PREDICATES or after in _LABEL_TOPICS or (after.isalpha() and after.endswith(("s", "ed"))):
        return kind, number
    return None


def _other_subject(a: str, b: str) -> tuple[str, str] | None:
    label_a, label_b = subject_label(a), subject_label(b)
    if label_a and label_b and label_a[0] == label_b[0] and label_a[1] != label_b[1]:
        return " ".join(label_a), " ".join(label_b)
    return None


@lru_cache(maxsize=1024)
def contrast(a: str, b: str) -> Contrast:
    """Cached: the classifier asks about one pair up to three times (conflict, near copy, difference)."""
    pa, pb = profile(a), profile(b)
    only_a, only_b = pa.words - pb.words, pb.words - pa.words
    # Only words that have opposites are sorted and paired (the same pairs, in the same order).
    opposed = only_a & _HAS_OPPOSITE if only_b else ()
    pairs = [(word, other) for word in sorted(opposed) for other in sorted(ANTONYMS[word] & only_b)]
    pair = min(pairs, key=lambda p: p not in STANCE, default=None)  # a stance flip says more than "big"/"small"
    if pa.numbers or pb.numbers:
        nums_a, nums_b = pa.numbers - pb.numbers, pb.numbers - pa.numbers
    else:
        nums_a = nums_b = _NONE
    # Most pairs have no cue word: then nothing is taken out of the words only one side has.
    only_a_left, only_b_left = len(only_a), len(only_b)
    if pair or nums_a or nums_b:
        cue_words = set(pair or ()) | {stem(n) for n in nums_a | nums_b}
        only_a_left, only_b_left = len(only_a - cue_words), len(only_b - cue_words)
    length = max(len(pa.sequence), len(pb.sequence))
    # Negation counts, not their parity: "is not X and is not Y" denies "is X and Y" twice.
    return Contrast(pa.negations != pb.negations, pair, (nums_a, nums_b),
                    (pa.anchors - pb.anchors, pb.anchors - pa.anchors), only_a_left, only_b_left, length, (pa, pb),
                    _other_subject(a, b))


def _order(a: tuple[str, ...], b: tuple[str, ...], shared: frozenset[str]) -> float:
    seq_a = tuple(w for w in a if w in shared)
    seq_b = tuple(w for w in b if w in shared)
    longest = max(len(seq_a), len(seq_b))
    return _common_subsequence(seq_a, seq_b) / longest if longest else 1.0


def _common_subsequence(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    # Texts are short (a fact is at most a few hundred words), so the quadratic table is cheap.
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for k, y in enumerate(b):
            current.append(previous[k] + 1 if x == y else max(previous[k + 1], current[k]))
        previous = current
    return previous[-1]
