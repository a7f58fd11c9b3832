"""The op runner: work leaves the UI thread, the newest op of a lane wins, errors come back as messages."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QThread

from engine import InvalidInput
from gui.ops import OpRunner


def test_work_runs_off_the_ui_thread_and_reports_back_on_it(qtbot) -> None:
    runner = OpRunner()
    seen = {}
    ui_thread = QThread.currentThread()

    def work(_progress):
        seen["worker"] = threading.current_thread().name
        return 42

    def done(value):
        seen["value"], seen["ui"] = value, QThread.currentThread() == ui_thread

    with qtbot.waitSignal(runner.busy_changed, timeout=5000, check_params_cb=lambda busy: not busy):
        runner.submit(work, done)
    assert seen["value"] == 42 and seen["ui"] and seen["worker"] != threading.current_thread().name
    runner.wait()


def test_only_the_newest_op_of_a_lane_delivers(qtbot) -> None:
    runner = OpRunner()
    gate = threading.Event()
    delivered = []
    runner.submit(lambda _p: gate.wait(5), lane="search")
    for n in range(5):
        runner.submit(lambda _p, n=n: n, delivered.append, lane="search")
    gate.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert delivered == [4]
    runner.wait()


def test_user_errors_become_messages_and_cancel_stops_queued_work(qtbot) -> None:
    runner = OpRunner()
    errors, ran = [], []

    def fails(_p):
        raise InvalidInput("query is too long")

    def slow(progress):
        for _ in range(200):
            progress.check()
            time.sleep(0.01)
        ran.append("finished")

    runner.submit(fails, on_error=errors.append)
    runner.submit(slow)
    runner.submit(lambda _p: ran.append("queued"))
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert errors == ["query is too long"]
    assert ran == []
    runner.wait()
