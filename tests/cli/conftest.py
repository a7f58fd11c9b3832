"""The CLI in-process: ``run(*args, stdin=b"...")`` returns (exit code, stdout, stderr)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Callable

import pytest

from engine.faces.cli.main import main

NOW = ["--now", "2026-11-30T12:00:00Z"]
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(db_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``memlens --db <tmp> --now <fixed> ARGS``, optionally with bytes on stdin."""
    def invoke(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        try:
            code = main(["--db", str(db_path), *NOW, *args])
        except SystemExit as exit_:
            code = exit_.code
        out, err = capsys.readouterr()
        return code, out, err
    return invoke
