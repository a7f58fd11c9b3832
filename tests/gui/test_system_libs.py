"""`make run`'s check for the system libraries Qt's X11 plugin needs: ldd's answer to one apt-get line."""

from __future__ import annotations

import subprocess
import sys

from gui import system_libs

# ldd on libqxcb.so of a machine that has libxcb-cursor0 but nothing else from the xcb utilities.
LDD_BARE = """\
\tlinux-vdso.so.1 (0x00007ffd0b5f6000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f3c2b200000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f3c2b1f0000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f3c2b000000)
\tlibxcb-icccm.so.4 => not found
\tlibfoo2.so.0 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3c2ae00000)
"""


def test_missing_libraries_become_one_apt_get_line() -> None:
    missing = system_libs.missing_sonames(LDD_BARE)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxkbcommon-x11.so.0", "libfoo2.so.0"]
    advice = system_libs.install_advice(missing)
    install = [line for line in advice.splitlines() if "apt-get install" in line]
    assert install == ["    sudo apt-get install libfoo2-0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0"]
    assert "libfoo2-0 (for libfoo2.so.0)" in advice  # a guessed name says it is one
    assert "libxcb-icccm4 (for" not in advice


def test_the_check_reads_ldd_for_the_plugin_and_its_qt_library() -> None:
    asked: list[list[str]] = []

    def fake_ldd(args: list[str]) -> str:
        asked.append(args)
        return LDD_BARE

    advice = system_libs.check({"DISPLAY": ":0"}, run=fake_ldd)
    assert advice is not None and "libxcb-keysyms1" in advice
    assert [a[0].rsplit("/", 1)[-1] for a in asked] == ["libqxcb.so", "libQt6XcbQpa.so.6"]
    assert system_libs.check({"QT_QPA_PLATFORM": "offscreen"}, run=fake_ldd) is None
    assert system_libs.check({"QT_QPA_PLATFORM": "xcb"}, run=fake_ldd) is not None


def test_on_this_machine_the_check_agrees_with_ldd() -> None:
    """The real ldd on the real plugin: exit 0 and silence when nothing is missing, else the apt line."""
    plugin = system_libs.plugin_files()[0]
    real = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=True).stdout
    assert "libxcb.so.1 =>" in real  # ldd really read the plugin
    done = subprocess.run([sys.executable, "-m", "gui.system_libs"], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "DISPLAY": ":0", "PYTHONPATH": ":".join(sys.path)})
    if system_libs.missing_sonames(real):
        assert done.returncode == 1 and "apt-get install" in done.stderr
    else:
        assert done.returncode == 0 and done.stderr == ""
    offscreen = subprocess.run([sys.executable, "-m", "gui.system_libs"], capture_output=True, text=True,
                               env={"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen",
                                    "PYTHONPATH": ":".join(sys.path)})
    assert offscreen.returncode == 0 and offscreen.stderr == ""
