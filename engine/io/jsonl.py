"""Reading JSONL defensively: one bad line is one error, never the end of the batch.

Lines are read as bytes with a size cap, so a huge or binary file cannot
exhaust memory, and each line is decoded on its own, so invalid UTF-8 or a
NUL byte spoils only that line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any, Iterator

from engine.absorb.planner import RawItem
from engine.errors import InvalidInput, MemLensError
from engine.store import in_use

MAX_LINE_BYTES = 1 << 20
# The cap of an input held whole: an export restored as one plan, standard input spooled, a stream
# that is not a regular file (/dev/urandom or /dev/zero never ends). 128 MiB holds an export of
# ~200,000 facts. A regular file absorbed in chunks has its own cap (``stream.MAX_STREAM_BYTES``).
MAX_INPUT_BYTES = 128 << 20


def _lines(stream: IO[bytes], cap: int | None = None) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, bytes, too long) for each line; an overlong line is drained, not kept.

    Raises ``InvalidInput`` naming the cap once more than ``MAX_INPUT_BYTES`` were read
    (drained bytes count too), so the caller writes nothing from a truncated input.
    """
    number, total, cap = 0, 0, MAX_INPUT_BYTES if cap is None else cap
    while True:
        chunk = stream.readline(MAX_LINE_BYTES + 1)
        if not chunk:
            return
        total += len(chunk)
        number += 1
        too_long = len(chunk) > MAX_LINE_BYTES
        while too_long and not chunk.endswith(b"\n") and total <= cap:
            chunk = stream.readline(MAX_LINE_BYTES)
            total += len(chunk)
            if not chunk:
                break
        if total > cap:
            raise InvalidInput(f"the input is larger than the cap of {cap:,} bytes (MAX_INPUT_BYTES); "
                               f"split it into smaller files")
        yield number, (b"" if too_long else chunk), too_long


def parse_line(number: int, data: bytes) -> RawItem:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return RawItem(None, f"line {number}: not valid UTF-8 (byte {err.start})")
    if "\x00" in text:
        return RawItem(None, f"line {number}: contains a NUL byte")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return RawItem(None, f"line {number}: not valid JSON ({err.msg} at column {err.colno})")
    except RecursionError:
        return RawItem(None, f"line {number}: JSON nested too deeply")
    if not isinstance(value, dict):
        return RawItem(None, f"line {number}: expected a JSON object, got {type(value).__name__}")
    return RawItem(value)


def read_records(stream: IO[bytes], cap: int | None = None) -> Iterator[tuple[int, RawItem]]:
    """Every non-blank line as (line number, parsed item or error); ``cap`` bytes at most
    (``MAX_INPUT_BYTES`` unless given)."""
    for number, data, too_long in _lines(stream, cap):
        if too_long:
            yield number, RawItem(None, f"line {number}: longer than {MAX_LINE_BYTES:,} bytes", number)
        elif data.strip():
            item = parse_line(number, data)
            item.line = number
            yield number, item


def open_input(path: Path, kind: str = "JSONL file") -> IO[bytes]:
    """``path`` opened for reading, or one clear error naming what was expected there."""
    if "\x00" in str(path):  # the OS cannot take it; Python raises ValueError, not OSError
        raise InvalidInput("the path contains a NUL byte")
    in_use.refuse(path)
    try:
        if path.is_dir():
            raise InvalidInput(f"{path} is a folder, not a {kind}")
        return path.open("rb")
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path}") from None
    except PermissionError:
        raise InvalidInput(f"cannot read {path}: permission denied") from None
    except OSError as err:
        raise MemLensError(f"cannot read {path}: {err.strerror}") from None


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
