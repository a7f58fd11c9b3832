"""``memlens consolidate|gc|distill``: housekeeping passes, each a plan (``--dry-run`` keeps it a draft)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.faces.cli.options import add_output_options, add_write_options, whole_number
from engine.faces import serialize
from engine.faces.cli import render


def add_housekeeping(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("consolidate", help="archive facts whose decayed confidence fell below 0.05",
                       description="Archive active facts whose effective (decayed) confidence is below "
                                   "[memory] archive_below. A plan, applied unless --dry-run.")
    _common(p, consolidate)
    p = sub.add_parser("gc", help="expire past-TTL facts, archive stale run facts, compact big tag groups",
                       description="Three labelled stages: ttl (expire facts past their TTL), stale (archive run "
                                   "facts never read and untouched for [gc] stale_run_days), compact (fold the "
                                   "oldest, least important members of scope/tag groups over [gc] group_limit "
                                   "into summary facts). A plan, applied unless --dry-run.")
    _common(p, gc)
    p = sub.add_parser("distill", help="turn run facts of finished sessions into agent knowledge",
                       description="Re-absorb the run facts of finished sessions (idle for [gc] "
                                   "finished_session_hours, or the one given) as agent facts through the absorb "
                                   "pipeline; originals archived with distilled_from edges. Applied unless --dry-run.")
    p.add_argument("--session", metavar="ID", help="distill this session (finished or not)")
    _common(p, distill)
    p = sub.add_parser("abstract", help="derive general facts from clusters of same-subject facts (needs an LLM)",
                       description="Cluster active non-derived facts by subject; each cluster of at least "
                                   "--min-cluster facts gets one LLM call proposing at most 2 derived facts. "
                                   "Without an [llm] configured every cluster is reported skipped and nothing "
                                   "changes. A plan, applied unless --dry-run.")
    p.add_argument("--min-cluster", type=whole_number, default=3, metavar="N", help="smallest cluster to abstract (default 3)")
    _common(p, abstract)


def _common(p: argparse.ArgumentParser, run: Any) -> None:
    add_write_options(p)
    add_output_options(p)
    p.set_defaults(run=run)


def report(plan: Any, args: argparse.Namespace) -> int:
    if args.json:
        render.emit_json(serialize.plan(plan))
    elif not plan.items:
        print(f"{plan.kind}: nothing to do ({plan.note})" if plan.note != "nothing to do" else f"{plan.kind}: nothing to do")
    else:
        render.plan_text(plan, args.dry_run)
    return 0


def abstract(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        report = memory.abstract(min_cluster=args.min_cluster, dry_run=args.dry_run)
    if args.json:
        render.emit_json(serialize.abstract_report(report))
        return 0
    print(f"abstract: {report.summary()}")
    for c in report.clusters:
        print(f"  {c.status:<8} {c.subject} ({len(c.fact_ids)} facts): {c.reason}")
    if report.plan is not None:
        render.plan_text(report.plan, args.dry_run)
    return 0


def consolidate(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        return report(memory.consolidate(dry_run=args.dry_run), args)


def gc(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        return report(memory.gc(dry_run=args.dry_run), args)


def distill(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        return report(memory.distill(session_id=args.session, dry_run=args.dry_run), args)
