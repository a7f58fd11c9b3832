"""Overlapping windows over a tokenised text, so a text longer than a model's window counts in full.

A window is a span of content tokens (no [CLS]/[SEP]) that starts and ends on
word boundaries when it can: the window's text is then cut from the original
string and tokenises back to the same word pieces, because the tokenizer's
pre-tokenizer splits on whitespace and punctuation before the word pieces.
A single word longer than half a window is cut on a token boundary instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Window:
    """Content tokens ``[start, end)`` of one text, and the characters they cover."""

    start: int
    end: int
    char_start: int
    char_end: int

    @property
    def tokens(self) -> int:
        return self.end - self.start


def _word_starts(word_ids: Sequence[int | None]) -> list[bool]:
    return [i == 0 or word_ids[i] is None or word_ids[i] != word_ids[i - 1] for i in range(len(word_ids))]


def spans(word_ids: Sequence[int | None], size: int, overlap: int) -> list[tuple[int, int]]:
    """Token spans of at most ``size`` covering all ``len(word_ids)`` tokens, consecutive ones sharing ~``overlap``.

    The last window is pulled back to end at the last token with a full ``size``
    when the text allows, so no window is a short tail that would weigh as much
    as a full one when windows are averaged.
    """
    if size < 2 or not 0 <= overlap < size // 2:
        raise ValueError(f"window size {size} and overlap {overlap}: need size >= 2 and 0 <= overlap < size/2")
    total = len(word_ids)
    if total <= size:
        return [(0, total)]
    starts = _word_starts(word_ids)
    found: list[tuple[int, int]] = []
    start = 0
    while True:
        if total - start <= size:
            tail = total - size
            while tail < total and not starts[tail] and tail - (total - size) < size // 2:
                tail += 1  # forward: the window must stay within size tokens
            if not starts[tail]:
                tail = total - size
            found.append((max(tail, found[-1][0] + 1), total))  # found is not empty: total > size
            return found
        end = start + size
        while end > start + size // 2 and not starts[end]:
            end -= 1
        if not starts[end]:
            end = start + size  # a word longer than half a window: cut inside it
        found.append((start, end))
        nxt = end - overlap
        while nxt > start + 1 and not starts[nxt]:
            nxt -= 1
        start = nxt if starts[nxt] else end - overlap


def windows(word_ids: Sequence[int | None], offsets: Sequence[tuple[int, int]], size: int,
            overlap: int) -> list[Window]:
    """``spans`` with the character range of each, from the tokenizer's offsets into the original text."""
    return [Window(s, e, offsets[s][0], offsets[e - 1][1]) for s, e in spans(word_ids, size, overlap)] \
        if word_ids else [Window(0, 0, 0, 0)]
