"""``memlens verify``: one line per problem found in the memory file; exit 1 if any, 0 if clean."""

from __future__ import annotations

import argparse
from engine.faces.cli.options import add_output_options
from engine.faces import serialize
from engine.faces.cli.render import emit_json

from engine.faces.cli.commands import Context


def add_verify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check the file: SQLite integrity, fact hashes, the journal chain, FTS, import records",
                       description="Check the memory file: SQLite's integrity check, each fact's content hash "
                                   "against its text, the journal's hash chain and the full-text index. Prints "
                                   "one line per problem; exit code 1 if there is any, 0 if the file is clean.")
    add_output_options(p)
    p.set_defaults(run=run)


def run(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        result = memory.verify()
    if args.json:
        emit_json(serialize.verification(result))
    else:
        for problem in result.problems:
            print(problem)
        if not result.problems:
            print(f"ok: no problems found (journal head {result.journal_head or 'none: the journal is empty'})")
    return 1 if result.problems else 0
