"""The open memory file, as the panes see it.

``Session`` owns the one ``engine.Memory`` of the window and the ``OpRunner``
that every call into it goes through. Panes never touch the ``Memory`` from
the UI thread: they pass a function of it to ``call`` and get the result back
by callback. After any write, ``store_changed`` tells every pane what it
changed; each refreshes only what the record touches (no pane calls another).

Every open bumps ``generation``: an answer to a call made for an earlier file is
dropped, and a draft made for one (it passes ``generation=``) is refused, so a
fact id of one file never reaches another. While a file is open, a timer polls
it (``Memory.poll``) so that writes by other processes (an agent over MCP, the
CLI) show up within about a second.

Signals: ``opened(dict)`` (the stats of the new file, without the counts of vectors search cannot use:
``stats_changed(dict)`` brings them a moment later), ``open_failed(str, str)``
(path, message), ``closed()``, ``store_changed(object)`` (a ``ChangeRecord``, or
None when unknown: reload everything), ``live_changes(list, object)`` (journal
entries another process wrote, and their ``ChangeRecord``), ``error(str)``.
"""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal

from engine import (ChangeRecord, JournalEntry, Memory, MemLensError, Settings, Verification, config_path_for,
                    load_settings)

from gui.ops import BACKGROUND, OpRunner, Progress

INTERACTION_QUIET_S = 0.5  # background checks resume once nobody has scrolled or typed for this long


class Session(QObject):
    opened = Signal(dict)
    open_failed = Signal(str, str)
    closed = Signal()
    store_changed = Signal(object)
    live_changes = Signal(list, object)
    verified = Signal(object)  # a Verification of the open file, made in the background after opening
    stats_changed = Signal(dict)  # the stats gained what opening left to the background (see _count_vectors)
    vectors_ready = Signal()  # the model and the vector index of the open file finished loading (see warm_up)
    error = Signal(str)

    POLL_MS = 1000

    def __init__(self, runner: OpRunner | None = None, parent: QObject | None = None, *,
                 memory_factory: Callable[[Path], Memory] | None = None) -> None:
        super().__init__(parent)
        self.runner = runner or OpRunner(self)
        self.runner.on_error = self.error.emit
        self.checker = OpRunner(self, lowest=True)  # the file check's own thread (see verify)
        # The model and the vector index load on a thread of their own (see warm_up), so that searches on
        # ``runner`` meanwhile are answered from the text alone instead of waiting seconds behind them.
        self.loader = OpRunner(self)
        # time.monotonic() of a person's last scroll or key press (see _gently); never, so far. Not 0.0:
        # monotonic time counts from the machine's boot, so on a machine up for less than the quiet
        # interval 0.0 read as "just now" and the file check waited for nobody.
        self._interacted_at = float("-inf")
        self._verify_stop: threading.Event | None = None
        self._memory: Memory | None = None
        self._factory = memory_factory or _open_memory
        self.path: Path | None = None
        self.stats: dict[str, Any] = {}
        self.failed_facts: dict[int, str] = {}  # facts the last verification of this file found damaged: why
        self.settings = Settings()
        self._warm = False
        self.generation = 0
        self.seen = 0  # the newest journal row the panes have been told about
        self._polling = False
        self.poll_timer = QTimer(self, interval=self.POLL_MS)
        self.poll_timer.timeout.connect(self.poll)

    @property
    def read_only(self) -> bool:
        return bool(self.stats.get("read_only"))

    @property
    def is_open(self) -> bool:
        return self._memory is not None

    def open(self, path: Path | str, *, create: bool = False,
             prepare: Callable[[Memory, Progress], Any] | None = None) -> None:
        """Open ``path`` (the current file stays open until this succeeds); ``opened`` or
        ``open_failed`` follows. ``prepare`` runs on the new memory first (the demo fills it)."""
        path = Path(path)

        def work(progress: Progress) -> tuple[Memory, dict, int]:
            progress.report(0)
            if not create and not path.exists():
                raise MemLensError(f"there is no memory file at {path}")
            memory = self._factory(path) if create else self._factory(path, create=False)
            try:
                if prepare is not None:
                    prepare(memory, progress)
                # The counts of vectors search cannot use read every row (1M: 2 s): they follow, apart.
                return memory, memory.stats(vectors=False), memory.journal_high_water()
            except BaseException:
                memory.close()
                raise

        self.runner.submit(work, self._adopt, on_error=lambda msg: self.open_failed.emit(str(path), msg),
                           label=f"Opening {path.name}")

    def _adopt(self, result: tuple[Memory, dict, int]) -> None:
        memory, stats, self.seen = result
        old, self._memory = self._memory, memory
        self._stop_verify()
        gc.unfreeze()  # the last file's long-lived objects become collectable again (see warm_up)
        if old is not None:
            self.runner.submit(lambda _p, loader=self.loader: (loader.wait(), old.close()))
        self.generation += 1
        self.path, self.stats, self.settings = memory.path, stats, memory.settings
        self.failed_facts = {}
        memory.pace_background(self._wait_while_interacting)
        self._warm = False
        self._polling = False
        self.poll_timer.start()
        self.opened.emit(stats)
        self._count_vectors()
        self.verify()

    def _count_vectors(self) -> None:
        """Add the vectors search cannot use to the stats of the file just opened, off the worker."""
        memory, made_for = self._memory, self.generation

        def done(health: dict[str, int]) -> None:
            # A write's stats, read meanwhile, already hold newer counts.
            if made_for == self.generation and "needs_reembedding" not in self.stats:
                self.stats = {**self.stats, **health}
                self.stats_changed.emit(self.stats)

        if memory is not None:
            self.checker.submit(lambda _p: memory.vector_health_apart(), done, on_error=lambda _m: None,
                                lane="vectors", quiet=True)

    def verify(self) -> None:
        """Check the open file (integrity, content hashes, the journal's chain, FTS) off the UI thread;
        a file damaged or tampered with outside MemLens says so as soon as it is opened.

        The checks that only read run on a thread of their own (``checker``) through their own
        read-only connection (100k facts: 2-3 s of CPU; 1M: a minute or more), so searches and pages
        never queue behind them; they start once the worker has nothing queued (the first rows, the
        model), so they do not take a core from what a person is waiting for. The full-text check, a
        write statement, then runs on the worker as a background op. Opening or closing a file stops a
        check under way, and a verdict made for an earlier file is dropped."""
        memory = self._memory
        if memory is None:
            return
        self._stop_verify()
        stop = self._verify_stop = threading.Event()
        made_for = self.generation

        def read_checks_done(verdict: Verification | None) -> None:
            if verdict is None or stop.is_set() or made_for != self.generation:
                return
            self.call(lambda m: verdict.adding(m.verify_writing_checks()), self._verified, lane="verify",
                      label="Verifying the file", priority=BACKGROUND, quiet=True, on_error=lambda _m: None)

        def start() -> None:
            if not stop.is_set() and made_for == self.generation:
                self.checker.submit(lambda _p: memory.verify_apart(self._gently(stop)), read_checks_done,
                                    on_error=lambda _m: None, lane="verify", label="Verifying the file", quiet=True)

        self._when_idle(start)

    def _verified(self, verdict: Verification) -> None:
        self.failed_facts = {p.fact_id: p.message for p in verdict.problems if p.fact_id is not None}
        self.verified.emit(verdict)

    def note_interaction(self) -> None:
        """A person is scrolling or typing (called from the UI thread): background checks wait a moment."""
        self._interacted_at = time.monotonic()

    def _wait_while_interacting(self, stop: threading.Event | None = None) -> None:
        """Return once nobody has scrolled or typed for ``INTERACTION_QUIET_S`` (or ``stop`` is set).
        Background work calls it between its chunks (any thread): its Python would otherwise take the
        interpreter lock from every call the UI thread makes while painting (100k facts: scrolling
        stalls of 100-200 ms beside the file check; 1M: ~100 ms beside the text index's build)."""
        pause = stop or threading.Event()
        while not pause.is_set() and time.monotonic() - self._interacted_at < INTERACTION_QUIET_S:
            pause.wait(0.05)

    def _gently(self, stop: threading.Event) -> Callable[[], bool]:
        """``stop.is_set`` for the file check, which it polls between rows it fetches: it also waits
        there while a person scrolls or types, so the check pauses within milliseconds."""
        def stopped() -> bool:
            self._wait_while_interacting(stop)
            return stop.is_set()
        return stopped

    def _when_idle(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` once the worker has no (non-quiet) op queued or running."""
        if not self.runner.busy:
            fn()
            return

        def idle(busy: bool) -> None:
            if not busy:
                self.runner.busy_changed.disconnect(idle)
                fn()

        self.runner.busy_changed.connect(idle)

    def _stop_verify(self) -> None:
        if self._verify_stop is not None:
            self._verify_stop.set()
            self._verify_stop = None

    def warm_up(self) -> None:
        """Load the model and the vector index in the background, once per file; the window
        calls this after the first rows are on screen so they never wait for it.

        Once loaded they live as long as the file is open, so they are frozen out of the garbage
        collector: each of its full passes walked them (100k facts: 150-400 ms, holding the GIL, so
        the UI thread stalled whichever thread ran the pass)."""
        memory = self._memory
        if memory is None or self._warm:
            return
        self._warm = True
        made_for = self.generation

        def done(_none: None) -> None:
            gc.freeze()
            if made_for == self.generation:
                self.vectors_ready.emit()

        # Not through ``call``: its thread stays free for searches, which the engine answers from the
        # text alone until this is done (``search_timed(text_first=True)``).
        self.loader.submit(lambda _p: memory.warm_up(), done, on_error=lambda _m: None,
                           label="Loading the model and the vector index")

    def close(self) -> None:
        memory, self._memory = self._memory, None
        if memory is not None:
            self._stop_verify()
            gc.unfreeze()
            self.poll_timer.stop()
            self.generation += 1
            # After the loader's warm-up, if one is under way: it uses the memory from its own thread.
            self.runner.submit(lambda _p, loader=self.loader: (loader.wait(), memory.close()))
            self.path, self.stats, self.failed_facts = None, {}, {}
            self.closed.emit()

    def call(self, fn: Callable[[Memory], Any], on_done: Callable[[Any], None] | None = None, *,
             lane: str | None = None, label: str = "", on_error: Callable[[str], None] | None = None,
             with_progress: bool = False, priority: int = 0, generation: int | None = None,
             quiet: bool = False, stops_itself: bool = False) -> Progress | None:
        """Run ``fn(memory)`` (or ``fn(memory, progress)``) off the UI thread; None when no file is open.

        ``generation`` says which open file the call was made for (a draft's fact ids belong to it):
        another one is refused. Either way the answer is dropped if a file was opened meanwhile."""
        memory = self._memory
        if memory is None:
            return None
        if generation is not None and generation != self.generation:
            (on_error or self.error.emit)("that was for a memory file that is no longer open; nothing was done")
            return None
        made_for = self.generation

        def current(callback: Callable[[Any], None] | None) -> Callable[[Any], None] | None:
            if callback is None:
                return None
            return lambda value: callback(value) if made_for == self.generation else None

        work = (lambda p: fn(memory, p)) if with_progress else (lambda _p: fn(memory))
        return self.runner.submit(work, current(on_done), on_error=current(on_error or self.error.emit), lane=lane,
                                  label=label, priority=priority, quiet=quiet, stops_itself=stops_itself)

    def write(self, fn: Callable[..., Any], on_done: Callable[[Any], None] | None = None, *,
              label: str = "", on_error: Callable[[str], None] | None = None,
              generation: int | None = None, with_progress: bool = False,
              stops_itself: bool = False) -> Progress | None:
        """Like ``call`` for work that changes the file: announces what changed, by this write and by
        any other process since the panes last heard, as one ``ChangeRecord``."""
        seen = self.seen

        def work(memory: Memory, *progress: Progress) -> tuple[Any, dict, list[JournalEntry], ChangeRecord, int]:
            # Rows other processes wrote first are read before ours, so they are announced as theirs.
            theirs, _ = memory.poll(seen)
            value = fn(memory, *progress)
            return value, memory.stats(), theirs, memory.changes_since(seen), memory.journal_high_water()

        def done(result: tuple[Any, dict, list[JournalEntry], ChangeRecord, int]) -> None:
            value, self.stats, theirs, record, high = result
            theirs = [e for e in theirs if e.id > self.seen]  # a poll that ran first announced the rest
            self.seen = max(self.seen, high)
            if theirs:
                self.live_changes.emit(theirs, memory_changes(theirs, record))
            self.store_changed.emit(record)
            if on_done:
                on_done(value)

        return self.call(work, done, label=label, on_error=on_error, generation=generation,
                         with_progress=with_progress, stops_itself=stops_itself)

    def poll(self) -> None:
        """Ask the file what other processes wrote since the panes last heard (one pragma when idle)."""
        if self._memory is None or self._polling:
            return
        self._polling = True
        seen = self.seen

        def work(memory: Memory) -> tuple[list[JournalEntry], ChangeRecord, dict | None]:
            entries, record = memory.poll(seen)
            return entries, record, memory.stats() if entries else None

        def done(result: tuple[list[JournalEntry], ChangeRecord, dict | None]) -> None:
            self._polling = False
            entries, record, stats = result
            if not entries or entries[-1].id <= self.seen:  # a write of ours announced them already
                return
            self.seen, self.stats = entries[-1].id, stats
            self.live_changes.emit(entries, record)
            self.store_changed.emit(record)

        def failed(_message: str) -> None:
            self._polling = False

        if self.call(work, done, lane="poll", on_error=failed, priority=BACKGROUND, quiet=True) is None:
            self._polling = False

    def refresh_stats(self) -> None:
        """F5: reload everything (``store_changed(None)``)."""
        def done(stats: dict) -> None:
            self.stats = stats
            self.store_changed.emit(None)
        self.call(lambda m: m.stats(), done, lane="stats", priority=BACKGROUND)

    def shutdown(self) -> None:
        """Close the file and wait for queued work (the window is closing)."""
        self.poll_timer.stop()
        self.runner.cancel_all()
        self.checker.cancel_all()
        self.loader.cancel_all()
        self.close()
        self.runner.wait()
        self.checker.wait()
        self.loader.wait()


def memory_changes(entries: list[JournalEntry], record: ChangeRecord) -> ChangeRecord:
    """The part of ``record`` these journal rows wrote (a write's record may also hold our own rows)."""
    first, last = entries[0].id, entries[-1].id
    ids = {e.fact_id for e in entries if e.fact_id is not None}
    return ChangeRecord(facts_added=[f for f in record.facts_added if f in ids],
                        facts_status_changed=[f for f in record.facts_status_changed if f in ids],
                        facts_touched=[f for f in record.facts_touched if f in ids],
                        actors=sorted({e.actor for e in entries}), journal_first=first, journal_last=last)


def _open_memory(path: Path, create: bool = True) -> Memory:
    settings = load_settings(config_path_for(path))
    return Memory(path, settings, actor="gui", create=create)
