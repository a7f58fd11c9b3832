"""Whether two close texts disagree, and whether two texts may fold into one fact.

Both questions are answered from ``text_contrast``: what words each text has
that the other lacks. Cosine alone cannot tell "runs 3 replicas" from "runs 5
replicas", nor "branch feature/alpha" from "branch feature/beta".
"""

from __future__ import annotations

from engine.absorb.text_contrast import Contrast, contrast, profile


def _listed(values: frozenset[str]) -> str:
    return ", ".join(sorted(values)[:3])


def cue_of(c: Contrast) -> str | None:
    """The cue a contrast carries ("negation", "antonym: like/dislike", "number: 3 vs 5"), or None."""
    if c.other_subject:
        return None  # "Shelf 0 is full" / "Shelf 1 is empty": two shelves, no disagreement
    if c.negation_flip:
        return "negation"
    if c.stance_flip:
        return f"antonym: {c.antonyms[0]}/{c.antonyms[1]}"  # type: ignore[index]
    if c.number_change:
        return f"number: {_listed(c.numbers[0])} vs {_listed(c.numbers[1])}"
    return None


def conflict_cue(a: str, b: str, max_apart: int | None = None) -> str | None:
    """Why ``a`` and ``b`` disagree, or None.

    With ``max_apart``, a negation or stance flip counts only when at most that
    many other content words differ, and a number change only when nothing else
    does: "the crash killed 19" / "the crash killed at least 26 in Gauteng" are two
    reports, not one value changed (on rated pairs, number changes with other words
    changed were never contradictions).
    """
    c = contrast(a, b)
    cue = cue_of(c)
    if cue is None or max_apart is None:
        return cue
    allowed = 0 if cue.startswith("number") else max_apart
    return cue if c.residual <= allowed else None


def difference(a: str, b: str) -> str | None:
    """What keeps ``a`` and ``b`` from being one fact (a cue, or an identifier, number, date or name), or None."""
    c = contrast(a, b)
    cue = cue_of(c)
    if cue:
        return cue
    if c.other_subject:
        return f"about another subject: {c.other_subject[0]} / {c.other_subject[1]}"
    if c.differs_in_anchor:
        sides = [f"{who} {_listed(words)}" for who, words in (("only one has", c.anchors[0]),
                                                                ("only the other has", c.anchors[1])) if words]
        return "; ".join(sides)
    if c.antonyms:
        return f"antonym: {c.antonyms[0]}/{c.antonyms[1]}"
    return None


def words_covered(part: str, whole: str) -> bool:
    """Every content word of ``part`` is in ``whole``: folding ``part`` into ``whole`` loses no search term."""
    return profile(part).words <= profile(whole).words
