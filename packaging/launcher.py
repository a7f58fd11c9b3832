"""The frozen app's one executable: the desktop app by default, the command line for a CLI command.

``memlens`` alone, or with app options (``--demo``, ``--db PATH``, ``--screenshot OUT.png`` ...),
opens the desktop app. When the first word after the global options (``--db``, ``--config``,
``--now``) is a command of ``memlens --help`` (``search``, ``absorb``, ``serve``, ``mcp``, ``gui``
...), the rest goes to the command line exactly as in a pip install. ``-h`` / ``--help`` first
prints the command line's help, which lists ``gui`` too.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from typing import Sequence

# The command line's options that take a value, so their values are not mistaken for a command.
VALUED_GLOBALS = ("--db", "--config", "--now")


def _first_word(argv: Sequence[str]) -> str | None:
    """The first argument that is neither a global option nor its value."""
    words = iter(argv)
    for word in words:
        if word in VALUED_GLOBALS:
            next(words, None)
        elif not word.startswith("--") or "=" not in word or word.split("=", 1)[0] not in VALUED_GLOBALS:
            return word
    return None


def _cli_commands(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from engine.faces.cli.main import build_parser, main as cli_main

    first = _first_word(args)
    if first in ("-h", "--help") or first in _cli_commands(build_parser()):
        return int(cli_main(args) or 0)
    from gui.app import main as gui_main

    return int(gui_main(args) or 0)


if __name__ == "__main__":
    multiprocessing.freeze_support()  # fastembed's parallel mode starts worker processes
    sys.exit(main())
