"""``memlens classify --batch PAIRS.jsonl``: what absorb would decide for each pair, nothing written."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import classify_pairs, read_records
from engine.faces.cli.commands import EXIT_FAILED, EXIT_OK, EXIT_SOME_REFUSED, Context, binary_input
from engine.faces.cli.options import add_output_options


def add_classify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("classify", help="what absorb would decide for stored/incoming text pairs (writes nothing)",
                       description='Read JSONL lines {"id", "stored", "incoming"} and print, one line each, '
                                   '{"id", "outcome", "similarity", "reason"}: what absorb would decide for the '
                                   "incoming text against the stored one. Checks thresholds; writes nothing.")
    p.add_argument("--batch", required=True, metavar="PATH|-", help="the pairs, JSONL ('-' for stdin)")
    add_output_options(p)
    p.set_defaults(run=classify)


def _entries(path: str) -> list[tuple[Any, Any, Any] | dict[str, Any]]:
    """Each line as a pair (id, stored, incoming), or as the error line it gets."""
    entries: list[tuple[Any, Any, Any] | dict[str, Any]] = []
    stream = binary_input(path)
    try:
        for number, raw in read_records(stream):
            value = raw.value
            if raw.error or not isinstance(value, dict):
                entries.append({"id": None, "error": raw.error or f"line {number}: expected a JSON object"})
            elif not isinstance(value.get("stored"), str) or not isinstance(value.get("incoming"), str):
                entries.append({"id": value.get("id") if isinstance(value.get("id"), (str, int)) else None,
                                "error": f"line {number}: 'stored' and 'incoming' must be strings"})
            else:
                entries.append((value.get("id"), value["stored"], value["incoming"]))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return entries


def classify(ctx: Context, args: argparse.Namespace) -> int:
    entries = _entries(args.batch)
    pairs = [e for e in entries if isinstance(e, tuple)]
    # No memory file is read or created: the pairs carry both texts.
    decided = iter([d.to_dict() for d in classify_pairs(pairs, ctx.settings)] if pairs else [])
    lines = [next(decided) if isinstance(e, tuple) else e for e in entries]  # in input order
    for line in lines:
        if args.json:
            print(json.dumps(line, ensure_ascii=False))
        elif "error" in line:
            print(f"{line['id']!s:>8}  refused: {line['error']}")
        else:
            print(f"{line['id']!s:>8}  {line['outcome']:<10} {line['similarity']:.3f}  {line['reason']}")
    errors = sum("error" in line for line in lines)
    if not errors:
        return EXIT_OK
    return EXIT_SOME_REFUSED if errors < len(lines) else EXIT_FAILED
