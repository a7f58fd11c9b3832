"""The vector index saved beside its memory file, so that opening a large memory need not rebuild it.

A cache, never data: ``<memory file>.vector-cache`` holds the index's arrays as they are in
memory (rows in their storage dtype, per-row scales, ids, ranking columns, the sketch and its
principal directions) and says which state of the file they reflect: the journal row they are
up to (its id and its chain hash, which commits to every row before it), the embedding model,
the vector width and the schema. Whoever opens the memory trusts the cache only when all of
that matches the file, then catches up with the journal rows written since; anything else
(missing, truncated, garbage, another store's, a journal shorter than the mark) means
rebuilding from the file, as without a cache. Deleting it loses nothing.

Layout: ``MAGIC``, each array's bytes (C order, 64-byte aligned), the header as JSON (format,
what the cache must match, the index's scalars, and each array's dtype, shape, offset and
CRC-32), the header's length (8 bytes, little-endian) and ``MAGIC`` again. The header comes
last because the checksums are known only once the arrays are written. A writer writes a
temporary file and renames it over the cache, so a reader sees a whole old cache or a whole new
one, never a partial one; the checksums catch a file damaged afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import zlib
from pathlib import Path
from typing import Any, Callable, ContextManager

import numpy as np

from engine.search.vectors import VectorIndex

FORMAT = 1
MAGIC = b"MLVCACH1"
SUFFIX = ".vector-cache"
_ALIGN = 64
_CHUNK_BYTES = 8 << 20  # copied under the store's lock at a time: ~2 ms, the longest a search waits for a write
_TEMP = ".tmp-"


class Unusable(Exception):
    """The cache cannot be trusted; the message says why (for ``verify`` and logs, never shown as an error)."""


def cache_path(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + SUFFIX)


def read(path: Path, expected: dict[str, Any], trust: Callable[[dict[str, Any]], str | None]) -> tuple[VectorIndex, dict]:
    """The index saved at ``path`` and its header, if the header's ``expected`` keys hold those values and
    ``trust(header)`` finds nothing wrong (it returns why not); raises ``Unusable`` otherwise."""
    try:
        with _open_regular(path) as handle:
            header = _header(handle)
            vet(header, expected, trust)
            entries = header["arrays"]
            scalars = header["index"]
            rows, dim = scalars.get("rows"), scalars.get("dim")
            # Before anything is allocated: the header's sizes are those of arrays the file holds (their
            # bytes were checked against the file's size), so a crafted header cannot ask for more.
            if (dim != header.get("dim") or entries.get("ids", {}).get("shape") != [rows]
                    or entries.get("matrix", {}).get("shape") != [rows, dim]):
                raise Unusable("its arrays do not match its header")
            filled: set[str] = set()

            def fill(name: str, out: np.ndarray) -> None:
                entry = entries[name]
                if np.dtype(entry["dtype"]) != out.dtype or tuple(entry["shape"]) != out.shape:
                    raise Unusable(f"array {name} has another shape")
                handle.seek(entry["offset"])
                crc = 0
                for part in (out,) if out.flags.c_contiguous else out:  # a row of a wider array is contiguous
                    crc = _read_into(handle, part, crc)
                if crc != entry["crc32"]:
                    raise Unusable(f"array {name} is damaged (checksum)")
                filled.add(name)

            index = VectorIndex.restored(header["index"], fill)
            if filled != set(entries):
                raise Unusable("arrays missing or left over")
            return index, header
    except Unusable:
        raise
    except FileNotFoundError:
        raise Unusable("none yet") from None
    except Exception as err:  # noqa: BLE001 - whatever a damaged or hostile file does, the open rebuilds instead
        raise Unusable(f"unreadable ({type(err).__name__})") from None


def vet(header: dict[str, Any], expected: dict[str, Any], trust: Callable[[dict[str, Any]], str | None]) -> None:
    """Raise ``Unusable`` unless the header's ``expected`` keys hold those values and ``trust(header)``
    finds nothing wrong (it returns why not)."""
    for key, value in expected.items():
        if header.get(key) != value:
            raise Unusable(f"made for another {key}")
    if reason := trust(header):
        raise Unusable(reason)


def _open_regular(path: Path) -> Any:
    """The cache opened for reading if it is a regular file itself: not a symlink (to a FIFO, a device,
    another store's cache), which ``open`` would follow and, for a FIFO, wait on forever."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError:
        raise Unusable("not a regular file (a symlink?)") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Unusable("not a regular file")
    return os.fdopen(fd, "rb", buffering=0)


def _header(handle: Any) -> dict[str, Any]:
    size = os.fstat(handle.fileno()).st_size
    if size < 2 * len(MAGIC) + 8 or handle.read(len(MAGIC)) != MAGIC:
        raise Unusable("not a vector cache")
    handle.seek(size - 8 - len(MAGIC))
    tail = handle.read(8 + len(MAGIC))
    length = int.from_bytes(tail[:8], "little")
    if tail[8:] != MAGIC or length > size - 2 * len(MAGIC) - 8:
        raise Unusable("truncated")
    handle.seek(size - 8 - len(MAGIC) - length)
    header = json.loads(handle.read(length))
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise Unusable("another format")
    end = size - 8 - len(MAGIC) - length
    for entry in header["arrays"].values():
        nbytes = int(np.prod(entry["shape"], dtype=np.int64)) * np.dtype(entry["dtype"]).itemsize
        if entry["offset"] < len(MAGIC) or entry["offset"] + nbytes > end:
            raise Unusable("truncated")
    return header


def _read_into(handle: Any, out: np.ndarray, crc: int) -> int:
    view = memoryview(out.reshape(-1).view(np.uint8))
    done = 0
    while done < len(view):
        got = handle.readinto(view[done:done + _CHUNK_BYTES])
        if not got:
            raise Unusable("truncated")
        crc = zlib.crc32(view[done:done + got], crc)
        done += got
    return crc


def write(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray], lock: ContextManager[Any],
          unchanged: Callable[[], bool]) -> bool:
    """Save ``arrays`` (views of a live index) with ``header`` at ``path``, replacing it whole.

    Each chunk is copied while holding ``lock`` and only while ``unchanged()`` (the index has not
    been written to since ``header`` and ``arrays`` were taken, and nobody asked to stop); the file
    is then written outside the lock, so searches wait for at most one chunk's copy. Returns False,
    leaving the old cache in place, when that stops being so or the file cannot be written.
    """
    _remove_abandoned(path)
    needed = sum(array.nbytes for array in arrays.values())
    try:
        if shutil.disk_usage(path.parent).free < 2 * needed:
            return False  # filling the disk to the brim would make the memory's own commits fail
    except OSError:
        return False
    temp = path.with_name(f"{path.name}{_TEMP}{os.getpid()}-{threading.get_ident()}")
    entries: dict[str, dict[str, Any]] = {}
    scratch = np.empty(0, np.uint8)
    try:
        with open(temp, "wb") as handle:
            handle.write(MAGIC)
            offset = len(MAGIC)
            for name, array in arrays.items():
                offset += -offset % _ALIGN
                handle.write(b"\0" * (offset - handle.tell()))
                crc = 0
                row_bytes = max(1, array[:1].nbytes)
                step = max(1, _CHUNK_BYTES // row_bytes)
                if len(scratch) < step * row_bytes:
                    scratch = np.empty(step * row_bytes, np.uint8)
                for start in range(0, max(1, len(array)), step):
                    part = array[start:start + step]
                    # Into one reused buffer: a fresh 8 MB array per chunk is faulted in page by page.
                    chunk = scratch[: part.nbytes].view(array.dtype).reshape(part.shape)
                    with lock:
                        if not unchanged():
                            raise _Stopped
                        np.copyto(chunk, part)
                    data = scratch[: part.nbytes]
                    crc = zlib.crc32(data, crc)
                    handle.write(data)
                entries[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset, "crc32": crc}
                offset += array.nbytes
            text = json.dumps({**header, "format": FORMAT, "arrays": entries}).encode()
            handle.write(text + len(text).to_bytes(8, "little") + MAGIC)
        os.replace(temp, path)
        return True
    except (_Stopped, OSError):
        temp.unlink(missing_ok=True)
        return False


class _Stopped(Exception):
    pass


def _remove_abandoned(path: Path) -> None:
    """Temporary files of writers that died (a kill mid-write); another live process's are left alone."""
    for temp in path.parent.glob(f"{path.name}{_TEMP}*"):
        pid = temp.name[len(path.name) + len(_TEMP):].split("-")[0]
        if os.name == "nt":
            # os.kill(pid, 0) sends Ctrl+C there; a live writer's open file cannot be deleted anyway.
            try:
                temp.unlink()
            except OSError:
                pass
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass  # another user's file in a shared folder: left as it is
        except (ValueError, OSError):
            continue  # not a pid, or another user's process: not ours to judge
