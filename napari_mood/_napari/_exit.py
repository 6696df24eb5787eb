"""Close the viewers a script left open before the interpreter tears Qt down.

A script that builds a viewer with the panels and ends without ``viewer.close()`` (no
``napari.run()``) left Python's finalisation to destroy Qt widgets, GL canvases and the
QApplication in no particular order: a segmentation fault or Qt abort in most runs.
:func:`close_at_exit` runs each window's own teardown (the panels' included) while Qt is
whole; :func:`napari_mood._napari.session.get_session` registers it for the viewers that
have a session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["close_at_exit"]


def close_at_exit(viewers: Iterable[Any]) -> None:
    """Close each viewer's window still shown, then run the Qt events still posted.

    Parameters
    ----------
    viewers : iterable of napari.Viewer
        The viewers to close (a headless ``ViewerModel`` or a closed window is skipped).
    """
    for viewer in list(viewers):
        window = getattr(viewer, "window", None)
        qt_window = getattr(window, "_qt_window", None)  # napari's private window
        if qt_window is None:
            continue  # a headless ViewerModel: nothing to tear down
        try:
            alive = qt_window.isVisible()
        except RuntimeError:  # its C++ object is gone: already closed
            continue
        if alive:
            viewer.close()
    _flush_qt_events()


def _flush_qt_events() -> None:
    """Run the Qt events still posted (deferred deletes of closed panels' docks and views).

    A closed window's widgets are freed at the event loop's next turn; a script that ends
    right after ``viewer.close()`` never reaches one, and Python freed them after the
    QApplication: a segmentation fault at exit.
    """
    from qtpy.QtCore import QCoreApplication

    if QCoreApplication.instance() is not None:
        QCoreApplication.processEvents()
