"""Run a callable once the current event has been handled (Qt's event loop), else now."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["call_after_paint", "call_soon"]


def call_soon(function: Callable[[], object], *, delay_ms: int = 0) -> None:
    """Call ``function`` from the Qt event loop when one runs, otherwise immediately.

    Layer-list events must not change the layer list from inside their handlers (napari's
    Qt layer model is half-way through an insertion there), so such changes wait here.
    ``delay_ms`` waits at least that long.
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
    QTimer.singleShot(delay_ms, function)


def call_after_paint(function: Callable[[], object]) -> None:
    """Like :func:`call_soon`, after the repaints already asked for.

    A timer of a millisecond runs after the events already posted (a canvas's update
    request among them), where a zero timer may run before them.
    """
    call_soon(function, delay_ms=1)
