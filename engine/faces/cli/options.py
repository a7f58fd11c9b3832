"""The options every command shares, declared once: output (``--json``) and writing (``--dry-run``)."""

from __future__ import annotations

import argparse


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print JSON (the same shape the HTTP API and the MCP tools return)")


def add_write_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true",
                        help="store the plan as a draft to review and write nothing else")
