"""What a query-less listing asks the engine for, in one job on the worker: every matching id and
the page of rows the view will show first.

Delivering that page with the ids means the first rows never wait in the worker's queue behind
whatever was queued meanwhile (the entity graph, the file check, the model's load): the listing
job goes first, and nothing else has to follow it before the table can be drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import Hit, Memory, SearchFilters


@dataclass(frozen=True)
class Listing:
    ids: np.ndarray   # every matching id, in the engine's order (an array: the collector never walks it)
    page: int         # the page ``hits`` fills
    hits: list[Hit]
    row: int | None   # the row of the fact asked to stay selected, if it is still listed


def fetch(memory: Memory, filters: SearchFilters, order_by: str, descending: bool, page_size: int,
          row: int = 0, fact_id: int | None = None) -> Listing:
    """The ids in ``order_by`` order and the page holding ``row`` (or, when ``fact_id`` is listed, the
    page holding that fact, wherever the new order put it). Runs on the worker."""
    ids = np.asarray(memory.browse(filters, order_by, descending), dtype=np.int64)
    found = None
    if fact_id is not None:
        at = np.flatnonzero(ids == fact_id)
        found = int(at[0]) if len(at) else None
    target = found if found is not None else min(max(row, 0), max(len(ids) - 1, 0))
    page = target // page_size
    chunk = ids[page * page_size:(page + 1) * page_size].tolist()
    return Listing(ids, page, memory.describe(chunk) if chunk else [], found)
