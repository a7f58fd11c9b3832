"""One way for engine work to leave the UI thread.

Every call into the engine runs as an ``Op`` on a single background thread, in
submission order, so the engine sees one caller at a time and the window never
waits on SQLite or the embedder. Results come back to the UI thread through
signals. Ops that share a ``lane`` (search-as-you-type, fact loading) are
"latest wins": when a newer op of the lane has been submitted, an older one is
skipped if it has not started and its result is dropped if it has.

Background refreshes of panes that are not in front use ``BACKGROUND`` priority,
so they never delay what a person is looking at.

Signals of ``OpRunner``: ``busy_changed(bool)``, ``progress(str, int, int)``
(label, done, total; total 0 means unknown), ``cancel_requested()`` (Cancel was pressed: say so
at once, as the work stops at its next safe point).
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThread, QThreadPool, Signal, Slot

from engine import MemLensError


INTERACTIVE, BACKGROUND = 1, -1


class Cancelled(Exception):
    """Raised inside an op when the person pressed Cancel."""


@dataclass
class Progress:
    """Handed to an op's function: report progress, and check whether to stop."""
    label: str
    _relay: "_Relay"
    _cancel: threading.Event = field(default_factory=threading.Event)

    def report(self, done: int, total: int = 0) -> None:
        self.check()
        self._relay.progress.emit(self.label, done, total)

    def show(self, done: int, total: int = 0) -> None:
        """Report without stopping: for work that stops itself at a safe point (``cancelled``)."""
        self._relay.progress.emit(self.label, done, total)

    def cancel(self) -> None:
        """Stop the op: before it starts it is skipped, once started ``check`` raises ``Cancelled``."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled(self.label)


class _Relay(QObject):
    """Lives on the UI thread; signals emitted from the worker are queued to it."""
    finished = Signal(object, object)  # (op, result)
    failed = Signal(object, str)  # (op, message)
    progress = Signal(str, int, int)


@dataclass(eq=False)
class Op:
    fn: Callable[[Progress], Any]
    on_done: Callable[[Any], None] | None
    on_error: Callable[[str], None] | None
    lane: str | None
    generation: int
    progress: Progress
    quiet: bool = False
    stops_itself: bool = False  # runs even once cancelled: it reads ``progress.cancelled`` and ends cleanly


class _Task(QRunnable):
    def __init__(self, runner: "OpRunner", op: Op) -> None:
        super().__init__()
        self._runner, self._op = runner, op

    def run(self) -> None:
        op, relay = self._op, self._runner.relay
        if self._runner.is_stale(op) or (op.progress.cancelled and not op.stops_itself):
            relay.failed.emit(op, "")
            return
        try:
            relay.finished.emit(op, op.fn(op.progress))
        except Cancelled:
            relay.failed.emit(op, "")
        except MemLensError as exc:
            relay.failed.emit(op, str(exc))
        except Exception as exc:  # a bug: keep the app alive, show the message, keep the trace for the log
            traceback.print_exc()
            relay.failed.emit(op, f"unexpected error ({type(exc).__name__}): {exc}")


class OpRunner(QObject):
    busy_changed = Signal(bool)
    progress = Signal(str, int, int)
    cancel_requested = Signal()

    def __init__(self, parent: QObject | None = None, *, lowest: bool = False) -> None:
        """``lowest``: the thread runs at the lowest priority (a long background check)."""
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        if lowest:
            self._pool.setThreadPriority(QThread.Priority.LowestPriority)
        self._pool.setExpiryTimeout(-1)
        self.relay = _Relay(self)
        self.relay.finished.connect(self._finished)
        self.relay.failed.connect(self._failed)
        self.relay.progress.connect(self.progress)
        self._latest: dict[str, int] = {}
        self._pending: set[Op] = set()
        self._lock = threading.Lock()
        self._generation = 0
        self.on_error: Callable[[str], None] | None = None

    def submit(self, fn: Callable[[Progress], Any], on_done: Callable[[Any], None] | None = None, *,
               on_error: Callable[[str], None] | None = None, lane: str | None = None,
               label: str = "", priority: int = 0, quiet: bool = False, stops_itself: bool = False) -> Progress:
        """Queue ``fn(progress)``; returns its ``Progress`` (``cancel_all`` stops it).

        Queued ops run highest ``priority`` first, in submission order within one priority: what a
        person is waiting for (search, the rows on screen) goes before background refreshes.
        A ``quiet`` op (the live view's poll, every second) never shows the window as busy. An op that
        ``stops_itself`` is run even after a cancel, to end its work at a safe point (an import's steps)."""
        with self._lock:
            self._generation += 1
            if lane:
                self._latest[lane] = self._generation
            op = Op(fn, on_done, on_error, lane, self._generation, Progress(label, self.relay), quiet, stops_itself)
        if not quiet:
            was_idle = not self._pending
            self._pending.add(op)
            if was_idle:
                self.busy_changed.emit(True)
        self._pool.start(_Task(self, op), priority)
        return op.progress

    def is_stale(self, op: Op) -> bool:
        with self._lock:
            return op.lane is not None and self._latest.get(op.lane) != op.generation

    def cancel_all(self) -> None:
        for op in list(self._pending):
            op.progress.cancel()
        self.cancel_requested.emit()

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def wait(self, msecs: int = -1) -> bool:
        """Block until queued work is done (shutdown and tests only)."""
        return self._pool.waitForDone(msecs)

    @Slot(object, object)
    def _finished(self, op: Op, result: Any) -> None:
        self._settle(op)
        if op.on_done and not self.is_stale(op):
            op.on_done(result)

    @Slot(object, str)
    def _failed(self, op: Op, message: str) -> None:
        self._settle(op)
        if not message or self.is_stale(op):
            return
        handler = op.on_error or self.on_error
        if handler:
            handler(message)

    def _settle(self, op: Op) -> None:
        if op.quiet:
            return
        self._pending.discard(op)
        if not self._pending:
            self.busy_changed.emit(False)
