"""Every command and subcommand explains itself, and every command is in the README.

The whole argparse tree is walked, so a command added later without help (or left out of
the README's command-line section) fails here rather than in a user's terminal.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Iterator

import pytest

from engine.faces.cli.main import build_parser

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser, str | None]]:
    """(command path, its parser, its one-line help) for every command at every depth."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield (*path, name), child, helps.get(name)
                yield from _commands(child, (*path, name))


COMMANDS = list(_commands(build_parser()))


def test_the_tree_is_walked() -> None:
    names = {" ".join(path) for path, _, _ in COMMANDS}
    assert {"absorb", "import", "plan apply", "graph query", "profile edit"} <= names


@pytest.mark.parametrize("path, parser, summary", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_has_help_description_and_argument_help(path, parser, summary) -> None:
    assert summary and summary.strip(), f"{' '.join(path)} has no help line"
    assert parser.description and parser.description.strip(), f"{' '.join(path)} has no description"
    for action in parser._actions:
        if action.dest != "help" and not isinstance(action, argparse._SubParsersAction):
            assert action.help and action.help.strip(), f"{' '.join(path)}: {action.dest} has no help"
    assert parser.format_help().strip()


def test_top_level_help_is_complete(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    top = [path[0] for path, _, _ in COMMANDS if len(path) == 1]
    assert all(re.search(rf"^\s+{name}\s", out, re.M) for name in top)
    for hint in ("Exit codes", "MEMLENS_DB", "memlens COMMAND --help"):
        assert hint in out


def test_every_command_is_in_the_readme_synopsis() -> None:
    """The synopsis block opening README's command-line section names every top-level command."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The command line", 1)[1]
    synopsis = section.split("```", 2)[1]
    missing = [path[0] for path, _, _ in COMMANDS
               if len(path) == 1 and not re.search(rf"(?<![\w-]){re.escape(path[0])}(?![\w-])", synopsis)]
    assert not missing, f"README's command-line synopsis does not mention: {', '.join(missing)}"
