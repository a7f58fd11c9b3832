"""Moving memories in and out: export, restore of a MemLens export, and other tools' files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from engine.agents import profile as profile_files
from engine.agents.service import AgentFiles
from engine.absorb.planner import RawItem
from engine.errors import Conflict, InvalidInput, MemLensError, StoreError
from engine.io import importers, stream, transfer
from engine.io import jsonl
from engine.io.stream import ChunkResult, ImportRun
from engine.models.heap import release_freed_memory
from engine.plans.service import PlanService, Progress, Recorder
from engine.search.index_sync import IndexSync
from engine.store import in_use
from engine.store.context import Context
from engine.store.import_chunks import SourceFile, applied_chunks, applied_overlapping, record_chunk
from engine.store.plans import Plan


class Transfers:
    def __init__(self, ctx: Context, index: IndexSync, plans: PlanService, agent_files: AgentFiles) -> None:
        self._ctx, self._index, self._plans, self._agent_files = ctx, index, plans, agent_files
        plans.writers["import"] = transfer.restore

    def export(self, stream: IO[str]) -> int:
        with self._ctx.store.guard():
            return transfer.write_export(stream, self._ctx.store.db, self._ctx.clock())

    def export_to(self, path: Path) -> int:
        """Write the export to ``path`` through a temporary file beside it, so a failure leaves what was
        there. Refused, before anything is opened: a memory file in use here or one of its files, and
        any other SQLite database (an export never replaces a memory)."""
        path = Path(path).expanduser()
        in_use.refuse(path)
        if path.is_dir():
            raise InvalidInput(f"{path} is a folder; name the file to export to")
        if _is_sqlite(path):
            raise InvalidInput(f"{path} is a SQLite database, perhaps another memory; an export never "
                               f"replaces one, so choose another name")
        partial = path.with_name(path.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as stream:
                count = self.export(stream)
            os.replace(partial, path)
        except OSError as err:
            partial.unlink(missing_ok=True)
            raise MemLensError(f"cannot write {path}: {err.strerror}") from None
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        return count

    def import_file(self, path: Path, *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
                    progress: Progress | None = None, cancel: Any = None, chunk_items: int | None = None,
                    chunk_chars: int | None = None, source_label: str | None = None) -> ImportRun:
        """Import a JSONL file in chunks (``stream.Chunker``), each planned and applied as its own plan.

        ``progress(line, lines)`` follows the lines; ``cancel`` (a ``threading.Event`` or a callable)
        is checked between chunks. A re-run on the same file (path, size, SHA-256) skips the lines of
        chunks applied before. A dry run plans the first chunk not yet applied and stops there. A
        MemLens export is restored as one ``import`` plan instead.
        """
        run = None
        for run in self.import_steps(path, dry_run=dry_run, defaults=defaults, progress=progress, cancel=cancel,
                                     chunk_items=chunk_items, chunk_chars=chunk_chars, source_label=source_label):
            pass
        assert run is not None  # the steps always end with the finished run
        return run

    def import_steps(self, path: Path, *, dry_run: bool = False, defaults: dict[str, Any] | None = None,
                     progress: Progress | None = None, cancel: Any = None, chunk_items: int | None = None,
                     chunk_chars: int | None = None, source_label: str | None = None) -> Iterator[ImportRun]:
        """``import_file`` one chunk at a time: the run so far after each chunk is planned (and applied),
        then the finished run. Between two steps the memory is free for other calls from the same
        thread (a window refreshes its counts and listing there); each step is its own transaction."""
        path = Path(path)
        with jsonl.open_input(path) as handle:
            mtime_ns = os.fstat(handle.fileno()).st_mtime_ns
            source, lines, regular = stream.identify(handle, path, source_label)
            if not regular:
                raise InvalidInput(f"{path} is not a regular file; pipe a stream to 'memlens absorb --file -'")
            handle.seek(0)
            records = jsonl.read_records(handle, max(stream.MAX_STREAM_BYTES, jsonl.MAX_INPUT_BYTES))
            run = ImportRun(str(path), source, lines, dry_run=dry_run)
            yield from self._import_lines(handle, records, run, mtime_ns, dry_run=dry_run, defaults=defaults,
                                          progress=progress, stop=stream.should_stop(cancel),
                                          chunk_items=chunk_items or stream.CHUNK_ITEMS,
                                          chunk_chars=chunk_chars or stream.CHUNK_CHARS)

    def _import_lines(self, handle: IO[bytes], records: Iterator[tuple[int, RawItem]], run: ImportRun,
                      mtime_ns: int, *, dry_run: bool, defaults: dict[str, Any] | None, progress: Progress | None,
                      stop: Callable[[], bool], chunk_items: int, chunk_chars: int) -> Iterator[ImportRun]:
        source, lines = run.source, run.total_lines
        first, records = stream.first_and_rest(records)
        if first is not None and transfer.is_export_header(first[1].value):
            yield self._restore(source, records, run)
            return
        with self._ctx.store.guard():
            done = applied_chunks(self._ctx.store.db, source)
        chunker = stream.Chunker(records, [(first_line, last_line) for _, first_line, last_line, _ in done],
                                 chunk_items, chunk_chars)
        chunks = iter(chunker)
        try:
            for chunk in chunks:
                if stop():
                    run.cancelled = run.more = True
                    break
                if stream.changed(handle, source, mtime_ns):
                    raise InvalidInput(f"{run.path} changed during the import, so the rest was not read "
                                       f"(a changed file is a new import)")
                try:
                    plan = self._plans.absorb(chunk.items, dry_run=dry_run, defaults=defaults,
                                              progress=_within(progress, chunk, lines),
                                              record=_recorder(source, chunk))
                except _ImportedElsewhere:
                    with self._ctx.store.guard():  # nothing of it was stored: plan its other lines again
                        chunker.hand_back(chunk, [(first, last) for _, first, last, _ in
                                                  applied_chunks(self._ctx.store.db, source)])
                    continue
                run.add(plan, chunk.lines)
                release_freed_memory()
                if progress is not None:
                    progress(min(chunk.last_line, lines), lines)
                if dry_run:
                    run.more = next(chunks, None) is not None
                    break
                yield run
        except MemLensError as err:
            if run.applied_plans:  # what was applied stays; say so, and how to go on
                err.args = (f"{err}; before that, {run.written:,} items were written in plans "
                            f"{', '.join(map(str, run.applied_plans))}: run the same import again to resume",)
            raise
        run.resumed, run.elsewhere = chunker.skipped, chunker.elsewhere
        if not run.chunks and not run.resumed and not run.elsewhere and not run.cancelled:
            # An input without any item: an empty plan, as an absorb of nothing always gave.
            run.plan = self._plans.absorb([], dry_run=dry_run, defaults=defaults)
            run.chunks.append(ChunkResult(run.plan.id, 0, 0, 0, run.plan.status, {}))
        yield run

    def _restore(self, source: SourceFile, records: Iterator[tuple[int, RawItem]],
                 run: ImportRun) -> ImportRun:
        """A MemLens export: one ``import`` plan, since edges may point to any later line and ids are
        kept exact into an empty memory. Lines are parsed straight into the plan's items."""
        cap = jsonl.MAX_INPUT_BYTES
        if source.size > cap:
            raise InvalidInput(f"the input is larger than the cap of {cap:,} bytes (MAX_INPUT_BYTES) for "
                               f"restoring an export in one plan; split it into smaller files")
        next(records)  # the header
        lines: list[int] = []  # item index -> line number, for the report

        def entries() -> Iterator[tuple[int, Any, str | None]]:
            for number, raw in records:
                lines.append(number)
                yield len(lines) - 1, raw.value, raw.error
        ctx = self._ctx
        run.restored = True
        with ctx.store.guard():
            items = transfer.plan_restore(ctx.store.db, entries(), ctx.settings.memory)
            if ctx.read_only:
                raise StoreError(f"{ctx.path} is read-only: nothing was written")
            plan = self._plans.store_draft("import", items, record=lambda db, p: record_chunk(
                db, p.id, source, 1, max(run.total_lines, 1), len(items)))
            if not run.dry_run:
                self._index.ready()
                self._plans.apply_loaded(plan, None, {})
        run.add(plan, lines)
        return run

    def import_from(self, fmt: str, path: Path | str, *, dry_run: bool = False,
                    defaults: dict[str, Any] | None = None, progress: Callable[[int, int], None] | None = None,
                    as_profile: bool = False, cancel: Any = None) -> Plan | ImportRun:
        fmt = importers.check_format(fmt)
        path = Path(path)
        if as_profile and fmt != "hermes":
            raise InvalidInput("only Hermes files can become the profile (as_profile needs format hermes)")
        if fmt == "jsonl":
            return self.import_file(path, dry_run=dry_run, defaults=defaults, progress=progress, cancel=cancel)
        batch = importers.read(fmt, path)
        texts = self._profile_to_save(batch, path) if as_profile else {}
        if not batch.items:
            raise InvalidInput(f"{path} holds no entries to import")
        plan = self._plans.absorb(batch.items, dry_run=dry_run, defaults=defaults, progress=progress)
        if not dry_run:
            for name, (text, version) in texts.items():
                self._agent_files.save(name, text, version)
        return plan

    def _profile_to_save(self, batch: importers.Batch, path: Path) -> dict[str, tuple[str, str]]:
        """name -> (text, version to replace), refused before anything is written when it cannot be saved."""
        if not batch.profile:
            raise InvalidInput(f"{path} has no MEMORY.md or USER.md to use as the profile")
        current = self._agent_files.profile()
        texts = {}
        for name, text in batch.profile.items():
            if text is None:
                raise InvalidInput(f"{name} is not valid UTF-8, so it cannot become the profile; nothing was imported")
            profile_files.check_text(name, text)  # a secret or control character: refused now, not after the absorb
            mine = current.file(name)
            if mine.problem is None and mine.text == text:
                continue
            if mine.problem is not None or mine.text.strip():
                raise Conflict(f"this memory's {name} already holds other text ({mine.path}); importing would "
                               f"replace it, so nothing was imported: merge the files by hand, or import "
                               f"without the profile option")
            texts[name] = (text, mine.version)
        return texts


def _is_sqlite(path: Path) -> bool:
    """Whether ``path`` starts like a SQLite database (read only once ``in_use`` said it is not ours)."""
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


class _ImportedElsewhere(Exception):
    """Another run of the same import applied these lines while this one planned them."""


def _recorder(source: SourceFile, chunk: stream.Chunk) -> Recorder:
    def record(db: Any, plan: Plan) -> None:
        # Checked in the transaction that stores the plan: two processes importing one file would
        # otherwise both write the chunk, the second reinforcing every fact the first wrote.
        if applied_overlapping(db, source, chunk.first_line, chunk.last_line):
            raise _ImportedElsewhere()
        record_chunk(db, plan.id, source, chunk.first_line, chunk.last_line, len(chunk.items))
    return record


def _within(progress: Progress | None, chunk: stream.Chunk, lines: int) -> Progress:
    """The planner's progress over a chunk's texts, as lines of the whole file. Called between the
    planner's embedding slices (64 texts), it also hands freed memory back, so the transient peak of
    one slice's model runs does not stack on pages the previous slice left behind."""
    start, span = chunk.first_line - 1, chunk.last_line - chunk.first_line + 1

    def report(done: int, total: int) -> None:
        release_freed_memory()
        if progress is not None:
            progress(min(start + (span * done // total if total else 0), lines), lines)
    return report
