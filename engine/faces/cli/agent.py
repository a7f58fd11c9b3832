"""``memlens snapshot | profile | serve | mcp``: the agent's side of the command line (DESIGN §8, §11).

``snapshot`` prints the text alone on stdout (exactly the frozen bytes, so it can be piped
into a prompt); what it did goes to stderr. ``profile edit`` saves a file from a path, from
stdin, or through ``$VISUAL``/``$EDITOR``, always against the version read before, so an
edit made elsewhere meanwhile is refused rather than overwritten.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine.faces.cli.options import add_output_options, whole_number
from engine import InvalidInput, MemLensError, PROFILE_FILES, PROFILE_MAX_FILE_CHARS, format_time
from engine.faces import serialize
from engine.faces.cli import render


def add_agent(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("snapshot", help="the frozen digest a session starts from (profile, relevant, TODOs, recent)",
                       description="Print the session's snapshot: the profile, facts relevant to --query, open "
                                   "TODOs (facts tagged todo) and recent facts, each line with its fact id. The "
                                   "first call for a session freezes it; later calls print the same bytes.")
    p.add_argument("--session", metavar="ID", help="session id (required unless --preview)")
    p.add_argument("--query", metavar="TEXT", help="what the session is about (first call only)")
    p.add_argument("--max-chars", type=whole_number, metavar="N", help="size budget (default [memory] snapshot_max_chars)")
    p.add_argument("--preview", action="store_true", help="show what a new session would get; store nothing")
    add_output_options(p)
    p.set_defaults(run=snapshot)

    p = sub.add_parser("profile", help="show or edit MEMORY.md and USER.md (budget, versions)",
                       description="The profile files beside the memory file (or in [memory] profile_dir).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=parser_class)
    q = actions.add_parser("show", help="both files, their sizes against the budget, and versions",
                           description="Show MEMORY.md and USER.md with their versions and the budget.")
    q.add_argument("name", nargs="?", choices=PROFILE_FILES, help="only this file (prints its text alone)")
    add_output_options(q)
    q.set_defaults(run=profile_show)
    q = actions.add_parser("edit", help="replace one file's text from a path, stdin, or $EDITOR",
                           description="Save a profile file. Without --from, opens $VISUAL or $EDITOR on a copy. "
                                       "Refused when the file changed since it was read (or since --expect).")
    q.add_argument("name", help="MEMORY.md or USER.md")
    q.add_argument("--from", dest="source", metavar="PATH|-", help="read the new text from a file, '-' for stdin")
    q.add_argument("--expect", metavar="VERSION", help="the version the edit is based on (from 'profile show')")
    add_output_options(q)
    q.set_defaults(run=profile_edit)

    p = sub.add_parser("serve", help="the HTTP API (FastAPI) and MCP at /mcp on loopback, optional bearer token",
                       description="Serve the HTTP API over this memory, and MCP over streamable HTTP at /mcp. "
                                   "Loopback by default; any other address needs a token (--token-env names the "
                                   "environment variable holding it).")
    p.add_argument("--host", help="address to listen on (default [http] host, 127.0.0.1)")
    p.add_argument("--port", type=whole_number, help="port (default [http] port, 8765)")
    p.add_argument("--token-env", metavar="VAR", help="environment variable with the bearer token")
    p.set_defaults(run=serve)

    p = sub.add_parser("mcp", help="a Model Context Protocol server on stdio, or over streamable HTTP",
                       description="Run an MCP server over this memory (memory_search, memory_get, memory_absorb, "
                                   "memory_snapshot, the curation acts and plans): on stdin/stdout, or with --http "
                                   "over streamable HTTP at /mcp, guarded like 'serve' (loopback by default, "
                                   "Host allow-list, optional bearer token). 'serve' also mounts it at /mcp.")
    p.add_argument("--http", action="store_true", help="serve over streamable HTTP instead of stdio")
    p.add_argument("--host", help="with --http: address to listen on (default [http] host, 127.0.0.1)")
    p.add_argument("--port", type=int, help="with --http: port (default [http] port, 8765)")
    p.add_argument("--token-env", metavar="VAR", help="with --http: environment variable with the bearer token")
    p.set_defaults(run=mcp)


def snapshot(ctx: Any, args: argparse.Namespace) -> int:
    if args.preview == (args.session is not None):
        raise InvalidInput("give --session ID, or --preview")
    with ctx.open(create=not args.preview) as memory:
        if args.preview:
            snap = memory.preview_snapshot(args.query, args.max_chars)
        else:
            snap = memory.snapshot(args.session, args.query, args.max_chars)
    if args.json:
        render.emit_json(serialize.snapshot(snap))
        return 0
    sys.stdout.write(snap.text)
    state = ("preview, not stored" if snap.frozen_at is None else
             "frozen now" if snap.created else f"frozen at {format_time(snap.frozen_at)}")
    print(f"memlens: snapshot {snap.session_id or ''} ({state}): {snap.chars:,} characters, "
          f"{len(snap.cited)} facts cited", file=sys.stderr)
    return 0


def _show(profile: Any) -> None:
    for f in profile.files:
        state = f"{f.chars:,} characters" if f.exists else "not created yet"
        print(f"== {f.name} ({state}; version {f.version})")
        if f.problem:
            print(f"   problem: {f.problem}")
        elif f.text:
            print(f.text, end="" if f.text.endswith("\n") else "\n")
    print(f"total {profile.total:,} of {profile.budget:,} characters ({profile.folder})")
    if profile.warning:
        print(f"memlens: warning: {profile.warning}", file=sys.stderr)


def profile_show(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open() as memory:
        profile = memory.profile()
    if args.json:
        render.emit_json(serialize.profile_file(profile.file(args.name)) if args.name else serialize.profile(profile))
    elif args.name:
        sys.stdout.write(profile.file(args.name).text)
    else:
        _show(profile)
    return 0


def _read_text(source: str) -> str:
    """A UTF-8 text from a path or stdin; anything else is a one-line error, and nothing is saved."""
    try:
        data = sys.stdin.buffer.read(4 * PROFILE_MAX_FILE_CHARS + 1) if source == "-" else \
            Path(source).read_bytes()
    except OSError as err:
        raise MemLensError(f"cannot read {source}: {err.strerror}") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise InvalidInput(f"{'stdin' if source == '-' else source} is not valid UTF-8 (byte {err.start}); "
                           f"nothing was saved") from None


def _edit_in_editor(name: str, text: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise InvalidInput("set $VISUAL or $EDITOR, or give --from PATH (or '-' for stdin)")
    with tempfile.TemporaryDirectory(prefix="memlens-") as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        if subprocess.call([*shlex.split(editor), str(path)]) != 0:
            raise MemLensError(f"the editor exited with an error; {name} was not saved")
        return _read_text(str(path))


def profile_edit(ctx: Any, args: argparse.Namespace) -> int:
    with ctx.open(create=True) as memory:
        current = memory.profile().file(args.name)
        version = args.expect or current.version
        text = _read_text(args.source) if args.source else _edit_in_editor(current.name, current.text)
        profile = memory.save_profile(current.name, text, version)
    saved = profile.file(current.name)
    if args.json:
        render.emit_json(serialize.profile(profile))
    else:
        print(f"saved {saved.name}: {saved.chars:,} characters (version {saved.version}); "
              f"profile {profile.total:,} of {profile.budget:,}")
    if profile.warning:
        print(f"memlens: warning: {profile.warning}", file=sys.stderr)
    return 0


def serve(ctx: Any, args: argparse.Namespace) -> int:
    from engine.faces.http import run_server
    http = ctx.settings.http
    return run_server(ctx.db, ctx.settings, host=args.host or http.host, port=http.port if args.port is None else args.port,
                      token_env=args.token_env or http.token_env or None, clock=ctx.clock)


def mcp(ctx: Any, args: argparse.Namespace) -> int:
    if args.http:
        from engine.faces.http import run_server
        http = ctx.settings.http
        return run_server(ctx.db, ctx.settings, host=args.host or http.host,
                          port=http.port if args.port is None else args.port,
                          token_env=args.token_env or http.token_env or None, clock=ctx.clock, api=False, actor="mcp")
    if args.host or args.port is not None or args.token_env:
        raise InvalidInput("--host, --port and --token-env go with --http (stdio has no address)")
    from engine.faces.mcp import run_stdio
    run_stdio(ctx.db, ctx.settings, clock=ctx.clock)
    return 0
