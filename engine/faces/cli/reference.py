"""The command line's reference as Markdown, made from the argparse parser itself.

``docs/cli.md`` is a hand-written guide followed by this reference, below ``MARKER``:
``python -m engine.faces.cli.reference --write docs/cli.md`` (``make docs``) rewrites that part, and
``tests/cli/test_reference.py`` fails when the page and the parser differ, so a command or an option
cannot change without its page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator, Sequence

from engine.faces.cli.main import build_parser

MARKER = ("<!-- Everything below is generated from the parser: "
          "python -m engine.faces.cli.reference --write docs/cli.md (make docs) -->")
WIDTH = 100  # usage lines are wrapped here, whatever the terminal


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser, str | None]]:
    """(command path, its parser, its one-line help) for every command at every depth, in parser order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield (*path, name), child, helps.get(name)
                yield from commands(child, (*path, name))


def reference(parser: argparse.ArgumentParser | None = None) -> str:
    """Every command: its usage, what it does and each argument's help, as Markdown."""
    parser = parser or build_parser()
    parts = ["## Reference", "", "Every command and option, as `memlens COMMAND --help` prints them.", ""]
    parts += _section(("memlens",), parser, None, level=3)
    for path, child, summary in commands(parser):
        parts += _section(("memlens", *path), child, summary, level=min(3 + len(path) - 1, 4))
    return "\n".join(parts).rstrip() + "\n"


def _section(path: Sequence[str], parser: argparse.ArgumentParser, summary: str | None, level: int) -> list[str]:
    lines = [f"{'#' * level} `{' '.join(path)}`", ""]
    text = parser.description or summary or ""
    if text:
        lines += [" ".join(text.split()), ""]
    lines += ["```text", _usage(parser).rstrip(), "```", ""]
    rows = [action for action in parser._actions
            if action.dest != "help" and not isinstance(action, argparse._SubParsersAction)]
    if rows:
        lines += ["| argument | meaning |", "| --- | --- |"]
        formatter = argparse.HelpFormatter(prog=parser.prog, width=WIDTH)
        for action in rows:
            invocation = formatter._format_action_invocation(action)
            lines.append(f"| `{_cell(invocation)}` | {_cell(' '.join((action.help or '').split()))} |")
        lines.append("")
    return lines


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(prog=parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help()


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def write(page: Path) -> None:
    """Replace everything after ``MARKER`` in ``page`` (which must hold it) with the reference."""
    text = page.read_text(encoding="utf-8")
    if MARKER not in text:
        raise SystemExit(f"{page}: no generated-part marker ({MARKER})")
    head = text.split(MARKER, 1)[0]
    page.write_text(f"{head}{MARKER}\n\n{reference()}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    args = argparse.ArgumentParser(description="Print (or write into a page) the command line's reference.")
    args.add_argument("--write", type=Path, metavar="PAGE", help="rewrite PAGE's generated part instead of printing")
    options = args.parse_args(argv)
    if options.write:
        write(options.write)
    else:
        sys.stdout.write(reference())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
