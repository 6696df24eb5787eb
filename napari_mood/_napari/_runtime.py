"""Interpreter settings for the viewer's own process: short collections, quick hand-overs.

Both are made by :func:`napari_mood._napari.viewer.build_viewer` (``napari-mood view`` /
``demo``), never when the plugin is loaded into someone else's napari process.

Garbage collection
    napari's import and window leave hundreds of thousands of objects that the cyclic
    garbage collector tracks, and each full (generation 2) collection walks all of them
    while every thread waits (it holds the GIL), several times while a large case opens.
    :func:`freeze_window_objects`, called once napari's window is built and before any
    case layer exists, collects once and moves every object alive then to the permanent
    generation (``gc.freeze``), so later collections walk only newer objects. The frozen
    objects are napari's modules and window, which live as long as the window; a case's
    layers and arrays come later and are collected as usual, so a removed layer or a
    previous case is still freed. :func:`thaw_objects` puts them back when the window is
    destroyed (a process that opens several windows, such as the test suite, does not
    keep the closed ones).

Thread switches
    The reading, labelling and readout workers run numpy in steps, each step giving the
    GIL up and asking for it again. While the GUI thread runs Python (napari building its
    window and panels, adding layers, drawing), each request waits for the interpreter's
    switch interval, 5 ms by default, so a worker beside a busy GUI thread spends most
    of its time waiting. :data:`SWITCH_INTERVAL` = 1 ms (``sys.setswitchinterval``)
    shortens each wait; the GUI thread gets the GIL back sooner from a worker's Python
    too. ``benchmarks/bench_viewer.py`` measures the effect.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["SWITCH_INTERVAL", "freeze_window_objects", "quicken_thread_switches", "thaw_objects"]

SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another asks for it (Python's default: 0.005)."""


def freeze_window_objects() -> int:
    """Collect garbage once, then freeze every tracked object; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def thaw_objects(*_: object) -> None:
    """Put frozen objects back under the collector (their next full collection sees them)."""
    gc.unfreeze()


def quicken_thread_switches(interval: float = SWITCH_INTERVAL) -> None:
    """Cap the interpreter's thread switch interval at ``interval`` seconds.

    Let a thread asking for the GIL get it after ``interval`` seconds at most, unless a
    shorter interval is already set.
    """
    sys.setswitchinterval(min(interval, sys.getswitchinterval()))
