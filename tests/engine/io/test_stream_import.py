"""A long JSONL import in chunks (issue 18): one plan per chunk, progress by line, cancel between
chunks, resume of an interrupted import without writing or reinforcing anything twice, a dry run
of the first chunk only, and bad lines refused one by one wherever they sit."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from engine import ImportRun, InvalidInput, Memory
from engine.io import jsonl

CITIES = ("Kazan", "Lisbon", "Berlin", "Osaka", "Quito", "Tartu", "Accra", "Perth")
THINGS = ("ingest queue", "backup job", "cache tier", "search index", "gateway", "billing export", "sensor feed")


def fact(n: int) -> str:
    return (f"Ticket {n:05d}: the {THINGS[n % len(THINGS)]} in {CITIES[n % len(CITIES)]} was moved to rack "
            f"{n * 7 % 113} after review {n * 13 % 997}.")


def write_lines(path: Path, count: int, extra: dict[int, bytes] | None = None) -> list[str]:
    """``count`` fact lines (blank line every 37th), with ``extra`` raw lines inserted before line k."""
    texts, out = [], []
    for n in range(count):
        if extra and n in extra:
            out.append(extra[n])
        if n % 37 == 36:
            out.append(b"")
        texts.append(fact(n))
        out.append(json.dumps({"text": texts[-1], "tags": ["bulk"]}).encode())
    path.write_bytes(b"\n".join(out) + b"\n")
    return texts


def stored(db: Path) -> dict[str, tuple[int, int]]:
    """text -> (number of facts holding it, summed reinforcement count)."""
    rows = sqlite3.connect(db).execute("SELECT text, count(*), sum(reinforcement_count) FROM facts GROUP BY text")
    return {text: (n, r) for text, n, r in rows}


def chunk_rows(db: Path) -> list[tuple]:
    return sqlite3.connect(db).execute(
        "SELECT c.first_line, c.last_line, c.items, p.status FROM import_chunks c JOIN plans p ON p.id = c.plan_id "
        "ORDER BY c.plan_id").fetchall()


def test_a_large_input_is_imported_in_several_plans(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    texts = write_lines(path, 230)
    seen: list[tuple[int, int]] = []
    run = memory.import_file(path, chunk_items=50, progress=lambda done, total: seen.append((done, total)))
    assert isinstance(run, ImportRun) and not run.cancelled and not run.more and run.resumed == 0
    assert [c.items for c in run.chunks] == [50, 50, 50, 50, 30]
    assert all(c.status == "applied" for c in run.chunks) and run.written == 230 and run.refused_count == 0
    lines = len(path.read_bytes().splitlines())
    assert run.total_lines == lines and seen[-1] == (lines, lines)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:])) and {t for _, t in seen} == {lines}
    facts = stored(memory.path)
    assert all(facts.get(t) == (1, 0) for t in texts) and len(facts) == 230
    rows = chunk_rows(memory.path)
    assert len(rows) == 5 and rows[0][0] == 1 and rows[-1][1] == lines
    assert all(r[1] < s[0] for r, s in zip(rows, rows[1:]))  # line ranges follow each other
    assert not memory.verify().problems


def test_chunks_close_early_on_the_character_budget(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    long = [f"Report {k}: " + " ".join(f"{CITIES[(k + w) % 8]} site {w} logged {k * w:04d} events" for w in range(60))
            for k in range(6)]
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in long), encoding="utf-8")
    run = memory.import_file(path, chunk_chars=len(long[0]) * 2 + 10)
    assert [c.items for c in run.chunks] == [2, 2, 2] and run.written == 6


def test_cancel_stops_between_chunks_and_a_rerun_resumes(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    texts = write_lines(path, 160)
    stop = threading.Event()

    def progress(done: int, total: int) -> None:
        if done >= 80:  # the second chunk is done: stop before the third
            stop.set()
    first = memory.import_file(path, chunk_items=40, progress=progress, cancel=stop)
    assert first.cancelled and first.more and [c.items for c in first.chunks] == [40, 40] and first.written == 80
    assert "run the same import again to resume" in first.summary()
    assert sum(n for n, _ in stored(memory.path).values()) == 80
    second = memory.import_file(path, chunk_items=40)
    assert second.resumed == 80 and second.items == 80 and not second.cancelled
    assert "resumed: 80 items from an earlier run were already applied" in second.summary()
    facts = stored(memory.path)
    assert all(facts.get(t) == (1, 0) for t in texts)  # each once, none reinforced by the re-run
    third = memory.import_file(path, chunk_items=25)  # another chunk size still skips every applied line
    assert third.resumed == 160 and third.items == 0 and not third.chunks and "nothing left" in third.summary()
    assert stored(memory.path) == facts and not memory.verify().problems


def test_a_cancel_as_a_callable_before_the_first_chunk_writes_nothing(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    write_lines(path, 30)
    run = memory.import_file(path, chunk_items=10, cancel=lambda: True)
    assert run.cancelled and run.written == 0 and not run.chunks and memory.stats()["facts"] == 0


def test_a_changed_file_is_a_new_import(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    write_lines(path, 40)
    memory.import_file(path, chunk_items=20)
    with path.open("ab") as out:
        out.write(json.dumps({"text": fact(999)}).encode() + b"\n")
    run = memory.import_file(path, chunk_items=20)
    assert run.resumed == 0 and run.items == 41
    assert run.counts["duplicate"] == 40 and run.counts["new"] + run.counts.get("related", 0) == 1


def test_a_dry_run_plans_the_first_chunk_only(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    texts = write_lines(path, 70)
    run = memory.import_file(path, chunk_items=30, dry_run=True)
    assert run.dry_run and run.more and len(run.chunks) == 1 and run.plan.status == "draft"
    assert len(run.plan.items) == 30 and memory.stats()["facts"] == 0
    assert f"memlens plan apply {run.plan.id}" in run.summary()
    memory.apply_plan(run.plan.id)  # the reviewed first chunk, applied by hand, counts for the resume
    rest = memory.import_file(path, chunk_items=30)
    assert rest.resumed == 30 and rest.items == 40
    assert all(stored(memory.path).get(t) == (1, 0) for t in texts)


def test_a_small_input_is_still_one_plan(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    write_lines(path, 5)
    run = memory.import_file(path)
    assert run.single and run.plan.applied and len(run.plan.items) == 5


def test_bad_lines_mid_file_are_refused_one_by_one(memory: Memory, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 2000)
    path = tmp_path / "mixed.jsonl"
    bad = {12: b"\xff\xfe\x00\x01binary", 47: json.dumps({"text": "x" * 3000}).encode(), 61: b'{"text": "nul\x00"}',
           75: b"[1, 2]"}
    texts = write_lines(path, 90, bad)
    run = memory.import_file(path, chunk_items=25)
    assert run.refused_count == 4 and run.written == 90
    numbers = path.read_bytes().split(b"\n")
    reasons = {line: reason for line, reason in run.refused}
    assert {numbers[line - 1][:6] for line in reasons} == {b"\xff\xfe\x00\x01bi", b'{"text', b"[1, 2]"}
    assert any("UTF-8" in r for r in reasons.values()) and any("longer than 2,000 bytes" in r for r in reasons.values())
    assert all(stored(memory.path).get(t) == (1, 0) for t in texts) and not memory.verify().problems


def test_an_export_is_still_restored_as_one_plan(memory: Memory, tmp_path: Path, embedder, clock) -> None:
    path = tmp_path / "bulk.jsonl"
    write_lines(path, 30)
    memory.import_file(path, chunk_items=10)
    export = tmp_path / "export.jsonl"
    with export.open("w", encoding="utf-8") as stream:
        memory.export(stream)
    with Memory(tmp_path / "copy.sqlite", clock=clock, embedder=embedder) as copy:
        run = copy.import_file(export, chunk_items=10)
        assert run.restored and run.single and run.plan.kind == "import" and copy.stats()["facts"] == 30


def test_a_file_written_to_during_the_import_stops_it(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    write_lines(path, 60)

    def progress(done: int, total: int) -> None:
        if done >= 20:  # the first chunk is applied: someone appends to the file
            with path.open("ab") as out:
                out.write(json.dumps({"text": fact(5000)}).encode() + b"\n")
    with pytest.raises(InvalidInput, match="changed during the import.*20 items were written in plans"):
        memory.import_file(path, chunk_items=20, progress=progress)
    assert memory.stats()["facts"] == 20 and not memory.verify().problems


def import_racing_another_run(memory: Memory, path: Path, this_chunk: int, clock, embedder,
                              **other_run) -> tuple[ImportRun, ImportRun]:
    """(this run, the other): this run imports ``path``, and while it plans its first chunk another
    process's run (``import_file`` with ``other_run``) goes first."""
    others: list[ImportRun] = []

    def the_other_goes_first(done: int, total: int) -> None:
        if not others:
            with Memory(memory.path, clock=clock, actor="other", embedder=embedder) as other:
                others.append(other.import_file(path, **other_run))

    return memory.import_file(path, chunk_items=this_chunk, progress=the_other_goes_first), others[0]


def test_a_second_process_importing_the_same_file_skips_what_the_first_applied(
        memory: Memory, db_path: Path, clock, embedder, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    texts = write_lines(path, 30)
    late, first = import_racing_another_run(memory, path, 10, clock, embedder, chunk_items=10)
    assert first.written == 30 and not first.elsewhere
    assert late.elsewhere == 30 and late.written == 0 and not late.chunks
    assert "30 items another run of the same import applied meanwhile" in late.summary()
    # Each line is one fact, written once and never reinforced by the second run.
    assert all(stored(db_path).get(t) == (1, 0) for t in texts)
    assert [row[3] for row in chunk_rows(db_path)] == ["applied"] * 3


def test_a_chunk_never_spans_lines_applied_before() -> None:
    from engine.absorb.planner import RawItem
    from engine.io.stream import Chunker
    records = iter([(n, RawItem({"text": f"line {n}"})) for n in range(1, 61)])
    chunker = Chunker(records, [(11, 20), (41, 45)], chunk_items=25)
    assert [(c.first_line, c.last_line) for c in chunker] == [(1, 10), (21, 40), (46, 60)]
    assert chunker.skipped == 15 and chunker.elsewhere == 0


def test_lines_of_a_chunk_another_run_partly_applied_are_planned_again(
        memory: Memory, db_path: Path, clock, embedder, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    texts = write_lines(path, 60)
    # The other run stops after its first chunk of 10 lines.
    run, other = import_racing_another_run(memory, path, 25, clock, embedder, chunk_items=10,
                                           cancel=lambda: bool(other_chunks(db_path)))
    assert other.written == 10 and other.cancelled
    first_line_of_the_file = 1
    assert run.elsewhere == 10 and run.written == 50 and not run.cancelled
    assert run.chunks[0].first_line == 11 and first_line_of_the_file not in [c.first_line for c in run.chunks]
    assert all(stored(db_path).get(t) == (1, 0) for t in texts)  # every line once, none reinforced
    again = memory.import_file(path, chunk_items=7)
    assert again.resumed == 60 and again.items == 0 and "nothing left" in again.summary()


def other_chunks(db: Path) -> list[tuple]:
    return [row for row in chunk_rows(db) if row[3] == "applied"]
