"""Collects the reliability tests' figures and prints them as a table at the end of the run.

``make stress`` runs these tests with ``MEMLENS_STRESS_KILLS=200``; ``make test`` runs the
short version (12 kills by default).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

KILLS = int(os.environ.get("MEMLENS_STRESS_KILLS", "12"))

# Filled by the tests: kills survived, writes lost (committed before a kill, missing after), error classes.
REPORT: dict = {"kills": 0, "survived": 0, "committed": 0, "writes_lost": 0, "half_applied": 0,
                "errors": Counter(), "ops": Counter(), "faults": [], "load": []}


@pytest.fixture(scope="session")
def report() -> dict:
    return REPORT


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not REPORT["kills"] and not REPORT["faults"] and not REPORT["load"]:
        return
    write = terminalreporter.write_line
    terminalreporter.section("MemLens reliability")
    if REPORT["kills"]:
        rows = [("SIGKILLs", REPORT["kills"]), ("kills survived (opens, integrity ok, nothing lost)", REPORT["survived"]),
                ("writes committed before a kill", REPORT["committed"]), ("writes lost", REPORT["writes_lost"]),
                ("plans half applied", REPORT["half_applied"])]
        rows += [(f"  committed {op} plans", n) for op, n in sorted(REPORT["ops"].items())]
        rows += [(f"child errors: {name}", n) for name, n in sorted(REPORT["errors"].items())]
        for label, value in rows:
            write(f"  {label:<58} {value:>8}")
    for label, outcome in REPORT["faults"]:
        write(f"  {label:<58} {outcome:>8}")
    for label, value in REPORT["load"]:  # test_load.py: throughput and p95 under load, server RSS
        write(f"  {label:<58} {value!s:>8}")
