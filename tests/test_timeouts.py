"""A test cannot hang the suite (issue 24): pytest-timeout is configured, and a test that hangs fails
with the stack of every thread, the one it waits for included."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HANGING = '''
import threading

def test_waits_for_a_thread_that_never_answers():
    answered = threading.Event()
    helper = threading.Thread(target=threading.Event().wait, name="helper-that-never-answers", daemon=True)
    helper.start()
    answered.wait()
'''


def test_every_test_has_a_time_limit() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert 0 < options["timeout"] <= 3600
    assert options["timeout_method"] == "thread"  # the signal method shows only the main thread's stack


def test_a_hung_test_fails_with_every_threads_stack(tmp_path: Path) -> None:
    (tmp_path / "test_hangs.py").write_text(HANGING, encoding="utf-8")
    # The project's own configuration, with the limit shortened so this takes seconds, not minutes.
    result = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "-o", "timeout=3",
                             "-p", "no:cacheprovider", "-q", str(tmp_path / "test_hangs.py")],
                            capture_output=True, text=True, cwd=tmp_path, timeout=180)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Timeout" in output
    assert "Stack of helper-that-never-answers" in output and "Stack of MainThread" in output
    assert "test_waits_for_a_thread_that_never_answers" in output
