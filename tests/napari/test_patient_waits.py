"""A GUI test never fails for being slow: every qtbot wait outlasts a loaded machine."""

from __future__ import annotations

from qtpy.QtCore import QObject, QTimer, Signal


class _Source(QObject):
    done = Signal()


def test_a_wait_on_a_condition_outlasts_its_written_bound(qtbot):
    came = []
    QTimer.singleShot(400, lambda: came.append(True))
    qtbot.waitUntil(lambda: bool(came), timeout=20)  # the event comes after the written bound
    assert came


def test_a_wait_on_a_signal_outlasts_its_written_bound(qtbot):
    source = _Source()
    QTimer.singleShot(400, source.done.emit)
    with qtbot.waitSignal(source.done, timeout=20):
        pass


def test_a_wait_told_not_to_raise_keeps_its_own_bound(qtbot):
    source = _Source()
    with qtbot.waitSignal(source.done, timeout=20, raising=False) as blocker:
        pass  # nothing emits: the test lets 20 ms pass on purpose
    assert not blocker.signal_triggered
