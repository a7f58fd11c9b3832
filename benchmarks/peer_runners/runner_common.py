"""The protocol every runner speaks, standard library only (runners run in the peers' own venvs).

A job file (JSON) holds::

    {"system": "...", "store_dir": "...", "model_dir": "...", "top_k": 10,
     "warmup": ["...", ...],                      # searched in each store before timing
     "conversations": [{"conv_id": "conv-26",
                        "turns": [{"fact_id", "session", "session_date_time", "text"}, ...],
                        "questions": [{"qid", "question"}, ...]}, ...]}

and the runner writes a result file (JSON)::

    {"system": "...", "version": "...", "config": {...}, "ingest_s": 12.3, "facts_given": 3435,
     "facts_stored": 3400, "runs": {"<label>": {"ranked": {qid: [turn ids]}, "search_ms": [...]}}}

``search_ms`` holds one figure per question, in the job's order, timed around the search call
alone (after the warm-up queries). ``ranked`` maps a hit back to turn ids: a turn a system
refused as a duplicate counts for the stored fact that has its text, as MemLens's merges do.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

SESSION_FORMAT = "%I:%M %p on %d %B, %Y"


def session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' -> epoch seconds (UTC), as benchmarks/locomo.py reads it."""
    return datetime.strptime(text.strip(), SESSION_FORMAT).replace(tzinfo=timezone.utc).timestamp()


def sessions(turns: list[dict]) -> list[tuple[float, list[dict]]]:
    """A conversation's turns by session, in session order, with the session's time."""
    grouped: dict[int, list[dict]] = defaultdict(list)
    for turn in turns:
        grouped[turn["session"]].append(turn)
    return [(session_time(grouped[n][0]["session_date_time"]), grouped[n]) for n in sorted(grouped)]


def unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    """``call()``'s value and its wall time in milliseconds."""
    started = time.perf_counter()
    value = call()
    return value, (time.perf_counter() - started) * 1000


def main(run: Callable[[dict], dict]) -> None:
    """``runner.py JOB RESULT``: read the job, run it, write the result."""
    if len(sys.argv) != 3:
        sys.exit(f"usage: {Path(sys.argv[0]).name} JOB.json RESULT.json")
    job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    result = run(job)
    result.setdefault("system", job["system"])
    result["python"] = sys.version.split()[0]
    Path(sys.argv[2]).write_text(json.dumps(result), encoding="utf-8")
