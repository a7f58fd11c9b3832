"""The ``memlens`` command line: argument parsing, the shared options, exit codes.

Exit codes: 0 done (a dry run with refused items included), 3 applied with some
items refused, 1 failed with nothing written (one line on stderr, never a
traceback), 2 a usage error. Commands live in ``commands``; rendering in
``render``; JSON shapes in ``engine.faces.serialize``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from engine.faces.cli.options import add_output_options, add_write_options, whole_number
from engine import (IMPORT_FORMATS, KINDS, MemLensError, READ_MODES, SCOPES, STATUSES, config_path_for,
                    default_memory_path, fixed_clock, load_settings, system_clock)
from engine.faces.cli import commands
from engine.faces.cli.agent import add_agent
from engine.faces.cli.classify import add_classify
from engine.faces.cli.connect import add_connect
from engine.faces.cli.curation import add_curation, add_plan_revert
from engine.faces.cli.frontends import add_gui
from engine.faces.cli.graph import add_graph
from engine.faces.cli.housekeeping import add_housekeeping
from engine.faces.cli.verify import add_verify


class Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def default_db() -> Path:
    return default_memory_path()


def _add_absorb(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("absorb", help="add facts through the absorb pipeline (a plan, applied unless --dry-run)",
                       description="Validate, reject secrets, deduplicate and classify incoming facts into a plan; "
                                   "apply it unless --dry-run. Items that fail are reported and the rest go on.")
    p.add_argument("text", nargs="*", help="fact texts, one item each")
    p.add_argument("--file", metavar="PATH|-", help="JSONL, one object per line with 'text' and optional fields")
    p.add_argument("--scope", choices=SCOPES, help="default scope for items without one (default: agent)")
    p.add_argument("--kind", choices=KINDS, help="default kind for items without one (default: explicit)")
    p.add_argument("--tags", help="comma-separated tags added to items without tags")
    p.add_argument("--session", metavar="ID", help="session id for items without one (needed for scope run)")
    add_write_options(p)
    add_output_options(p)
    p.set_defaults(run=commands.absorb)


def _add_search(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="hybrid search (cosine + BM25, times freshness) with score parts",
                       description="Search facts; every hit shows its cosine, BM25 and freshness parts.")
    p.add_argument("query", nargs="?", help="the question or keywords")
    p.add_argument("--batch", metavar="PATH|-", help='JSONL of {"qid", "query"}; prints one JSONL line per query')
    p.add_argument("--top-k", type=whole_number, default=10, help="number of results (default 10)")
    p.add_argument("--scope", choices=SCOPES, help="only this scope")
    p.add_argument("--kind", choices=KINDS, help="only this kind")
    p.add_argument("--status", action="append", choices=STATUSES,
                   help="statuses to search (repeatable; default active)")
    p.add_argument("--tag", action="append", default=[], help="only facts with this tag (repeatable)")
    p.add_argument("--since", type=commands.iso_time, help="created at or after this ISO-8601 time")
    p.add_argument("--until", type=commands.iso_time, help="created at or before this ISO-8601 time")
    p.add_argument("--min-confidence", type=float, help="minimum effective (decayed) confidence")
    add_output_options(p)
    p.set_defaults(run=commands.search)


def _add_reading(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("get", help="read a fact by id: active, latest version, or full history",
                       description="Read a fact by id in one of three modes.")
    p.add_argument("id", type=whole_number, help="fact id")
    p.add_argument("--mode", choices=READ_MODES, default="active",
                   help="active (the record if current), latest (newest version), full_history (every version)")
    add_output_options(p)
    p.set_defaults(run=commands.get)
    p = sub.add_parser("history", help="every version of a fact, oldest first, with contradictions",
                       description="Same as 'get ID --mode full_history'.")
    p.add_argument("id", type=whole_number, help="fact id")
    add_output_options(p)
    p.set_defaults(run=commands.history, mode="full_history")
    p = sub.add_parser("journal", help="the audit trail: every change, newest last",
                       description="List journal entries, optionally for one fact.")
    p.add_argument("--fact", type=whole_number, help="only entries about this fact id")
    p.add_argument("--limit", type=whole_number, default=50, help="number of entries (default 50)")
    p.add_argument("--follow", action="store_true",
                   help="then keep printing each new entry as any process writes it (one JSON line each "
                        "with --json) until interrupted")
    add_output_options(p)
    p.set_defaults(run=commands.journal)
    p = sub.add_parser("stats", help="counts by status, edges, plans, embedding model",
                       description="Summary of the memory file.")
    add_output_options(p)
    p.set_defaults(run=commands.stats)


def _add_plans(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="list, show, apply or discard stored plans",
                       description="Every write is a plan first. Dry runs leave a draft to apply here.")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=Parser)
    q = actions.add_parser("list", help="every plan, newest first", description="List plans, newest first.")
    q.add_argument("--status", choices=("draft", "applied", "refused", "discarded"), help="only this status")
    add_output_options(q)
    q.set_defaults(run=commands.plan_list)
    for name, helptext, run in (("show", "one plan with all its items", commands.plan_show),
                                ("apply", "apply a draft plan (or --only some items)", commands.plan_apply),
                                ("discard", "mark a draft plan discarded; nothing else changes", commands.plan_discard)):
        q = actions.add_parser(name, help=helptext, description=helptext[0].upper() + helptext[1:] + ".")
        q.add_argument("id", type=whole_number, help="plan id")
        if name == "apply":
            q.add_argument("--only", type=commands.index_list, help="comma-separated item indexes, e.g. 1,3")
        add_output_options(q)
        q.set_defaults(run=run)
    add_plan_revert(actions)


def _add_transfer(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write every fact with its edges as JSONL",
                       description="Export all facts (every status) and edges as JSONL; '-' for stdout.")
    p.add_argument("path", help="output file, or - for stdout")
    p.set_defaults(run=commands.export)
    p = sub.add_parser("import", help="bring in a MemLens export, JSONL, Hermes, mem0 or Markdown memories",
                       description="Import memories as a plan. jsonl (the default): a MemLens export is restored "
                                   "(statuses, edges and times kept), other JSONL goes through absorb. hermes "
                                   "(MEMORY.md / USER.md, or their folder), mem0 (get_all JSON) and markdown (a "
                                   "folder of notes) go through absorb, keeping original times and ids as source. "
                                   "A bad entry is one rejected item; the rest go on.")
    p.add_argument("path", help="the file (or, for hermes and markdown, the folder) to import")
    p.add_argument("--from", dest="fmt", choices=IMPORT_FORMATS, default="jsonl",
                   help="the format of PATH (default jsonl)")
    p.add_argument("--as-profile", action="store_true",
                   help="hermes only: also make the files this memory's MEMORY.md / USER.md (never over other text)")
    add_write_options(p)
    add_output_options(p)
    p.set_defaults(run=commands.import_)


EPILOG = """\
Every write is a plan: --dry-run stores it as a draft to review ('memlens plan show ID')
and apply ('memlens plan apply ID'). --json prints machine-readable output.

Environment: MEMLENS_DB is the default memory file (else memory.sqlite in the user data
dir); memlens.toml is read beside the memory file, else in the user config dir.
Exit codes: 0 done (a dry run that made its plan is done, refused items and all);
3 applied, with some items refused (each refusal one line on stderr, never the value);
1 failed, nothing written (one line on stderr); 2 a usage error.
See 'memlens COMMAND --help' for each command's options.
"""


def build_parser() -> Parser:
    parser = Parser(prog="memlens", description="MemLens: an agent's long-term memory in one SQLite file.",
                    epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="memory file (default: $MEMLENS_DB, else memory.sqlite in the "
                                                "user data dir)")
    parser.add_argument("--config", type=Path, help="memlens.toml (default: beside the memory file, else the "
                                                    "user config dir)")
    parser.add_argument("--now", type=commands.iso_time, help="ISO-8601 time to use as now, for replays and tests")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for add in (_add_absorb, _add_search, _add_reading, _add_plans, _add_transfer):
        add(sub)
    add_graph(sub, Parser)
    add_housekeeping(sub)
    add_curation(sub, Parser)
    add_classify(sub)
    add_verify(sub)
    add_agent(sub, Parser)
    add_connect(sub, Parser)
    add_gui(sub)
    return parser


def _config_path(args: argparse.Namespace, db: Path) -> Path | None:
    return config_path_for(db, args.config)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "gui":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:
        args.args = extra + list(args.args)  # the app parses its own options (memlens gui --help)
    db = args.db or default_db()
    try:
        settings = load_settings(_config_path(args, db))
        if args.db is None:
            db.parent.mkdir(parents=True, exist_ok=True)
        context = commands.Context(db=db, settings=settings,
                                   clock=fixed_clock(args.now) if args.now is not None else system_clock)
        return args.run(context, args)
    except MemLensError as err:
        print(f"memlens: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("memlens: interrupted; nothing half-written (every write is one transaction)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
