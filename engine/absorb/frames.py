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
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

from lemminflect import getAllLemmas

from engine.absorb.text_contrast import DATE_WORDS, FUNCTION_WORDS, NEGATORS, NUMBER_WORDS, stem

_TOKEN = re.compile(r"(?:[$€£#]|!(?=\d))?\w[\w'’]*(?:[./:#@+,-]\w[\w'’]*)*+%?|[.,;:!?()\"“”—–=]", re.UNICODE)
_HAS_DIGIT = re.compile(r"\d")
_DETERMINERS = frozenset("a an the my our your his her their its this that these those each every".split())
_UNITS = frozenset("""second minute hour day week month year percent ms s kb mb gb tb km kg m cm mm replica
    node core request user item time""".split())
_CLAUSE_COMMA = re.compile(r",(?!\d)")
_SENTENCE_ENDS = frozenset(".!?:;—–\"“”(")  # not the thousands of "$15,500"
SUBORDINATORS = frozenset(
    "because when while which who whom whose although though whereas if unless said says".split())
# "Two men", "several dogs": a count makes a subject many things, none of them named.
_COUNTS = frozenset("two three four five six seven eight nine ten several some many few most all both".split())
_DEFINITE = frozenset("the my our your his her their its this that these those".split())
# "My dentist", "our bank": the speaker's own one, a single thing even in one word ("the man" may be anyone).
_OWN = frozenset("my our".split())
# "Default branch of the docs repo: main", "SUP-88 — status open": a note's key, then its value.
_KEY_VALUE_MARKS = frozenset(":—–=")
# What may open a phrase set before the sentence proper: "Every day, ...", "Since March, ...", "In X, ...".
_FRONTING = frozenset("every each after before during until starting effective once these those this last next".split())
_COPULAS = frozenset("is are was were be been being 's am".split())
# "I'm", "we're", "they've": the pronoun and its verb.
_CONTRACTIONS = {"'m": "am", "’m": "am", "'re": "are", "’re": "are", "'ve": "have", "’ve": "have", "'ll": "will",
                 "’ll": "will"}
# "Tuesdays is when the sync happens", "Lisbon is where Lena lives": the value set first.
_VALUE_FIRST = re.compile(r"^(?P<value>[^,;:]+?) (?:is|are|was|were) (?P<how>when|where) (?P<rest>.+?)(?P<end>[.!?]*)$",
                          re.IGNORECASE)
_PRONOUNS = frozenset("i we you they he she it".split())
# Words before a fact that tell the reader what to do with it, not what it says: "Remember that ...",
# "Note: ...", "FYI: ...". Only with "that" or a mark: "Note 7 is missing", "Recall of the model is 0.81"
# and "Remember me to Lena" say something; and never a clause ("If it rains, remember ...", "When
# paging Dana, ..."), which may be all that tells two facts apart. "Don't forget" stays: its "not"
# is read as a negation everywhere else.
_WRAPPER = re.compile(r"""^(?:(?:please\s+)?(?:remember|note|keep\s+in\s+mind|bear\s+in\s+mind)\s*(?:\s+that\b|[,:])
     |(?:fyi|heads[\s-]up|reminder|note\s+to\s+self|for\s+the\s+record|just\s+so\s+you\s+know|psa)\s*[,:—–-])\s+""",
                      re.IGNORECASE | re.VERBOSE)
# "Dr. Amsel", "Ms. Lindqvist": a title's full stop does not end the sentence; the title and the name are one span.
_TITLE_DOT = re.compile(r"\b(Dr|Ms|Mr|Mrs|Prof|St)\.(?= [A-Z])")
# Opening a sentence capitalised, these are what anyone may be, never a name ("Everyone uses Slack").
_NOBODY_IN_PARTICULAR = frozenset("""everyone everybody someone somebody nobody anyone anybody everything something
    nothing anything people children men women""".split())
_PREPOSITIONS = frozenset("to by in on at for from as into onto with of over under about".split())
# Words that never carry a fact's value on their own: "usually", "mostly", "currently", "most".
_FILLER = frozenset("""usually mostly mainly currently always normally typically generally right just also still
    most really actually pretty quite best every each""".split())
# Said of the incoming fact, these make it the newer value of the attribute.
NEWER_WORDS = frozenset("""now nowadays anymore recently lately newly instead since henceforth starting effective
    latest""".split())
NEWER_VERBS = frozenset("""move switch change upgrade downgrade reschedule reassign migrate relocate transfer replace
    postpone push bump raise lower cut update become join trade shift convert rename promote hand
    increase decrease reduce extend delay prepone revise rebook relicense reroute rebrand redeploy reallocate
    cancel""".split())
# When a fact holds, not a value: "last week", "this sprint", "in March" (a month or a day of the week
# is a value when the fact is a schedule, so those count only after "since" / "as of").
_HOW_OFTEN = frozenset("once twice thrice".split())
_TIME_WORDS = _HOW_OFTEN | frozenset("""last next this past week weeks fortnight fortnights month months year years sprint
    quarter ago today yesterday tonight tomorrow morning evening night recently day days weekday weekdays weekend
    weekends workday workdays daily weekly monthly""".split())
# Nouns a light verb takes to make one predicate: "takes place", "takes care of", "is in charge of".
LIGHT_OBJECTS = frozenset("place care charge part note".split())
NEWER_PHRASES = (("no", "longer"), ("these", "days"), ("from", "now", "on"), ("as", "of"), ("any", "more"),
                 ("not", "anymore"), ("took", "over"), ("switched", "to"), ("moved", "to"), ("changed", "to"),
                 ("went", "from"), ("going", "forward"), ("took", "up"), ("taken", "up"), ("gave", "up"),
                 ("given", "up"))
# A change of state said in the perfect: "has started doing X", "has stopped taking Y", "has been
# rewritten in Z". Not in the simple past: "Lena began piano lessons at 6" and "started learning
# Japanese" tell a story; "the backup starts at 02:00" is a standing schedule.
_CHANGED_FORMS = frozenset("""started begun stopped quit adopted dropped turned swapped ported rewritten gone""".split())
_PERFECT = frozenset({"has", "have", "had", "'ve", "been"})
# "went vegan", "went gluten-free": a change; "went to Lisbon", "went by train", "went home" are trips.
_WENT_PLACES = frozenset("""to home there back out in into for through with by on off away abroad ahead up down over
    past""".split())
# A note opened by one of these and a colon says it replaces what was known: "Update: ...".
_UPDATE_LABELS = frozenset("update updated correction corrected edit edited revised revision".split())
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
    own: bool = False         # "my ...", "our ...": the speaker's own one
    owner: tuple[str, ...] = ()  # "the disk size of the backup volume": the lemmas of what it belongs to

    @cached_property
    def key(self) -> frozenset[str]:
        return frozenset(self.lemmas)

    @property
    def label(self) -> tuple[str, ...] | None:
        """The kind of a numbered thing ("team 4" -> ("team",)), or None: ids of one kind tell things apart."""
        words = tuple(w for w in self.lemmas if not _HAS_DIGIT.search(w))
        if not words or len(words) == len(self.lemmas) or (set(words) & _UNITS and _HAS_DIGIT.search(self.lemmas[0])):
            return None  # "5 minutes" is an amount, not the fifth of the minutes; "node 7" is a name
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
    replaced: Span | None = None  # "switched from A to B": A, the value said to be gone
    verb_at: int | None = None    # how many spans stand before the verb (or a note's "key:" mark)
    possessor: bool = False       # the subject owns what follows it: "my sister" in "my sister's cat"

    @cached_property
    def kept(self) -> frozenset[str]:
        """The lemmas the text keeps: not those of a value it says is gone ("from Vim to Helix": not Vim)."""
        if self.replaced is None:
            return self.lemmas
        others = {lemma for sp in self.spans if sp is not self.replaced for lemma in sp.lemmas}
        return self.lemmas - (self.replaced.key - others)

    @property
    def definite(self) -> bool:
        """The subject names one thing whose attributes a memory keeps: a name, an identifier, or a
        definite phrase of two words or more ("the weekly sync"; "the man" may be anyone)."""
        if self.subject is None or self.scene or self.compound:
            return False
        if self.subject.anchored or self.subject.own:
            return True
        # "the blog is hosted by Netlify": one word, but a name said of it makes it one thing
        return self.subject.definite and (len(self.subject.lemmas) > 1 or any(
            sp.anchored for sp in self.spans if sp is not self.subject and not sp.temporal))


def lemmas_by_part_of_speech(word: str) -> dict[str, tuple[str, ...]]:
    """The word's lemmas by part of speech ("expresses": a noun and a verb)."""
    return _lemmas(word)


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


_TICKET_ID = re.compile(r"^(?:[#!]\d+|[A-Z]{2,}[-_]?\d+[\w-]*)$")
_NUMBER = re.compile(r"^[\d.,%]+(?:st|nd|rd|th|k|m|x)?$")
_TIME = re.compile(r"^\d{1,2}:\d\d|^\d{4}-\d\d-\d\d|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$|^q[1-4]$|^h[12]$")
# "March" and "May" are verbs and names as well as months; capitalised mid-sentence they are months.
_CAPITAL_MONTHS = frozenset({"march", "may"})
_CLOCK_WORDS = frozenset({"am", "pm"})
# Adverbs of the moment whose phrase ends where a noun phrase begins ("now the flag ...").
_PASSING_ADVERBS = frozenset("now nowadays recently lately newly instead henceforth latest".split())


@lru_cache(maxsize=65536)
def _kind(original: str, lower: str, first: bool) -> str:
    if original[:1] in "$€£" or lower in {"usd", "eur", "dollars", "euros", "pounds"}:
        return "money"
    if _TICKET_ID.match(original):
        return "identifier"
    if _TIME.match(lower) or lower.rstrip("s") in DATE_WORDS or lower in {"am", "pm", "noon", "midnight"} or (lower in _CAPITAL_MONTHS and original[:1].isupper()):
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
    if prev in _DETERMINERS or prev == "'s" or (prev in _PREPOSITIONS and prev != "to") or prev in NUMBER_WORDS:
        return False  # "the meeting", "a run", "from merged to closed", "three times"
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
    if len(lowers) > 1 and lowers[0] in _UPDATE_LABELS and lowers[1] in (":", "—", "–"):
        return True
    for k, word in enumerate(lowers):
        if word in _CHANGED_FORMS and k > 0 and lowers[k - 1] in _PERFECT and not (
                word == "gone" and k + 1 < len(lowers) and lowers[k + 1] in _WENT_PLACES):
            return True
        if word == "went" and k + 1 < len(lowers) and lowers[k + 1] not in _WENT_PLACES \
                and lowers[k + 1][:1].isalpha():
            return True
        if word.startswith("re-") and "VERB" in _lemmas(word[3:]):
            return True  # "re-estimated", "re-homed": done again, so a new value
        if word in NEWER_WORDS:
            return True
        if word in ("became", "cut") or word.endswith(("ed", "ing", "s")) and _lemma(word) in NEWER_VERBS:
            return True
        for phrase in _PHRASES_FROM.get(word, ()):
            if tuple(lowers[k:k + len(phrase)]) == phrase:
                return True
        # "From September ...", "from next week": when a new value starts (not "from 9 to 5", a range)
        if word == "from" and k + 1 < len(lowers) and (lowers[k + 1].rstrip("s") in DATE_WORDS
                                                        or lowers[k + 1] in ("next", "today", "tomorrow")) \
                and not {"to", "until", "till"} & set(lowers[k + 2:k + 4]):
            return True
    return False


def unwrap(text: str) -> str:
    """The fact inside words that only tell the reader what to do with it ("Remember that ...")."""
    text = text.strip()
    wrapped = _WRAPPER.match(text)
    if not wrapped or len(text) <= wrapped.end():
        return text
    rest = text[wrapped.end():]
    return rest[:1].upper() + rest[1:]


@lru_cache(maxsize=16384)
def frame(text: str) -> Frame:
    """Cut ``text`` into spans; the first span before the first verb, not opened by a preposition,
    is the subject (after a pronoun, "we hold the sync ...", the verb's object)."""
    words: list[str] = []
    raw: list[str] = []
    text = unwrap(text)
    first = _VALUE_FIRST.match(text.strip())
    if first:  # read "Tuesdays is when the sync happens" as "the sync happens on Tuesdays"
        rest = first["rest"]
        text = f"{rest[:1].upper()}{rest[1:]} {'on' if first['how'].lower() == 'when' else 'at'} {first['value']}."
    text = _TITLE_DOT.sub(r"\1", text)
    for match in _TOKEN.finditer(text):
        tok = match.group()
        low = tok.lower()
        if low.endswith(("'s", "’s")) and len(low) > 2:
            words += [low[:-2], "'s"]
            raw += [tok[:-2], "'s"]
        elif low[-3:] in _CONTRACTIONS or low[-2:] in _CONTRACTIONS:
            cut = 3 if low[-3:] in _CONTRACTIONS else 2
            words += [low[:-cut], _CONTRACTIONS[low[-cut:]]]
            raw += [tok[:-cut], _CONTRACTIONS[low[-cut:]]]
        else:
            words.append(low)
            raw.append(tok)
    imperative = _imperative(words, raw)
    # A short key before a colon opening the note ("Seating plan:") holds no verb.
    label_ends = next((k for k, w in enumerate(words[:4]) if w == ":"), 0)
    spans: list[Span] = []
    current: list[str] = []
    written: list[str] = []
    state: dict[str, Any] = {"anchored": False, "definite": False, "adverbial": False, "since": False,
                             "kinds": set(), "opener": "", "anchors": set(), "own": False}
    verb_at: int | None = None  # how many spans stood before the first verb
    key_at: int | None = None   # how many spans stood before a note's "key: value" mark
    fronted: int | None = None  # how many spans a fronted phrase ("Every day, ...", "In X, ...") holds
    labelled = False
    key_word: int | None = None  # where the mark stands among the words
    after_copula = False
    copular = False  # the first verb is "is" / "are": "X is Y" may name its thing on either side
    scene = False
    owners: list[Span] = []  # spans followed by "'s": "Lena" in "Lena's employer"

    def close() -> None:
        nonlocal current
        if current:
            temporal = state["since"] or set(current) <= _TIME_WORDS or (verb_at is None and state["adverbial"])
            if state["opener"] in ("of", "for") and state.get("joins") and spans and not spans[-1].verb \
                    and not spans[-1].temporal \
                    and not (spans[-1].kind == "name" and not spans[-1].definite):  # "with Lumo for my bank"
                # "the nightly job for team 4", "the budget for the Atlas migration": one noun phrase
                head = spans.pop()
                kinds = {head.kind} | state["kinds"]
                spans.append(Span(head.lemmas + tuple(current), head.anchored or state["anchored"], False,
                                  head.definite or state["definite"], head.adverbial, head.temporal,
                                  _span_kind(kinds), f"{head.text} {state['opener']} {' '.join(written)}",
                                  head.opener, head.anchors | frozenset(state["anchors"]), head.own,
                                  tuple(current)))
                state.update(anchored=False, definite=False, adverbial=False, since=False, kinds=set(), opener="",
                             anchors=set(), own=False, joins=False)
                current = []
                written.clear()
                return
            spans.append(Span(tuple(current), state["anchored"], False, state["definite"], state["adverbial"],
                              temporal, _span_kind(state["kinds"]), " ".join(written), state["opener"],
                              frozenset(state["anchors"]), state["own"]))
            # What the words before a span said carries on through a run of them ("for the ...").
            state.update(anchored=False, definite=False, adverbial=False, since=False, kinds=set(), opener="",
                         anchors=set(), own=False, joins=False)
        current = []
        written.clear()

    def opener(word: str) -> None:
        """A word before a span says what kind of span comes."""
        if not current:
            if word in _DEFINITE:
                state["definite"] = True
                state["own"] = state["own"] or word in _OWN
                if state["opener"] in _PASSING_ADVERBS:  # "Right now the flag is on": "now" ends there
                    state.update(adverbial=False, opener="")
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
            if spans and not spans[-1].verb:
                owners.append(spans[-1])
            state["definite"] = True
            continue
        if not word[:1].isalnum() and (word[:1] not in "$€£#!" or len(word) == 1):
            close()
            if word in _KEY_VALUE_MARKS and verb_at is None and key_at is None and spans:
                key_at = verb_at = len(spans)  # the mark stands where a note's verb would
                key_word = k
            elif word == "," and verb_at is None and fronted is None and fronting(words[0]):
                fronted = len(spans)
            # a phrase ends at a mark: "Right now, PR 7 is merged" ("now" opens nothing after the comma)
            state.update(adverbial=False, opener="", since=False)
            after_copula = False
            continue
        if verb_at is None and not current and word in _COUNTS:
            continue  # "Two dogs": many things, none named (not a number the fact is about)
        if word in _FILLER or word in NEWER_WORDS or word in NEGATORS or word.endswith(("n't", "n’t")):
            close()
            opener(word)
            continue
        month = word in _CAPITAL_MONTHS and raw[k][:1].isupper() and k > 0  # "on May 4", not "may"
        clock = word in _CLOCK_WORDS and prev is not None and prev[:1].isdigit()  # "10 am", not "I am"
        if (word in FUNCTION_WORDS or word in _PREPOSITIONS) and not month and not clock:
            joins = bool(current)  # "the budget for X" joins; "is on for X" does not
            close()
            if word in ("of", "for"):
                state["joins"] = joins
            if prev == "now" and word == "on":
                state.update(adverbial=False, opener="")  # "From now on the sync is ...": the phrase is over
                continue
            opener(word)
            if verb_at is None and (word in _COPULAS or word in {"has", "have", "had", "will", "does", "do", "did"}):
                verb_at = len(spans)
                copular = word in _COPULAS
            after_copula = word in _COPULAS
            continue
        # "changed to develop.", "renamed the branch to develop", "from draft to approved": a value
        to_value = prev == "to" and not current and bool(spans) and (spans[-1].opener == "from" or any(
            sp.verb for sp in spans) and (nxt is None or nxt in _PREPOSITIONS or nxt in NEWER_WORDS))
        named = raw[k][:1].isupper() and k > 0 and prev not in _SENTENCE_ENDS  # "to Render", "GitHub Pages"
        # "is called Otto", "is named Miso": a participle naming what follows is the verb
        naming = after_copula and word.endswith("ed") and k + 1 < len(raw) and raw[k + 1][:1].isupper() \
            and "VERB" in _lemmas(word)
        # "Parking: ...", "Seating plan: ...": a gerund in a note's key names its topic, it is no verb
        labelling = k < label_ends and word.endswith("ing")
        if k == 0 and imperative:
            spans.append(Span((_verb_lemma(word),), False, True, text=raw[k]))
            verb_at = 0
            continue
        if naming or not to_value and not named and not clock and not labelling \
                and _verb_like(word, prev, nxt, after_copula, verb_at is None):
            close()
            if verb_at is None or (after_copula and len(spans) == verb_at):
                verb_at = len(spans)
                scene = after_copula and word.endswith("ing")  # "is slicing", "are playing" (see below)
            spans.append(Span((_verb_lemma(word),), False, True, text=raw[k]))
            after_copula = False
            continue
        if verb_at is None and current and state["adverbial"] and words[0] in _PREPOSITIONS \
                and raw[k][:1].isupper() and raw[k - 1][:1].islower() and all(sp.adverbial for sp in spans):
            # "For editing Priya uses Zed": a fronted phrase without its comma ends where a name begins
            close()
            state.update(adverbial=False, opener="", since=False)
            fronted = len(spans)
        if current and (word in _HOW_OFTEN or nxt in ("times", "time") and (word in NUMBER_WORDS or word.isdigit())):
            close()  # "the cat twice a day", "the cat three times a day": how often is a phrase of its own
        if not current and state["opener"] in _PASSING_ADVERBS and raw[k][:1].isupper():
            state.update(adverbial=False, opener="")  # "Lately Oskar plays tennis": an adverb takes no name
        current.append(_lemma(word))
        written.append(raw[k])
        if _is_anchor(raw[k], word, k == 0):
            state["anchored"] = True
            state["anchors"].add(current[-1])
        state["kinds"].add(_kind(raw[k], word, k == 0))
    close()
    if verb_at == 1 and len(spans) > 1 and spans[1].verb and len(words) > 1 and spans[1].text.lower() == words[1] \
            and _bare_name(spans[0], raw[0], words[0]):
        # "Render hosts the blog": a bare singular word before the verb, capitalised, names one thing
        spans[0] = replace(spans[0], anchored=True, kind="name", anchors=frozenset(spans[0].lemmas))
    after_mark = words[key_word + 1] if key_word is not None and key_word + 1 < len(words) else ""
    if key_at is not None and key_at < len(spans) and any(sp.verb for sp in spans[key_at:]) \
            and (after_mark in _PRONOUNS or not spans[key_at].verb):
        # "Update: the sync moved to Thursdays": a label, then a sentence; a named one ("Syria FM: we
        # will ...") is a headline of someone's words, not a fact of one subject
        labelled = any(sp.anchored for sp in spans[:key_at])
        spans = spans[key_at:]
        verb_at = next(k for k, sp in enumerate(spans) if sp.verb)
        key_at = None
    elif key_at == 1 and not spans[0].owner and _who_then_where(spans[key_at:]):
        # "Parking: Aiko in spot 14", "Seating plan: Aiko at desk 4B": the note is about the one named
        # after the mark under its key ("Lunch: Aiko" is not "Dinner: Aiko"), and where or what it has
        # is its value ("School for my niece: the Montessori on Elm Street" names its owner in the key:
        # that one is the subject)
        spans = [_joined([spans[0], spans[1]]), *spans[2:]]
        verb_at, key_at = 1, None
        copular = True
    elif key_at is not None:
        # The whole key names the thing the note is about; what follows is its value ("state: approved").
        spans[:key_at] = [_joined(spans[:key_at])]
        spans[1:] = [replace(sp, verb=False, lemmas=(_lemma(sp.text.lower()),)) if sp.verb else sp for sp in spans[1:]]
        if len(spans) > 2 and not any(sp.temporal for sp in spans[1:]):
            # "PR 7 state: blocked by CI": all after the mark is the one value ("blocked by CI" / "approved")
            spans[1:] = [_value_of_note(spans[1:])]
        verb_at = key_at = 1
        copular = True
    context: list[Span] = []
    if fronted is not None and verb_at is not None and fronted <= verb_at:
        spans[:fronted], context = _fronted(spans[:fronted], words[0])
    subject = None
    if verb_at is not None:
        if words and (words[0] in _PRONOUNS or imperative):
            # "We hold the weekly sync on Tuesdays", "I use Lumo as my bank", "Water the fern daily":
            # what the sentence is about is a definite thing after the verb, else the verb's object.
            after = [sp for sp in spans[verb_at:] if not sp.verb and not sp.temporal]
            subject = next((sp for sp in after if sp.definite), after[0] if after else None)
        else:
            opening = [k for k, sp in enumerate(spans[:verb_at]) if not sp.adverbial and not sp.verb]
            if opening:
                first = spans[opening[0]]
                subject = _held_thing(first, spans, verb_at) or (copular and _inverted(first, spans, verb_at)) \
                    or _measured_thing(first, spans, verb_at) or first
        if subject is not None and context:
            # "In the docs repo, the default branch is main": the place belongs to what the fact is about
            subject = _joined([*context, subject])
    # "The search indexer is running in us-east-2" is a standing fact: a name, number or date says so.
    scene = scene and not any(sp.anchored for sp in spans if sp is not subject)
    lemmas = frozenset(lemma for sp in spans for lemma in sp.lemmas)
    negated = any(w in NEGATORS or w.endswith(("n't", "n’t")) for w in words) and not _newer_negation(words)
    compound = len(_CLAUSE_COMMA.findall(text)) > (fronted is not None) or any(w in SUBORDINATORS for w in words) \
        or labelled
    replaced = _replaced(spans)
    return Frame(subject, tuple(spans), lemmas, _newer(words) or replaced is not None, negated, scene, compound,
                 replaced, verb_at, any(sp is subject for sp in owners))


def _imperative(words: list[str], raw: list[str]) -> bool:
    """A note that opens with a verb's bare form and its object: "Water the fern daily", "Feed the
    cat twice a day". A noun opening a sentence is not followed by "the" or "her"."""
    if len(words) < 2 or words[0] in FUNCTION_WORDS or words[0] in _FRONTING:
        return False
    forms = _lemmas(words[0])
    if "VERB" not in forms or forms["VERB"][0] != words[0]:
        return False
    # Not before a name: "Mark Chen works at Corvid", "Grant Okafor lives in Lisbon" are people.
    return words[1] in _DETERMINERS or words[1] in {"me", "us", "him", "her", "them"}


def _who_then_where(after_mark: list[Span]) -> bool:
    """After a note's mark, a named or definite thing and then a phrase a preposition opens: the
    thing is what the note is about ("Aiko in spot 14"), not a value of the key."""
    return len(after_mark) == 2 and not any(sp.verb for sp in after_mark) and not after_mark[0].adverbial \
        and (after_mark[0].anchored or after_mark[0].definite) and after_mark[1].adverbial \
        and not after_mark[1].temporal


def _bare_name(span: Span, written: str, lower: str) -> bool:
    """A sentence's first word, alone before the verb without an article, capitalised and singular:
    English puts no bare singular common noun there, so it is a name ("Render", "Render hosts ...")."""
    return len(span.lemmas) == 1 and not span.anchored and not span.adverbial and span.text == written \
        and written[:1].isupper() and lower not in FUNCTION_WORDS and lower not in _PRONOUNS \
        and lower not in _NOBODY_IN_PARTICULAR and lower not in _FRONTING and lower not in _FILLER \
        and span.lemmas[0] == lower and "ADJ" not in _lemmas(lower)  # "Different teams are ...": an adjective


def fronting(first: str) -> bool:
    """A phrase set before the sentence: "Every day, ...", "Since March, ...", "In the docs repo, ..."."""
    return first in _PREPOSITIONS or first in NEWER_WORDS or first in _FRONTING or first in _TIME_WORDS \
        or first in _FILLER or first in {"since", "from", "as", "until"}


def _fronted(spans: list[Span], first: str) -> tuple[list[Span], list[Span]]:
    """The spans of a fronted phrase, marked: a time ("Since March", "Every day", "After the resize")
    says when the fact holds; a place or thing ("In the docs repo") is context of the subject."""
    marked, context = [], []
    timed = first in {"since", "after", "before", "during", "until", "starting", "effective", "from", "as"} \
        or first in NEWER_WORDS or first in _FRONTING or first in _TIME_WORDS
    for sp in spans:
        if timed or set(sp.lemmas) <= _TIME_WORDS:
            marked.append(replace(sp, adverbial=True, temporal=True))
        elif sp.kind == "time":  # "On Wednesdays, Tomasz comes in": the day is the schedule's value
            marked.append(replace(sp, adverbial=True, temporal=False))
        else:
            marked.append(replace(sp, adverbial=True, temporal=False))
            context.append(marked[-1])
    return marked, context


def _joined(parts: list[Span]) -> Span:
    """One span of several: a note's key ("Default branch of the docs repo"), a subject with its context."""
    if len(parts) == 1:
        return replace(parts[0], definite=True, adverbial=False, temporal=False)
    kinds = {sp.kind for sp in parts}
    return Span(tuple(lemma for sp in parts for lemma in sp.lemmas), any(sp.anchored for sp in parts), False,
                True, False, False, _span_kind(kinds), " / ".join(sp.text for sp in parts), "",
                frozenset().union(*(sp.anchors for sp in parts)), any(sp.own for sp in parts))


def _value_of_note(parts: list[Span]) -> Span:
    return Span(tuple(lemma for sp in parts for lemma in sp.lemmas), any(sp.anchored for sp in parts), False,
                any(sp.definite for sp in parts), False, False, _span_kind({sp.kind for sp in parts}),
                " ".join(sp.text for sp in parts), parts[0].opener, frozenset().union(*(sp.anchors for sp in parts)),
                any(sp.own for sp in parts))


def _inverted(opening: Span, spans: list[Span], verb_at: int) -> Span | None:
    """"Helvetia Direct is my bank", "Master is the default branch of the docs repo": a bare name
    equated with a definite thing; the thing is what the fact is about, the name its value."""
    if opening.definite or opening.kind not in ("name", "word") or verb_at >= len(spans) \
            or any(sp.verb for sp in spans):
        return None
    thing = spans[verb_at]
    return thing if thing.definite and not thing.adverbial else None


def _measured_thing(opening: Span, spans: list[Span], verb_at: int) -> Span | None:
    """"16 GB of RAM is allocated to the build VM", "$9,000 was set aside for the trip": an amount or a
    date set first is the value; the definite thing after the verb is what the fact is about."""
    if opening.definite or opening.kind not in ("number", "money", "time") or opening.label is not None:
        return None
    return next((sp for sp in spans[verb_at:] if not sp.verb and not sp.temporal and sp.definite), None)


def owned(span: Span) -> Span | None:
    """What a phrase of the form "the <attribute> of <thing>" belongs to, as a span of its own."""
    if not span.owner or len(span.owner) >= len(span.lemmas):
        return None
    return Span(span.owner, bool(span.anchors & set(span.owner)), False, True, text=" ".join(span.owner),
                anchors=span.anchors & frozenset(span.owner))


def _replaced(spans: list[Span]) -> Span | None:
    """"went from P2 to P0", "switched from Vim to Helix": after a verb in the past ("is open from 9 to
    5", "runs from Porto to Lyon" are ranges), the span opened by "from" and followed by one opened by
    "to" is the value said to be gone."""
    for k in range(1, len(spans) - 1):
        if spans[k].opener == "from" and spans[k + 1].opener == "to" and not spans[k + 1].verb \
                and any(sp.verb and _past(sp) for sp in spans[:k]):
            return spans[k]
    return None


def _past(verb: Span) -> bool:
    written, lemma = verb.text.lower(), verb.lemmas[0]
    return written not in {lemma, lemma + "s", lemma + "es"} and not written.endswith("ing")


def _held_thing(opening: Span, spans: list[Span], verb_at: int) -> Span | None:
    """"Priya leads the SRE team", "Aiko owns ticket OPS-4821", "Daniel took over the SRE team": a
    person's name, a verb, then one named thing: the fact is about the thing (who leads it, who owns
    it), so a new name there is its new value. Not "Lena works at Brightline Labs" (a place she works
    at) nor "Lena drives a blue Volvo" (an indefinite thing: a value)."""
    # one word, or a name of several capitalised ones ("GitHub Pages hosts the status dashboard")
    one_name = len(opening.lemmas) == 1 or opening.kind == "name" and all(
        w[:1].isupper() for w in opening.text.split())
    if not (opening.anchored and opening.kind in ("name", "word") and one_name
            and not opening.definite) or verb_at >= len(spans) \
            or not spans[verb_at].verb or verb_at + 1 >= len(spans):
        return None
    thing = spans[verb_at + 1]
    if thing.verb or thing.opener not in ("", "over") or thing.kind in ("time", "money"):
        return None  # "Noah takes the 8:15 train": a time is what changes, not the thing he holds
    if thing.kind == "identifier" or thing.definite:
        return thing
    return None


def _newer_negation(words: list[str]) -> bool:
    """"no longer" / "not anymore" mark a change of value, not a denial of the fact."""
    return any(tuple(words[k:k + 2]) in {("no", "longer"), ("not", "anymore")} for k in range(len(words)))
