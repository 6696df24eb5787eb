"""Long computations run off the main thread: the event loop keeps ticking meanwhile.

A 128^3 synthetic case with four methods: moving the thresholds makes the threshold widget
compute readouts (flagged voxels, Dice, MOOD object matching) and the per-slice widget
compute ``slice_scores`` for every method, both in worker threads. A 10 ms QTimer on the
main thread must keep firing while those workers run.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from qtpy.QtCore import QTimer

from napari_mood._napari.layers import gt_colormap, mood_metadata
from napari_mood._napari.session import get_session
from napari_mood._napari.widgets.slices import SliceScoresWidget
from napari_mood._napari.widgets.threshold import ThresholdWidget
from napari_mood.core.scores import threshold_limits
from napari_mood.services.looks import METHOD_COLORS, method_colormap

SIZE = 128
TICK_MS = 10
METHODS = ("noisy", "grainy", "speckled", "sparse")
MAX_GAP_S = 0.25  # a blocked loop would stall for the whole computation


def _synthetic_case(seed: int = 0) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    shape = (SIZE,) * 3
    gt = np.zeros(shape, dtype=np.uint8)
    for corner in (10, 50, 90):
        gt[corner : corner + 12, corner : corner + 10, corner : corner + 8] = 1
    scan = rng.normal(100, 10, shape).astype(np.float32)
    maps = {}
    for index, name in enumerate(METHODS):
        scores = rng.random(shape, dtype=np.float32) * (0.65 - 0.05 * index)
        scores[gt.astype(bool)] = 0.9
        maps[name] = scores.astype(np.float16)
    return scan, gt, maps


def _add_case(viewer) -> None:
    scan, gt, maps = _synthetic_case()
    viewer.add_image(scan, name="scan", metadata=mood_metadata("scan", case="synth", path=None))
    for index, (name, scores) in enumerate(maps.items()):
        color = METHOD_COLORS[index]
        viewer.add_image(
            scores,
            name=name,
            colormap=method_colormap(color),
            contrast_limits=threshold_limits(0.5),
            blending="translucent",
            metadata=mood_metadata("method", case="synth", path=None, method=name, color=color),
        )
    viewer.add_labels(
        gt, name="GT", colormap=gt_colormap(), metadata=mood_metadata("gt", case="synth", path=None)
    )


@pytest.fixture
def busy_viewer(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    get_session(viewer)
    _add_case(viewer)
    thresholds, slices = ThresholdWidget(viewer), SliceScoresWidget(viewer)
    viewer.window.add_dock_widget(thresholds, name="thresholds")
    viewer.window.add_dock_widget(slices, name="slices", area="bottom")
    # a hidden panel computes nothing: both panels in view, as a user reading both would
    for panel in (thresholds, slices):
        qtbot.waitUntil(lambda p=panel: p.isVisible() and not p.stale, timeout=60000)
    qtbot.waitUntil(lambda: not (thresholds.busy or slices.busy), timeout=60000)
    return viewer, thresholds, slices


def test_event_loop_keeps_running_while_workers_compute(busy_viewer, qtbot):
    viewer, thresholds, slices = busy_viewer
    workers = (thresholds._readout_worker, slices._worker)
    ticks: list[tuple[float, bool]] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append((time.perf_counter(), any(w.busy for w in workers))))
    timer.start(TICK_MS)
    get_session(viewer).set_all_thresholds(0.45)
    qtbot.waitUntil(lambda: not (thresholds.busy or slices.busy), timeout=60000)
    qtbot.wait(3 * TICK_MS)
    timer.stop()
    busy_at = [t for t, busy in ticks if busy]
    assert busy_at, "no tick saw a worker running"
    busy_for = busy_at[-1] - busy_at[0]
    assert busy_for > 0.25, f"the work took only {busy_for:.3f} s: not a long computation"
    during = [t for t, _ in ticks if busy_at[0] <= t <= busy_at[-1]]
    gaps = np.diff(during)
    assert gaps.max() < MAX_GAP_S, f"the event loop stalled for {gaps.max():.3f} s"
    assert len(during) >= 0.3 * busy_for / (TICK_MS / 1000)
    # the workers did the real work: object matching and per-slice scores at 0.45
    for name in METHODS:
        readout = thresholds.readouts[name]
        assert readout.threshold == pytest.approx(0.45) and readout.objects is not None
        assert slices.curves.scores[name].threshold == pytest.approx(0.45)
        assert slices.curves.n_slices == SIZE
