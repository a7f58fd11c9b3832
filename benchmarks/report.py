"""The one printed table and the JSON record of a benchmark run.

Rows are figures, columns are store sizes, then the target and whether it
was met. Medians and 95th percentiles print as ``p50 / p95``. The JSON keeps
every figure with the machine it was measured on, since figures from a
2-core laptop and a 32-core server are not comparable.
"""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import os
import platform
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# (figure key, label); sizes are the columns.
ROWS: list[tuple[str, str]] = [
    ("absorb_pipeline_b1_us", "absorb, pipeline only, batch 1 (µs/fact)"),
    ("absorb_pipeline_b100_us", "absorb, pipeline only, batch 100 (µs/fact)"),
    ("absorb_e2e_b1_us", "absorb, end to end, batch 1 (µs/fact)"),
    ("absorb_e2e_b100_us", "absorb, end to end, batch 100 (µs/fact)"),
    ("reabsorb_100_known_ms", "re-absorb 100 known facts (ms per batch)"),
    ("search_engine_ms", "search, engine only (ms)"),
    ("search_e2e_ms", "search, end to end (ms)"),
    ("cross_encoder_ms", "search's cross-encoder pass, 20 hits re-read (ms, on top of the search)"),
    ("cold_start_engine_s", "cold start: open + first search, vector given (s)"),
    ("cold_start_no_cache_s", "first open of the file: index built from SQLite + first search, vector given (s)"),
    ("cold_start_e2e_s", "cold start: open + model load + first search (s)"),
    ("import_s", "import numpy + engine (s)"),
    ("peak_rss_mb", "peak RSS, ready to search with the model (MB)"),
    ("peak_rss_no_model_mb", "peak RSS, first search with a given vector (MB)"),
    ("build_s", "store build: embedding + absorb (s)"),
    ("facts", "facts stored / active"),
]

# (figure key, size, limit on the median, shown as)
TARGETS: list[tuple[str, int, float, str]] = [
    ("absorb_pipeline_b1_us", 10_000, 200, "≤ 200 @10k"),
    ("absorb_pipeline_b100_us", 10_000, 200, "≤ 200 @10k"),
    ("reabsorb_100_known_ms", 10_000, 2, "≤ 2 @10k"),
    ("search_engine_ms", 10_000, 1, "p50 ≤ 1 @10k"),
    ("search_engine_ms", 100_000, 3, "p50 ≤ 3 @100k"),
    ("search_e2e_ms", 10_000, 10, "p50 ≤ 10 @10k"),
    ("cold_start_engine_s", 100_000, 1, "≤ 1 @100k"),
    ("cold_start_e2e_s", 100_000, 1, "≤ 1 @100k"),
    ("peak_rss_mb", 100_000, 400, "≤ 400 @100k"),
    ("search_engine_ms", 1_000_000, 20, "p50 ≤ 20 @1M"),
    ("peak_rss_mb", 1_000_000, 1500, "≤ 1,500 @1M"),
]


def machine() -> dict[str, Any]:
    """Where the figures were measured."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return {"cores": os.cpu_count(), "cpu": cpu, "python": sys.version.split()[0], "platform": platform.platform(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": commit, "load_average": os.getloadavg()}


def _median(value: Any) -> float | None:
    if isinstance(value, dict):
        return value.get("p50")
    return value if isinstance(value, (int, float)) else None


def evaluate_targets(figures: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for key, size, limit, shown in TARGETS:
        value = _median(figures.get(key, {}).get(str(size)))
        found.append({"figure": key, "size": size, "limit": limit, "shown": shown, "value": value,
                      "met": None if value is None else value <= limit})
    return found


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return f"{_number(value['p50'])} / {_number(value['p95'])}"
    if isinstance(value, (list, tuple)):
        return " / ".join(_number(v) for v in value)
    return _number(value)


def _number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 100:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def table(result: dict[str, Any]) -> str:
    """The printed table: one row per figure, one column per size, then target and mark."""
    sizes = [str(s) for s in result["config"]["sizes"]]
    targets = result["targets"]
    header = ["figure (p50 / p95)"] + [f"{int(s):,}" for s in sizes] + ["target", "met"]
    rows = [header]
    for key, label in ROWS:
        cells = result["figures"].get(key, {})
        mine = [t for t in targets if t["figure"] == key]
        marks = ["n/a" if t["met"] is None else ("met" if t["met"] else "MISSED") for t in mine]
        rows.append([label] + [_cell(cells.get(s)) for s in sizes]
                    + [", ".join(t["shown"] for t in mine), ", ".join(marks)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    for check in result.get("correctness_by_size") or [result["correctness"]]:
        lines.append(f"top-10 agreement with the exhaustive reference at {check['size']:,}: "
                     f"{check['agree']}/{check['queries']} (candidate_pool {check['pool']})")
    for label, value in (result.get("locomo") or {}).get("summary_rows", []) or []:
        lines.append(f"{label}: {value}")
    return "\n".join(lines)


def locomo() -> dict[str, Any] | None:
    """The LoCoMo evaluation's dict when ``benchmarks.locomo.evaluate`` exists; None when it does not."""
    if importlib.util.find_spec("benchmarks.locomo") is None:
        return None
    module = importlib.import_module("benchmarks.locomo")
    evaluate = getattr(module, "evaluate", None)
    if not callable(evaluate):
        return None
    try:
        found = evaluate()
    except Exception as err:  # someone else's module: record the failure instead of losing the speed figures
        traceback.print_exc()
        return {"error": f"{type(err).__name__}: {err}"}
    return found if isinstance(found, dict) else {"error": f"evaluate() returned {type(found).__name__}"}
