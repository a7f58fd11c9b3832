"""Which part of a fact changed: a fact read as a frame of subject, predicate and value spans.

An agent's memory holds facts such as "Lena works at Brightline Labs." or "The weekly sync is on
Tuesdays at 10:00.". When a second text arrives, what matters is *which span* differs:

* the subject ("Lena" / "Marco", "build server number 12" / "... 13"): two facts about two
  things, never a disagreement;
* the value ("Brightline Labs" / "Corvid Systems", "Tuesdays" / "Thursdays"): a change of
  the same attribute; it supersedes when the incoming text reads as newer ("now", "moved to",
  "switched to", "no longer", "since ..."), else the two disagree (contradict);
* nothing but wording ("works at" / "has a job at"): the same fact said again (duplicate).

A text is cut into spans at function words, punctuation and verbs (lemmas from ``lemminflect``,
no model). The subject is the opening span before the first verb; a span "survives" in the other
text when all its lemmas are there. Only a subject that names one thing (a name, "the ...", a
possessive, an identifier) is read so: "a man is playing a guitar" / "a man is playing a flute"
are two scenes, not one value changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lemminflect import getAllLemmas

from engine.absorb.text_contrast import DATE_WORDS, FUNCTION_WORDS, NEGATORS, NUMBER_WORDS, stem

_TOKEN = re.compile(r"[$€£#]?\w[\w'’]*(?:[./:#@+,-]\w[\w'’]*)*+%?|[.;:!?()\"“”]", re.UNICODE)
_HAS_DIGIT = re.compile(r"\d")
_DETERMINERS = frozenset("a an the my our your his her their its this that these those each every".split())
_UNITS = frozenset("""second minute hour day week month year percent ms s kb mb gb tb km kg m cm mm replica
    node core request user item time""".split())
_CLAUSE_COMMA = re.compile(r",(?!\d)")  # not the thousands of "$15,500"
_SUBORDINATORS = frozenset(
    "because when while which who whom whose although though whereas if unless said says".split())
# "Two men", "several dogs": a count makes a subject many things, none of them named.
_COUNTS = frozenset("two three four five six seven eight nine ten several some many few most all both".split())
_DEFINITE = frozenset("the my our your his her their its this that these those".split())
_COPULAS = frozenset("is are was were be been being 's".split())
_PRONOUNS = frozenset("i we you they he she it".split())
_PREPOSITIONS = frozenset("to by in on at for from as into onto with of over under about".split())
# Words that never carry a fact's value on their own: "usually", "mostly", "currently", "most".
_FILLER = frozenset("""usually mostly mainly currently always normally typically generally right just also still
    most really actually pretty quite best every each""".split())
# Said of the incoming fact, these make it the newer value of the attribute.
NEWER_WORDS = frozenset("""now nowadays anymore recently lately newly instead since henceforth starting effective
    latest""".split())
NEWER_VERBS = frozenset("""move switch change upgrade downgrade reschedule reassign migrate relocate transfer replace
    postpone push bump raise lower cut update become join trade shift convert rename promote hand
    increase decrease reduce extend delay prepone revise""".split())
# When a fact holds, not a value: "last week", "this sprint", "in March" (a month or a day of the week
# is a value when the fact is a schedule, so those count only after "since" / "as of").
_TIME_WORDS = frozenset("""last next this past week weeks month months year years sprint quarter ago today yesterday
    tonight tomorrow morning recently""".split())
# Nouns a light verb takes to make one predicate: "takes place", "takes care of", "is in charge of".
LIGHT_OBJECTS = frozenset("place care charge part note".split())
NEWER_PHRASES = (("no", "longer"), ("these", "days"), ("from", "now", "on"), ("as", "of"), ("any", "more"),
                 ("not", "anymore"), ("took", "over"), ("switched", "to"), ("moved", "to"), ("changed", "to"))
_PHRASES_FROM: dict[str, tuple[tuple[str, ...], ...]] = {
    first: tuple(p for p in NEWER_PHRASES if p[0] == first) for first in {p[0] for p in NEWER_PHRASES}}

# Verbs that facts are most often built on: where a word could be a noun or a verb ("runs",
# "leads", "drives"), one of these right after the subject is read as the verb.
PREDICATE_VERBS = frozenset("""run use handle own lead prefer like love live work drive store host keep hold take need
    write code speak report cover manage meet serve cost weigh sit stand go come play study teach own sell buy ship
    deploy sync start end open close stay""".split())


@dataclass(frozen=True)
class Span:
    lemmas: tuple[str, ...]
    anchored: bool   # holds a name, number, identifier or date
    verb: bool       # a predicate verb, not a value
    definite: bool = False    # names one thing: "the ...", "our ...", "Lena's ...", a name or identifier
    adverbial: bool = False   # opened by a preposition: "in Lisbon", "as of last week"
    temporal: bool = False    # when the fact holds, not what it says: "as of last week", "since May"
    kind: str = "word"        # what sort of value: money, time, number, identifier, name or word
    text: str = ""            # the words as written, for reasons people read
    opener: str = ""          # the preposition that opened it, if any
    anchors: frozenset[str] = frozenset()  # its names, numbers, identifiers and dates

    @property
    def key(self) -> frozenset[str]:
        return frozenset(self.lemmas)

    @property
    def label(self) -> tuple[str, ...] | None:
        """The kind of a numbered thing ("team 4" -> ("team",)), or None: ids of one kind tell things apart."""
        words = tuple(w for w in self.lemmas if not _HAS_DIGIT.search(w))
        if not words or len(words) == len(self.lemmas) or set(words) & _UNITS:
            return None  # "5 minutes" is an amount, not the fifth of the minutes
        return words


@dataclass(frozen=True)
class Frame:
    subject: Span | None
    spans: tuple[Span, ...]
    lemmas: frozenset[str]
    newer: bool                  # a newer marker ("now", "moved to", "no longer", "since ...")
    negated: bool

    scene: bool = False          # "the man is slicing a tomato": an event told, not a standing fact
    compound: bool = False       # clauses joined ("..., said X", "because ...", "which ..."): more than one fact

    @property
    def definite(self) -> bool:
        """The subject names one thing whose attributes a memory keeps: a name, an identifier, or a
        definite phrase of two words or more ("the weekly sync"; "the man" may be anyone)."""
        if self.subject is None or self.scene or self.compound:
            return False
        return self.subject.anchored or (self.subject.definite and len(self.subject.lemmas) > 1)


@lru_cache(maxsize=65536)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return getAllLemmas(word)


# The word-level helpers below are pure functions of their arguments, met again and again across
# texts (a store's vocabulary is small): cached, a text's reading costs a third of what it did.
@lru_cache(maxsize=65536)
def _lemma(word: str) -> str:
    if _HAS_DIGIT.search(word) or not word.isalpha():
        return word
    found = _lemmas(word)
    for pos in ("NOUN", "VERB", "ADJ", "ADV", "PROPN"):
        if pos in found:
            return found[pos][0]
    if word.endswith("s") and word[:-1] in DATE_WORDS:
        return word[:-1]  # "Tuesdays" -> "tuesday"
    return stem(word)


_TICKET_ID = re.compile(r"^(?:#\d+|[A-Z]{2,}[-_]?\d+[\w-]*)$")
_NUMBER = re.compile(r"^[\d.,%]+(?:st|nd|rd|th|k|m|x)?$")
_TIME = re.compile(r"^\d{1,2}:\d\d|^\d{4}-\d\d-\d\d")


@lru_cache(maxsize=65536)
def _kind(original: str, lower: str, first: bool) -> str:
    if original[:1] in "$€£" or lower in {"usd", "eur", "dollars", "euros", "pounds"}:
        return "money"
    if _TICKET_ID.match(original):
        return "identifier"
    if _TIME.match(lower) or lower.rstrip("s") in DATE_WORDS:
        return "time"
    if _NUMBER.match(lower):
        return "number"
    if _HAS_DIGIT.search(lower):
        return "name"  # a code name: "us-west-2", "worker-3"
    if original[:1].isupper() and not first:
        return "name"
    return "word"


def _span_kind(kinds: set[str]) -> str:
    """A span's sort, by its most telling word: "$12,000" money, "Tuesdays at 10:00" time, "team 4" number."""
    for kind in ("money", "identifier", "time", "number", "name"):
        if kind in kinds:
            return kind
    return "word"


@lru_cache(maxsize=65536)
def _verb_lemma(word: str) -> str:
    found = _lemmas(word)
    return (found.get("VERB") or found.get("AUX") or (_lemma(word),))[0]


@lru_cache(maxsize=65536)
def _is_anchor(original: str, lower: str, first: bool) -> bool:
    return bool(_HAS_DIGIT.search(lower) or lower.rstrip("s") in DATE_WORDS or lower in NUMBER_WORDS
                or (original[:1].isupper() and (not first or not _lemmas(lower))))


@lru_cache(maxsize=65536)
def _verb_like(lower: str, prev: str | None, nxt: str | None, after_copula: bool, first_verb: bool) -> bool:
    """Whether a word acts as the predicate's verb here (a crude part-of-speech guess, see module doc)."""
    found = _lemmas(lower)
    if "VERB" not in found and "AUX" not in found:
        return False
    if prev in _DETERMINERS or prev == "'s":
        return False  # "the meeting", "a run"
    verb_lemma = _verb_lemma(lower)
    # An inflected form ("runs", "moved", "took"), not the base form a noun phrase may hold ("ingest").
    inflected = lower != verb_lemma and not (lower.endswith("s") and "NOUN" in found and first_verb is False
                                             and nxt is None)
    if nxt is not None and _HAS_DIGIT.search(nxt) and "NOUN" in found and not (
            first_verb and inflected and verb_lemma in PREDICATE_VERBS):
        return False  # "number 12", "version 3"; but "the cluster runs 3 replicas"
    if after_copula and lower.endswith(("ed", "en")) and (nxt is None or nxt not in _PREPOSITIONS):
        return False  # "is shipped.", "is paused": a state, the value itself
    if after_copula and nxt in _PREPOSITIONS:
        return True  # "is set to", "is assigned to", "was moved to"
    if after_copula and lower.endswith("ing") and nxt is not None and nxt not in FUNCTION_WORDS \
            and nxt not in _DETERMINERS and nxt not in _PREPOSITIONS and verb_lemma not in PREDICATE_VERBS:
        return False  # "is sparkling water": a value, not an action
    only_verb = set(found) <= {"VERB", "AUX", "ADV"}
    if prev in _PRONOUNS or prev in {"will", "can", "must", "should", "would", "to"}:
        return True  # "we hold", "will run"
    if first_verb and prev is not None and prev not in FUNCTION_WORDS and prev not in _PREPOSITIONS:
        # Right after the subject's head: "the Redis cache runs version 7.2", "the brokers run ...";
        # not when the next word is the verb ("the Kafka brokers run": "brokers" is the head).
        next_verb = nxt is not None and _lemma(nxt) in PREDICATE_VERBS
        if verb_lemma in PREDICATE_VERBS and (inflected or prev.endswith("s")) or not next_verb and inflected:
            return True
    if nxt is None:
        return inflected and only_verb
    return inflected and (only_verb or nxt in FUNCTION_WORDS or nxt in _PREPOSITIONS
                          or nxt in _DETERMINERS or not _lemmas(nxt) or nxt in NEWER_WORDS)


def _newer(lowers: list[str]) -> bool:
    for k, word in enumerate(lowers):
        if word in NEWER_WORDS:
            return True
        if word in ("became", "cut") or word.endswith(("ed", "ing", "s")) and _lemma(word) in NEWER_VERBS:
            return True
        for phrase in _PHRASES_FROM.get(word, ()):
            if tuple(lowers[k:k + len(phrase)]) == phrase:
                return True
    return False


@lru_cache(maxsize=16384)
def frame(text: str) -> Frame:
    """Cut ``text`` into spans; the first span before the first verb, not opened by a preposition,
    is the subject (after a pronoun, "we hold the sync ...", the verb's object)."""
    words: list[str] = []
    raw: list[str] = []
    for match in _TOKEN.finditer(text):
        tok = match.group()
        low = tok.lower()
        if low.endswith(("'s", "’s")) and len(low) > 2:
            words += [low[:-2], "'s"]
            raw += [tok[:-2], "'s"]
        else:
            words.append(low)
            raw.append(tok)
    spans: list[Span] = []
    current: list[str] = []
    written: list[str] = []
    state: dict[str, Any] = {"anchored": False, "definite": False, "adverbial": False, "since": False,
                             "kinds": set(), "opener": "", "anchors": set()}
    verb_at: int | None = None  # how many spans stood before the first verb
    after_copula = False
    scene = False

    def close() -> None:
        nonlocal current
        if current:
            temporal = state["since"] or set(current) <= _TIME_WORDS or (verb_at is None and state["adverbial"])
            if state["opener"] in ("of", "for") and spans and not spans[-1].verb and not spans[-1].temporal:
                # "the nightly job for team 4", "the budget for the Atlas migration": one noun phrase
                head = spans.pop()
                kinds = {head.kind} | state["kinds"]
                spans.append(Span(head.lemmas + tuple(current), head.anchored or state["anchored"], False,
                                  head.definite or state["definite"], head.adverbial, head.temporal,
                                  _span_kind(kinds), f"{head.text} {state['opener']} {' '.join(written)}",
                                  head.opener, head.anchors | frozenset(state["anchors"])))
                state.update(anchored=False, definite=False, adverbial=False, since=False, kinds=set(), opener="",
                             anchors=set())
                current = []
                written.clear()
                return
            spans.append(Span(tuple(current), state["anchored"], False, state["definite"], state["adverbial"],
                              temporal, _span_kind(state["kinds"]), " ".join(written), state["opener"],
                              frozenset(state["anchors"])))
            # What the words before a span said carries on through a run of them ("for the ...").
            state.update(anchored=False, definite=False, adverbial=False, since=False, kinds=set(), opener="",
                         anchors=set())
        current = []
        written.clear()

    def opener(word: str) -> None:
        """A word before a span says what kind of span comes."""
        if not current:
            if word in _DEFINITE:
                state["definite"] = True
            elif word in _PREPOSITIONS or word in NEWER_WORDS:
                state["adverbial"] = True
                state["opener"] = word
            if word in {"since", "of", "from", "until", "till"} and k > 0 and words[k - 1] in {"as", "since"} \
                    or word in {"since", "until", "till"}:
                state["since"] = True

    for k, word in enumerate(words):
        prev = words[k - 1] if k else None
        nxt = words[k + 1] if k + 1 < len(words) and words[k + 1][:1].isalnum() else None
        if word == "'s":
            if current:
                state["definite"] = True  # "Lena's employer": Lena is one person
            close()
            state["definite"] = True
            continue
        if not word[:1].isalnum() and word[:1] not in "$€£#":
            close()
            after_copula = False
            continue
        if verb_at is None and not current and word in _COUNTS:
            continue  # "Two dogs": many things, none named (not a number the fact is about)
        if word in _FILLER or word in NEWER_WORDS or word in NEGATORS or word.endswith(("n't", "n’t")):
            close()
            opener(word)
            continue
        if word in FUNCTION_WORDS or word in _PREPOSITIONS:
            close()
            if prev == "now" and word == "on":
                state.update(adverbial=False, opener="")  # "From now on the sync is ...": the phrase is over
                continue
            opener(word)
            if verb_at is None and (word in _COPULAS or word in {"has", "have", "had", "will", "does", "do", "did"}):
                verb_at = len(spans)
            after_copula = word in _COPULAS
            continue
        if _verb_like(word, prev, nxt, after_copula, verb_at is None):
            close()
            if verb_at is None or (after_copula and len(spans) == verb_at):
                verb_at = len(spans)
                scene = after_copula and word.endswith("ing")  # "is slicing", "are playing" (see below)
            spans.append(Span((_verb_lemma(word),), False, True, text=raw[k]))
            after_copula = False
            continue
        current.append(_lemma(word))
        written.append(raw[k])
        if _is_anchor(raw[k], word, k == 0):
            state["anchored"] = True
            state["anchors"].add(current[-1])
        state["kinds"].add(_kind(raw[k], word, k == 0))
    close()
    subject = None
    if verb_at is not None:
        if words and words[0] in _PRONOUNS:
            # "We hold the weekly sync on Tuesdays": what the sentence is about is the verb's object.
            subject = next((sp for sp in spans[verb_at:] if not sp.verb), None)
        else:
            opening = [k for k, sp in enumerate(spans[:verb_at]) if not sp.adverbial and not sp.verb]
            if opening:
                subject = _held_thing(spans[opening[0]], spans, verb_at) or spans[opening[0]]
    # "The search indexer is running in us-east-2" is a standing fact: a name, number or date says so.
    scene = scene and not any(sp.anchored for sp in spans if sp is not subject)
    lemmas = frozenset(lemma for sp in spans for lemma in sp.lemmas)
    negated = any(w in NEGATORS or w.endswith(("n't", "n’t")) for w in words) and not _newer_negation(words)
    compound = bool(_CLAUSE_COMMA.search(text)) or any(w in _SUBORDINATORS for w in words)
    return Frame(subject, tuple(spans), lemmas, _newer(words), negated, scene, compound)


def _held_thing(opening: Span, spans: list[Span], verb_at: int) -> Span | None:
    """"Priya leads the SRE team", "Aiko owns ticket OPS-4821", "Daniel took over the SRE team": a
    person's name, a verb, then one named thing: the fact is about the thing (who leads it, who owns
    it), so a new name there is its new value. Not "Lena works at Brightline Labs" (a place she works
    at) nor "Lena drives a blue Volvo" (an indefinite thing: a value)."""
    if not (opening.anchored and opening.kind in ("name", "word") and len(opening.lemmas) == 1
            and not opening.definite) or verb_at >= len(spans) \
            or not spans[verb_at].verb or verb_at + 1 >= len(spans):
        return None
    thing = spans[verb_at + 1]
    if thing.verb or thing.opener not in ("", "over"):
        return None
    if thing.kind == "identifier" or (thing.definite and len(thing.lemmas) > 1):
        return thing
    return None


def _newer_negation(words: list[str]) -> bool:
    """"no longer" / "not anymore" mark a change of value, not a denial of the fact."""
    return any(tuple(words[k:k + 2]) in {("no", "longer"), ("not", "anymore")} for k in range(len(words)))
