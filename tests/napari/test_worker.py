"""LatestWorker: results arrive on the main thread, stale ones are dropped, the loop runs."""

from __future__ import annotations

import threading
import time

from napari_mood._napari.widgets.worker import LatestWorker


def test_only_latest_result_is_applied(qtbot):
    results: list[int] = []
    busy: list[bool] = []
    main = threading.get_ident()
    threads: list[int] = []

    def on_result(value: int) -> None:
        threads.append(threading.get_ident())
        results.append(value)

    runner = LatestWorker(on_result, on_busy=busy.append)

    def slow(value: int, delay: float) -> int:
        time.sleep(delay)
        return value

    runner.submit(slow, 1, 0.3)
    runner.submit(slow, 2, 0.05)
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    assert results == [2] and threads == [main]
    assert busy[0] is True and busy[-1] is False


def test_errors_go_to_handler(qtbot):
    errors: list[BaseException] = []
    runner = LatestWorker(lambda _: None, on_error=errors.append)

    def boom() -> None:
        raise ValueError("bad input file")

    runner.submit(boom)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert isinstance(errors[0], ValueError)


def test_event_loop_keeps_running_during_work(qtbot):
    from qtpy.QtCore import QTimer

    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    done: list[object] = []
    runner = LatestWorker(done.append)
    runner.submit(time.sleep, 0.5)
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    timer.stop()
    assert len(ticks) >= 10  # the main thread processed timer events while the worker slept
