"""A walk through the desktop app in a real X window (issue 16, "Done when").

The other GUI tests drive widgets offscreen from inside the process; this one
checks what only a real window shows: the app starts under a window manager,
takes keyboard input from the X server, survives resizes, opens another file
through its own Open dialog, and notices a write made by another process. It
starts ``Xvfb`` and ``openbox``, runs ``python -m gui`` as a subprocess, drives
it with ``xdotool`` and judges it from outside: window titles, screenshots
taken with ImageMagick's ``import``, and the memory file read through
``engine.Memory``. Where those programs are missing it is skipped, saying which.

Every wait is bounded and polls for an outcome; nothing asserts how long a step
took. Set ``MEMLENS_WALK_SHOTS=DIR`` to keep the screenshots for a person to look at.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import numpy as np
import pytest
from PySide6.QtGui import QImage

from engine import Memory, Settings
from gui.system_libs import check as xcb_advice

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
TOOLS = {"Xvfb": "the X server", "openbox": "the window manager", "xdotool": "to drive the window",
         "import": "ImageMagick, for screenshots", "identify": "ImageMagick, to read them"}
SIZES = ((1024, 700), (1600, 1000))
START_S = 120.0  # the app's first start loads the embedding model and the file: slow on a shared CI core
STEP_S = 30.0
OPENBOX_STARTS = 3  # see Desktop._start_display
MIN_COLOURS = 40  # a blank or half-painted window has a handful; the panes have hundreds
NOTICE_RGB = (0x3B, 0x6F, 0xB6)  # the live notice's pill (resources/styles/app.qss, #liveNotice)
STATUS_STRIP = 30  # px at the bottom of the window holding the status bar
QUERY = "which editor does Maya use"
T = TypeVar("T")


def _why_not() -> str | None:
    missing = [f"{tool} ({why})" for tool, why in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        return "no real-window walk: missing " + ", ".join(missing)
    advice = xcb_advice({"QT_QPA_PLATFORM": "xcb"})
    return f"no real-window walk: {advice}" if advice else None


def wait_for(what: str, probe: Callable[[], T], timeout: float = STEP_S) -> T:
    """Poll ``probe`` until it returns something truthy; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.25)


class Desktop:
    """An Xvfb display with openbox on it, and the programs started there (stopped by ``close``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: list[subprocess.Popen] = []
        try:
            self._start_display()
        except BaseException:
            self.close()  # a half-started desktop must not leave its X server running
            raise

    def _start_display(self) -> None:
        read, write = os.pipe()
        try:
            # -displayfd: the server picks a free display number itself (other test runs may hold :0, :1…)
            # and writes it to the pipe once it accepts clients. A long -ardelay: xdotool's key presses
            # must never autorepeat when a loaded machine delays the release.
            self._start(["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1200x24", "-nolisten", "tcp",
                         "-ardelay", "100000"], "xvfb", pass_fds=(write,))
            os.close(write)
            write = -1
            # Read through the newline: Xvfb writes it separately and dies if the pipe is closed by then.
            number = b""
            while not number.endswith(b"\n") and select.select([read], [], [], STEP_S)[0]:
                chunk = os.read(read, 64)
                if not chunk:
                    break
                number += chunk
            number = number.decode().strip()
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        assert number.isdigit(), f"Xvfb did not report a display: {self.log('xvfb')}"
        self.env = {**os.environ, "DISPLAY": f":{number}", "QT_QPA_PLATFORM": "xcb"}
        # The number can come before the server answers; openbox gives up at once on a display it cannot open.
        wait_for(f"Xvfb to answer on :{number}",
                 lambda: self.run("xdotool", "getdisplaygeometry", check=False).returncode == 0)
        # Until a window manager runs, xdotool says it "claims not to support _NET_ACTIVE_WINDOW" and
        # windowactivate cannot work; openbox without an active window only fails to read the property.
        def managed() -> bool:
            if openbox.poll() is not None:
                return False
            return "claims not to support" not in self.run("xdotool", "getactivewindow", check=False).stderr

        # With other X servers starting beside this one (parallel test runs), openbox has once failed to
        # open a display that xdotool had just reached; it exits at once, so it is simply started again.
        for attempt in range(1, OPENBOX_STARTS + 1):
            openbox = self._start(["openbox", "--sm-disable"], "openbox")
            wait_for("openbox to manage the display or exit", lambda: managed() or openbox.poll() is not None)
            if openbox.poll() is None:
                break
            assert attempt < OPENBOX_STARTS, f"openbox exited: {self.log('openbox')}"

    def _start(self, argv: list[str], name: str, **kwargs) -> subprocess.Popen:
        log = (self.folder / f"{name}.log").open("wb")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=getattr(self, "env", None),
                                   start_new_session=True, **kwargs)
        self.processes.append(process)
        return process

    def start(self, argv: list[str], name: str) -> subprocess.Popen:
        return self._start(argv, name, cwd=REPO)

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=STEP_S, check=False)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed: {result.stderr.strip()}")
        return result

    def xdotool(self, *args: str) -> str:
        return self.run("xdotool", *args).stdout.strip()

    def windows(self, title: str) -> list[str]:
        """Visible windows whose whole title is ``title``."""
        found = self.run("xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$", check=False)
        return found.stdout.split()

    def close(self) -> None:
        # Newest first: the app before the window manager before the X server.
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


class App:
    """The MemLens window on the desktop, seen and driven from outside."""

    def __init__(self, desktop: Desktop, process: subprocess.Popen, shots: Path) -> None:
        self.desktop, self.process, self.shots = desktop, process, shots
        self.id = ""

    def wait_title(self, title: str, timeout: float = STEP_S) -> str:
        def found() -> list[str]:
            assert self.process.poll() is None, f"the app exited: {self.desktop.log('app')}"
            return self.desktop.windows(title)

        self.id = wait_for(f"a window titled {title!r}", found, timeout)[0]
        return self.id

    def title(self) -> str:
        return self.desktop.xdotool("getwindowname", self.id)

    def activate(self) -> None:
        self.desktop.xdotool("windowactivate", "--sync", self.id)

    def keys(self, *keys: str) -> None:
        self.activate()
        self.desktop.xdotool("key", "--clearmodifiers", *keys)

    def type(self, text: str) -> None:
        # 100 ms a key: a completer popup opening mid-word otherwise swallows a keystroke.
        self.desktop.xdotool("type", "--delay", "100", "--clearmodifiers", text)

    def size(self) -> tuple[int, int]:
        geometry = self.desktop.xdotool("getwindowgeometry", self.id)
        width, height = re.search(r"Geometry: (\d+)x(\d+)", geometry).groups()
        return int(width), int(height)

    def resize(self, width: int, height: int) -> None:
        self.desktop.xdotool("windowsize", "--sync", self.id, str(width), str(height))
        wait_for(f"the window to be {width}x{height}", lambda: self.size() == (width, height))

    def shot(self, name: str) -> np.ndarray:
        """The window's pixels (rows × columns × RGB), saved as ``name``.png; fails if it looks blank."""
        path = self.shots / f"{name}.png"
        self.desktop.run("import", "-window", self.id, str(path))
        colours = int(self.desktop.run("identify", "-format", "%k", str(path)).stdout)
        assert colours > MIN_COLOURS, f"{path} looks blank ({colours} colours)"
        image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB888)
        rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
        return rows[:, :image.width() * 3].reshape(image.height(), image.width(), 3).copy()

    def settled_shot(self, name: str) -> np.ndarray:
        """A screenshot once two in a row agree: the app repaints after a resize or a search in its own time."""
        previous = [self.shot(name)]

        def same() -> bool:
            current = self.shot(name)
            agree = current.shape == previous[0].shape and np.array_equal(current, previous[0])
            previous[0] = current
            return agree

        wait_for(f"{name} to stop changing", same)
        return previous[0]

    def click(self, x: int, y: int) -> None:
        self.activate()
        self.desktop.xdotool("mousemove", "--window", self.id, str(x), str(y), "click", "1")


def notice_box(pixels: np.ndarray) -> tuple[int, int, int, int] | None:
    """Where the live notice's pill is in the status bar (x0, y0, x1, y1 in the window), if shown."""
    strip = pixels[-STATUS_STRIP:].astype(int)
    match = np.abs(strip - np.array(NOTICE_RGB)).sum(axis=2) <= 12
    if match.sum() < 100:  # a few stray pixels of that blue elsewhere are not the pill
        return None
    ys, xs = np.nonzero(match)
    top = pixels.shape[0] - STATUS_STRIP
    return int(xs.min()), top + int(ys.min()), int(xs.max()), top + int(ys.max())


def access_counts(path: Path, embedder) -> dict[int, int]:
    with Memory(path, Settings(), actor="test", embedder=embedder, create=False) as memory:
        top = memory.stats()["facts"] + 10
        return {fid: fact.access_count for fid, fact in memory.facts(range(1, top)).items()}


def high_water(path: Path, embedder) -> int:
    with Memory(path, Settings(), actor="test", embedder=embedder, create=False) as memory:
        return memory.journal_high_water()


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[Desktop]:
    why = _why_not()
    if why:
        pytest.skip(why)
    logs = tmp_path / "logs"
    logs.mkdir()
    desktop = Desktop(logs)  # stops what it started if it fails
    try:
        yield desktop
    finally:
        desktop.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("MEMLENS_WALK_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_walk_through_the_trust_flows_in_a_real_window(desktop: Desktop, demo_copy: Path, tmp_path: Path,
                                                        shots: Path, embedder) -> None:
    second = tmp_path / "elsewhere" / "second-memory.sqlite"
    second.parent.mkdir()
    with Memory(second, Settings(), actor="test", embedder=embedder) as memory:
        memory.absorb(["Maya keeps a second, smaller memory for the Tidewater pilot."])
    counts_before, journal_before = access_counts(demo_copy, embedder), high_water(demo_copy, embedder)

    process = desktop.start([sys.executable, "-m", "gui", "--db", str(demo_copy)], "app")
    app = App(desktop, process, shots)
    app.wait_title(f"{demo_copy.name} — MemLens", START_S)

    # (c, first size) The smallest size the window is meant to work at.
    app.resize(*SIZES[0])
    opened = app.settled_shot("1-opened-1024x700")
    assert opened.shape[:2] == (SIZES[0][1], SIZES[0][0])
    assert notice_box(opened) is None, "a live notice before anyone else wrote"

    # (a) Search from the keyboard, then look at a result: the results and the inspector repaint.
    app.keys("ctrl+k")
    app.type(QUERY)
    app.keys("Return")
    searched = app.settled_shot("2-searched-1024x700")
    assert not np.array_equal(searched, opened), "the window did not change after a search"
    width, height = SIZES[0]
    app.click(width // 5, height // 2)  # the middle of the results table: some result row at this size
    inspected = app.settled_shot("3-inspected-1024x700")
    inspector = slice(int(width * 0.65), width)
    assert not np.array_equal(inspected[:, inspector], searched[:, inspector]), "the inspector did not show the fact"
    # A person browsing is not an agent reading: searching and inspecting write nothing, count no access.
    assert high_water(demo_copy, embedder) == journal_before
    assert access_counts(demo_copy, embedder) == counts_before

    # (b) Another process (an agent over MCP) writes to the open file: the window says so by itself.
    with Memory(demo_copy, Settings(), actor="mcp", embedder=embedder) as memory:
        plan = memory.absorb(["Maya switched her editor to Zed for the Ferrite repository."])
    new_facts = [item.fact_id for item in plan.items if item.fact_id is not None]
    assert new_facts, "the agent's write added no fact"
    wait_for("the live notice of the mcp write", lambda: notice_box(app.shot("4-live-notice-1024x700")))
    noticed = app.settled_shot("4-live-notice-1024x700")  # the counts beside the notice change too
    with Memory(demo_copy, Settings(), actor="test", embedder=embedder, create=False) as memory:
        theirs = memory.journal(after_id=journal_before)
    assert theirs and {entry.actor for entry in theirs} == {"mcp"}, "only the agent wrote to the file"
    # Clicking the notice shows what was written and clears it.
    def clicked_away() -> bool:
        box = notice_box(app.shot("5-after-notice-1024x700"))
        if box is None:
            return True
        # A click that arrives while the status bar is laid out again is lost: click until it is gone
        # (one landing after the notice hid falls on the status bar's path, which does nothing).
        app.click((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        return False

    wait_for("a click on the live notice to clear it", clicked_away)
    shown = app.settled_shot("5-after-notice-1024x700")
    assert not np.array_equal(shown[:, inspector], noticed[:, inspector]), "clicking the notice showed nothing"
    assert high_water(demo_copy, embedder) == theirs[-1].id, "the window wrote to the file"

    # (c, second size) A large window: the panes grow into it.
    app.resize(*SIZES[1])
    large = app.settled_shot("6-resized-1600x1000")
    assert large.shape[:2] == (SIZES[1][1], SIZES[1][0])

    # (a, continued) File > Open… mid-session, through the app's own dialog: the title names the new file.
    open_through_dialog(app, second)
    assert app.title() == f"{second.name} — MemLens"
    app.resize(*SIZES[1])  # opening must keep the person's window size
    other = app.settled_shot("7-second-file-1600x1000")
    assert not np.array_equal(other, large)
    assert notice_box(other) is None, "the other file's notice followed the window to the new file"

    app.keys("ctrl+q")
    assert wait_for("the app to quit on Ctrl+Q", lambda: process.poll() is not None) is not None
    assert process.returncode == 0, desktop.log("app")


def open_through_dialog(app: App, path: Path, attempts: int = 3) -> None:
    """Ctrl+O, type the path, Enter; each attempt starts from no dialog open (Escape closes the
    "file not found" box a dropped keystroke would cause, then the dialog itself)."""
    title = f"{path.name} — MemLens"
    for attempt in range(attempts):
        for _ in range(3):
            open_ones = app.desktop.windows("Open memory")
            if not open_ones:
                break
            app.desktop.xdotool("key", "Escape")
            wait_for("Escape to close a window of the Open dialog",
                     lambda: len(app.desktop.windows("Open memory")) < len(open_ones))
        app.keys("ctrl+o")
        dialog = wait_for("the Open dialog", lambda: app.desktop.windows("Open memory"))[0]
        app.desktop.xdotool("windowactivate", "--sync", dialog)
        app.desktop.xdotool("key", "--clearmodifiers", "ctrl+a", "BackSpace")
        app.type(str(path))
        app.desktop.xdotool("key", "--clearmodifiers", "Return")
        try:
            app.wait_title(title)
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise
