"""Before the desktop app starts: are the system libraries Qt's X11 platform plugin needs installed?

Without them Qt aborts with "Could not load the Qt platform plugin 'xcb'" and
names none of them (``libxcb-cursor0`` alone is not enough: the plugin also
links ``libxcb-icccm4``, ``libxcb-keysyms1`` and more on a bare machine).
``make run`` runs ``python -m gui.system_libs`` first: it asks ``ldd`` what the
plugin (``libqxcb.so`` inside PySide6) and its ``libQt6XcbQpa`` cannot find,
maps each missing soname to its Debian/Ubuntu package and prints the one
``apt-get install`` line, exiting 1. This module never imports Qt: it must work
exactly when Qt cannot start.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Mapping

# Sonames Qt 6's xcb plugin (and the Qt libraries under it) link, by Debian package.
SONAME_PACKAGES = {
    "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6",
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-render.so.0": "libxcb-render0",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-shape.so.0": "libxcb-shape0", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1", "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xinerama.so.0": "libxcb-xinerama0", "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-glx.so.0": "libxcb-glx0", "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon.so.0": "libxkbcommon0", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libSM.so.6": "libsm6", "libICE.so.6": "libice6", "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6", "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0", "libGLX.so.0": "libglx0", "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0",
}
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.MULTILINE)
Run = Callable[[list[str]], str]


def missing_sonames(ldd_output: str) -> list[str]:
    """The libraries ``ldd`` reports as ``not found``, each once, in the order it names them."""
    return list(dict.fromkeys(NOT_FOUND.findall(ldd_output)))


def package_for(soname: str) -> tuple[str, bool]:
    """Its Debian package, and whether that is known (else guessed by Debian's naming rule:
    ``libfoo-bar.so.4`` is in ``libfoo-bar4``, ``libfoo.so.0`` after a digit in ``libfoo2-0``)."""
    if soname in SONAME_PACKAGES:
        return SONAME_PACKAGES[soname], True
    base, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    glue = "-" if base[-1:].isdigit() and version else ""
    return f"{base.lower()}{glue}{version}", False


def install_advice(sonames: list[str]) -> str:
    """The message for these missing libraries: one apt-get line, guessed names flagged."""
    packages = {soname: package_for(soname) for soname in sonames}
    names = sorted({name for name, _known in packages.values()})
    lines = ["memlens gui: Qt's X11 platform plugin cannot load; these system libraries are missing: "
             + ", ".join(sonames), "Install them with:", "    sudo apt-get install " + " ".join(names)]
    guessed = [f"{name} (for {soname})" for soname, (name, known) in packages.items() if not known]
    if guessed:
        lines.append("Package names guessed from the library name (on another distribution, look the library "
                     "up in its package search): " + ", ".join(guessed))
    return "\n".join(lines)


def plugin_files() -> list[Path]:
    """The xcb plugin and its Qt library, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(list(spec.submodule_search_locations)[0]) / "Qt"
    found = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))[:1]]
    return [path for path in found if path.exists()]


def _ldd(path: list[str]) -> str:
    return subprocess.run(["ldd", *path], capture_output=True, text=True, check=False).stdout


def check(environ: Mapping[str, str] = os.environ, run: Run = _ldd) -> str | None:
    """The advice if something the xcb plugin needs is missing; None when nothing is (or xcb is not used)."""
    platform = environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or (platform and not platform.startswith("xcb")):
        return None  # offscreen, wayland, vnc…: the xcb plugin is never loaded
    if not platform and environ.get("WAYLAND_DISPLAY") and environ.get("XDG_SESSION_TYPE") == "wayland":
        return None  # Qt 6 prefers its Wayland plugin in a Wayland session
    files = plugin_files()
    if not files or shutil.which("ldd") is None:
        return None  # nothing to ask (not a glibc system, or PySide6 laid out differently): let Qt speak
    missing = missing_sonames("\n".join(run([str(path)]) for path in files))
    return install_advice(missing) if missing else None


def main() -> int:
    advice = check()
    if advice:
        print(advice, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
