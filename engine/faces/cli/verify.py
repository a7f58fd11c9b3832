"""``memlens verify``: one line per problem found in the memory file; exit 1 if any, 0 if clean."""

from __future__ import annotations

import argparse
import json

from engine.faces.cli.commands import Context


def add_verify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check the file: SQLite integrity, fact hashes, the journal chain, FTS",
                       description="Check the memory file: SQLite's integrity check, each fact's content hash "
                                   "against its text, the journal's hash chain and the full-text index. Prints "
                                   "one line per problem; exit code 1 if there is any, 0 if the file is clean.")
    p.add_argument("--json", action="store_true", help="print JSON: ok, problems, journal_head")
    p.set_defaults(run=run)


def run(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        result = memory.verify()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        for problem in result.problems:
            print(problem)
        if not result.problems:
            print(f"ok: no problems found (journal head {result.journal_head or 'none: the journal is empty'})")
    return 1 if result.problems else 0
