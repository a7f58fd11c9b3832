"""The options every command shares, declared once: output (``--json``) and writing (``--dry-run``)."""

from __future__ import annotations

import argparse
import re



_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def whole_number(value: str) -> int:
    """argparse type for ids and counts: ASCII digits only. ``int()`` also reads "１" (full-width),
    "1_0" and " 1", so an id typed or pasted wrongly would name another fact; a range error
    (0, -3, beyond 64 bits) is left to the engine's one-line check."""
    if not _WHOLE_NUMBER.fullmatch(value):
        raise argparse.ArgumentTypeError("expected a whole number written with the digits 0-9 only")
    return int(value)

def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print JSON (the same shape the HTTP API and the MCP tools return)")


def add_write_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true",
                        help="store the plan as a draft to review and write nothing else")
