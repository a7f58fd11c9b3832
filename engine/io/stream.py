"""A long JSONL import read in chunks, each planned and applied as its own plan (issue 18).

The file is read twice: once to learn its identity (size and SHA-256, and its line count for
progress), then line by line, a chunk at a time: up to ``CHUNK_ITEMS`` items, fewer once their
texts pass ``CHUNK_CHARS`` characters. Only one chunk is held at a time. Each chunk's plan
records which lines of which file it came from (``engine.store.import_chunks``), so running the
same import again skips the lines of chunks already applied and goes on from there.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from engine.absorb.planner import RawItem
from engine.absorb.validation import secret_in
from engine.errors import InvalidInput
from engine.io import jsonl
from engine.store.import_chunks import SourceFile
from engine.store.plans import Plan
from engine.vocabulary import MAX_ITEMS

CHUNK_ITEMS = MAX_ITEMS  # items per chunk plan
CHUNK_CHARS = 1_000_000  # a chunk closes early once its texts hold this many characters
MAX_STREAM_BYTES = 4 << 30  # a regular file read in chunks; a stream that is not a file keeps MAX_INPUT_BYTES
MAX_REFUSALS_KEPT = 1000  # refused lines remembered for the report (all are counted)
_BLOCK = 1 << 20


def identify(stream: IO[bytes], path: Path, label: str | None = None) -> tuple[SourceFile, int, bool]:
    """The identity of the file open as ``stream``, its number of lines, and whether it is a regular
    file; ``stream`` is left at its end.

    ``label`` replaces the resolved path in the identity (``<stdin>`` for a spooled stream).
    A stream that is not a regular file (a device, a pipe) is read up to ``MAX_INPUT_BYTES`` only.
    """
    digest, size, lines, last = hashlib.sha256(), 0, 0, b""
    regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    cap = max(MAX_STREAM_BYTES, jsonl.MAX_INPUT_BYTES) if regular else jsonl.MAX_INPUT_BYTES
    while block := stream.read(_BLOCK):
        size += len(block)
        if size > cap:
            raise InvalidInput(f"the input is larger than the cap of {cap:,} bytes"
                               f"{' (MAX_INPUT_BYTES)' if not regular else ''}; split it into smaller files")
        digest.update(block)
        lines += block.count(b"\n")
        last = block[-1:]
    if size and last != b"\n":
        lines += 1
    source = label if label is not None else str(Path(path).resolve())
    return SourceFile(stored_path(source), size, digest.hexdigest()), lines, regular


def stored_path(path: str) -> str:
    """``path`` as it may be stored (``import_chunks.source``): a folder or file name that reads as a
    secret (a token pasted as a directory name) is replaced by ``[secret]``. The same path always
    gives the same text, so an interrupted import still resumes."""
    parts = path.split("/")
    return "/".join("[secret]" if part and secret_in(part) else part for part in parts)


def changed(stream: IO[bytes], source: SourceFile, mtime_ns: int) -> bool:
    """Whether the open file was written to since it was identified (its size or time differ)."""
    now = os.fstat(stream.fileno())
    return now.st_size != source.size or now.st_mtime_ns != mtime_ns


@dataclass
class Chunk:
    items: list[RawItem]
    lines: list[int]  # the line number of each item

    @property
    def first_line(self) -> int:
        return self.lines[0]

    @property
    def last_line(self) -> int:
        return self.lines[-1]


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


class Chunker:
    """Chunks of the records not inside ``done`` (line ranges applied earlier); counts what it skips.

    A chunk never spans an applied line: it closes where one starts, so the range recorded with
    its plan holds only lines the plan carries (another run's range check relies on that).
    """

    def __init__(self, records: Iterator[tuple[int, RawItem]], done: list[tuple[int, int]],
                 chunk_items: int = CHUNK_ITEMS, chunk_chars: int = CHUNK_CHARS) -> None:
        if chunk_items < 1 or chunk_chars < 1:
            raise ValueError("chunk sizes must be positive")
        self._records = records
        self._earlier = _merged(done)  # applied before this run began
        self._earlier_starts = [first for first, _ in self._earlier]
        self._done = list(self._earlier)
        self._pending: deque[tuple[int, RawItem]] = deque()  # records handed back, read before the file
        self._items, self._chars = chunk_items, chunk_chars
        self.skipped = 0  # lines applied by earlier runs
        self.elsewhere = 0  # lines another run applied while this one went on

    def hand_back(self, chunk: Chunk, done: list[tuple[int, int]]) -> None:
        """``chunk`` was not stored because another run applied some of its lines meanwhile: take
        ``done`` (every range applied now) and chunk the chunk's other lines again."""
        self._done = _merged(done)
        self._pending.extendleft(reversed(list(zip(chunk.lines, chunk.items))))

    def _skip(self, number: int) -> bool:
        while self._done and self._done[0][1] < number:
            self._done.pop(0)
        return bool(self._done) and self._done[0][0] <= number

    def _count_skipped(self, number: int) -> None:
        at = bisect.bisect_right(self._earlier_starts, number) - 1
        if at >= 0 and number <= self._earlier[at][1]:
            self.skipped += 1
        else:
            self.elsewhere += 1

    def _next_record(self) -> tuple[int, RawItem] | None:
        return self._pending.popleft() if self._pending else next(self._records, None)

    def __iter__(self) -> Iterator[Chunk]:
        while True:
            yield from self._chunks()
            if not self._pending:  # else the last chunk was handed back
                return

    def _chunks(self) -> Iterator[Chunk]:
        chunk, chars = Chunk([], []), 0
        while (record := self._next_record()) is not None:
            number, raw = record
            if self._skip(number):
                self._count_skipped(number)
                if chunk.items:
                    yield chunk
                    chunk, chars = Chunk([], []), 0
                continue
            text = raw.value.get("text") if isinstance(raw.value, dict) else None
            size = len(text) if isinstance(text, str) else 0
            if chunk.items and (len(chunk.items) >= self._items or chars + size > self._chars):
                yield chunk
                chunk, chars = Chunk([], []), 0
                if self._pending:  # handed back: its lines come before this one
                    self._pending.append(record)
                    continue
            chunk.items.append(raw)
            chunk.lines.append(number)
            chars += size
        if chunk.items:
            yield chunk


@dataclass
class ChunkResult:
    plan_id: int | None
    first_line: int
    last_line: int
    items: int
    status: str
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"plan_id": self.plan_id, "first_line": self.first_line, "last_line": self.last_line,
                "items": self.items, "status": self.status, "counts": self.counts}


@dataclass
class ImportRun:
    """What one run of a (possibly chunked) import did. ``plan`` is the last plan made (the only
    one for an input of one chunk, and the one to review after a dry run)."""
    path: str
    source: SourceFile
    total_lines: int
    dry_run: bool = False
    chunks: list[ChunkResult] = field(default_factory=list)
    plan: Plan | None = None
    counts: Counter = field(default_factory=Counter)
    resumed: int = 0  # items skipped: their chunk's plan was applied by an earlier run
    elsewhere: int = 0  # items skipped: another run of the same import applied their chunk meanwhile
    refused: list[tuple[int, str]] = field(default_factory=list)  # (line, reason), the first MAX_REFUSALS_KEPT
    refused_count: int = 0
    written: int = 0  # items of applied plans that wrote or reinforced a fact
    cancelled: bool = False
    more: bool = False  # lines were left unplanned (a dry run of the first chunk, or a cancel)
    done_lines: int = 0  # the last line planned by this run
    restored: bool = False  # a MemLens export, restored as one ``import`` plan

    def add(self, plan: Plan, lines: list[int]) -> None:
        """Count ``plan``, made from the items on ``lines`` (item index -> line number)."""
        self.plan = plan
        counts = plan.counts()
        first, last = (lines[0], lines[-1]) if lines else (0, 0)
        self.chunks.append(ChunkResult(plan.id, first, last, len(lines), plan.status, counts))
        self.counts.update(counts)
        self.done_lines = max(self.done_lines, last)
        for it in plan.items:
            if it.outcome == "rejected":
                self.refused_count += 1
                if len(self.refused) < MAX_REFUSALS_KEPT:
                    self.refused.append((lines[it.index] if it.index < len(lines) else it.index, it.reason))
        if plan.applied:
            done = set(plan.applied_indexes)
            self.written += sum(1 for it in plan.items if it.index in done and it.outcome != "rejected")

    @property
    def items(self) -> int:
        return sum(c.items for c in self.chunks)

    @property
    def applied_plans(self) -> list[int]:
        return [c.plan_id for c in self.chunks if c.status == "applied" and c.plan_id is not None]

    @property
    def single(self) -> bool:
        """One plan and nothing resumed or left: the plan says it all, as imports always did."""
        return len(self.chunks) == 1 and not (self.resumed or self.elsewhere or self.more or self.cancelled)

    def summary(self) -> str:
        name = Path(self.path).name
        parts = []
        plans = self.applied_plans if not self.dry_run else [c.plan_id for c in self.chunks if c.plan_id]
        counts = ", ".join(f"{n:,} {outcome}" for outcome, n in sorted(self.counts.items()))
        if self.dry_run:
            parts.append(f"import of {name} (dry run, nothing written but the draft): {self.items:,} items planned"
                         f"{f' ({counts})' if counts else ''}")
        else:
            parts.append(f"import of {name}: {self.items:,} items in {len(plans)} plan{'s' * (len(plans) != 1)}"
                         f"{f' ({counts})' if counts else ''}; {self.written:,} written or reinforced")
        if self.resumed:
            parts.append(f"resumed: {self.resumed:,} items from an earlier run were already applied")
        if self.elsewhere:
            parts.append(f"skipped: {self.elsewhere:,} items another run of the same import applied meanwhile")
        if self.dry_run and self.more and self.plan is not None and self.plan.id is not None:
            parts.append(f"the dry run planned lines {self.chunks[0].first_line:,}–{self.done_lines:,} only, "
                         f"of {self.total_lines:,}; the rest is not planned. Apply it with "
                         f"`memlens plan apply {self.plan.id}`, then import again without --dry-run for the "
                         f"rest (applied lines are skipped)")
        if self.cancelled:
            parts.append(f"cancelled after line {self.done_lines:,} of {self.total_lines:,}: {self.written:,} "
                         f"items written in {len(plans)} plans; run the same import again to resume "
                         f"(lines of applied plans are skipped)")
        if not self.chunks and not self.cancelled and not self.elsewhere:
            parts.append("nothing left to import")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"import": self.path, "source": {"path": self.source.source, "size": self.source.size,
                                                "sha256": self.source.sha256},
                "lines": self.total_lines, "dry_run": self.dry_run, "items": self.items,
                "counts": dict(self.counts), "written": self.written, "resumed": self.resumed, "elsewhere": self.elsewhere,
                "refused": [{"line": line, "reason": reason} for line, reason in self.refused],
                "refused_count": self.refused_count, "cancelled": self.cancelled, "more": self.more,
                "plans": [c.to_dict() for c in self.chunks], "summary": self.summary()}


def should_stop(cancel: Any) -> Callable[[], bool]:
    """A cancel given as a ``threading.Event``, a callable or None, as a callable."""
    if cancel is None:
        return lambda: False
    if hasattr(cancel, "is_set"):
        return cancel.is_set
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError("cancel must be a threading.Event, a callable or None")


def first_and_rest(records: Iterator[tuple[int, RawItem]]) -> tuple[tuple[int, RawItem] | None,
                                                                     Iterator[tuple[int, RawItem]]]:
    first = next(records, None)

    def rest() -> Iterator[tuple[int, RawItem]]:
        if first is not None:
            yield first
        yield from records
    return first, rest()
