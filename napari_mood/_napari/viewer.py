"""Open napari on MOOD data: used by ``napari-mood view`` / ``napari-mood demo``.

napari and Qt are imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from PIL import Image

from napari_mood._napari._malloc import fix_mmap_threshold
from napari_mood._napari._runtime import (
    freeze_window_objects,
    quicken_thread_switches,
    thaw_objects,
)
from napari_mood._napari.box_viewer import build_box_viewer, opens_box_dataset
from napari_mood._napari.docking import (
    DOCK_ORDER,
    OTHER_BENCHMARK_WIDGETS,
    PLUGIN_NAME,
    TAB_TITLES,
    PanelDocking,
    dock_plugin_widgets,
)
from napari_mood._napari.layers import LayerData, layer_info
from napari_mood._napari.reader import read_paths
from napari_mood._napari.score_legend import LEGEND_MIN_SHARE, legend_colors
from napari_mood._napari.session import MoodSession, get_session
from napari_mood.io.errors import MoodInputError
from napari_mood.services.atomic_files import atomic_path
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.output import Inputs, check_output_file
from napari_mood.services.view_legend import LegendBar, add_legend

__all__ = [
    "DOCK_ORDER",
    "OTHER_BENCHMARK_WIDGETS",
    "OpenedViewer",
    "PLUGIN_NAME",
    "SCREENSHOT_WINDOW_SIZE",
    "TAB_TITLES",
    "build_viewer",
    "dock_plugin_widgets",
    "export_view",
    "focus_case",
    "focus_object",
    "load_into_viewer",
    "open_viewer",
    "read_in_background",
    "run_demo",
    "save_window_screenshot",
    "unwrap_viewer",
    "wait_keeping_events",
]

SCREENSHOT_WINDOW_SIZE = (1280, 800)  # width, height; fits the default xvfb screen
_SETTLE_ROUNDS = 5
_T = TypeVar("_T")


def open_viewer(
    paths: Sequence[str | os.PathLike[str]],
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
    screenshot: str | os.PathLike[str] | None = None,
    force: bool = False,
    dock_widgets: bool = True,
) -> int:
    """Open napari on files or folders, dock the plugin's widgets and run the event loop.

    Parameters
    ----------
    paths : sequence of path-like
        A MOOD dataset, a case folder, a methods folder or NIfTI files (see
        :mod:`napari_mood._napari.reader`); empty for an empty viewer.
    preds : Mapping[str, path-like], optional
        Extra methods by name: method folders or map files of the case opened.
    screenshot : path-like, optional
        Render the whole window to this PNG and return instead of running the event loop.
        Checked by the output guard before napari starts (not among ``paths``, not
        replacing a file without ``force``) and written atomically.
    force : bool
        Let ``screenshot`` replace an existing file.
    dock_widgets : bool
        Dock every widget of the napari-mood manifest.

    Returns
    -------
    int
        Exit status (0).
    """
    import napari

    if screenshot is not None:
        inputs = Inputs.around([*map(Path, paths), *map(Path, (preds or {}).values())])
        check_output_file(screenshot, inputs=inputs, force=force, what="the screenshot")
    with _interrupt_recorded() as interrupted:  # never raised inside a Qt callback
        opened = build_viewer(paths, preds=preds, dock_widgets=dock_widgets)
        if screenshot is not None and not interrupted:
            return save_window_screenshot(
                opened.viewer, screenshot, force=force, stop=lambda: bool(interrupted)
            )
    if interrupted:
        opened.viewer.close()
        raise KeyboardInterrupt
    return run_until_closed(opened.viewer, napari.run)


@contextlib.contextmanager
def _interrupt_recorded() -> Iterator[list[int]]:
    """Ctrl-C is recorded, not raised, while the window is built and drawn.

    An interrupt raised inside a Qt callback (a paint event) aborts the process; the
    callers look at the list between steps and stop cleanly.
    """
    import signal

    interrupted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def run_until_closed(viewer: Any, run: Callable[[], object]) -> int:
    """Run the event loop until the window closes; after Ctrl-C, close it, then raise.

    napari's loop stops on Ctrl-C (``qapp.exit``) and then calls the previous handler,
    this one: the window is still open then. It is closed here, out of the loop (widgets
    and workers end, nothing half-written), before ``KeyboardInterrupt`` goes up: an
    interpreter ending with the window open ended in a segmentation fault.
    """
    import signal

    interrupted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
    try:
        run()
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        viewer.close()
        raise KeyboardInterrupt
    return 0


@dataclass(frozen=True)
class OpenedViewer:
    """What :func:`build_viewer` made: the viewer, its session and the docked widgets."""

    viewer: Any
    session: MoodSession
    widgets: list[Any]


def build_viewer(
    paths: Sequence[str | os.PathLike[str]],
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
    dock_widgets: bool = True,
) -> OpenedViewer:
    """Open a napari window on ``paths`` with the plugin's panels, ready to use.

    The files are read in a background thread from the start (several at once, the scan
    and GT first, see :func:`napari_mood.io.case.load_case`; large freed blocks are
    given back to the system, :func:`~napari_mood._napari._malloc.fix_mmap_threshold`),
    while napari is imported and its window built, and then while panels are docked, one
    at a time; the event loop keeps running meanwhile.

    * When the scan and GT are read while the maps are still being read, they join the
      session at once and are focused (on the largest ground-truth object) and drawn;
      panels are docked while the maps are read, and the maps join when read
      (:meth:`MoodSession.complete_case`: the view stays where the reader moved it).
    * Else the whole case joins in one step (the panels see one ``case_changed``), is
      focused and drawn.

    The panels not docked yet are docked last (so the case shows first when the reading
    was quick).

    Raises
    ------
    MoodInputError
        When ``preds`` are given without anything to show them on, or a path cannot be
        read (the window is closed again).
    """
    if opens_box_dataset(paths):  # a stack of 2-D slices with boxes: its own panel
        return OpenedViewer(*build_box_viewer(paths[0], preds=preds, dock_widgets=dock_widgets))
    fix_mmap_threshold()  # freed large blocks leave the process (see _malloc)
    quicken_thread_switches()  # workers' numpy steps wait less for the GIL (see _runtime)
    reading = read_in_background(paths, preds=preds)
    # napari is imported here, while the files are read, and only then warmed up in
    # another thread (two threads importing the same modules at once can see a
    # half-imported module)
    from napari.utils.transforms import _units  # noqa: F401
    from napari.viewer import Viewer

    warming = _in_thread(_warm_imports)
    viewer = Viewer(title=PLUGIN_NAME, show=True)
    freeze_window_objects()  # later full collections walk only newer objects (see _runtime)
    viewer.window.main_menu.destroyed.connect(thaw_objects)  # destroyed with the window
    session = get_session(viewer)
    docking = PanelDocking(viewer) if dock_widgets else None
    _dock_while(docking, lambda: reading.grid.done() and warming.done())
    try:
        wait_keeping_events(warming)
        shown = wait_keeping_events(reading.grid)  # the scan and GT (or nothing yet)
        staged = bool(shown) and not reading.done()
        if staged:  # the maps take longer: show the scan and GT meanwhile
            _settle()  # the docks' space is taken before the view is fitted to the canvas
            session.replace_case(shown)
            session.expect_maps()
            _show_case(viewer, session)
            _draw_now(viewer)  # before the side views and the next panel take their turns
            _dock_while(docking, reading.done)
        layers = wait_keeping_events(reading.layers)
    except BaseException:
        viewer.close()
        raise
    if staged:  # the point and zoom stay where the reader may have moved them meanwhile
        session.complete_case([x for x in layers if not any(x is y for y in shown)])
    else:
        if layers:
            session.replace_case(layers)
        _show_case(viewer, session)
    if docking is not None and docking.remaining:
        _settle()  # the scan and maps are drawn before the other panels are built
        docking.dock_rest()
        focus_case(viewer, session)  # fit the views again: the docks took their space
    return OpenedViewer(viewer, session, [] if docking is None else docking.widgets)


def _dock_while(docking: PanelDocking | None, done: Callable[[], bool]) -> None:
    """Dock panels one by one until ``done()`` or all are docked.

    Dock panels one by one until ``done()`` (or every panel is docked), handling the
    window's events between two.
    """
    from qtpy.QtWidgets import QApplication

    while docking is not None and not done():
        if not docking.dock_next():
            break
        QApplication.processEvents()


def _draw_now(viewer: Any) -> None:
    """Repaint napari's main canvas synchronously.

    Paint napari's main canvas at once (a synchronous Qt repaint), so the case is on
    screen before queued work (the side views filling in, docking) runs.
    """
    qt_viewer = getattr(viewer.window, "_qt_viewer", None)  # private: skipped if renamed
    native = getattr(getattr(qt_viewer, "canvas", None), "native", None)
    if native is not None and hasattr(native, "repaint"):
        native.repaint()


def _show_case(viewer: Any, session: MoodSession) -> None:
    session.name_case_in_title()  # the case may have come before the title
    focus_case(viewer, session)


@dataclass(frozen=True)
class StagedRead:
    """A case being read in a thread, in two stages.

    ``grid`` holds the scan and GT layers as soon as those two files are read (an empty
    list when there are none, or when the whole case came at once); ``layers`` holds
    every layer of the case (the same tuples for the scan and GT) once the maps are read.
    """

    grid: Future[list[LayerData]]
    layers: Future[list[LayerData]]

    def done(self) -> bool:
        """Whether every file is read."""
        return self.layers.done()


def read_in_background(
    paths: Sequence[str | os.PathLike[str]],
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
) -> StagedRead:
    """Start reading ``paths`` (:func:`~napari_mood._napari.reader.read_paths`) in a thread.

    Raises
    ------
    MoodInputError
        At once, when ``preds`` are given without a scan or dataset to show them on.
    """
    _check_preds(paths, preds)
    files, named = list(paths), dict(preds or {})
    grid: Future[list[LayerData]] = Future()

    def read() -> list[LayerData]:
        try:
            layers = read_paths(files, preds=named, on_grid=grid.set_result) if files else []
        except BaseException as exc:
            if not grid.done():
                grid.set_exception(exc)
            raise
        if not grid.done():
            grid.set_result([])
        return layers

    return StagedRead(grid, _in_thread(read))


def _in_thread(job: Callable[[], _T]) -> Future[_T]:
    pool = ThreadPoolExecutor(1, thread_name_prefix="napari-mood-open")
    future = pool.submit(job)
    pool.shutdown(wait=False)
    return future


def _check_preds(paths: Sequence[Any], preds: Mapping[str, Any] | None) -> None:
    if not paths and preds:
        raise MoodInputError(None, "method maps given without a scan or dataset", "add one")


def _warm_imports() -> None:
    """Do here, off the main thread, the one-time work napari does when a case joins.

    pint's unit registry (the first layer with units, 0.5 s), pandas (the crosshair, a
    Vectors layer, builds a feature table: 0.2 s) and scipy's rotations (the planes'
    camera orientation: 0.3 s) would otherwise each freeze the window once.
    """
    import pandas  # noqa: F401
    import scipy.spatial.transform  # noqa: F401
    from napari.utils.transforms._units import get_units_from_name

    get_units_from_name("mm")


def wait_keeping_events(future: Future[Any], *, step_ms: int = 10) -> Any:
    """Process Qt events until ``future`` is done; return its result (or raise its error)."""
    from qtpy.QtCore import QEventLoop
    from qtpy.QtWidgets import QApplication

    app = QApplication.instance()
    while not future.done():
        if app is not None:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, step_ms)
        wait([future], timeout=step_ms / 1000)
    return future.result()


def run_demo(*, screenshot: str | os.PathLike[str] | None = None, force: bool = False) -> int:
    """Open the bundled sample dataset: first anomalous case, every method, widgets docked.

    Examples
    --------
    >>> run_demo(screenshot="demo.png")  # doctest: +SKIP
    0
    """
    root = sample_data_dir()
    if not (root / "toy").is_dir():
        raise MoodInputError(root, "the sample dataset is missing", "reinstall napari-mood")
    return open_viewer([root], screenshot=screenshot, force=force)


def load_into_viewer(
    viewer: Any,
    paths: Sequence[str | os.PathLike[str]],
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
) -> MoodSession:
    """Add the layers read from ``paths`` to ``viewer`` and return its session.

    The case joins through :meth:`MoodSession.replace_case` (the one way a case's layers
    come in: one ``case_changed``, the first method selected, a shown case replaced).

    Raises
    ------
    MoodInputError
        When ``preds`` are given without anything to show them on, or a path cannot be read.
    """
    _check_preds(paths, preds)
    session = get_session(viewer)
    if not paths:
        return session
    session.replace_case(read_paths(list(paths), preds=preds))
    return session


def focus_case(viewer: Any, session: MoodSession | None = None) -> None:
    """Put the point on the largest ground-truth object and fit every view.

    Without a ground truth the point goes to the middle of the volume. The three linked
    planes (when shown) follow the point. The voxel comes from the GT layer's metadata
    when the reader found it (``focus``), else it is found here.
    """
    from napari_mood._napari.planes import planes_of
    from napari_mood.io.case import focus_voxel

    session = session or get_session(viewer)
    gt, truth = session.gt_layer, session.gt_data
    found = (layer_info(gt) or {}).get("focus") if gt is not None else None
    voxel = tuple(found) if found else None  # found by the reader (a 512^3 GT: 1.5 s)
    if voxel is None and truth is not None and truth.ndim == 3:
        voxel = focus_voxel(np.asarray(truth))
    if voxel is not None:
        world = gt.data_to_world(voxel)
        viewer.dims.point = tuple(float(v) for v in world)
    viewer.reset_view()
    for planes in planes_of(viewer):
        planes.reset_views()


FOCUS_FILL = 0.4
"""Share of the canvas an object's bounding box fills after :func:`focus_object`."""
FOCUS_MIN_EXTENT_MM = 40.0
"""Smallest extent :func:`focus_object` zooms to (a single voxel is shown in context)."""


def unwrap_viewer(viewer: Any) -> Any:
    """Return the viewer itself rather than napari's ``PublicOnlyProxy`` around it.

    napari hands plugin widgets a proxy whose attributes are proxies too: a layer got
    through it is not ``is``-identical to the same layer in the layer list's events
    (napari/napari#5767). Widgets compare layers by identity, so they keep the viewer.
    """
    return getattr(viewer, "__wrapped__", viewer)


def focus_object(
    viewer: Any,
    layer: Any,
    centroid_voxel: Sequence[float],
    bbox: Sequence[tuple[int, int]],
) -> None:
    """Show an object: the point at its centroid (every plane), centred, zoomed to its box.

    The zoom makes the object's bounding box (at least :data:`FOCUS_MIN_EXTENT_MM` wide)
    fill about :data:`FOCUS_FILL` of the canvas.

    Parameters
    ----------
    viewer : napari.Viewer
    layer : napari.layers.Layer
        A layer on the object's voxel grid (converts voxel indices to world coordinates).
    centroid_voxel, bbox
        As in :class:`napari_mood.core.objects.ObjectRecord`.
    """
    from napari_mood._napari.planes import planes_of

    world = np.asarray(layer.data_to_world(tuple(centroid_voxel)), dtype=float)
    point = list(viewer.dims.point)
    point[-len(world) :] = [float(v) for v in world]
    viewer.dims.point = tuple(point)  # every axis: the crosshair and the side planes follow
    for planes in planes_of(viewer):
        planes.go_to([float(v) for v in world])
    displayed = list(viewer.dims.displayed)
    viewer.scene.camera.center = tuple(float(world[a]) for a in displayed)
    scale = np.abs(np.asarray(layer.scale, dtype=float))
    extent = max(max((bbox[a][1] - bbox[a][0]) * scale[a] for a in displayed), FOCUS_MIN_EXTENT_MM)
    canvas = np.asarray(viewer.canvas.viewbox_size(viewer.layers), dtype=float)
    viewer.scene.camera.zoom = float(FOCUS_FILL * canvas.min() / extent)


def _legend_entries(layers: Sequence[Any]) -> list[LegendBar]:
    """Each shown method's name, colour and colour bar, top of the layer list first."""
    entries = []
    for layer in reversed([layer for layer in layers if layer.visible]):
        info = layer_info(layer) or {}
        if info.get("color"):
            low = float(layer.contrast_limits[0])
            _, ramp = legend_colors(layer.colormap, tuple(layer.contrast_limits))
            mark = min(low, 1.0 - LEGEND_MIN_SHARE)  # where the bar's colours start
            ticks = (
                ((0.0, "0"), (mark, f"{low:.2g}"), (1.0, "1"))
                if 0.1 < mark < 0.9
                else ((0.0, "0"), (1.0, "1"))
            )
            name = str(info.get("method") or layer.name)
            entries.append(LegendBar(name, str(info["color"]), ramp, ticks))
    return entries


def _mm_per_pixel(viewer: Any, width_px: int) -> float | None:
    """Millimetres per pixel of a canvas screenshot ``width_px`` wide (2-D only)."""
    zoom = float(viewer.scene.camera.zoom)
    if viewer.dims.ndisplay != 2 or not zoom > 0 or width_px <= 0:
        return None
    return float(viewer.canvas.size[1]) / zoom / width_px  # world units: the layers' mm


def export_view(viewer: Any, path: str | os.PathLike[str], method_layers: Sequence[Any]) -> Path:
    """Save the canvas as the reader sees it, with the methods' colour bars under it, as a PNG.

    The canvas is saved untouched; a strip appended below it carries each shown method's
    swatch, name and colour bar over scores 0..1 and a scale bar
    (:mod:`napari_mood.services.view_legend`): nothing covers a voxel, a GT outline or
    an orientation letter. Returns the file written.
    """
    out = Path(path)
    if out.suffix.lower() != ".png":
        out = out.with_suffix(".png")
    with atomic_path(out) as temporary:
        viewer.screenshot(str(temporary), canvas_only=True)  # a .png name: napari writes PNG
        with Image.open(temporary) as shot:
            width = shot.size[0]
        add_legend(
            temporary, _legend_entries(method_layers), mm_per_pixel=_mm_per_pixel(viewer, width)
        )
    return out


SCREENSHOT_WAIT_S = 300.0
"""Longest wait for the widgets' background work before a window screenshot."""


def save_window_screenshot(
    viewer: Any,
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Render the whole window (canvas, docks, layer list) to a PNG, close the viewer, return 0.

    Waits (up to :data:`SCREENSHOT_WAIT_S`) until every widget's background work is done,
    so the picture shows results, not "Updating...", and no worker outlives the window.
    The PNG is written atomically (:func:`~napari_mood.services.atomic_files.atomic_path`);
    without ``force`` a file that appeared meanwhile is never replaced. ``stop`` (Ctrl-C
    was pressed) ends the wait: the viewer is closed, nothing is written and
    ``KeyboardInterrupt`` goes up.
    """
    from napari_mood._napari.planes import planes_of

    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    _settle()
    _wait_for_workers(stop=stop)
    if stop is not None and stop():
        viewer.close()
        raise KeyboardInterrupt
    viewer.reset_view()
    for planes in planes_of(viewer):
        planes.flush()
        planes.reset_views()
    _close_notifications()
    _settle()
    try:
        with atomic_path(path, replace=force) as temporary:
            viewer.screenshot(str(temporary), canvas_only=False)
    finally:
        viewer.close()
    return 0


def _close_notifications() -> None:
    """Close napari's toast notifications (for example the PyQt5 notice) before a screenshot."""
    from qtpy.QtWidgets import QApplication

    for widget in QApplication.allWidgets():
        if type(widget).__name__ == "NapariQtNotification":
            widget.close()


def _settle() -> None:
    from qtpy.QtWidgets import QApplication

    for _ in range(_SETTLE_ROUNDS):
        QApplication.processEvents()


def _wait_for_workers(
    timeout: float = SCREENSHOT_WAIT_S, *, stop: Callable[[], bool] | None = None
) -> None:
    """Process events until no widget has background work, ``timeout`` or ``stop()``."""
    import time

    from qtpy.QtWidgets import QApplication

    from napari_mood._napari.widgets.worker import all_idle

    end = time.monotonic() + timeout
    while time.monotonic() < end and not (stop is not None and stop()):
        QApplication.processEvents()
        if all_idle():
            _settle()  # timers a finished job started (debounced follow-ups)
            if all_idle() and not _pending_timers():
                return
        time.sleep(0.02)


def _pending_timers() -> bool:
    """Whether a widget's debounce timer is about to start work."""
    from qtpy.QtCore import QTimer
    from qtpy.QtWidgets import QApplication

    return any(
        timer.isActive() and timer.isSingleShot()
        for widget in QApplication.allWidgets()
        for timer in widget.findChildren(QTimer)
    )
