"""The open memory file, as the panes see it.

``Session`` owns the one ``engine.Memory`` of the window and the ``OpRunner``
that every call into it goes through. Panes never touch the ``Memory`` from
the UI thread: they pass a function of it to ``call`` and get the result back
by callback. After any write, ``store_changed`` tells every pane; each decides
whether to refresh (no pane calls another).

Signals: ``opened(dict)`` (the stats of the new file), ``open_failed(str, str)``
(path, message), ``closed()``, ``store_changed(object)`` (what changed: a plan,
or None when unknown), ``error(str)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from engine import Memory, MemLensError, Settings, config_path_for, load_settings

from gui.ops import BACKGROUND, OpRunner, Progress


class Session(QObject):
    opened = Signal(dict)
    open_failed = Signal(str, str)
    closed = Signal()
    store_changed = Signal(object)
    error = Signal(str)

    def __init__(self, runner: OpRunner | None = None, parent: QObject | None = None, *,
                 memory_factory: Callable[[Path], Memory] | None = None) -> None:
        super().__init__(parent)
        self.runner = runner or OpRunner(self)
        self.runner.on_error = self.error.emit
        self._memory: Memory | None = None
        self._factory = memory_factory or _open_memory
        self.path: Path | None = None
        self.stats: dict[str, Any] = {}
        self.settings = Settings()
        self._warm = False

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

        def work(progress: Progress) -> tuple[Memory, dict]:
            progress.report(0)
            if not create and not path.exists():
                raise MemLensError(f"there is no memory file at {path}")
            memory = self._factory(path) if create else self._factory(path, create=False)
            try:
                if prepare is not None:
                    prepare(memory, progress)
                return memory, memory.stats()
            except BaseException:
                memory.close()
                raise

        self.runner.submit(work, self._adopt, on_error=lambda msg: self.open_failed.emit(str(path), msg),
                           label=f"Opening {path.name}")

    def _adopt(self, result: tuple[Memory, dict]) -> None:
        memory, stats = result
        old, self._memory = self._memory, memory
        if old is not None:
            self.runner.submit(lambda _p: old.close())
        self.path, self.stats, self.settings = memory.path, stats, memory.settings
        self._warm = False
        self.opened.emit(stats)

    def warm_up(self) -> None:
        """Load the model and the vector index in the background, once per file; the window
        calls this after the first rows are on screen so they never wait for it."""
        if self._memory is None or self._warm:
            return
        self._warm = True
        self.call(lambda m: m.warm_up(), label="Loading the model", on_error=lambda _m: None, priority=BACKGROUND)

    def close(self) -> None:
        memory, self._memory = self._memory, None
        if memory is not None:
            self.runner.submit(lambda _p: memory.close())
            self.path, self.stats = None, {}
            self.closed.emit()

    def call(self, fn: Callable[[Memory], Any], on_done: Callable[[Any], None] | None = None, *,
             lane: str | None = None, label: str = "", on_error: Callable[[str], None] | None = None,
             with_progress: bool = False, priority: int = 0) -> Progress | None:
        """Run ``fn(memory)`` (or ``fn(memory, progress)``) off the UI thread; None when no file is open."""
        memory = self._memory
        if memory is None:
            return None
        work = (lambda p: fn(memory, p)) if with_progress else (lambda _p: fn(memory))
        return self.runner.submit(work, on_done, on_error=on_error, lane=lane, label=label, priority=priority)

    def write(self, fn: Callable[[Memory], Any], on_done: Callable[[Any], None] | None = None, *,
              label: str = "", on_error: Callable[[str], None] | None = None) -> Progress | None:
        """Like ``call`` for work that changes the file: refreshes stats and announces the change."""
        def done(result: tuple[Any, dict]) -> None:
            value, self.stats = result
            self.store_changed.emit(value)
            if on_done:
                on_done(value)

        return self.call(lambda m: (fn(m), m.stats()), done, label=label, on_error=on_error)

    def refresh_stats(self) -> None:
        def done(stats: dict) -> None:
            self.stats = stats
            self.store_changed.emit(None)
        self.call(lambda m: m.stats(), done, lane="stats", priority=BACKGROUND)

    def shutdown(self) -> None:
        """Close the file and wait for queued work (the window is closing)."""
        self.runner.cancel_all()
        self.close()
        self.runner.wait()


def _open_memory(path: Path, create: bool = True) -> Memory:
    settings = load_settings(config_path_for(path))
    return Memory(path, settings, actor="gui", create=create)
