"""Model batches bounded by padded tokens, not by text count.

A transformer's activations grow with batch × longest sequence (and its
attention with batch × sequence²), so a fixed count of 64 texts is harmless for
short facts and gigabytes for long ones. Both are bounded: padded tokens
(count × longest) and attention cells (count × longest²). Sequences are sorted by
length so a batch pads to little more than its own members.
"""

from __future__ import annotations

from typing import Sequence


def plan(lengths: Sequence[int], token_budget: int, max_count: int,
         attention_budget: int | None = None) -> list[list[int]]:
    """Indexes into ``lengths``, grouped so each group's ``count × longest`` stays within ``token_budget``
    and its ``count × longest²`` within ``attention_budget`` (when given).

    A single sequence over a budget gets a batch of its own: it has to run anyway,
    and the caller bounds sequence length separately.
    """
    if token_budget < 1 or max_count < 1 or (attention_budget is not None and attention_budget < 1):
        raise ValueError(f"token budget {token_budget}, attention budget {attention_budget} and max count "
                         f"{max_count} must be positive")
    cells = attention_budget if attention_budget is not None else float("inf")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # Ascending order: the newcomer is the batch's longest, and sets its padded width.
        longest = max(lengths[index], 1)
        count = len(current) + 1
        if current and (count * longest > token_budget or count * longest * longest > cells
                        or len(current) >= max_count):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches
