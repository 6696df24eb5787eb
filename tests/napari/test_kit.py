"""The widget kit's lifetime: nothing of a destroyed widget is called any more."""

from __future__ import annotations

import threading

from psygnal import Signal
from qtpy.QtWidgets import QWidget

from napari_mood._napari.widgets import _kit as kit


class _Source:
    changed = Signal(int)


def test_lifetime_disconnects_cancels_and_drops_late_results(qtbot):
    source, widget = _Source(), QWidget()
    lifetime = kit.Lifetime(widget)
    calls: list[object] = []
    lifetime.connect(source.changed, calls.append)
    ended: list[bool] = []
    lifetime.at_end(lambda: ended.append(True))
    release = threading.Event()
    worker = lifetime.worker(calls.append)
    worker.submit(lambda: release.wait(5) and "late")
    source.changed.emit(1)
    assert calls == [1]
    widget.deleteLater()
    qtbot.waitUntil(lambda: ended == [True], timeout=2000)
    source.changed.emit(2)  # disconnected
    release.set()
    qtbot.waitUntil(lambda: not worker.busy, timeout=5000)
    assert calls == [1]  # the late result was dropped


def test_sort_items_sort_numbers_with_undefined_last():
    items = [kit.SortItem(str(v), kit.sort_key(v)) for v in (2.0, float("nan"), None, -1, 10)]
    ordered = [item.text() for item in sorted(items)]
    assert ordered[2:] == ["-1", "2.0", "10"] and set(ordered[:2]) == {"nan", "None"}


def test_discard_hides_now_and_deletes_later(qtbot):
    from qtpy.QtCore import QEvent
    from qtpy.QtWidgets import QApplication, QLabel, QWidget

    from napari_mood._napari.widgets._kit import discard

    parent = QWidget()
    qtbot.addWidget(parent)
    label = QLabel("old", parent)
    parent.show()
    assert label.isVisible()
    destroyed = []
    label.destroyed.connect(lambda *_: destroyed.append(True))
    discard(label)
    assert not label.isVisible() and not destroyed
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert destroyed
