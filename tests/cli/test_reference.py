"""docs/cli.md's reference is the parser's (issue 24): a command or an option that changes without
its page fails here; `make docs` rewrites the page's generated part."""

from __future__ import annotations

from pathlib import Path

from engine.faces.cli.main import build_parser
from engine.faces.cli.reference import MARKER, commands, reference, write

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_cli_page_holds_the_parsers_reference() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert MARKER in text, "docs/cli.md lost its generated-part marker"
    assert text.split(MARKER, 1)[1].strip() == reference().strip(), \
        "docs/cli.md differs from the parser: run `make docs`"


def test_the_reference_has_every_command_and_option() -> None:
    text = reference()
    for path, parser, _summary in commands(build_parser()):
        assert f"`memlens {' '.join(path)}`" in text
        for action in parser._actions:
            for option in action.option_strings:
                assert option in text, f"memlens {' '.join(path)}: {option} is not in the reference"


def test_write_keeps_the_hand_written_part(tmp_path: Path) -> None:
    page = tmp_path / "cli.md"
    page.write_text(f"# Guide\n\nWritten by hand.\n\n{MARKER}\n\nstale reference\n", encoding="utf-8")
    write(page)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Guide\n\nWritten by hand.\n\n")
    assert "stale reference" not in text and text.split(MARKER, 1)[1].strip() == reference().strip()
