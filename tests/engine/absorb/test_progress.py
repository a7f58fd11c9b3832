"""Long absorbs report progress and can be stopped without writing anything."""

from __future__ import annotations

import pytest

from engine import Memory


def test_absorb_reports_embedding_progress_and_stops_cleanly(memory: Memory) -> None:
    texts = [f"Fact number {n} about the Ferrite ingest service and its replica count of {n}." for n in range(150)]
    seen: list[tuple[int, int]] = []
    plan = memory.absorb(texts, dry_run=True, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 150) and seen[-1] == (150, 150) and len(plan.items) == 150

    class Stop(Exception):
        pass

    def stop(done: int, total: int) -> None:
        if done >= 64:
            raise Stop

    before = len(memory.plans())
    with pytest.raises(Stop):
        memory.absorb(texts, progress=stop)
    assert len(memory.plans()) == before and memory.stats()["facts"] == 0
