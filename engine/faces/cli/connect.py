"""``memlens connect`` and ``memlens hermes install``: wiring an agent to this memory file.

``connect`` prints each client's configuration with the absolute paths of the memory file and of
this ``memlens`` filled in (the app's "Connect an agent…" dialog shows the same text).
``hermes install`` writes MemLens's memory-provider plugin into ``$HERMES_HOME/plugins/memlens/``
and prints the one command that selects it.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

import engine
from engine import (HERMES_CONFIG_LINE, connection_snippets, default_hermes_home, install_hermes_plugin,
                    use_profile_folder)
from engine.faces.cli.options import add_output_options
from engine.faces.cli.render import emit_json


def add_connect(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("connect", help="the configuration that connects Hermes Agent, Claude Code, Claude Desktop "
                                       "or Cursor to this memory",
                       description="Print, for each agent client, where its configuration goes and the exact text, "
                                   "with the absolute paths of this memory file and of memlens filled in.")
    p.add_argument("--client", choices=("hermes", "claude-code", "claude-desktop", "cursor"),
                   help="only this client (prints its text alone, ready to paste)")
    add_output_options(p)
    p.set_defaults(run=connect)

    p = sub.add_parser("hermes", help="MemLens as Hermes Agent's memory provider",
                       description="Hermes Agent (hermes-agent) loads memory providers from $HERMES_HOME/plugins/.")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=parser_class)
    q = actions.add_parser("install", help="write the memlens plugin into Hermes's plugins folder",
                           description="Write $HERMES_HOME/plugins/memlens/ (the provider, plugin.yaml and memlens.json "
                                       "naming this memory file), replacing an earlier install; make Hermes's "
                                       "memories/MEMORY.md and USER.md this memory's profile ([memory] profile_dir in "
                                       "the memlens.toml beside it); print the command that selects the provider.")
    q.add_argument("--hermes-home", type=Path, metavar="DIR",
                   help="Hermes's home folder (default $HERMES_HOME, else ~/.hermes)")
    q.set_defaults(run=hermes_install)


CLIENTS = {"hermes": "Hermes Agent", "claude-code": "Claude Code", "claude-desktop": "Claude Desktop",
           "cursor": "Cursor"}


def connect(ctx: Any, args: argparse.Namespace) -> int:
    found = connection_snippets(ctx.db)
    if args.client:
        found = [s for s in found if s.client == CLIENTS[args.client]]
    if args.json:
        emit_json([s.to_dict() for s in found])
    elif args.client:
        print(found[0].text)
    else:
        for snippet in found:
            print(f"== {snippet.client}: {snippet.where}\n{snippet.text}\n")
    return 0


def hermes_install(ctx: Any, args: argparse.Namespace) -> int:
    home = args.hermes_home or default_hermes_home()
    packages = Path(engine.__file__).resolve().parents[1]  # the folder holding the engine package
    folder = install_hermes_plugin(home, ctx.db, packages)
    print(f"installed the memlens memory provider in {folder} (memory file {ctx.db.absolute()})")
    print(use_profile_folder(ctx.db, home / "memories"))
    print("select it (or run 'hermes memory setup' and pick memlens):")
    explicit = args.hermes_home is not None and Path(home).absolute() != default_hermes_home().absolute()
    print(f"HERMES_HOME={shlex.quote(str(Path(home).absolute()))} {HERMES_CONFIG_LINE}" if explicit
          else HERMES_CONFIG_LINE)
    return 0
