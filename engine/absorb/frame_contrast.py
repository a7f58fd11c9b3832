"""Reading two frames against each other: which span differs (see ``frames``) decides whether the
incoming fact is about another thing, a new value of the same attribute, or the same fact again."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from engine.absorb.frames import LIGHT_OBJECTS, PREDICATE_VERBS, Frame, Span, frame, owned


@dataclass(frozen=True)
class FrameContrast:
    """What the two frames differ in; ``verdict`` is ``distinct``, ``changed``, ``same`` or None (unsure)."""
    verdict: str | None
    newer: bool
    why: str
    shared_predicate: bool = False  # both texts use one verb for it ("works at" / "now works at")
    # The reading found a subject both texts share (or its owner: "Lena's manager" / "Lena's mentor"),
    # one thing, so what follows it decided the verdict.
    one_subject: bool = False


def _value_like(span: Span) -> bool:
    """May hold the attribute's value: not a verb, not a time phrase ("as of last week", "since May")."""
    return not span.verb and not span.temporal and not span.key <= LIGHT_OBJECTS


def _sorts(spans: list[Span]) -> frozenset[str]:
    """The sorts of value the spans hold, "word" only when nothing more telling is there."""
    kinds = {sp.kind for sp in spans}
    return frozenset(kinds - {"word"} or kinds)


def _other_sorts(lost: set[str], gained: set[str]) -> bool:
    """Values of other sorts: a date against a sum, a status word against a date. A name and a word
    may be values of one attribute ("Brightline Labs" / "a startup")."""
    a, b = lost - {"word"}, gained - {"word"}
    if a and b:
        return a.isdisjoint(b)
    return bool((a | b) & {"money", "time"})


# What a preposition says of its value: "in" a place, a zone or a medium; "at" / "for" / "by" / "with"
# a party (an employer, an owner, an agent). "works in EST" / "works at Lumen Logistics" name values
# of two attributes; "works at" / "works for" / "is employed by" one.
_PLACE_ROLE = frozenset({"in", "inside", "near"})
_PARTY_ROLE = frozenset({"at", "for", "by", "with"})


def _other_roles(lost: list[Span], gained: list[Span]) -> bool:
    """Every value on one side in a place role, every value on the other in a party role."""
    a, b = {sp.opener for sp in lost}, {sp.opener for sp in gained}
    return (a <= _PLACE_ROLE and b <= _PARTY_ROLE) or (a <= _PARTY_ROLE and b <= _PLACE_ROLE)


# Light cues to what a name is: "Corvid Systems", "Arden GmbH" an organisation; "Dr Amsel" a person.
_ORGANISATION_ENDS = frozenset("""inc inc. ltd ltd. llc gmbh ag sa bv plc corp corp. co labs lab systems group
    technologies bank health studio studios logistics analytics robotics motors partners holdings""".split())
_PERSON_TITLES = frozenset("dr ms mr mrs prof".split())
# A bare place name goes "to" / "in" / "from" it: "moved to Rotterdam", "lives in Ghent".
_PLACE_OPENERS = frozenset({"to", "in", "into", "from"})


# "moved to Rotterdam", "relocated to Ghent": after these a bare name is a place ("assigned to Fatima" is not).
_MOTION_VERBS = frozenset("move relocate go travel emigrate return commute fly drive".split())


def _name_type(span: Span, read: Frame | None = None) -> str | None:
    """"organisation", "person" or "place" for a name with a cue, else None (no guess)."""
    if span.kind != "name":
        return None
    words = span.text.lower().split()
    if words and words[-1] in _ORGANISATION_ENDS:
        return "organisation"
    if words and words[0] in _PERSON_TITLES:
        return "person"
    if span.opener in _PLACE_OPENERS and len(words) == 1 and span.text[:1].isupper() and read is not None \
            and (span.opener != "to" or _after_motion(span, read)):
        return "place"
    return None


def _after_motion(span: Span, read: Frame) -> bool:
    at = next((k for k, sp in enumerate(read.spans) if sp is span), 0)
    verbs = [sp for sp in read.spans[:at] if sp.verb]
    return bool(verbs) and verbs[-1].lemmas[0] in _MOTION_VERBS


def _other_types(a: Frame, b: Frame, lost: list[Span], gained: list[Span]) -> bool:
    """"works at Quill Systems" / "moved to Ghent": an organisation and a place (or a person) are values
    of two attributes. A name without a cue says nothing; an organisation "moved to" is still one."""
    kinds_a = {_name_type(sp, a) for sp in lost}
    kinds_b = {_name_type(sp, b) for sp in gained}
    if None in kinds_a or None in kinds_b:
        return False
    if "organisation" in kinds_a and "organisation" in kinds_b or "person" in kinds_a and "person" in kinds_b:
        return False  # "moved to Corvid Systems" is an organisation whatever its preposition
    return kinds_a.isdisjoint(kinds_b)


def _same_build(a: Frame, b: Frame, lost: list[Span], gained: list[Span]) -> bool:
    """"Helvetia Direct is my bank" / "Lumo is my bank": one value swapped, every other span the same
    and in the same order; the attribute is said alike even without a verb of its own."""
    if len(lost) != 1 or len(gained) != 1 or a.verb_at != b.verb_at or lost[0].key & gained[0].key:
        return False  # "$200 million" / "200 million USD": the same amount in other words
    return [sp.key for sp in a.spans if sp is not lost[0]] == [sp.key for sp in b.spans if sp is not gained[0]] \
        and [sp.opener for sp in a.spans] == [sp.opener for sp in b.spans]


def _same_type(a: Frame, b: Frame, lost: list[Span], gained: list[Span]) -> bool:
    """"employed by Tidewater Health" / "works for Northwind Robotics": two organisations (or two people
    by title) in one place of the sentence, the value's type says the attribute where the verbs differ."""
    if len(lost) != 1 or len(gained) != 1:
        return False
    kind, other = _name_type(lost[0], a), _name_type(gained[0], b)
    if kind in ("organisation", "person") and kind == other:
        return True
    # "Our parrot is called Otto" / "Our parrot goes by Miso": one name for one name, nothing else new
    return lost[0].kind == gained[0].kind == "name" and kind is None and other is None \
        and all(w[:1].isupper() for sp in (lost[0], gained[0]) for w in sp.text.split()) \
        and not lost[0].key & gained[0].key


def _survives(span: Span, other: Frame) -> bool:
    return span.key <= _kept(other)


def _kept(read: Frame) -> frozenset[str]:
    return read.kept


def _one_slot_after_verb(a: Frame, b: Frame) -> bool:
    """Both texts built alike ("uses master as its default branch" / "uses trunk as its default
    branch"): the same verbs and openers span for span, one span after the verb differing. That span
    is the value; a rewording of the attribute changes the build or the part before the verb."""
    if len(a.spans) != len(b.spans) or a.verb_at is None or a.verb_at != b.verb_at:
        return False
    differing = []
    for k, (x, y) in enumerate(zip(a.spans, b.spans)):
        if x.verb != y.verb or x.opener != y.opener or (x.verb and x.key != y.key):
            return False
        if x.key != y.key:
            differing.append(k)
    # a value replaced whole: "master" / "trunk", not "responsible for X" / "the machine for X"
    return len(differing) == 1 and differing[0] >= a.verb_at \
        and not a.spans[differing[0]].key & b.spans[differing[0]].key


def _shared_subject(a: Frame, b: Frame) -> Span | None:
    """The subject both texts are about: one's subject found whole in the other; else, when both name
    it as "the <attribute> of <thing>" ("Disk size of the backup volume" / "Capacity of the backup
    volume"), the thing."""
    assert a.subject is not None and b.subject is not None
    if _owner_only_in_one(a, b) or _owner_only_in_one(b, a):
        return None
    if _survives(a.subject, b):
        return a.subject
    if _survives(b.subject, a):
        return b.subject
    for sp in (owned(a.subject), owned(b.subject)):
        if sp is not None and _survives(sp, a) and _survives(sp, b):
            return sp
    return None


# Where a text's first clause ends: a semicolon, a sentence's end, a dash between clauses.
_CLAUSE_BREAK = re.compile(r";|[.!?]\s+(?=[A-Z0-9])|\s[—–]\s")


def _mentioned_in_passing(x: Frame, y: Frame, y_text: str) -> bool:
    """y's first clause is about a thing of its own that x never names; x's subject comes only in a
    later clause: "Maya prefers reviews before 11:00" / "The agent proposed a new schedule; Maya
    accepted". What y says there is not a new value of x's attribute."""
    assert x.subject is not None and y.subject is not None
    first_clause = _CLAUSE_BREAK.split(y_text, maxsplit=1)[0]
    if len(first_clause) == len(y_text) or _survives(y.subject, x) or not _survives(x.subject, y):
        return False
    return not _survives(x.subject, frame(first_clause))


def _one_word_swapped(a: Frame, b: Frame) -> bool:
    """Span for span alike but one span each read as a verb, which differs whole, and neither is a
    verb facts are built on: "runs" / "lives" / "is hosted" in a place say one thing; "review changes"
    / "review designs" are two things misread as verbs."""
    if len(a.spans) != len(b.spans):
        return False
    differing = [(x, y) for x, y in zip(a.spans, b.spans) if x.key != y.key or x.opener != y.opener]
    if len(differing) != 1:
        return False
    x, y = differing[0]
    return x.verb and y.verb and not x.key & y.key and not (x.key | y.key) & PREDICATE_VERBS


def _other_times(a: Frame, b: Frame) -> bool:
    """Both say when or how often, in words the other lacks."""
    times_a = {lemma for sp in a.spans if sp.temporal for lemma in sp.lemmas}
    times_b = {lemma for sp in b.spans if sp.temporal for lemma in sp.lemmas}
    return bool(times_a - b.lemmas) and bool(times_b - a.lemmas)


def _owner_only_in_one(a: Frame, b: Frame) -> bool:
    """"My sister's cat" / "my cat": a's subject owns what follows it and is not in b, so b's thing,
    however alike, is someone else's."""
    assert a.subject is not None
    return a.possessor and not _survives(a.subject, b)


def _attributes(read: Frame, subject: Span) -> frozenset[str]:
    """The words that name the attribute around the subject: "disk size" in "the disk size of X"."""
    return frozenset(lemma for sp in read.spans if not sp.verb and subject.key < sp.key
                     for lemma in sp.key - subject.key)


def _values(read: Frame, subject: Span) -> list[Span]:
    """The spans that may hold the attribute's value: not the subject, not a phrase holding the subject
    ("the default branch of the docs repo" names the attribute of the subject), not the value said gone."""
    return [sp for sp in read.spans if _value_like(sp) and sp is not read.replaced
            and not sp.key <= subject.key and not subject.key < sp.key]


# The classifier reads each close pair up to twice (a changed value, then a restatement): cached.
@lru_cache(maxsize=8192)
def compare(stored: str, incoming: str) -> FrameContrast:
    """Read ``incoming`` against ``stored``: another subject, a changed value, the same fact, or unsure."""
    a, b = frame(stored), frame(incoming)
    if a.subject is None or b.subject is None:
        return FrameContrast(None, False, "no subject")
    one_thing = a.definite and b.definite  # "a man" / "two dogs" may be anyone: nothing is said of one thing
    subject = _shared_subject(a, b)
    if subject is not None and (_mentioned_in_passing(a, b, incoming) or _mentioned_in_passing(b, a, stored)):
        return FrameContrast(None, b.newer and not a.newer, "one text is about something else and only mentions "
                                                          f"'{subject.text}'")
    if subject is None and one_thing:
        return FrameContrast("distinct", False, f"about another subject: '{a.subject.text}' / '{b.subject.text}'")
    if subject is None:
        return FrameContrast(None, False, "other subjects, neither one thing")
    return replace(_values_read(a, b, subject, one_thing), one_subject=one_thing)


def _values_read(a: Frame, b: Frame, subject: Span, one_thing: bool) -> FrameContrast:
    """Both texts about ``subject``: what their values and wording say."""
    if a.negated != b.negated:
        return FrameContrast(None, False, "negation")
    values_a, values_b = _values(a, subject), _values(b, subject)
    lost = [sp for sp in values_a if not _survives(sp, b)]
    gained = [sp for sp in values_b if not _survives(sp, a)]
    newer = b.newer and not a.newer
    shared_predicate = bool({l for sp in a.spans if sp.verb for l in sp.lemmas} &
                            {l for sp in b.spans if sp.verb for l in sp.lemmas})
    if lost and gained:
        if len(lost) > 1 and any(x.label and x.label == y.label for x in lost for y in gained):
            # "build 4312 took 35 s" / "build 4313 took 41 s": two numbered things, each with its value
            return FrameContrast("distinct", False, "another numbered thing, with values of its own")
        if all(sp.kind == "identifier" for sp in lost + gained):
            # "Aiko owns ticket OPS-4821" / "Aiko owns bug #5519": two tickets, each with its owner
            return FrameContrast("distinct", False, "other identified things")
    if not one_thing:
        return FrameContrast(None, newer, "subject not one thing")
    # The value mostly closes the sentence; when both closing spans are kept and no name, number or
    # date went, the words that differ say the attribute ("employer" / "has a job"), not its value.
    kept_value = bool(values_a and values_b) and values_a[-1] not in lost and values_b[-1] not in gained
    names_kept = any(sp.anchored for sp in values_a)
    new_names = any(sp.anchors - _kept(b) for sp in lost) or any(sp.anchors - _kept(a) for sp in gained)
    if lost and gained and (kept_value or names_kept) and not new_names and not _one_slot_after_verb(a, b):
        if any(x.key & y.key for x in lost for y in gained):
            # "every code editor" / "every text editor": one thing told apart by a word, not reworded
            return FrameContrast(None, newer, "a word of a kept value changed")
        return FrameContrast("same", newer, "same values, the attribute in other words")
    attribute_a, attribute_b = _attributes(a, subject), _attributes(b, subject)
    if lost and gained and attribute_a and attribute_b and not attribute_a & attribute_b \
            and not ({sp.kind for sp in lost} == {sp.kind for sp in gained} <= {"money", "time", "number"}):
        # "Status of X: paused" / "Owner of X: Priya": two attributes named, no word in common
        return FrameContrast(None, newer, "other attributes named")
    if lost and gained and all(x.owner and any(x.owner == y.owner for y in gained) for x in lost):
        # "responsible for the spare parts" / "the place for the spare parts": one thing, other words
        return FrameContrast(None, newer, "the same thing, said with another head word")
    if lost and gained and _other_roles(lost, gained):
        # "works in EST" / "works at Lumen Logistics", "lives in Lisbon" / "is employed by Corvid": the
        # preposition says what the value is (a place, an employer, an agent): another attribute
        return FrameContrast(None, newer, "values in other roles")
    if lost and gained and _other_types(a, b, lost, gained):
        return FrameContrast(None, newer, "names of other types (an organisation, a person, a place)")
    if lost and gained:
        if _other_sorts({sp.kind for sp in lost}, {sp.kind for sp in gained}):
            # "due on March 14" / "a budget of $12,000" / "paused": values of other sorts, other attributes
            return FrameContrast(None, newer, "values of other sorts")
        if not (shared_predicate or newer) and (len(lost) > 1 or len(gained) > 1) and _sorts(lost) != _sorts(gained):
            # "handles a peak of forty thousand events" / "batches events and flushes them to PostgreSQL":
            # another statement about the subject, not one value replaced
            return FrameContrast(None, newer, "several parts differ")
        return FrameContrast("changed", newer, f"'{lost[0].text}' -> '{gained[0].text}'",
                             shared_predicate or _same_build(a, b, lost, gained) or _same_type(a, b, lost, gained))
    if new_names:
        return FrameContrast(None, newer, "a name, number or date only one has")
    if _one_word_swapped(a, b):
        # "The interns review changes weekly" / "... designs weekly": the one word that differs was
        # read as a verb, but a sentence built alike with one word swapped says another thing
        return FrameContrast(None, newer, "one word swapped in a sentence built alike")
    if _other_times(a, b):
        # "once a fortnight" / "once a week": how often or when is the value of a schedule
        return FrameContrast(None, newer, "said of another time")
    if not gained and not lost:
        return FrameContrast("same", newer, "same spans")
    return FrameContrast("same", newer, "same values, other words")
