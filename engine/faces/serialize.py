"""The one JSON shape of everything a face returns: CLI ``--json``, HTTP bodies and MCP results.

Each face builds its answer here, so ``absorb --json``, ``POST /absorb`` and the MCP tool
``memory_absorb`` return the same keys. Engine objects carry their field-level ``to_dict``;
this module decides the envelopes (``{"results": ...}``, graph answers, timelines, lists).
"""

from __future__ import annotations

from typing import Any, Iterable

from engine import (AbstractReport, ChangeRecord, Contradiction, Edge, Fact, GraphPath, Hit, JournalEntry, Match,
                    Neighbor, Plan, PlanSummary, Profile, ProfileFile, ProfileVersion, Reading, Replay, Snapshot,
                    Timing, Verification, format_time)

Json = dict[str, Any]


def plan(value: Plan) -> Json:
    return value.to_dict()


def plans(values: Iterable[PlanSummary]) -> list[Json]:
    return [p.to_dict() for p in values]


def hits(values: Iterable[Hit], timing: Timing | None = None) -> Json:
    answer: Json = {"results": [h.to_dict() for h in values]}
    if timing is not None:
        answer["timing"] = timing.to_dict()
    return answer


def batch_line(qid: Any, values: Iterable[Hit] | None = None, error: str | None = None,
               timing: Timing | None = None) -> Json:
    """One line of ``search --batch``: the query's id with its hits and timing, or with its error."""
    return {"qid": qid, "error": error} if error is not None else {"qid": qid, **hits(values or [], timing)}


def reading(value: Reading) -> Json:
    return value.to_dict()


def journal(entries: Iterable[JournalEntry]) -> list[Json]:
    return [e.to_dict() for e in entries]


def journal_entry(entry: JournalEntry) -> Json:
    return entry.to_dict()


def changes(value: ChangeRecord | None) -> Json | None:
    return None if value is None else value.to_dict()


def fact_brief(fact: Fact) -> Json:
    return {"id": fact.id, "text": fact.text, "status": fact.status, "created_at": format_time(fact.created_at)}


def contradictions(values: Iterable[Contradiction]) -> Json:
    return {"contradictions": [{"left": fact_brief(c.left), "right": fact_brief(c.right),
                                "since": format_time(c.since)} for c in values]}


def edges(values: Iterable[Edge]) -> Json:
    return {"edges": [e.to_dict() for e in values]}


def replay(value: Replay) -> Json:
    """``timeline ID [--as-of T]``: versions oldest first, the id current at T, open pairs at T."""
    return {"fact_id": value.fact_id, "as_of": format_time(value.when), "current": value.current,
            "versions": [{**fact_brief(value.facts[v]), "status_then": value.statuses.get(v)}
                         for v in value.versions],
            "open_contradictions": [list(pair) for pair in value.open_contradictions]}


def neighbors(name: str, hops: int, found: Iterable[Neighbor]) -> Json:
    return {"entity": name, "hops": hops, "neighbors": [n.to_dict() for n in found]}


def matches(start: str, steps: list[str], found: Iterable[Match]) -> Json:
    return {"start": start, "steps": steps, "matches": [m.to_dict() for m in found]}


def path(a: str, b: str, found: GraphPath | None) -> Json:
    return {"a": a, "b": b, "path": None if found is None else found.to_dict()}


def abstract_report(report: AbstractReport) -> Json:
    return report.to_dict()  # its "plan" is Plan.to_dict: the same plan shape as everywhere


def profile(value: Profile) -> Json:
    return {**value.to_dict(), "changes": changes(value.changes)}


def profile_file(value: ProfileFile) -> Json:
    return value.to_dict()


def profile_versions(values: Iterable[ProfileVersion]) -> list[Json]:
    return [v.to_dict() for v in values]


def snapshot(value: Snapshot) -> Json:
    return value.to_dict()


def verification(value: Verification) -> Json:
    return value.to_dict()


def stats(values: Json) -> Json:
    return values
