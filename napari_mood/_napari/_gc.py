"""Keep Python's full garbage collections short while the viewer runs.

napari's import and window leave about 450,000 objects that the cyclic garbage collector
tracks. Each full (generation 2) collection walks all of them: 0.05-0.27 s on the GUI
thread at a time (every thread waits, it holds the GIL), six of them while a 512^3 case
opened and one when the objects panel showed its layers (measured with ``gc.callbacks``
in ``benchmarks/bench_viewer.py``'s viewer).

:func:`freeze_window_objects`, called by :func:`napari_mood._napari.viewer.build_viewer`
once napari's window is built and before any case layer exists, collects once and moves
every object alive then to the collector's permanent generation (``gc.freeze``, as
Python's documentation recommends for long-lived startup state): later collections walk
only newer objects. The frozen objects are napari's modules and window, which live as
long as the process; a case's layers and arrays come later and are collected as usual,
so switching cases frees the previous one as before. When the window is destroyed the
objects are thawed (:func:`thaw_objects`), so a closed window's own reference cycles are
collected again (a process that opens several windows, such as the test suite, does not
keep them). Not called when the plugin is loaded into someone else's napari.
"""

from __future__ import annotations

import gc

__all__ = ["freeze_window_objects", "thaw_objects"]


def freeze_window_objects() -> int:
    """Collect garbage once, then freeze every tracked object; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def thaw_objects(*_: object) -> None:
    """Put frozen objects back under the collector (their next full collection sees them)."""
    gc.unfreeze()
