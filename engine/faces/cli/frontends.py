"""``memlens gui``: the desktop app, found as a plug-in so the engine never imports Qt.

The GUI package registers itself under the ``memlens.frontends`` entry-point
group (see pyproject.toml); this command looks it up and hands it the rest of
the command line. An install without the GUI gets a clear error instead.
"""

from __future__ import annotations

import argparse
from importlib.metadata import entry_points
from typing import Any

from engine import MemLensError

GROUP = "memlens.frontends"


def add_gui(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the desktop app (search, inspector, timeline)", add_help=False,
                       description="Open the MemLens desktop app. Options: --db PATH, --demo, --screenshot OUT.png "
                                   "--pane search|timeline [--query Q] [--fact ID] [--size WxH]; "
                                   "'memlens gui --help' lists them all.")
    p.add_argument("args", nargs=argparse.REMAINDER, help="options for the app (see 'memlens gui --help')")
    p.set_defaults(run=run_gui)


def run_gui(ctx: Any, args: argparse.Namespace) -> int:
    found = [ep for ep in entry_points(group=GROUP) if ep.name == "gui"]
    if not found:
        raise MemLensError("the desktop app is not installed with this copy of MemLens "
                           "(reinstall the 'memlens' package with its GUI dependencies)")
    launch = found[0].load()
    forwarded = list(args.args)
    if args.db is not None and "--db" not in forwarded:
        forwarded = ["--db", str(args.db), *forwarded]
    return int(launch(forwarded) or 0)
