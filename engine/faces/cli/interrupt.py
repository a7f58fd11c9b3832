"""A long import on the command line: Ctrl-C and a progress line.

The first Ctrl-C stops the import between chunks: every chunk applied so far stays, and running
the same import again resumes after it. A second Ctrl-C stops at once; the chunk being written is
one transaction, so it is rolled back whole. Progress goes to stderr only when it is a terminal,
so redirected output and ``--json`` stay clean.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
PROGRESS_EVERY_S = 0.2


STOPPING = ("\nmemlens: stopping after the chunk being written (Ctrl-C again to stop now; "
            "running the same import again resumes)\n").encode()


@contextmanager
def stop_between_chunks(chunked: bool = True) -> Iterator[threading.Event]:
    """An event the first Ctrl-C sets. Left alone (the event is never set) when the import is not
    ``chunked`` (nothing would look at it), off the main thread (signals reach only that one), and
    when Ctrl-C is ignored (a background job)."""
    stop = threading.Event()
    if not chunked or threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield stop
        return

    def first_interrupt(_signum: int, _frame: object) -> None:
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            sys.stderr.write(STOPPING.decode())
            sys.stderr.flush()
        except RuntimeError:  # "reentrant call": the signal came while the progress line was printed
            os.write(2, STOPPING)

    signal.signal(signal.SIGINT, first_interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def line_progress() -> Iterator[Callable[[int, int], None] | None]:
    """``progress(done, total)`` (lines of a JSONL file, texts of other formats) as one updating line on a terminal's stderr, or None."""
    if not sys.stderr.isatty():
        yield None
        return
    shown = [0.0]

    def progress(line: int, lines: int) -> None:
        now = time.monotonic()
        if now - shown[0] >= PROGRESS_EVERY_S or line >= lines:
            shown[0] = now
            print(f"\rmemlens: {line:,} of {lines:,}", end="", file=sys.stderr, flush=True)

    try:
        yield progress
    finally:
        if shown[0]:
            print(file=sys.stderr)
