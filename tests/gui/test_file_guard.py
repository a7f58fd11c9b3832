"""Nothing in the app's process opens a memory file's paths except SQLite (issue 27).

``flows_for_file_guard.py`` runs the app's main flows (open, search, the Open, New and
Export dialogs on the files' own folder, import, profile save, export, switch file, close)
under ``strace -k``, which records every open, rename, unlink or truncate of the two
memory files' paths with the call stack that made it. Each must come from SQLite itself;
the engine's own Python may touch only the vector cache. Anything else (Qt's MIME sniffing,
a platform file dialog, a stray ``open()``) fails the test with the stack that did it.
Skipped, naming the tool, where strace or its stack traces are missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.store.in_use import own_files

REPO = Path(__file__).resolve().parents[2]
SYSCALLS = "open,openat,openat2,creat,truncate,rename,renameat,renameat2,unlink,unlinkat"
RUN_S = 900  # strace slows every syscall of a Qt start-up; a loaded CI core needs the room
CALLER = re.compile(r"^ > (\S+?)\(([^+)]*)")  # a frame: library and (when known) function



def _why_not() -> str | None:
    if sys.platform != "linux":
        return "the file guard traces system calls with strace (Linux)"
    if shutil.which("strace") is None:
        return "no file guard: strace is not installed (apt-get install strace)"
    probe = subprocess.run(["strace", "-k", "-e", "trace=none", "true"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return f"no file guard: this strace cannot record call stacks (-k): {probe.stderr.strip()[:200]}"
    return None


@dataclass
class Touch:
    call: str
    path: str
    stack: list[str]

    @property
    def caller(self) -> str:
        """The first library on the stack above the C library's system call wrapper."""
        for frame in self.stack:
            library = frame.split(" ", 1)[0]
            if not library.startswith(("libc.so", "libc-", "ld-linux", "libpthread")):
                return library
        return "?"

    @property
    def by_sqlite(self) -> bool:
        return "sqlite" in self.caller

    @property
    def by_python(self) -> bool:
        return "python" in self.caller


def parse(trace: str, watched: set[str]) -> list[Touch]:
    """Every traced call on a watched path, with the libraries of its stack, innermost first.

    With ``-f`` a call interrupted by another thread's is printed as ``<unfinished ...>`` and
    later ``<... openat resumed>``; its stack follows the resumed line."""
    touches: list[Touch] = []
    unfinished: dict[str, Touch] = {}
    current: Touch | None = None
    for line in trace.splitlines():
        frame = CALLER.match(line)
        if frame:
            if current is not None:
                current.stack.append(f"{Path(frame.group(1)).name} {frame.group(2)}".strip())
            continue
        pid = line.split(" ", 1)[0]
        resumed = re.search(r"<\.\.\. (\w+) resumed>", line)
        if resumed:
            current = unfinished.pop(pid, None)
            continue
        call = re.match(r"^\d+\s+(\w+)\(", line)
        if not call:
            current = None
            continue
        hit = [p for p in re.findall(r'"((?:[^"\\]|\\.)*)"', line) if p in watched]
        current = Touch(call.group(1), hit[0] if hit else "", [])
        touches.append(current)
        if line.rstrip().endswith("<unfinished ...>"):
            unfinished[pid] = current
    return [t for t in touches if t.path]


def test_every_file_dialog_is_made_by_file_dialogs() -> None:
    """A dialog made elsewhere (``QFileDialog.getOpenFileName`` and friends) would sniff every file."""
    makers = re.compile(r"QFileDialog\s*\(|QFileDialog\.get\w+\(")
    offenders = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "gui").rglob("*.py"))
                 if path.name != "file_dialogs.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if makers.search(line)]
    assert not offenders, f"file dialogs made outside gui/file_dialogs.py: {offenders}"


@pytest.mark.slow
def test_only_sqlite_opens_the_memory_files(tmp_path: Path, demo_file: Path) -> None:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    folder = tmp_path / "memories"
    folder.mkdir()
    first, second = folder / "first.sqlite", folder / "second.sqlite"
    for path in (first, second):
        shutil.copy(demo_file, path)
    watched = {str(p) for memory in (first, second) for p in own_files(memory)}
    trace = tmp_path / "trace.log"
    command = ["strace", "-f", "-qq", "-k", "-e", f"trace={SYSCALLS}", "-e", "signal=none", "-o", str(trace)]
    for path in sorted(watched):
        command += ["-P", path]
    command += [sys.executable, "-m", "pytest", "tests/gui/flows_for_file_guard.py", "-q", "-p", "no:cacheprovider",
                "-p", "no:randomly"]
    env = {**os.environ, "MEMLENS_GUARD_FILES": os.pathsep.join(map(str, (first, second))),
           "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=RUN_S)
    assert run.returncode == 0, f"the flows failed:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"

    touches = parse(trace.read_text(errors="replace"), watched)
    assert any(t.by_sqlite and t.path == str(first) for t in touches), "the trace saw no SQLite open of the file"
    assert any(t.by_sqlite and t.path == str(second) for t in touches), "the trace saw no SQLite open of the file"
    foreign = [t for t in touches if not t.by_sqlite
               and not (t.by_python and t.path.endswith(".vector-cache"))]
    assert not foreign, "\n\n".join(f"{t.call} {t.path} by {t.caller}:\n  " + "\n  ".join(t.stack[:12])
                                    for t in foreign[:5])
