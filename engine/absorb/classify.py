"""The heuristic absorb classifier (DESIGN §3, step 6).

One incoming fact against its candidates gets exactly one outcome:
duplicate, supersede, contradict, related or new. A candidate is either an
active fact in the store or an earlier item of the same batch, so a batch
that holds three versions of a fact chains them in order.

Cosine finds the candidates; what the two texts differ in decides
(``text_contrast``). A contradiction is a near copy that flips one thing
(negation, a stance opposite, a number); a duplicate is a near copy that
differs in nothing that carries a fact: no content word only one side has,
the same word order (so "a dog licks a baby" is not "a baby licks a dog"), no
identifier, number, date or name of its own. Anything else close is
``related``: when unsure, both texts stay. Thresholds were calibrated on
held-out folds of rated sentence pairs (``python -m benchmarks.nli``).
A decision says whether it is ``certain``; an LLM, when configured, is asked
only about the uncertain ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from engine.absorb.conflict import conflict_cue, cue_of, difference
from engine.absorb.frame_contrast import FrameContrast, compare
from engine.absorb.frames import NEWER_WORDS, Frame, frame, lemmas_by_part_of_speech
from engine.absorb.item_names import item_name
from engine.absorb.pair_features import differing_words, joins_clauses, opens_with_anyone
from engine.absorb.pair_model import probabilities
from engine.absorb.text_contrast import NEGATORS, contrast
from engine.absorb.validation import Incoming
from engine.config import MemorySettings
from engine.store.records import normalise_text


class SpanMeasure(Protocol):
    def cosine(self, stored: str, incoming: str) -> float: ...


@dataclass(frozen=True)
class Candidate:
    """Something an incoming fact may match: a stored fact (``fact_id``) or a batch item (``index``)."""
    text: str
    scope: str
    cosine: float
    fact_id: int | None = None
    index: int | None = None
    line: int | None = None  # the input line of a batch item read from a file
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    # Measures how alike the words only one of two texts has are (``span_similarity``), asked only
    # when the pair model reads this candidate; None (a caller without an embedder): not asked.
    spans: SpanMeasure | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"fact {self.fact_id}" if self.fact_id is not None else item_name(self.index or 0, self.line)


@dataclass(frozen=True)
class Decision:
    outcome: str
    target: Candidate | None
    similarity: float | None
    decided_by: str
    reason: str
    certain: bool = False  # the heuristic's rules leave no doubt; an LLM is not asked


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and normalise_text(a) == normalise_text(b)


def same_key(a: Incoming, b: Incoming) -> bool:
    """Both carry a triple with the same subject and predicate (their objects may differ)."""
    return _same(a.subject, b.subject) and _same(a.predicate, b.predicate)


def _by_triple(item: Incoming, candidates: list[Candidate]) -> Decision | None:
    if item.subject is None:
        return None
    for cand in candidates:
        if not (_same(cand.subject, item.subject) and _same(cand.predicate, item.predicate)):
            continue
        if _same(cand.object, item.object):
            return Decision("duplicate", cand, cand.cosine, "heuristic",
                            f"same subject, predicate and object as {cand.label}", certain=True)
        return Decision("supersede", cand, cand.cosine, "heuristic",
                        f"new value for '{item.subject} / {item.predicate}': was '{cand.object}' in {cand.label}",
                        certain=True)
    return None


def _frames(item: Incoming, candidates: list[Candidate], floor: float) -> list[tuple[Candidate, FrameContrast]]:
    return [(cand, compare(cand.text, item.text)) for cand in sorted(candidates, key=lambda c: -c.cosine)
            if cand.cosine >= floor]


# Words that say how a fact stands, not what it says: "no longer", "now", "since", "not".
_MARKERS = NEWER_WORDS | NEGATORS | {"long", "longer", "more", "anymore"}
_REPLACED = re.compile(r"\b(?:no longer|instead|any ?more|switched from|moved from|replaced)\b", re.IGNORECASE)


def _says_replaced(text: str) -> bool:
    return bool(_REPLACED.search(text)) or frame(text).replaced is not None


def one_value_apart(stored: str, incoming: str, limits: MemorySettings) -> bool:
    """A changed value, or the same one in other words, leaves the rest said alike: on at least one
    side at most ``change_max_apart`` content words are its own (the value, maybe a word of the
    attribute), and at most ``change_max_differing`` on both sides together.
    Two statements about a person from a conversation ("Melanie values family time and finds it
    special" / "Melanie values special moments with her kids and is grateful") differ in many on
    both sides: another thing said, not a value replaced, nor the same fact restated (a duplicate
    would drop the incoming text)."""
    lost, gained = (len(set(words.split()) - _MARKERS) for words in differing_words(stored, incoming))
    # An update that says the old value is gone often names it too ("no longer runs the old job; it
    # runs the load tests"). "Recently", "since" and "now" do not earn that: in a conversation's notes
    # they date an event ("recently took a writing class", "since childhood"), not a replaced value.
    allowed = limits.change_max_differing + (2 if _says_replaced(incoming) else 0)
    return min(lost, gained) <= limits.change_max_apart and lost + gained <= allowed


def _changed(item: Incoming, candidates: list[Candidate], limits: MemorySettings) -> Decision | None:
    """The nearest candidate whose frame is the incoming one's with another value: the same subject
    and attribute, a new value. Newer wording ("now", "moved to", "since ...") supersedes it."""
    for cand, read in _frames(item, candidates, limits.change_threshold):
        if read.verdict != "changed" or not one_value_apart(cand.text, item.text, limits):
            continue
        if not read.shared_predicate and cand.cosine < (limits.change_reworded_threshold if read.newer
                                                        else limits.contradict_reworded_threshold):
            continue
        if read.newer:
            return Decision("supersede", cand, cand.cosine, "heuristic",
                            f"a newer value than {cand.label} ({read.why})", certain=True)
        cue = conflict_cue(item.text, cand.text)
        return Decision("contradict", cand, cand.cosine, "heuristic",
                        f"disagrees with {cand.label} ({read.why}{'; ' + cue if cue else ''}), "
                        f"similarity {cand.cosine:.2f}", certain=True)
    return None


def by_pair_model(item: Incoming, candidates: list[Candidate], limits: MemorySettings) -> Decision | None:
    """The pair model on the close candidates the frame reading left undecided. Never on "another
    subject" (a numbered or identified other thing stays apart whatever the model says), never on a
    scene of anyone or on a text that joins several statements.

    * A change the incoming text says is newer ("now", "moved to", "since ...", "has started ...",
      said of the texts themselves, not of a reading that gave up) supersedes at
      ``pair_change_probability``.
    * A plain disagreement contradicts at ``pair_disagree_probability``, and only where the frame
      reading found one thing both texts are about and each text names something (a name, number,
      identifier or date) with one verb: a standing fact about a known thing. Without those gates the
      model also called rated captions and headlines ("Men are sawing logs" / "Men are cutting
      wood", "... kills 10 Afghan civilians" / "... kills 5 Afghan policemen") and a conversation's
      notes one changed value; a caption names nothing, a headline's subject is rarely read as one
      thing and a note joins two verbs, so they stay ``related``."""
    incoming = frame(item.text)
    if incoming.scene or opens_with_anyone(item.text) or joins_clauses(item.text):
        return None
    for cand, read in _frames(item, candidates, limits.pair_floor):
        if cand.spans is None or read.verdict == "distinct":
            continue
        stored = frame(cand.text)
        newer = read.newer or (incoming.newer and not stored.newer)
        # cheapest first: the model is asked only about pairs one of its two paths may take
        if not (newer or _a_known_thing(read, cand.text, item.text)) or stored.scene \
                or opens_with_anyone(cand.text) or joins_clauses(cand.text) \
                or not one_value_apart(cand.text, item.text, limits):
            continue
        odds = probabilities(cand.text, item.text, cand.cosine, cand.spans.cosine(cand.text, item.text))
        if newer and odds["changed"] >= limits.pair_change_probability:
            return Decision("supersede", cand, cand.cosine, "model",
                            f"a newer value than {cand.label} (pair model {odds['changed']:.2f})", certain=True)
        if not newer and odds["changed"] >= limits.pair_disagree_probability:
            return Decision("contradict", cand, cand.cosine, "model",
                            f"disagrees with {cand.label} about {_subject_of(stored)} "
                            f"(pair model {odds['changed']:.2f})", certain=True)
    return None


def _a_known_thing(read: FrameContrast, stored: str, incoming: str) -> bool:
    """Both texts about one thing the frame reading found, each naming something, with one verb, and
    about the same attribute of it where one says whose it is.
    A note of a conversation says two things with two verbs ("Gina supports Jon's studio and
    expresses excitement"); of nine such notes the model called a disagreement, seven had two."""
    if not read.one_subject or _owned_attribute(frame(stored)) != _owned_attribute(frame(incoming)):
        return False
    return all(any(sp.anchored for sp in frame(text).spans) and not _two_predicates(text) for text in (stored, incoming))


def _owned_attribute(read: Frame) -> frozenset[str] | None:
    """What of its owner a possessive fact is about: "manager" in "Lena's manager is Dana". Two such
    facts about other attributes ("Lena's mentor is Felix", "Lena's dog is Otto") are two facts, and
    one with an attribute is not comparable to one without ("Ines trains at Iron Temple")."""
    if not read.possessor or read.subject is None:
        return None
    at = next((k for k, sp in enumerate(read.spans) if sp is read.subject), None)
    owned = read.spans[at + 1] if at is not None and at + 1 < len(read.spans) else None
    return owned.key if owned is not None and not owned.verb else frozenset()


# "... and expresses excitement", "... but loved it": a second verb joined to the first. A word in -s
# may be a plural noun closing a list ("cats and dogs."), so it counts only when more words follow.
_JOINED_VERB = re.compile(r"\b(?:and|but)\s+(\w+)(\s+\w)?", re.IGNORECASE)


def _two_predicates(text: str) -> bool:
    if sum(sp.verb for sp in frame(text).spans) > 1:
        return True
    for match in _JOINED_VERB.finditer(text):
        word, more = match.group(1).lower(), match.group(2)
        if "VERB" in lemmas_by_part_of_speech(word) and (word.endswith("ed") or word.endswith("s") and more):
            return True
    return False


def _subject_of(read: Frame) -> str:
    return f"'{read.subject.text}'" if read.subject is not None else "the same thing"


def restatement_blocked(a: str, b: str) -> bool:
    """A negation, an opposite ("likes" / "dislikes") or a number only one has: never the same fact."""
    c = contrast(a, b)
    return cue_of(c) is not None or c.antonyms is not None


def _newer_words(read: FrameContrast, stored: str, incoming: str) -> bool:
    """Said to be newer, with a word of its own where the stored text has another: "These days Ines
    prefers window seats" after "... aisle seats" is an update the frame reading misparsed, and a
    duplicate would keep the old value and drop the new one. Another reading (related, the model)
    loses nothing."""
    if not read.newer:
        return False
    lost, gained = differing_words(stored, incoming)
    return bool(lost) and bool(gained)


def _by_frame(item: Incoming, candidates: list[Candidate], limits: MemorySettings) -> tuple[Decision | None,
                                                                                               list[Candidate]]:
    """A restatement (the same subject and values in other words) and the candidates about another subject."""
    distinct = []
    for cand, read in _frames(item, candidates, limits.related_threshold):
        if read.verdict == "distinct":
            distinct.append(cand)
        elif read.verdict == "same" and cand.cosine >= limits.restate_threshold \
                and not restatement_blocked(item.text, cand.text) and not _newer_words(read, cand.text, item.text) \
                and one_value_apart(cand.text, item.text, limits):
            return Decision("duplicate", cand, cand.cosine, "heuristic",
                            f"says the same as {cand.label} in other words (similarity {cand.cosine:.2f})",
                            certain=True), distinct
    return None, distinct


def near_copy(a: str, b: str, limits: MemorySettings) -> bool:
    """``a`` and ``b`` say the same: same content words (up to ``duplicate_max_apart``), same order, no cue."""
    c = contrast(a, b)
    return (c.residual <= limits.duplicate_max_apart and c.order >= limits.duplicate_min_order
            and difference(a, b) is None)


def classify(item: Incoming, candidates: list[Candidate], limits: MemorySettings) -> Decision:
    """Pick the outcome; ``candidates`` must hold triple matches and the nearest facts by cosine."""
    by_triple = _by_triple(item, candidates)
    if by_triple:
        return by_triple
    close = sorted((c for c in candidates if c.cosine >= limits.related_threshold),
                   key=lambda c: (c.scope != item.scope, -c.cosine))
    changed = _changed(item, candidates, limits)
    if changed:
        return changed
    by_frame, distinct = _by_frame(item, candidates, limits)
    if by_frame:
        return by_frame
    by_model = by_pair_model(item, candidates, limits)
    if by_model and by_model.outcome == "supersede":
        return by_model
    if not close:
        best = max((c.cosine for c in candidates), default=None)
        return Decision("new", None, best, "heuristic", "no close fact" if best is None
                        else f"nearest fact only {best:.2f} similar", certain=True)
    for cand in sorted(close, key=lambda c: -c.cosine):
        if cand.cosine < limits.contradict_threshold:
            break
        if cand in distinct:
            continue  # "build server 12" / "build server 13": two things, whatever number follows
        cue = conflict_cue(item.text, cand.text, max_apart=limits.contradict_max_apart)
        if cue:
            return Decision("contradict", cand, cand.cosine, "heuristic",
                            f"disagrees with {cand.label} ({cue}), similarity {cand.cosine:.2f}", certain=True)
    if by_model:
        return by_model  # a disagreement the model found; the rules' own, above, say what differs
    for cand in close:
        if cand.cosine >= limits.duplicate_threshold and near_copy(item.text, cand.text, limits):
            return Decision("duplicate", cand, cand.cosine, "heuristic",
                            f"says the same as {cand.label} (similarity {cand.cosine:.2f})", certain=True)
    best = close[0]
    why = difference(item.text, best.text)
    return Decision("related", best, best.cosine, "heuristic",
                    f"close to {best.label} (similarity {best.cosine:.2f}) but says something else"
                    + (f": {why}" if why else ""))
