"""``memlens gui`` as a command: offscreen screenshots, and clear errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

pytestmark = pytest.mark.slow


def _memlens(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.faces.cli.main", *args], capture_output=True, text=True,
                          timeout=180, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("pane, extra", [("search", ["--query", "Ferrite database", "--fact", "24"]),
                                         ("timeline", ["--fact", "15"])])
def test_screenshot_renders_a_pane_at_the_asked_size(demo_copy: Path, tmp_path: Path, pane: str,
                                                     extra: list[str]) -> None:
    out = tmp_path / f"{pane}.png"
    done = _memlens("gui", "--db", str(demo_copy), "--screenshot", str(out), "--pane", pane, *extra)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)


def test_bad_options_and_files_are_one_line_errors(tmp_path: Path) -> None:
    bad_size = _memlens("gui", "--screenshot", str(tmp_path / "x.png"), "--size", "huge")
    assert bad_size.returncode == 2 and "--size must look like" in bad_size.stderr
    not_memory = tmp_path / "notes.sqlite"
    not_memory.write_text("just some notes\n" * 10, encoding="utf-8")
    failed = _memlens("--db", str(not_memory), "gui", "--screenshot", str(tmp_path / "y.png"))
    assert failed.returncode == 1 and "cannot open" in failed.stderr and "Traceback" not in failed.stderr
    assert not (tmp_path / "y.png").exists()


def test_without_a_display_the_app_says_so(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "gui", "--db", str(tmp_path / "m.sqlite")], capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.returncode == 2 and "no display found" in done.stderr
