"""Running a worker script in its own process and SIGKILLing it mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(worker: Path, args: list[str], until: Callable[[subprocess.Popen], None]) -> None:
    """Start ``worker`` with ``args``, wait for its "ready" line, call ``until(child)`` (which returns
    when the kill should come, and fails if the child ended first), then SIGKILL it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(worker), *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline() == "ready\n", child.stderr.read()
        until(child)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
        child.stdout.close()
        child.stderr.close()
