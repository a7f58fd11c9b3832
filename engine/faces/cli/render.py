"""Text and JSON output of the CLI (one place, shared by every command)."""

from __future__ import annotations

import json
import shutil
import sys
from typing import Any, Iterable

from engine import Fact, Hit, JournalEntry, Plan, PlanSummary, Reading, format_time
from engine.faces import serialize


def emit_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _width() -> int:
    return max(60, shutil.get_terminal_size((120, 20)).columns)


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def clip(text: str) -> str:
    """A fact's text on one line that fits the terminal after a short indent."""
    return _clip(text, _width() - 12)


def _item_detail(it: Any) -> str | None:
    """The second line of an item: its text, or what a link / retag does."""
    if it.incoming and it.outcome != "rejected":
        return f"“{it.incoming['text']}”"
    if it.outcome == "retag":
        return f"tags {', '.join((it.before or {}).get('tags') or []) or '(none)'} -> {', '.join(it.tags or []) or '(none)'}"
    if it.outcome == "link":
        source = it.fact_id if it.fact_id is not None else it.target_id
        return "; ".join(f"{source} {e['type']} {e['to_id']}" for e in it.edges)
    return None


def plan_text(plan: Plan, dry_run: bool) -> None:
    counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(plan.counts().items()))
    state = {"draft": "dry run, nothing written" if dry_run else "draft",
             "applied": "applied", "refused": "refused", "discarded": "discarded"}.get(plan.status, plan.status)
    if plan.partly_applied:
        state = f"partly applied: items {', '.join(map(str, plan.applied_indexes))}"
    if plan.reverted_by is not None:
        state += f", reverted by plan {plan.reverted_by}"
    print(f"plan {plan.id if plan.id is not None else '-'} ({plan.kind}, {state}): {len(plan.items)} items: {counts}")
    for problem in plan.damaged:
        print(f"  damaged: {problem}")
    width = _width() - 58
    print(f"  {'#':>3}  {'outcome':<10} {'fact':>6} {'target':>7} {'sim':>5}  {'by':<10} reason / text")
    for it in plan.items:
        target = it.target_id if it.target_id is not None else (
            f"#{it.target_index}" if it.target_index is not None else
            f"#{it.merged_into}" if it.merged_into is not None else "-")
        sim = "-" if it.similarity is None else f"{it.similarity:.2f}"
        fact = "-" if it.fact_id is None else it.fact_id
        stage = f"[{it.stage}] " if it.stage else ""
        skipped = "(not applied) " if plan.partly_applied and it.index not in plan.applied_indexes else ""
        print(f"  {it.index:>3}  {it.outcome:<10} {fact:>6} {target:>7} {sim:>5}  {it.decided_by:<10} "
              f"{_clip(skipped + stage + it.reason, width)}")
        if detail := _item_detail(it):
            print(f"  {'':>3}  {'':<10} {'':>6} {'':>7} {'':>5}  {'':<10} {_clip(detail, width)}")
        if it.edges and it.outcome != "link":
            links = ", ".join(f"{e['type']} {e['to_id']}" for e in it.edges)
            print(f"  {'':>3}  {'':<10} {'':>6} {'':>7} {'':>5}  {'':<10} {_clip('+ edges: ' + links, width)}")
        for warning in it.warnings:
            print(f"  {'':>3}  warning: {warning}")
    if plan.status == "draft" and plan.id is not None:
        print(f"apply with: memlens plan apply {plan.id}   (or --only 0,2 for some items)")
    if plan.note:
        print(f"note: {plan.note}")


def search_results(hits: list[Hit], as_json: bool, timing: Any = None) -> None:
    if as_json:
        emit_json(serialize.hits(hits, timing))
        return
    if not hits:
        print("no results")
        return
    width = _width() - 62
    print(f"{'id':>6} {'score':>6} {'cos':>5} {'bm25':>5} {'fresh':>5} {'conf':>5}  {'scope':<5} {'kind':<15} text")
    for h in hits:
        f = h.fact
        print(f"{f.id:>6} {h.score:6.3f} {h.cosine:5.2f} {h.bm25:5.2f} {h.freshness:5.2f} "
              f"{h.effective_confidence:5.2f}  {f.scope:<5} {f.kind:<15} {_clip(f.text, width)}")
    if timing is not None:
        reordered = "" if timing.rerank_ms is None else f", cross-encoder {timing.rerank_ms:.1f} ms"
        print(f"({len(hits)} hits; embedding the query {timing.embed_ms:.1f} ms, search {timing.search_ms:.1f} ms"
              f"{reordered}, total {timing.total_ms:.1f} ms)")


_LINE_BREAKS = str.maketrans({ch: f"\\x{ord(ch):02x}" for ch in (*map(chr, range(32)), "\x7f", "\x85")}
                             | {"\u2028": "\\u2028", "\u2029": "\\u2029"})


def _one_line(value: object) -> str:
    """A single-line field as it is printed: a line break a file holds from before it was refused
    (or written by hand) is shown escaped, so it cannot forge the report's next lines."""
    return str(value).translate(_LINE_BREAKS)


def _fact_lines(fact: Fact) -> Iterable[str]:
    yield f"fact {fact.id} [{fact.status}] {fact.scope}/{fact.kind}  created {format_time(fact.created_at)}"
    yield f"  {fact.text}"
    if fact.subject:
        yield f"  triple: {_one_line(fact.subject)} / {_one_line(fact.predicate)} / {_one_line(fact.object)}"
    yield (f"  confidence {fact.confidence:.2f}, reinforced {fact.reinforcement_count}x "
           f"(last {format_time(fact.last_reinforced)}), accessed {fact.access_count}x")
    if fact.tags:
        yield f"  tags: {', '.join(map(_one_line, fact.tags))}"
    if fact.sources:
        yield f"  sources: {', '.join(map(_one_line, fact.sources))}"


def reading(result: Reading, as_json: bool) -> None:
    if as_json:
        emit_json(serialize.reading(result))
        return
    if result.message:
        print(result.message)
    if result.mode == "full_history" and len(result.facts) > 1:
        print(f"{len(result.facts)} versions, oldest first:")
    for fact in result.facts:
        print("\n".join(_fact_lines(fact)))
    for edge in result.contradicts:
        print(f"  contradiction: fact {edge['src']} contradicts fact {edge['dst']}")


def journal(entries: list[JournalEntry], as_json: bool) -> None:
    if as_json:
        emit_json(serialize.journal(entries))
        return
    for e in entries:
        target = f"fact {e.fact_id}" if e.fact_id is not None else "-"
        plan = f"plan {e.plan_id}" if e.plan_id is not None else ""
        print(f"{e.id:>6} {format_time(e.at)} {e.actor:<5} {e.action:<10} {target:<10} {plan:<9} "
              f"{json.dumps(e.details, ensure_ascii=False)[:80]}")


def journal_line(entry: JournalEntry, as_json: bool) -> None:
    """One entry as it arrives (``journal --follow``): one JSON line each with ``--json``."""
    if as_json:
        print(json.dumps(serialize.journal_entry(entry), ensure_ascii=False), flush=True)
    else:
        journal([entry], False)
        sys.stdout.flush()


def stats(values: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(serialize.stats(values))
        return
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(values["by_status"].items())) or "empty"
    print(f"{values['path']}: {values['facts']} facts ({by_status}), {values['edges']} edges, "
          f"{values['entities']} entities, {values['plans']} plans; model {values['embedding_model']}"
          + (" (read-only)" if values["read_only"] else ""))
    unusable = [f"{values[k]} {label}" for k, label in (("needs_reembedding", "need embedding with this model"),
                                                         ("damaged_vectors", "have a damaged vector"))
                if values.get(k)]
    if unusable:
        print(f"  search skips facts: {'; '.join(unusable)}")


def plan_list(plans: list[PlanSummary], as_json: bool) -> None:
    if as_json:
        emit_json(serialize.plans(plans))
        return
    if not plans:
        print("no plans")
    for p in plans:
        counts = ", ".join(f"{n} {o}" for o, n in sorted(p.counts.items()))
        undone = f"  (reverted by plan {p.reverted_by})" if p.reverted_by is not None else ""
        damaged = f"  [damaged: {'; '.join(p.damaged)}]" if p.damaged else ""
        print(f"{p.id:>5} {p.kind:<8} {p.status:<9} {format_time(p.created_at)}  {counts}{undone}{damaged}")


def plan_or_json(plan: Plan, as_json: bool, dry_run: bool = False) -> None:
    if as_json:
        emit_json(serialize.plan(plan))
    else:
        plan_text(plan, dry_run)
