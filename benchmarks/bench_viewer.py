"""Benchmark the viewer at MOOD sizes: open, threshold readouts, objects, 3-D, stalls.

Writes one synthetic MOOD case (a scan, a GT with a few lesions, 4 float32 maps, as a
method saves them) of ``--size``^3 voxels in the dataset layout the demo opens (or reuses
the one in ``--data``), then, in this process and through the plugin's own entry points
only (``build_viewer``, what ``napari-mood view`` runs before the event loop, the session
and the docked widgets' public ``busy`` / ``run`` / ``readouts`` / ``results``), measures:

* open: from ``build_viewer`` until napari's canvas has first drawn the scan and every
  map (:class:`FirstDraw`; target <= 4 s at 256^3, <= 12 s at 512^3); until
  ``build_viewer`` returned with every panel docked; then until the coronal and sagittal views
  have every layer too and have drawn (they fill in one layer per event-loop turn after
  the main canvas), and until the docked widgets are idle; the peak resident memory of
  the process meanwhile (<= 500 MB / 2.5 GB);
* threshold readout: ``set_all_thresholds`` until the thresholds widget shows every
  method's new readout (target <= 0.3 s), and until its object counts are in too;
* objects: the objects widget matching every method, per method (target <= 0.5 s at
  256^3), and the same job through the GUI-free service with a shared labelling cache
  (:func:`napari_mood.services.object_views.compute_method_objects`), for reference;
* 3-D: ``viewer.dims.ndisplay = 3`` until the first 3-D frame has rendered (:class:`Frame3D`,
  target <= 3 s), until napari's next redraws and a screenshot are done too ("settled"),
  and the memory it adds; then a scripted rotate drag (:func:`rotate_drag`: the camera
  turned in :data:`DRAG_STEPS` steps, each drawn and finished before the next, as a
  mouse drag turns it), in frames per second (target >= 5), and the time from its end
  until the view is drawn sharp again;
* stall: the longest gap between ticks of a 10 ms QTimer over all of the above
  (target <= 100 ms), and in each phase (the open includes building napari's window and
  the screenshots this benchmark takes to know a canvas has drawn); and the longest gap
  of the open that began once the window was on screen (its canvas's first draw), which
  leaves out importing napari and building its window, when there is no window yet.

The anchor, run in the same invocation in fresh processes so that each has its own peak
memory: **bare napari** opening the same files as a napari user without the plugin would
(:func:`bare_napari`: nibabel reads each file as float32 in turn, ``add_image`` /
``add_labels`` on the main thread, then the canvas draws; then 3-D), and **napari alone**
(an empty window: the floor under any plugin's memory). The report prints napari-mood's
open time, peak memory, 3-D switch and rotate drag as ratios to the bare-napari ones.

Run under a display (``xvfb-run -a -s "-screen 0 1920x1200x24" python ...``). It prints
each number against its target; targets not met are reported, not raised.

    python benchmarks/bench_viewer.py [--size 256] [--data /tmp/mood-viewer-bench]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import nibabel as nib
import numpy as np
from scipy import ndimage

METHODS = ("smooth", "noisy", "speckled", "blurred")
TICK_MS = 10
DRAG_STEPS = 8


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return float(line.split()[1]) / 1024.0
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> float:
    """Reset the peak resident memory (VmHWM) to the current one and return it (MB)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:  # pragma: no cover - old kernels: the peak includes earlier phases
        pass
    return _status_mb("VmRSS")


def make_case(root: Path, size: int, seed: int = 0) -> Path:
    """Write ``root/{toy,toy_label/pixel,methods/<m>}/case_000.nii.gz`` (float32 maps)."""
    rng = np.random.default_rng(seed)
    shape = (size,) * 3
    name = "case_000.nii.gz"
    affine = np.diag([1.0, 1.0, 1.0, 1.0])
    grid = np.ogrid[tuple(slice(0, s) for s in shape)]
    gt = np.zeros(shape, dtype=np.uint8)
    for centre, radius in ((0.3, 0.05), (0.55, 0.08), (0.7, 0.03)):
        gt[sum((g - centre * size) ** 2 for g in grid) <= (radius * size) ** 2] = 1
    brain = ndimage.zoom(rng.random((8, 8, 8)).astype(np.float32), size / 8, order=1)
    scan = (300 * brain + rng.normal(0, 20, shape)).astype(np.float32)
    files = {root / "toy" / name: scan, root / "toy_label" / "pixel" / name: gt}
    low = ndimage.zoom(rng.random((16, 16, 16)).astype(np.float32), size / 16, order=1)
    for index, method in enumerate(METHODS):
        noise = rng.random(shape, dtype=np.float32) * (0.1 + 0.1 * index)
        scores = np.clip(0.5 * low + noise + 0.35 * gt, 0, 1).astype(np.float32)
        files[root / "methods" / method / name] = scores
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        nib.save(nib.Nifti1Image(data, affine), str(path))
    return root


class StallMeter:
    """A 10 ms QTimer on the main thread; records the longest gap between its ticks."""

    def __init__(self) -> None:
        from qtpy.QtCore import QTimer

        self.last = time.perf_counter()
        self.max_gap = 0.0
        self.where = ""
        self.phase = "start"
        self.by_phase: dict[str, float] = {}  # the longest gap in each phase
        self.gaps: list[tuple[float, float, str]] = []  # (start, end, phase) over 50 ms
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        if now - self.last > self.max_gap:
            self.max_gap, self.where = now - self.last, self.phase
        self.by_phase[self.phase] = max(self.by_phase.get(self.phase, 0.0), now - self.last)
        if now - self.last > 0.05:
            self.gaps.append((self.last, now, self.phase))
        self.last = now

    def longest_after(self, phase: str, since: float) -> float:
        """The longest gap of ``phase`` that began at ``since`` or later (seconds)."""
        return max((e - s for s, e, p in self.gaps if p == phase and s >= since), default=0.0)

    def stop(self) -> None:
        self._timer.stop()


def _wait(app, condition: Callable[[], bool], timeout: float = 600.0) -> float:
    """Process events until ``condition()``; return the seconds it took."""
    start = time.perf_counter()
    while not condition():
        app.processEvents()
        if time.perf_counter() - start > timeout:
            raise TimeoutError("gave up waiting")
        time.sleep(0.002)
    return time.perf_counter() - start


class FirstDraw:
    """When napari's canvas first drew at all (``window_shown``: the window is on screen),
    first finished drawing the scan, and the scan and every map.

    Wraps vispy's ``SceneCanvas.on_draw`` (the render itself) and the session's
    ``replace_case`` / ``complete_case`` for this process: the main canvas is the first
    one made (the side views come later). A draw that ends after a case joined shows the
    scan (``scan_shown``); one that ends after the session has every map shows the scan
    and the maps (``shown``). Measured, not assumed: a viewer that shows the scan while
    the maps are read has ``scan_shown`` first, an older one both at once.
    """

    def __init__(self) -> None:
        from vispy.scene import SceneCanvas

        from napari_mood._napari.session import MoodSession

        self.window_shown: float | None = None
        self.scan_in: float | None = None
        self.case_in: float | None = None
        self.scan_shown: float | None = None
        self.shown: float | None = None
        self._canvases: list[int] = []
        self._patched = [(SceneCanvas, "on_draw", SceneCanvas.on_draw)]
        draw = SceneCanvas.on_draw

        def on_draw(canvas, event):
            draw(canvas, event)
            if not self._canvases:
                self._canvases.append(id(canvas))
            if self._canvases[0] != id(canvas):
                return
            now = time.perf_counter()
            self.window_shown = self.window_shown or now
            if self.scan_in is not None and self.scan_shown is None:
                self.scan_shown = now
            if self.case_in is not None and self.shown is None:
                self.shown = now

        SceneCanvas.on_draw = on_draw
        for name in ("replace_case", "complete_case"):
            if hasattr(MoodSession, name):  # an older napari-mood has no complete_case
                self._wrap(MoodSession, name)

    def _wrap(self, owner, name: str) -> None:
        original = getattr(owner, name)
        self._patched.append((owner, name, original))

        def joined(session, *args, **kwargs):
            result = original(session, *args, **kwargs)
            now = time.perf_counter()
            self.scan_in = self.scan_in or now
            if len(session.method_names) == len(METHODS):
                self.case_in = self.case_in or now
            return result

        setattr(owner, name, joined)

    def restore(self) -> None:
        for owner, name, original in self._patched:
            setattr(owner, name, original)


class Frame3D:
    """When napari's main canvas first finished rendering a frame in 3-D, GPU work included.

    Connected last to the canvas's draw event (after the scene has drawn): the first draw
    once ``viewer.dims.ndisplay == 3`` waits for the GL commands it queued (``glFinish``;
    with a software renderer such as llvmpipe the frame is mostly that work) and notes the
    time. That frame is what a user waits for. The older measure (:func:`_drawn` after the
    switch) also counts the frames napari draws next (its camera re-syncs on the first
    3-D draw, because the hidden slice slider made the canvas taller, and asks for another)
    and the screenshot's own render; it is kept as "3-D settled".
    """

    def __init__(self, viewer) -> None:
        from vispy.gloo import gl

        self.done: float | None = None
        self._canvas = viewer.window._qt_viewer.canvas._scene_canvas  # the main canvas
        self._viewer, self._finish = viewer, gl.glFinish
        self._canvas.events.draw.connect(self._on_draw, position="last")

    def _on_draw(self, event) -> None:
        if self.done is None and self._viewer.dims.ndisplay == 3:
            self._finish()
            self.done = time.perf_counter()

    def disconnect(self) -> None:
        self._canvas.events.draw.disconnect(self._on_draw)


class Frames:
    """Count the frames napari's main canvas finished drawing (GPU work included)."""

    def __init__(self, viewer) -> None:
        from vispy.gloo import gl

        self.count = 0
        self._canvas = viewer.window._qt_viewer.canvas._scene_canvas
        self._finish = gl.glFinish
        self._canvas.events.draw.connect(self._on_draw, position="last")

    def _on_draw(self, event) -> None:
        self._finish()
        self.count += 1

    def disconnect(self) -> None:
        self._canvas.events.draw.disconnect(self._on_draw)


def rotate_drag(app, viewer, out: dict[str, float], *, sharp=None) -> None:
    """Turn the 3-D camera in :data:`DRAG_STEPS` steps, as a mouse drag does; time it.

    Each step sets ``camera.angles`` (what napari's arcball sets on a mouse move) and
    waits until the canvas has drawn and finished that frame. ``out["drag_fps"]``: the
    steps per second; with ``sharp`` (a callable true once the view is drawn sharp
    again), ``out["drag_settled_s"]``: from the last step until the next frame is sharp.
    """
    frames = Frames(viewer)
    start_angles = tuple(viewer.scene.camera.angles)
    start = time.perf_counter()
    for step in range(1, DRAG_STEPS + 1):
        drawn = frames.count
        elevation, azimuth, roll = start_angles
        viewer.scene.camera.angles = (elevation, azimuth + 4.0 * step, roll + 2.0 * step)
        _wait(app, lambda d=drawn: frames.count > d)
    end = time.perf_counter()
    out["drag_fps"] = DRAG_STEPS / (end - start)
    if sharp is not None:
        _wait(app, sharp)
        viewer.screenshot(canvas_only=True, flash=False)  # a sharp frame, drawn
        out["drag_settled_s"] = time.perf_counter() - end
    frames.disconnect()


def _drawn(app, viewer) -> None:
    """Let the canvas draw what it has (a few event-loop rounds and a screenshot)."""
    for _ in range(3):
        app.processEvents()
    viewer.screenshot(canvas_only=True, flash=False)
    app.processEvents()


def _main_canvas_drawn(viewer) -> None:
    """Draw napari's canvas now, as its first paint does (a screenshot renders it)."""
    viewer.screenshot(canvas_only=True, flash=False)


def _planes_filled(app, viewer) -> None:
    """Wait until the side views have every layer, then let the whole window draw."""
    try:
        from napari_mood._napari.planes import planes_of
    except ImportError:  # an older napari-mood without the three planes
        planes_of = None
    if planes_of is not None:
        for planes in planes_of(viewer):
            _wait(app, lambda p=planes: getattr(p, "pending", 0) == 0)
    for _ in range(3):
        app.processEvents()
    viewer.screenshot(canvas_only=False, flash=False)


def _idle(widgets) -> Callable[[], bool]:
    return lambda: not any(getattr(w, "busy", False) for w in widgets)


def _all_new(readouts, before, value: float) -> bool:
    """Every method has a readout at ``value`` (the voxel numbers at least)."""
    return (
        bool(readouts)
        and readouts != before
        and all(r.threshold == value for r in readouts.values())
    )


def _widget(widgets, name: str):
    return next(w for w in widgets if type(w).__name__ == name)


def bare_napari(root: Path | None) -> dict[str, float]:
    """Open ``root``'s case in plain napari (no plugin), as a user's script would.

    The scan, the GT and each method's map are read with nibabel as float32 (the GT as
    uint8), one after the other, and added as image / labels layers; then the canvas
    draws. With ``root=None`` only the empty window is opened (napari's own memory).
    Returns the open time, the peak resident memory and the 3-D switch time. Timed as
    :func:`run` times napari-mood: from after the QApplication exists, napari's import
    included.
    """
    from qtpy.QtWidgets import QApplication

    QApplication.instance() or QApplication([])
    start = time.perf_counter()
    import napari
    import nibabel as nib

    viewer = napari.Viewer()
    out: dict[str, float] = {}
    if root is not None:
        name = "case_000.nii.gz"

        def read(path: Path, dtype: type) -> np.ndarray:
            return np.asarray(nib.load(str(path)).get_fdata(dtype=np.float32), dtype=dtype)

        viewer.add_image(read(root / "toy" / name, np.float32), name="scan")
        viewer.add_labels(read(root / "toy_label" / "pixel" / name, np.uint8), name="GT")
        for method in METHODS:
            data = read(root / "methods" / method / name, np.float32)
            viewer.add_image(data, name=method, colormap="magma", blending="additive")
    viewer.screenshot(canvas_only=True, flash=False)
    out["open_s"] = time.perf_counter() - start
    out["open_peak_mb"] = _status_mb("VmHWM")
    if root is not None:
        app = QApplication.instance()
        _drawn(app, viewer)  # the 2-D frame is on screen, as in :func:`run`
        frame = Frame3D(viewer)
        start = time.perf_counter()
        viewer.dims.ndisplay = 3
        _wait(app, lambda: frame.done is not None)
        out["3d_s"] = frame.done - start  # type: ignore[operator]
        frame.disconnect()
        _drawn(app, viewer)
        out["3d_settled_s"] = time.perf_counter() - start
        rotate_drag(app, viewer, out)
    viewer.close()
    return out


def _anchor(root: Path | None) -> dict[str, float]:
    """:func:`bare_napari` in a fresh process (its own peak memory and imports)."""
    import json
    import subprocess

    args = [sys.executable, __file__, "--bare", "" if root is None else str(root)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the bare-napari anchor failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(root: Path, size: int, *, only_3d: bool = False) -> dict[str, float]:
    from qtpy.QtWidgets import QApplication

    from napari_mood._napari.viewer import build_viewer

    app = QApplication.instance() or QApplication([])
    meter = StallMeter()
    out: dict[str, float] = {}
    base = _reset_peak()
    meter.phase = "open"
    first = FirstDraw()
    start = time.perf_counter()
    opened = build_viewer([root])  # what ``napari-mood view`` does before napari.run()
    viewer, session, widgets = opened.viewer, opened.session, opened.widgets
    out["open_returned_s"] = time.perf_counter() - start
    _main_canvas_drawn(viewer)
    out["open_docked_drawn_s"] = time.perf_counter() - start
    _wait(app, lambda: first.shown is not None)
    first.restore()
    out["open_s"] = first.shown - start  # type: ignore[operator]
    out["open_scan_s"] = first.scan_shown - start  # type: ignore[operator]
    _planes_filled(app, viewer)
    out["open_planes_s"] = time.perf_counter() - start
    _wait(app, _idle(widgets))
    out["open_idle_s"] = time.perf_counter() - start
    out["open_peak_mb"] = _status_mb("VmHWM")
    out["open_peak_above_start_mb"] = out["open_peak_mb"] - base

    if not only_3d:
        _readouts_and_objects(app, meter, session, widgets, out)
    _three_d(app, meter, viewer, out)
    meter.stop()
    out["max_stall_ms"] = 1000 * meter.max_gap
    shown_at = first.window_shown or 0.0
    out["open_stall_window_shown_ms"] = 1000 * meter.longest_after("open", shown_at)
    out["stall_phase"] = meter.where  # type: ignore[assignment]
    out["stall_by_phase"] = meter.by_phase  # type: ignore[assignment]
    out["service_objects_per_method_s"] = _service_objects(session)
    viewer.close()
    return out


def _readouts_and_objects(app, meter, session, widgets, out: dict[str, float]) -> None:
    """Threshold readouts (two moves) and the objects widget, timed into ``out``."""
    thresholds = _widget(widgets, "ThresholdWidget")
    meter.phase = "threshold readout"
    for value in (0.6, 0.7):
        before = thresholds.readouts
        start = time.perf_counter()
        session.set_all_thresholds(value)
        _wait(app, lambda b=before, v=value: _all_new(thresholds.readouts, b, v))
        out[f"readout_{value}_s"] = time.perf_counter() - start
        _wait(app, lambda: not thresholds.busy)
        out[f"readout_objects_{value}_s"] = time.perf_counter() - start
    _wait(app, _idle(widgets))

    objects = _widget(widgets, "ObjectsWidget")
    meter.phase = "objects"
    shown = objects.results
    start = time.perf_counter()
    objects.run()  # the methods selected in the widget (all, or the current one)
    _wait(app, lambda: not objects.busy and objects.results is not shown)
    out["objects_per_method_s"] = (time.perf_counter() - start) / max(1, len(objects.results))
    out["objects_methods"] = len(objects.results)
    _wait(app, _idle(widgets))


def _three_d(app, meter, viewer, out: dict[str, float]) -> None:
    """The switch to 3-D with every panel open, timed into ``out``."""
    meter.phase = "3-D switch"
    before_3d = _reset_peak()
    frame = Frame3D(viewer)
    start = time.perf_counter()
    viewer.dims.ndisplay = 3
    _wait(app, lambda: frame.done is not None)
    out["3d_s"] = frame.done - start  # type: ignore[operator]
    frame.disconnect()
    _drawn(app, viewer)
    out["3d_settled_s"] = time.perf_counter() - start
    session = _session_of(viewer)
    if session is not None:  # an older napari-mood shows the coarsest level only
        _wait(app, lambda: not session.sharpening)
        _drawn(app, viewer)
        out["3d_sharp_s"] = time.perf_counter() - start
    out["3d_added_mb"] = _status_mb("VmHWM") - before_3d
    meter.phase = "3-D rotate drag"
    moving = getattr(session, "moving_detail", None)  # an older napari-mood draws sharp only
    rotate_drag(app, viewer, out, sharp=None if moving is None else lambda: not moving.moving)
    meter.phase = "idle"
    _wait(app, lambda: time.perf_counter() - start > out["3d_settled_s"] + 0.5)


def _session_of(viewer):
    """The viewer's session when it sharpens its 3-D levels after the first frame."""
    from napari_mood._napari.session import get_session

    session = get_session(viewer)
    return session if hasattr(session, "sharpening") else None


def _service_objects(session) -> float:
    """The objects job without the GUI (shared labelling cache when available), per method."""
    from napari_mood.services.object_views import compute_method_objects
    from napari_mood.services.snapshots import MapSnapshot

    try:
        from napari_mood.services.labelling import LabellingCache

        options = {"cache": LabellingCache()}
    except ImportError:  # an older napari-mood (to measure "before")
        options = {}
    gt = None if session.gt_data is None else np.asarray(session.gt_data)
    start = time.perf_counter()
    for name in session.method_names:
        method = session.method(name)
        snapshot = MapSnapshot(name, method.data, method.threshold)
        compute_method_objects(snapshot, gt, **options)
    return (time.perf_counter() - start) / len(session.method_names)


def report_anchor(
    out: dict[str, float], bare: dict[str, float], empty: dict[str, float], size: int
) -> None:
    """napari-mood against bare napari opening the same files (ratio < 1: napari-mood is
    faster or smaller), and the empty window's memory."""
    print("anchor: bare napari (nibabel float32 + add_image/add_labels, no plugin), same files")
    rows = (
        ("window with scan and maps", "open_s", "s"),
        ("peak resident memory while opening", "open_peak_mb", "MB"),
        (f"3-D first frame, every panel, {size}^3", "3d_s", "s"),
        ("3-D settled (+ napari's redraws, a shot)", "3d_settled_s", "s"),
        ("3-D rotate drag, frames per second", "drag_fps", "/s"),
    )
    for what, key, unit in rows:
        if key not in bare or key not in out:  # an older run without it
            continue
        ours, theirs = out[key], bare[key]
        print(
            f"  {what:38s} napari-mood {ours:8.2f} {unit:2s} bare napari {theirs:8.2f} {unit:2s}"
            f"  ratio {ours / theirs:5.2f}"
        )
    floor = empty["open_peak_mb"]
    print(
        f"  {'empty napari window (floor)':38s} {empty['open_s']:8.2f} s  peak {floor:8.0f} MB"
        f"  (napari-mood's peak is {out['open_peak_mb'] / floor:.2f}x it)"
    )


def report(out: dict[str, float], size: int) -> None:
    big = size >= 512
    targets = {
        "open_s": ("window with scan and maps", 12.0 if big else 4.0, "s"),
        "open_peak_mb": ("peak resident memory while opening", 2500.0 if big else 500.0, "MB"),
        "readout_0.6_s": ("threshold readout (first move)", 0.3, "s"),
        "readout_0.7_s": ("threshold readout (second move)", 0.3, "s"),
        "objects_per_method_s": ("objects per method (widget)", 0.5, "s"),
        "3d_s": (f"3-D first frame, every panel, {size}^3", 3.0, "s"),
        "max_stall_ms": ("longest 10 ms timer stall", 100.0, "ms"),
    }
    at_least = {"drag_fps": ("3-D rotate drag, frames per second", 5.0, "/s")}
    print(f"viewer benchmark, one {size}^3 case with {len(METHODS)} float32 maps")
    print("(2-core machine shared with other jobs: one run, numbers are indicative)")
    for key, (what, target, unit) in targets.items():
        if key not in out:  # a phase left out (--3d-only)
            continue
        value = out[key]
        verdict = "ok" if value <= target else "NOT MET"
        print(f"  {what:38s} {value:9.2f} {unit:2s} target <= {target:g} {unit}  {verdict}")
    for key, (what, target, unit) in at_least.items():
        if key in out:
            verdict = "ok" if out[key] >= target else "NOT MET"
            print(f"  {what:38s} {out[key]:9.2f} {unit:2s} target >= {target:g} {unit}  {verdict}")
    print(f"  {'window with the scan (and GT)':38s} {out['open_scan_s']:9.2f} s")
    print(f"  {'open until every panel docked':38s} {out['open_returned_s']:9.2f} s")
    print(f"  {'  and the canvas drawn again':38s} {out['open_docked_drawn_s']:9.2f} s")
    print(f"  {'open until all three planes drawn':38s} {out['open_planes_s']:9.2f} s")
    print(f"  {'open until widgets idle':38s} {out['open_idle_s']:9.2f} s")
    for value in (0.6, 0.7):
        key = f"readout_objects_{value}_s"
        if key not in out:
            continue
        print(f"  {'readout with object counts (' + str(value) + ')':38s} {out[key]:9.2f} s")
    print(
        f"  {'peak memory above start while opening':38s} {out['open_peak_above_start_mb']:9.0f} MB"
    )
    print(f"  {'3-D settled (+ redraws and a shot)':38s} {out['3d_settled_s']:9.2f} s")
    if "3d_sharp_s" in out:
        print(f"  {'3-D sharp (scan and GT at full res.)':38s} {out['3d_sharp_s']:9.2f} s")
    print(f"  {'memory added by 3-D':38s} {out['3d_added_mb']:9.0f} MB")
    if "drag_settled_s" in out:
        print(f"  {'3-D sharp again after the drag':38s} {out['drag_settled_s']:9.2f} s")
    print(
        f"  {'objects per method (service, cached)':38s} {out['service_objects_per_method_s']:9.2f} s"
    )
    print(f"  longest stall during: {out['stall_phase']}")
    print(
        "  longest stall of the open once the window is on screen (napari's import and"
        f" window build before it): {out['open_stall_window_shown_ms']:.0f} ms"
    )
    phases = out.get("stall_by_phase") or {}
    print(
        "  longest stall in each phase: "
        + ", ".join(
            f"{phase} {1000 * gap:.0f} ms"
            for phase, gap in phases.items()  # type: ignore[union-attr]
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="edge of the cubic case")
    parser.add_argument("--data", type=Path, help="folder to write the case once and reuse")
    parser.add_argument("--no-anchor", action="store_true", help="skip the bare-napari runs")
    parser.add_argument(
        "--3d-only",
        dest="only_3d",
        action="store_true",
        help="open and switch to 3-D only (no readout or objects phases)",
    )
    parser.add_argument("--bare", help=argparse.SUPPRESS)  # internal: one anchor run
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # internal: the case
    args = parser.parse_args(argv)
    if args.write is not None:
        make_case(args.write, args.size)
        return 0
    if args.bare is not None:
        import json

        print(json.dumps(bare_napari(Path(args.bare) if args.bare else None)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = (args.data or Path(tmp)) / f"case{args.size}"
        if not (root / "methods").is_dir():
            t0 = time.perf_counter()
            # in its own process: what writing leaves in memory must not count here
            write = [sys.executable, __file__, "--write", str(root), "--size", str(args.size)]
            import subprocess

            subprocess.run(write, check=True)
            print(f"wrote the case in {time.perf_counter() - t0:.0f} s ({root})")
        out = run(root, args.size, only_3d=args.only_3d)
        report(out, args.size)
        if not args.no_anchor:
            report_anchor(out, _anchor(root), _anchor(None), args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
