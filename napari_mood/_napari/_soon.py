"""Run a callable once the current event has been handled (Qt's event loop), else now."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["call_soon"]


def call_soon(function: Callable[[], object]) -> None:
    """Call ``function`` from the Qt event loop when one runs, otherwise immediately.

    Layer-list events must not change the layer list from inside their handlers (napari's
    Qt layer model is half-way through an insertion there), so such changes wait here.
    """
    try:
        from qtpy.QtCore import QTimer
        from qtpy.QtWidgets import QApplication
    except ImportError:  # no Qt binding: headless use
        function()
        return
    if QApplication.instance() is None:
        function()
        return
    QTimer.singleShot(0, function)
