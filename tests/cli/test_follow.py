"""``memlens journal --follow`` prints each entry another process writes, and the poll behind it
(the desktop app's live view) sees other processes' writes as change records."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine import Memory, Settings

ROOT = Path(__file__).resolve().parents[2]
FACT = "The release train leaves every second Tuesday at noon UTC from the main branch."


def test_poll_sees_another_process_and_costs_nothing_when_idle(db_path: Path, embedder) -> None:
    with Memory(db_path, Settings(), embedder=embedder, actor="gui") as app:
        mark = app.journal_high_water()
        assert app.poll(mark) == ([], app.changes_since(mark))
        with Memory(db_path, Settings(), embedder=embedder, actor="mcp") as agent:
            added = agent.absorb([FACT]).changes
        entries, record = app.poll(mark)
        assert [e.actor for e in entries] == ["mcp"] and record == added
        assert app.poll(entries[-1].id)[0] == []


def test_browsing_does_not_count_as_access(db_path: Path, embedder) -> None:
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        fact_id = memory.absorb([FACT]).items[0].fact_id
        memory.get(fact_id, count_access=False)
        memory.close()
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        assert memory.facts([fact_id])[fact_id].access_count == 0
        memory.get(fact_id)
        memory.close()
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        assert memory.facts([fact_id])[fact_id].access_count == 1


@pytest.mark.slow
def test_journal_follow_prints_each_new_entry_as_a_json_line(db_path: Path, embedder) -> None:
    with Memory(db_path, Settings(), embedder=embedder) as memory:
        memory.absorb(["An earlier fact that is already in the journal before following starts."])
    follower = subprocess.Popen([sys.executable, "-m", "engine.faces.cli.main", "--db", str(db_path), "journal",
                                 "--follow", "--json", "--limit", "1"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in follower.stdout], daemon=True).start()
    try:
        first = json.loads(lines.get(timeout=60))  # the last existing entry; a bound, not a timed assertion
        assert first["action"] == "absorb"
        with Memory(db_path, Settings(), embedder=embedder, actor="http") as agent:
            fact_id = agent.absorb([FACT]).items[0].fact_id
        new = json.loads(lines.get(timeout=60))
        assert new["action"] == "absorb" and new["actor"] == "http" and new["fact_id"] == fact_id
        assert new["id"] > first["id"]
    finally:
        follower.terminate()
        follower.wait(timeout=30)
