"""The CLI's commands: translate arguments, call the facade, render.

No SQL and no rules here; every command opens the memory, calls one or two
``Memory`` methods and prints through ``render``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from engine import (Clock, ImportRun, InvalidInput, MAX_INPUT_BYTES, Memory, SearchFilters, Settings, open_input,
                    parse_time, read_records)
from engine.faces import serialize
from engine.faces.cli import render
from engine.faces.cli.interrupt import EXIT_INTERRUPTED, line_progress, stop_between_chunks
from engine.faces.cli.options import whole_number


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SOME_REFUSED = 0, 1, 2, 3


@dataclass
class Context:
    db: Path
    settings: Settings
    clock: Clock

    def open(self, create: bool = False) -> Memory:
        return Memory(self.db, self.settings, clock=self.clock, actor="cli", create=create)


def index_list(value: str) -> list[int]:
    """argparse type for ``--only 1,3``."""
    try:
        indexes = [whole_number(part.strip()) for part in value.split(",") if part.strip()]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected comma-separated item numbers, got {value[:40]!r}") from None
    if not indexes or min(indexes) < 0:
        raise argparse.ArgumentTypeError("expected item numbers such as 1,3")
    return indexes


def iso_time(value: str) -> float:
    """argparse type for ISO-8601 times (a bad value is a usage error, exit 2)."""
    try:
        return parse_time(value)
    except InvalidInput as err:
        raise argparse.ArgumentTypeError(str(err)) from None


@contextmanager
def _spooled(path: str) -> Iterator[Path]:
    """A path for ``--file``: the file itself, or standard input copied to a temporary file (at most
    the import byte cap), so both take the same import path."""
    if path != "-":
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="memlens-stdin-") as folder:
        spool = Path(folder) / "stdin.jsonl"
        with spool.open("wb") as out:
            copied = 0
            while chunk := sys.stdin.buffer.read(1 << 20):
                copied += len(chunk)
                if copied > MAX_INPUT_BYTES:
                    raise InvalidInput(f"standard input is larger than the cap of {MAX_INPUT_BYTES:,} bytes; "
                                       f"nothing was written")
                out.write(chunk)
        yield spool


def binary_input(path: str) -> Any:
    return sys.stdin.buffer if path == "-" else open_input(Path(path))


def report_plan(plan: Any, as_json: bool, dry_run: bool) -> int:
    """Print a plan; its exit code: 0 done (a dry run that made its plan is done, refusals and all),
    3 applied with some items refused, 1 nothing written because every item was refused."""
    render.plan_or_json(plan, as_json, dry_run)
    rejected = [it for it in plan.items if it.outcome == "rejected"]
    for it in rejected:  # reasons name the field and the rule, never the value
        print(f"memlens: item {it.index} refused: {it.reason}", file=sys.stderr)
    if dry_run or plan.status == "draft" or not rejected:
        return EXIT_OK
    return EXIT_SOME_REFUSED if len(rejected) < len(plan.items) else EXIT_FAILED


def report_run(run: Any, as_json: bool, dry_run: bool) -> int:
    """Print an import run: as a plan when it was one plan (as imports always printed), else one line
    per chunk plan and a summary; refusals on stderr by line. Exit codes as for a plan."""
    if run.single and run.plan is not None:
        return report_plan(run.plan, as_json, dry_run)
    if as_json:
        render.emit_json(run.to_dict())
    else:
        for c in run.chunks:
            counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(c.counts.items()))
            print(f"plan {c.plan_id} ({c.status}): lines {c.first_line}-{c.last_line}, {c.items} items: {counts}")
        print(run.summary())
    for line, reason in run.refused:  # reasons name the field and the rule, never the value
        print(f"memlens: line {line} refused: {reason.removeprefix(f'line {line}: ')}", file=sys.stderr)
    if run.refused_count > len(run.refused):
        print(f"memlens: and {run.refused_count - len(run.refused)} more lines refused", file=sys.stderr)
    if run.cancelled:
        return EXIT_INTERRUPTED  # stopped by Ctrl-C between chunks; the summary says how to resume
    if dry_run or not run.refused_count:
        return EXIT_OK
    return EXIT_SOME_REFUSED if run.written else EXIT_FAILED


def absorb(ctx: Context, args: argparse.Namespace) -> int:
    if not args.text and args.file is None:
        raise InvalidInput("give fact texts as arguments, or --file PATH (JSONL, '-' for stdin)")
    defaults = {k: v for k, v in (("scope", args.scope), ("kind", args.kind), ("tags", args.tags),
                                  ("session_id", args.session)) if v is not None}
    if args.file is not None and not args.text:
        # A file takes the import path: a MemLens export is restored, any other JSONL absorbed, and any
        # number of lines is fine (absorb itself takes at most MAX_ITEMS, as over HTTP and MCP).
        with _spooled(args.file) as path, ctx.open(create=True) as memory, stop_between_chunks() as stop, \
                line_progress() as progress:
            run = memory.import_file(path, dry_run=args.dry_run, defaults=defaults, progress=progress, cancel=stop,
                                     source_label="<stdin>" if args.file == "-" else None)
        return report_run(run, args.json, args.dry_run)
    items: list[Any] = list(args.text)
    if args.file is not None:
        stream = binary_input(args.file)
        try:
            items += [raw for _, raw in read_records(stream)]
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    if not items:
        raise InvalidInput("the input holds no items")
    with ctx.open(create=True) as memory:
        plan = memory.absorb(items, dry_run=args.dry_run, defaults=defaults)
    return report_plan(plan, args.json, args.dry_run)


def _filters(args: argparse.Namespace) -> SearchFilters:
    return SearchFilters(scope=args.scope, kind=args.kind, statuses=tuple(args.status or ("active",)),
                         tags=tuple(args.tag), since=args.since, until=args.until,
                         min_confidence=args.min_confidence)


def _batch_queries(path: str) -> Iterator[tuple[Any, str | None, str | None]]:
    stream = binary_input(path)
    try:
        for number, raw in read_records(stream):
            value = raw.value or {}
            query = value.get("query")
            if raw.error:
                yield None, None, raw.error
            elif not isinstance(query, str):
                yield value.get("qid"), None, f"line {number}: 'query' must be a string"
            else:
                yield value.get("qid"), query, None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def search(ctx: Context, args: argparse.Namespace) -> int:
    if (args.query is None) == (args.batch is None):
        raise InvalidInput("give either a QUERY or --batch PATH")
    filters = _filters(args)
    with ctx.open() as memory:
        if args.batch is None:
            hits, timing = memory.search_timed(args.query, top_k=args.top_k, filters=filters)
            render.search_results(hits, args.json, timing)
            return 0
        failures = answered = 0
        for qid, query, error in _batch_queries(args.batch):
            if error is None:
                try:
                    hits, timing = memory.search_timed(query, top_k=args.top_k, filters=filters)
                except InvalidInput as err:
                    error = str(err)
            if error is not None:
                failures += 1
                print(json.dumps(serialize.batch_line(qid, error=error), ensure_ascii=False))
            else:
                answered += 1
                print(json.dumps(serialize.batch_line(qid, hits, timing=timing), ensure_ascii=False))
        # As for plans: some queries refused -> 3, every query refused -> 1.
        return EXIT_OK if not failures else EXIT_SOME_REFUSED if answered else EXIT_FAILED


def get(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        reading = memory.get(args.id, args.mode)
    render.reading(reading, args.json)
    return 0


history = get


FOLLOW_INTERVAL = 0.5  # seconds between polls: an idle poll is one pragma


def journal(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        entries = memory.journal(args.fact, 0, 1_000_000)[-max(1, args.limit):]
        if not args.follow:
            render.journal(entries, args.json)
            return 0
        for entry in entries:
            render.journal_line(entry, args.json)
        mark = memory.journal_high_water()
        while True:  # ended by Ctrl+C (exit 130) or a closed pipe (exit 0), as main() handles them
            new, _ = memory.poll(mark)
            for entry in new:
                if args.fact is None or entry.fact_id == args.fact:
                    render.journal_line(entry, args.json)
            if new:
                mark = new[-1].id
            else:
                time.sleep(FOLLOW_INTERVAL)


def stats(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        render.stats(memory.stats(), args.json)
    return 0


def plan_list(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        render.plan_list(memory.plans(args.status), args.json)
    return 0


def plan_show(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        plan = memory.plan(args.id)
    render.plan_or_json(plan, args.json, dry_run=plan.status == "draft")
    return 0


def plan_apply(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        plan = memory.apply_plan(args.id, args.only)
    return report_plan(plan, args.json, dry_run=False)


def plan_discard(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        plan = memory.discard_plan(args.id)
    if args.json:
        render.emit_json(serialize.plan(plan))
    else:
        print(f"plan {plan.id} discarded; nothing else changed")
    return 0


def export(ctx: Context, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        if args.path == "-":
            memory.export(sys.stdout)
            return 0
        target = Path(args.path)
        count = memory.export_to(target)
    print(f"exported {count} facts to {target}", file=sys.stderr)
    return 0


def import_(ctx: Context, args: argparse.Namespace) -> int:
    path = Path(args.path)
    if args.path == "-":
        raise InvalidInput("import reads a file; for stdin use 'absorb --file -'")
    with ctx.open(create=True) as memory, stop_between_chunks(chunked=args.fmt == "jsonl") as stop, \
            line_progress() as progress:
        plan = memory.import_from(args.fmt, path, dry_run=args.dry_run, as_profile=args.as_profile,
                                  progress=progress, cancel=stop)
    code = (report_run(plan, args.json, args.dry_run) if isinstance(plan, ImportRun)
            else report_plan(plan, args.json, args.dry_run))
    if args.as_profile:  # on stderr, so --json output stays one JSON document
        print("profile: unchanged (dry run)" if args.dry_run else
              "profile: the imported MEMORY.md / USER.md are now this memory's profile (memlens profile show)",
              file=sys.stderr)
    return code
