"""gc (DESIGN §7), three stages, each item labelled with its stage.

1. ``ttl``: active facts past their ``expires_at`` are expired.
2. ``stale``: active ``run`` facts nobody ever read (access_count 0) and not
   reinforced for ``[gc] stale_run_days`` are archived.
3. ``compact``: a scope/tag group (per session for ``run`` facts) holding more
   than ``[gc] group_limit`` active facts has its least important, oldest
   members folded into summary records of up to ``summary_size`` members each.
   A summary is a new ``derived`` fact quoting its members (clipped to fit
   the text cap), with a ``summarises`` edge to each; the members are archived
   with the summary (never without it). Just enough members are compacted to
   bring the group, summaries included, back to the limit, so a second run
   finds nothing to do.

A fact is retired by at most one stage.
"""

from __future__ import annotations

import math
import sqlite3

from engine.clock import SECONDS_PER_DAY, format_time
from engine.config import GCSettings, MemorySettings
from engine.errors import MemLensError
from engine.housekeeping.common import ItemMaker, days_text
from engine.store.facts_read import active_rows
from engine.store.plans import PlanItem
from engine.store.records import stored_list
from engine.absorb.secrets import first_secret


def _check(settings: GCSettings) -> None:
    if settings.group_limit < 2 or settings.summary_size < 2 or settings.stale_run_days < 1:
        raise MemLensError("config: [gc] group_limit and summary_size must be at least 2, stale_run_days at least 1")


def gc(db: sqlite3.Connection, settings: GCSettings, limits: MemorySettings, now: float) -> list[PlanItem]:
    _check(settings)
    maker = ItemMaker.start("gc")
    for row in active_rows(db, "expires_at", "expires_at IS NOT NULL AND expires_at <= ?", [now]):
        maker.retire("expire", row["id"], f"expired {format_time(row['expires_at'])} "
                                          f"({days_text(now - row['expires_at'])} ago)", stage="ttl",
                     before={"expires_at": row["expires_at"]})
    cutoff = now - settings.stale_run_days * SECONDS_PER_DAY
    for row in active_rows(db, "last_reinforced, session_id",
                           "scope = 'run' AND access_count = 0 AND last_reinforced <= ?", [cutoff]):
        maker.retire("archive", row["id"], f"run fact of session {row['session_id']}, never read, untouched for "
                                           f"{days_text(now - row['last_reinforced'])}", stage="stale",
                     before={"access_count": 0, "last_reinforced": row["last_reinforced"]})
    _compact(db, maker, settings, limits)
    return maker.items


def _groups(db: sqlite3.Connection, taken: set[int]) -> dict[tuple[str, str, str | None], list[sqlite3.Row]]:
    groups: dict[tuple[str, str, str | None], list[sqlite3.Row]] = {}
    for row in active_rows(db, "text, scope, tags, session_id, importance, last_reinforced, created_at",
                           "tags != '[]'"):
        if row["id"] in taken:
            continue
        for tag in stored_list(row["tags"], "tags") or []:  # damaged tags: in no group
            session = row["session_id"] if row["scope"] == "run" else None
            groups.setdefault((row["scope"], tag, session), []).append(row)
    return groups


def _to_compact(size: int, limit: int, per_summary: int) -> int:
    """The fewest members to fold so that members left plus summaries made fit the limit."""
    for k in range(2, size + 1):
        if size - k + math.ceil(k / per_summary) <= limit:
            return k
    return size


def _compact(db: sqlite3.Connection, maker: ItemMaker, settings: GCSettings, limits: MemorySettings) -> None:
    groups = _groups(db, set(maker.retired))
    # Largest groups first; a fact with several tags is compacted with the first group that takes it.
    for (scope, tag, session), rows in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0][:2])):
        rows = [r for r in rows if r["id"] not in maker.retired]
        if len(rows) <= settings.group_limit:
            continue
        count = _to_compact(len(rows), settings.group_limit, settings.summary_size)
        chosen = sorted(rows, key=lambda r: (r["importance"], r["last_reinforced"], r["id"]))[:count]
        chosen.sort(key=lambda r: (r["created_at"], r["id"]))
        for start in range(0, len(chosen), settings.summary_size):
            _summary(maker, chosen[start:start + settings.summary_size], scope, tag, session, len(rows),
                     settings, limits)


def _summary(maker: ItemMaker, members: list[sqlite3.Row], scope: str, tag: str, session: str | None,
             group_size: int, settings: GCSettings, limits: MemorySettings) -> None:
    if len(members) < 2:
        return  # a "summary" of one fact would only copy it
    first, last = (format_time(members[i]["created_at"])[:10] for i in (0, -1))
    head = f"Summary of {len(members)} {scope} facts tagged '{tag}' ({first} to {last}): "
    budget = max(40, (limits.hard_cap_chars - len(head)) // len(members) - 2)
    quotes = [m["text"] if len(m["text"]) <= budget else m["text"][: budget - 1].rstrip() + "…" for m in members]
    text = (head + "; ".join(quotes))[: limits.hard_cap_chars]
    if first_secret(text):
        return  # two harmless texts side by side can look like a credential; keep the members as they are
    incoming = {"text": text, "scope": scope, "kind": "derived", "tags": [tag],
                "importance": max(m["importance"] for m in members), "source": "gc:compact"}
    if session:
        incoming["session_id"] = session
    reason = (f"group {scope}/'{tag}'{f' (session {session})' if session else ''} holds {group_size} active "
              f"facts, over the limit of {settings.group_limit}: {len(members)} least important, oldest folded")
    summary = maker.add("new", reason, incoming=incoming, stage="compact",
                        edges=[{"type": "summarises", "to_id": m["id"], "to_status": "active"} for m in members])
    for m in members:
        maker.retire("archive", m["id"], f"folded into the summary of item {summary.index}", stage="compact",
                     after=summary.index)
