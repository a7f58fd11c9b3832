"""``memlens fact version|archive|tag|link``, ``contradictions [resolve]``, ``timeline`` and
``plan revert``: the curation acts, each a plan (``--dry-run`` keeps it a draft to review)."""

from __future__ import annotations

import argparse
from typing import Any

from engine import LINK_TYPES, format_time
from engine.faces import serialize
from engine.faces.cli import render
from engine.faces.cli.commands import Context, iso_time, report_plan
from engine.faces.cli.options import add_output_options, add_write_options, whole_number


def _keep(value: str) -> int | str:
    if value == "both":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected one of the two fact ids, or 'both'") from None


def add_curation(sub: argparse._SubParsersAction, parser_class: type[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("fact", help="curate one fact: a new version, archive, tags, a link (each a plan)",
                       description="Curation acts on one fact. Each is a plan, applied unless --dry-run; "
                                   "nothing is ever deleted.")
    acts = p.add_subparsers(dest="act", required=True, metavar="ACT", parser_class=parser_class)
    q = acts.add_parser("version", help="a new version of an active fact (the old one becomes superseded)",
                        description="Write TEXT as the new version of fact ID. It keeps the fact's scope, kind, "
                                    "tags, source, entities and relations.")
    q.add_argument("id", type=whole_number, help="the fact id")
    q.add_argument("text", help="the new text")
    q.add_argument("--reason", help="why (kept in the plan and the journal)")
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.version_fact(
        args.id, args.text, reason=args.reason, dry_run=args.dry_run)))
    q = acts.add_parser("archive", help="archive an active fact (it stays readable)",
                        description="Archive fact ID: search skips it, every read mode still shows it.")
    q.add_argument("id", type=whole_number, help="the fact id")
    q.add_argument("--reason", help="why (kept in the plan and the journal)")
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.archive_fact(
        args.id, reason=args.reason, dry_run=args.dry_run)))
    q = acts.add_parser("tag", help="add or remove tags", description="Add and remove tags of fact ID.")
    q.add_argument("id", type=whole_number, help="the fact id")
    q.add_argument("--add", action="append", default=[], metavar="TAG", help="a tag to add (repeatable)")
    q.add_argument("--remove", action="append", default=[], metavar="TAG", help="a tag to remove (repeatable)")
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.tag_fact(
        args.id, add=args.add, remove=args.remove, dry_run=args.dry_run)))
    q = acts.add_parser("link", help="link two active facts as contradicting or related",
                        description="Add a contradicts or related edge from fact ID to fact OTHER.")
    q.add_argument("id", type=whole_number, help="the fact id")
    q.add_argument("other", type=whole_number, help="the other fact id")
    q.add_argument("--type", required=True, choices=LINK_TYPES, help="the edge type")
    q.add_argument("--reason", help="why (kept in the plan and the journal)")
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.link_facts(
        args.id, args.other, args.type, reason=args.reason, dry_run=args.dry_run)))
    for q in acts.choices.values():
        add_write_options(q)
        add_output_options(q)

    p = sub.add_parser("contradictions", help="the open contradicting pairs, and resolving one",
                       description="List the open contradictions (both facts active, not settled), oldest first; "
                                   "'resolve' settles one.")
    p.add_argument("--limit", type=whole_number, default=1000, help="at most this many pairs (default 1000)")
    add_output_options(p)
    p.set_defaults(run=_contradictions)
    acts = p.add_subparsers(dest="act", metavar="ACT", parser_class=parser_class)
    q = acts.add_parser("resolve", help="keep one fact of an open pair, or both",
                        description="Settle the contradiction between ID and OTHER: --keep one of them (the other "
                                    "becomes its superseded older version) or --keep both (both hold).")
    q.add_argument("id", type=whole_number, help="one fact of the pair")
    q.add_argument("other", type=whole_number, help="the other fact")
    q.add_argument("--keep", required=True, type=_keep, metavar="ID|OTHER|both", help="what stays current")
    q.add_argument("--reason", help="why (kept in the plan and the journal)")
    add_write_options(q)
    add_output_options(q)
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.resolve_contradiction(
        args.id, args.other, args.keep, reason=args.reason, dry_run=args.dry_run)))

    p = sub.add_parser("timeline", help="a fact's versions and open contradictions, now or as of a time",
                       description="Replay fact ID's version chain from recorded times: which version was "
                                   "current and which contradictions were open at --as-of (default now).")
    p.add_argument("id", type=whole_number, help="the fact id")
    p.add_argument("--as-of", type=iso_time, help="an ISO-8601 time (default now)")
    add_output_options(p)
    p.set_defaults(run=_timeline)


def add_plan_revert(actions: argparse._SubParsersAction) -> None:
    q = actions.add_parser("revert", help="a new plan undoing an applied plan (nothing is deleted)",
                           description="Undo applied plan ID by new records: facts it added are archived, facts it "
                                       "retired become active again, tags go back, contradictions it recorded are "
                                       "settled. Itself a plan, applied unless --dry-run.")
    q.add_argument("id", type=whole_number, help="the applied plan's id")
    add_write_options(q)
    add_output_options(q)
    q.set_defaults(run=lambda ctx, args: _act(ctx, args, lambda m: m.revert_plan(args.id, dry_run=args.dry_run)))


def _act(ctx: Context, args: argparse.Namespace, call: Any) -> int:
    with ctx.open() as memory:
        plan = call(memory)
    return report_plan(plan, args.json, args.dry_run)


def _contradictions(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        pairs = memory.contradictions(max(1, args.limit))
    if args.json:
        render.emit_json(serialize.contradictions(pairs))
        return 0
    if not pairs:
        print("no open contradictions")
    for c in pairs:
        print(f"{c.left.id:>6} <-> {c.right.id:<6} since {format_time(c.since)}")
        print(f"         {render.clip(c.left.text)}")
        print(f"         {render.clip(c.right.text)}")
    return 0


def _timeline(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        replay = memory.timeline_as_of(args.id, args.as_of)
    if args.json:
        render.emit_json(serialize.replay(replay))
        return 0
    print(f"fact {replay.fact_id} as of {format_time(replay.when)}: current {replay.current or 'none'}")
    if not replay.versions:
        print("  no version of it was written yet")
    for n, fact_id in enumerate(replay.versions, start=1):
        fact = replay.facts[fact_id]
        print(f"  v{n} #{fact_id} [{replay.statuses.get(fact_id) or 'not yet written'}] "
              f"{format_time(fact.created_at)}  {render.clip(fact.text)}")
    pairs = ", ".join(f"{a} <-> {b}" for a, b in replay.open_contradictions) or "none"
    print(f"  open contradictions then: {pairs}")
    return 0
