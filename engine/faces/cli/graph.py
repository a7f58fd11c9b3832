"""``memlens graph neighbors|query|path``: the entity graph from the command line."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from engine.faces.cli.options import add_output_options, whole_number
from engine import ENTITY_TYPES, MAX_HOPS, walk_text
from engine.faces import serialize
from engine.faces.cli.render import emit_json


def add_graph(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("graph", help="the entity graph: neighbours, typed multi-hop questions, paths",
                       description="Ask the entity graph. Names match in any case and spacing; write "
                                   "'type:name' (e.g. company:Northwind) when a name has several types.")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=parser_class)
    q = actions.add_parser("neighbors", help="entities within N relations of one entity",
                           description="Entities within --hops relations (either direction) of NAME.")
    q.add_argument("name", help="entity name or type:name")
    q.add_argument("--type", choices=ENTITY_TYPES, help="the entity type of NAME")
    q.add_argument("--hops", type=whole_number, default=1, help=f"1-{MAX_HOPS} (default 1)")
    _common(q, neighbors)
    q = actions.add_parser("query", help="follow a typed path pattern of up to 4 steps",
                           description="From START, follow each STEP: 'works_at' forwards, '<works_at' backwards, "
                                       "'*' any type; ':company' after a step requires that entity type. Who works "
                                       "at companies in Kazan: memlens graph query Kazan '<located_in' '<works_at'")
    q.add_argument("start", help="entity name or type:name to start from")
    q.add_argument("steps", nargs="+", metavar="STEP", help="relation type, '<' prefix to follow it backwards")
    q.add_argument("--type", choices=ENTITY_TYPES, help="the entity type of START")
    _common(q, query)
    q = actions.add_parser("path", help="a shortest chain of relations between two entities",
                           description="A shortest path between A and B, following relations in either direction.")
    q.add_argument("a", help="entity name or type:name")
    q.add_argument("b", help="entity name or type:name")
    _common(q, path)


def _common(p: argparse.ArgumentParser, run: Any) -> None:
    p.add_argument("--all", action="store_true", help="also follow inactive relations (no active fact behind them)")
    add_output_options(p)
    p.set_defaults(run=run)


def _facts(ids: Sequence[int]) -> str:
    return f"[fact{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}]" if ids else ""


def neighbors(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        found = memory.graph_neighbors(args.name, type=args.type, hops=args.hops, include_inactive=args.all)
    if args.json:
        emit_json(serialize.neighbors(args.name, args.hops, found))
        return 0
    print(f"{len(found)} entit{'ies' if len(found) != 1 else 'y'} within {args.hops} "
          f"hop{'s' if args.hops > 1 else ''} of {args.name}")
    for n in found:
        print(f"  {n.hops}  {n.entity.type:<10} {n.entity.name:<28} {walk_text(n.start, n.via)}")
    return 0


def query(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        matches = memory.graph_query(args.start, args.steps, type=args.type, include_inactive=args.all)
    if args.json:
        emit_json(serialize.matches(args.start, args.steps, matches))
        return 0
    print(f"{args.start} {' '.join(args.steps)}: {len(matches)} match{'es' if len(matches) != 1 else ''}")
    for m in matches:
        label = f"{m.entity.name} ({m.entity.type})"
        for k, walk in enumerate(m.paths):
            print(f"  {label if k == 0 else '':<30} {walk_text(m.start, walk)}   {_facts(sorted({f for r in walk for f in r.fact_ids}))}")
    return 0


def path(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        found = memory.graph_path(args.a, args.b, include_inactive=args.all)
    if args.json:
        emit_json(serialize.path(args.a, args.b, found))
        return 0
    if found is None:
        print(f"no path between {args.a} and {args.b}")
        return 0
    hops = len(found.relations)
    print(f"{hops} hop{'s' if hops > 1 else ''}: {walk_text(found.start, found.relations)}   {_facts(found.fact_ids)}")
    return 0
