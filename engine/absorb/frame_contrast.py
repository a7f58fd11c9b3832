"""Reading two frames against each other: which span differs (see ``frames``) decides whether the
incoming fact is about another thing, a new value of the same attribute, or the same fact again."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.absorb.frames import LIGHT_OBJECTS, Frame, Span, frame


@dataclass(frozen=True)
class FrameContrast:
    """What the two frames differ in; ``verdict`` is ``distinct``, ``changed``, ``same`` or None (unsure)."""
    verdict: str | None
    newer: bool
    why: str
    shared_predicate: bool = False  # both texts use one verb for it ("works at" / "now works at")


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


def _survives(span: Span, other: Frame) -> bool:
    return span.key <= other.lemmas


# The classifier reads each close pair up to twice (a changed value, then a restatement): cached.
@lru_cache(maxsize=8192)
def compare(stored: str, incoming: str) -> FrameContrast:
    """Read ``incoming`` against ``stored``: another subject, a changed value, the same fact, or unsure."""
    a, b = frame(stored), frame(incoming)
    if a.subject is None or b.subject is None:
        return FrameContrast(None, False, "no subject")
    one_thing = a.definite and b.definite  # "a man" / "two dogs" may be anyone: nothing is said of one thing
    if _survives(a.subject, b):
        subject = a.subject
    elif _survives(b.subject, a):
        subject = b.subject
    elif one_thing:
        return FrameContrast("distinct", False, f"about another subject: '{a.subject.text}' / '{b.subject.text}'")
    else:
        return FrameContrast(None, False, "other subjects, neither one thing")
    if a.negated != b.negated:
        return FrameContrast(None, False, "negation")
    values_a = [sp for sp in a.spans if _value_like(sp) and not sp.key <= subject.key]
    values_b = [sp for sp in b.spans if _value_like(sp) and not sp.key <= subject.key]
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
    new_names = any(sp.anchors - b.lemmas for sp in lost) or any(sp.anchors - a.lemmas for sp in gained)
    if lost and gained and (kept_value or names_kept) and not new_names:
        if any(x.key & y.key for x in lost for y in gained):
            # "every code editor" / "every text editor": one thing told apart by a word, not reworded
            return FrameContrast(None, newer, "a word of a kept value changed")
        return FrameContrast("same", newer, "same values, the attribute in other words")
    if lost and gained:
        if _other_sorts({sp.kind for sp in lost}, {sp.kind for sp in gained}):
            # "due on March 14" / "a budget of $12,000" / "paused": values of other sorts, other attributes
            return FrameContrast(None, newer, "values of other sorts")
        if not (shared_predicate or newer) and (len(lost) > 1 or len(gained) > 1) and _sorts(lost) != _sorts(gained):
            # "handles a peak of forty thousand events" / "batches events and flushes them to PostgreSQL":
            # another statement about the subject, not one value replaced
            return FrameContrast(None, newer, "several parts differ")
        return FrameContrast("changed", newer, f"'{lost[0].text}' -> '{gained[0].text}'", shared_predicate)
    if new_names:
        return FrameContrast(None, newer, "a name, number or date only one has")
    if not gained and not lost:
        return FrameContrast("same", newer, "same spans")
    return FrameContrast("same", newer, "same values, other words")
