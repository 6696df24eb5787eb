"""What a viewer shows for napari-mood: case, scan, ground truth and methods (Qt-free).

One :class:`MoodSession` per viewer (:func:`get_session`). It watches the viewer's layer
list: any layer whose ``metadata["napari_mood"]`` says it is a scan, a ground truth or a
method's map joins the session when it is added (by the reader, by drag and drop, by the
command line) and leaves when it is removed. Layers are recognised by that metadata only
(:func:`napari_mood._napari.layers.layer_info`), never by their names.

Rules:

* one case at a time. :meth:`MoodSession.replace_case` (the dataset browser) puts another
  case's layers where the old ones were and removes the old ones; a scan or ground truth
  of another case arriving by itself (drag and drop, File > Open) does the same once the
  drop is complete. Either way the widgets see one ``case_changed`` and one
  ``methods_changed``, each method keeps its colour, threshold, visibility and opacity
  (remembered also across a case without it), the scan and the ground truth keep their
  visibility and opacity (:class:`~napari_mood._napari.role_looks.RoleLooks`), and
  helper layers (object outlines, review region, difference) stay above the case in
  their order;
* one scan and one ground truth at a time: the newest one wins;
* one benchmark at a time: a box dataset dropped onto a MOOD case (or a MOOD case onto a
  box dataset) removes the other's layers once the drop is complete;
* methods are keyed by method name; a newer layer of the same method replaces the older
  one in the session (the older layer stays in the viewer, untracked);
* every method has the colour :func:`~napari_mood.services.looks.method_colors` deals it
  among the session's methods (the one rule of figures too): a method dropped in later
  is coloured as a figure of those methods draws it;
* a ground truth is drawn as an outline (``contour=1``) in 2-D and filled in 3-D, where
  napari draws no contours;
* a method's display threshold is its layer's lower contrast limit, so changing it in
  napari's own layer controls is seen too (:attr:`MoodSession.threshold_changed`).
* what is scored is the full-resolution array: :attr:`SessionMethod.data`,
  :attr:`MoodSession.gt_data` and :attr:`MoodSession.scan_data` (level 0 of a large
  volume shown multiscale, :func:`napari_mood._napari.layers.display_levels`); panels
  never read ``layer.data`` of a case layer themselves.

Widgets observe the session through its psygnal signals and never keep their own copy of
this state. Nothing here imports Qt or napari.
"""

from __future__ import annotations

import atexit
import re
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psygnal import Signal

from napari_mood._napari._exit import close_at_exit
from napari_mood._napari._malloc import release_free_heap
from napari_mood._napari._soon import call_soon
from napari_mood._napari.helper_layers import follow_display, keep_read_only
from napari_mood._napari.layer_refill import (
    SharpBudget,
    SharpLevels,
    pair_layers,
    refill_layer,
)
from napari_mood._napari.layers import (
    METADATA_KEY,
    LayerData,
    gt_truth,
    is_box_layer,
    layer_info,
    scored_data,
)
from napari_mood._napari.role_looks import RoleLooks, outline_gt, render_scan
from napari_mood._napari.three_d import MovingDetail
from napari_mood.services.display import DisplayTransform
from napari_mood.services.labelling import LabellingCache
from napari_mood.services.looks import METHOD_COLORS, method_colormap, method_colors
from napari_mood.services.options import check_threshold, threshold_limits
from napari_mood.services.output import Inputs
from napari_mood.services.snapshots import MapSnapshot

__all__ = ["MoodSession", "SessionMethod", "get_session", "no_repaint"]


@dataclass(frozen=True)
class SessionMethod:
    """A method's map as shown in the viewer (a snapshot; thresholds read live).

    Attributes
    ----------
    name : str
        Method name.
    layer : napari.layers.Image
        The layer showing the map.
    color : str
        The method's colour (``#rrggbb``), for plots and tables that should match.
    path : Path or None
        The map file.
    """

    name: str
    layer: Any
    color: str
    path: Path | None

    @property
    def threshold(self) -> float:
        """Display threshold (the layer's lower contrast limit)."""
        return float(self.layer.contrast_limits[0])

    @property
    def data(self) -> Any:
        """The map as scored: display-ordered view of the scores as read (full resolution)."""
        return scored_data(self.layer)

    def snapshot(self) -> MapSnapshot:
        """Return what a background job needs of this map now (the array is not copied).

        Every panel takes its snapshots here, so their jobs share one labelling cache key
        (map, threshold, spacing = the layer's ``|scale|``).
        """
        spacing = tuple(abs(float(s)) for s in self.layer.scale)
        source = None if self.path is None else str(self.path)
        return MapSnapshot(self.name, self.data, self.threshold, self.color, spacing, source)


class MoodSession:
    """Qt-free state of a viewer's napari-mood layers, with signals for widgets.

    Parameters
    ----------
    viewer : napari.Viewer (or anything with ``layers`` and ``dims`` like it)
        Held through a weak reference.

    Examples
    --------
    >>> session = get_session(viewer)  # doctest: +SKIP
    >>> session.methods_changed.connect(lambda: print(session.method_names))  # doctest: +SKIP
    >>> session.set_threshold("autoencoder", 0.7)  # doctest: +SKIP
    """

    methods_changed = Signal()
    """A method joined or left the session."""
    threshold_changed = Signal(str, float)
    """A method's display threshold changed: ``(method, threshold)``."""
    case_changed = Signal()
    """The scan or the ground truth joined or left."""
    case_swapped = Signal()
    """Another case took the shown one's place (:meth:`replace_case`), before any repaint.

    Emitted while repaints are held, after the new layers are in and before
    ``case_changed``: a view that copies the layers (the side planes,
    :class:`~napari_mood._napari.planes.LinkedPlanes`) takes the new arrays now, so no pane
    draws the previous case once the title names the next one.
    """

    TITLE_PREFIX = "napari-mood"
    """A window titled so (``napari-mood view``) names the case shown, whoever opened it."""

    def __init__(self, viewer: Any) -> None:
        self._viewer = weakref.ref(viewer)
        self._scan: Any = None
        self._gt: Any = None
        self._truth: tuple[Any, Any] | None = None  # (GT layer data, its bool view)
        self._methods: dict[str, Any] = {}
        self._named: set[str] = set()  # every method shown so far: the colours' deal
        self._looks = RoleLooks()
        self._batch_depth = 0
        self._pending: set[str] = set()  # signals held back while a batch runs
        self._switching = False  # inside replace_case
        self._newest_boxes: bool | None = None  # the newer of a MOOD case and a box dataset
        self._maps_coming = False  # the shown case's maps are still being read
        # one labelling per (map, threshold) for all panels; the freed heap given back after each
        self.labelling = LabellingCache(after_labelling=release_free_heap)
        self.blind = False  # a blind review runs: views name no layer (see widgets.review_view)
        self.sharp_budget = SharpBudget()  # one for napari's canvas and the 3-D pane
        self._sharp = SharpLevels(  # 3-D: coarse first, then sharp
            lambda: self.viewer,
            first=lambda: (self._scan, self._gt),
            scene=self._scene,
            budget=self.sharp_budget,
        )
        self.moving_detail = MovingDetail(viewer, scene=self._scene)  # 3-D: coarse while moving
        viewer.layers.events.inserted.connect(self._on_layers_inserted)
        viewer.layers.events.removed.connect(self._on_layers_removed)
        viewer.dims.events.ndisplay.connect(self._on_dims_ndisplay, position="first")
        self.case_changed.connect(self.name_case_in_title)
        for layer in list(viewer.layers):
            self._join(layer)

    def name_case_in_title(self) -> None:
        """Name the shown case in a napari-mood window's title (a plain napari's stays)."""
        viewer = self.viewer
        if viewer is None or not str(viewer.title).startswith(self.TITLE_PREFIX):
            return
        case = self.case
        viewer.title = self.TITLE_PREFIX if case is None else f"{self.TITLE_PREFIX}: {case}"

    # -- what is loaded -------------------------------------------------------------

    @property
    def viewer(self) -> Any:
        """The viewer, or None once it has been garbage collected."""
        return self._viewer()

    @property
    def scan_layer(self) -> Any:
        """The scan's Image layer, or None."""
        return self._scan

    @property
    def gt_layer(self) -> Any:
        """The ground truth's Labels layer, or None."""
        return self._gt

    @property
    def scan_data(self) -> Any:
        """The scan at full resolution (display-ordered), or None."""
        return None if self._scan is None else scored_data(self._scan)

    @property
    def gt_data(self) -> Any:
        """The ground truth at full resolution (display-ordered), or None: what is scored.

        A GT read by napari-mood comes as bool, one array shared by every job
        (:func:`~napari_mood._napari.layers.gt_truth`: the same object each time while the
        layer's data stays, so the labelling cache, keyed on it, is shared too).
        """
        if self._gt is None:
            return None
        data = scored_data(self._gt)
        if self._truth is None or self._truth[0] is not data:
            self._truth = (data, gt_truth(data))
        return self._truth[1]

    @property
    def case(self) -> str | None:
        """Case name of the scan (else of the ground truth, else of the first method)."""
        info = self._first_info()
        return None if info is None else info.get("case")

    @property
    def dataset(self) -> Path | None:
        """Root of the MOOD dataset the case comes from, when known."""
        info = self._first_info()
        folder = None if info is None else info.get("dataset")
        return None if folder is None else Path(folder)

    @property
    def transform(self) -> DisplayTransform | None:
        """The case's display <-> file <-> scanner (RAS mm) transform, when known."""
        info = self._first_info()
        values = None if info is None else info.get("transform")
        return None if not values else DisplayTransform.from_dict(values)

    def inputs(self) -> Inputs:
        """Return the files and folders shown: outputs may not land in or on them (output guard).

        The dataset folder, every layer's file and the folder of each method's map.
        """
        layers = [self._scan, self._gt, *self._methods.values()]
        paths = [(layer_info(layer) or {}).get("path") for layer in layers if layer is not None]
        files = [Path(p) for p in paths if p]
        method_folders = [
            Path(p).parent
            for layer in self._methods.values()
            if (p := (layer_info(layer) or {}).get("path"))
        ]
        return Inputs.of(folders=[self.dataset, *method_folders], files=files)

    def _first_info(self) -> Any:
        layers = [self._scan, self._gt, *self._methods.values()]
        return next((layer_info(layer) for layer in layers if layer is not None), None)

    @property
    def methods(self) -> tuple[SessionMethod, ...]:
        """Methods shown, in the order they joined."""
        return tuple(self._snapshot(name, layer) for name, layer in self._methods.items())

    @property
    def method_names(self) -> tuple[str, ...]:
        """Names of the methods shown, in the order they joined."""
        return tuple(self._methods)

    def method(self, name: str) -> SessionMethod:
        """Return one method; KeyError names the known ones."""
        return self._snapshot(name, self._layer_of(name))

    @staticmethod
    def _snapshot(name: str, layer: Any) -> SessionMethod:
        info = layer_info(layer) or {}
        path = info.get("path")
        return SessionMethod(
            name, layer, info.get("color") or METHOD_COLORS[0], path and Path(path)
        )

    def _layer_of(self, name: str) -> Any:
        if name not in self._methods:
            raise KeyError(f"no method {name!r} in the session (have {list(self._methods)})")
        return self._methods[name]

    # -- slicing --------------------------------------------------------------------

    @property
    def slice_axis(self) -> int | None:
        """The axis on the slider (0, axial, in the napari-mood convention), or None in 3-D."""
        viewer = self.viewer
        if viewer is None or viewer.dims.ndim <= viewer.dims.ndisplay:
            return None
        return int(viewer.dims.not_displayed[0])

    @property
    def slice_index(self) -> int | None:
        """Index of the shown slice in the scan's (display-ordered) array, or None."""
        axis, viewer = self.slice_axis, self.viewer
        reference = self._scan or self._gt or next(iter(self._methods.values()), None)
        if axis is None or reference is None:
            return None
        point = reference.world_to_data(viewer.dims.point)
        return int(round(float(point[axis])))

    # -- thresholds -----------------------------------------------------------------

    def threshold(self, name: str) -> float:
        """Display threshold of a method."""
        return float(self._layer_of(name).contrast_limits[0])

    def set_threshold(self, name: str, value: float) -> None:
        """Show the method's scores above ``value`` (in [0, 1]); instant, no data copy.

        Raises
        ------
        ValueError
            When ``value`` is not a number in [0, 1].
        KeyError
            When the method is not in the session.
        """
        value = check_threshold(value)
        self._layer_of(name).contrast_limits = threshold_limits(value)

    def set_all_thresholds(self, value: float) -> None:
        """Give every method the same display threshold."""
        value = check_threshold(value)
        for name in self._methods:
            self.set_threshold(name, value)

    # -- switching cases -----------------------------------------------------------

    def replace_case(self, layers: Sequence[LayerData]) -> None:
        """Show another case: its layers take the place of the shown scan, GT and methods.

        Looks are kept as described in the module docstring, the first method is
        selected, and other layers (helper layers, the user's own) keep their order
        above the case. Widgets see one ``case_changed`` and one ``methods_changed``;
        when a case was shown before, views copying the layers see ``case_swapped``
        first (the switch is atomic to the eye: one repaint shows the next case in
        every pane).
        """
        viewer = self.viewer
        if viewer is None:
            return
        old = self._case_layers()
        self._maps_coming = False
        with self._batch(), no_repaint(viewer):
            self._switching = True
            try:
                self._swap_layers(viewer, old, layers)
            finally:
                self._switching = False
            if old:  # a case was shown: every view takes the next one in this paint
                self.case_swapped.emit()
        if self._methods:
            viewer.layers.selection.active = next(iter(self._methods.values()))

    def _swap_layers(self, viewer: Any, old: list[Any], layers: Sequence[LayerData]) -> None:
        """Put the case's layers in the viewer, reusing layers of the same kind.

        Old layers of the same kind take the new arrays (:func:`pair_layers`); the rest
        are removed or made; the case's layers end in the order of ``layers``.
        """
        from napari.layers import Layer

        index = min((viewer.layers.index(x) for x in old), default=len(viewer.layers))
        pairs = pair_layers(old, layers)
        kept = [layer for layer, _ in pairs if layer is not None]
        for layer in old:
            if not any(layer is k for k in kept):
                viewer.layers.remove(layer)
        shown: list[Any] = []
        for layer, item in pairs:
            if layer is None:
                layer = Layer.create(*item)
                viewer.layers.insert(min(index + len(shown), len(viewer.layers)), layer)
            else:
                self._looks.remember(layer)
                refill_layer(layer, item, model=viewer)
                self._join(layer)
            shown.append(layer)
        order = [viewer.layers.index(x) for x in shown]
        if order != list(range(index, index + len(shown))):
            viewer.layers.move_multiple(order, index)

    @property
    def maps_coming(self) -> bool:
        """Whether the shown case's maps are still being read (see :meth:`expect_maps`)."""
        return self._maps_coming

    def expect_maps(self) -> None:
        """Mark the shown case's score maps as still being read.

        Say that the shown case's maps are being read and will join through
        :meth:`complete_case` (widgets say so instead of "no score map"); emits
        ``methods_changed``.
        """
        self._maps_coming = True
        self.methods_changed.emit()

    def complete_case(self, layers: Sequence[LayerData]) -> None:
        """Add the rest of the shown case (its maps, read after the scan and GT).

        They go where :meth:`replace_case` puts maps: above the scan, under the GT
        outline. Widgets see one ``methods_changed``; the first method is selected.
        """
        viewer = self.viewer
        coming, self._maps_coming = self._maps_coming, False
        if viewer is None or not layers:
            if coming:
                self.methods_changed.emit()  # no map after all: widgets say so
            return
        below = self._gt if self._gt is not None and self._gt in viewer.layers else None
        index = viewer.layers.index(below) if below is not None else len(viewer.layers)
        if below is None and self._scan is not None and self._scan in viewer.layers:
            index = viewer.layers.index(self._scan) + 1
        with self._batch(), no_repaint(viewer):
            _insert_layers(viewer, layers, index)
        if self._methods:
            viewer.layers.selection.active = next(iter(self._methods.values()))

    def _case_layers(self) -> list[Any]:
        """Return the viewer's scan, GT and method layers (tracked or not), bottom first."""
        viewer = self.viewer
        if viewer is None:
            return []
        return [layer for layer in viewer.layers if layer_info(layer) is not None]

    def _retire_other_cases(self) -> None:
        """Remove case layers of another case than the shown one; move the case down.

        Runs after a drop or File > Open added a new case on top of the old one.
        """
        viewer, case = self.viewer, self.case
        if viewer is None or case is None:
            return
        layers = self._case_layers()
        stale = [x for x in layers if (layer_info(x) or {}).get("case") != case]
        if not stale:
            return
        index = min(viewer.layers.index(x) for x in layers)
        with self._batch():
            for layer in stale:
                viewer.layers.remove(layer)
            current = [viewer.layers.index(x) for x in self._case_layers()]
            viewer.layers.move_multiple(current, index)
            for layer in self._case_layers():
                layer.name = _COPY_SUFFIX.sub("", layer.name)  # "a [1]" -> "a", now free

    @contextmanager
    def _batch(self) -> Iterator[None]:
        """Hold ``case_changed`` / ``methods_changed`` back; emit each once at the end."""
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0:
                pending, self._pending = self._pending, set()
                for name in ("case_changed", "methods_changed"):
                    if name in pending:
                        getattr(self, name).emit()

    def _emit(self, name: str) -> None:
        if self._batch_depth:
            self._pending.add(name)
        else:
            getattr(self, name).emit()

    # -- joining and leaving --------------------------------------------------------

    def close(self) -> None:
        """Stop watching the viewer and the layers."""
        viewer = self.viewer
        if viewer is not None:
            viewer.layers.events.inserted.disconnect(self._on_layers_inserted)
            viewer.layers.events.removed.disconnect(self._on_layers_removed)
            viewer.dims.events.ndisplay.disconnect(self._on_dims_ndisplay)
        self.moving_detail.close()
        for layer in list(self._methods.values()):
            layer.events.contrast_limits.disconnect(self._on_layer_contrast_limits)
        self._methods.clear()
        self._scan = self._gt = self._truth = None

    def _on_layers_inserted(self, event: Any) -> None:
        self._join(event.value)
        self._one_benchmark(event.value)
        viewer = self.viewer
        if viewer is not None and viewer.dims.ndisplay == 3:
            self._sharpen_later()  # a layer added in 3-D: coarse first too

    def _one_benchmark(self, layer: Any) -> None:
        """Retire the other benchmark's layers once a drop of a case or box dataset is in.

        A MOOD case (3-D, the scan's grid) and a box dataset (a stack of 2-D slices) never
        share the viewer: their sliders, units and panels would mix. The newer one stays.
        """
        boxes = is_box_layer(layer)
        if not boxes and layer_info(layer) is None:
            return  # a helper layer or the user's own
        self._newest_boxes = boxes
        if any(self._of_other_benchmark(x) for x in self._all_layers()):
            call_soon(self._retire_other_benchmark)

    def _all_layers(self) -> list[Any]:
        viewer = self.viewer
        return [] if viewer is None else list(viewer.layers)

    def _of_other_benchmark(self, layer: Any) -> bool:
        """Whether ``layer`` belongs to the benchmark the newest drop did not bring."""
        return layer_info(layer) is not None if self._newest_boxes else is_box_layer(layer)

    def _retire_other_benchmark(self) -> None:
        viewer = self.viewer
        stale = [x for x in self._all_layers() if self._of_other_benchmark(x)]
        if viewer is None or not stale:
            return
        with self._batch():
            for layer in stale:
                viewer.layers.remove(layer)
        viewer.reset_view()  # the camera framed the other benchmark's data

    def _on_layers_removed(self, event: Any) -> None:
        self._leave(event.value)

    def _on_dims_ndisplay(self, event: Any) -> None:
        follow_display(self.viewer)
        if self._gt is not None:
            outline_gt(self._gt, self.viewer)
        if self._scan is not None:
            render_scan(self._scan)
        self._sharpen_later()

    # -- 3-D from a coarse level, then sharp -----------------------------------------

    @property
    def sharpening(self) -> bool:
        """Whether a 3-D view still waits for sharper levels of its layers.

        See :meth:`_sharpen_later`.
        """
        return self._sharp.sharpening

    def _scene(self) -> Any | None:
        """Return the vispy canvas drawing the main view (None for a headless model)."""
        qt_viewer = getattr(getattr(self.viewer, "window", None), "_qt_viewer", None)
        return getattr(getattr(qt_viewer, "canvas", None), "_scene_canvas", None)

    def _sharpen_later(self) -> None:
        """Sharpen the 3-D view once its coarse first frame is drawn; in 2-D, unlock levels.

        :class:`~napari_mood._napari.layer_refill.SharpLevels`: the scan, then the GT,
        then the other shown layers.
        """
        self._sharp.later()

    def _on_layer_contrast_limits(self, event: Any) -> None:
        layer = event.source
        name = next((n for n, tracked in self._methods.items() if tracked is layer), None)
        if name is not None:
            self.threshold_changed.emit(name, float(layer.contrast_limits[0]))

    def _join(self, layer: Any) -> None:
        info = layer_info(layer)
        if info is None:
            return
        previous_case = self.case
        role = info["role"]
        replaced = {"scan": self._scan, "gt": self._gt}.get(role) or self._methods.get(
            info.get("method") or ""
        )
        if replaced is not None:
            self._looks.remember(replaced)
        self._looks.apply(layer)
        if role == "method":
            self._join_method(layer, info["method"])
        elif role == "gt":
            self._gt, self._truth = layer, None
            keep_read_only(layer)
            outline_gt(layer, self.viewer)
            self._emit("case_changed")
        else:
            self._scan = layer
            render_scan(layer)
            self._emit("case_changed")
        new_case = info.get("case")
        if role != "method" and previous_case not in (None, new_case) and not self._switching:
            call_soon(self._retire_other_cases)  # a drop: wait until all its layers are in

    def _join_method(self, layer: Any, name: str) -> None:
        previous = self._methods.pop(name, None)
        if previous is not None:
            previous.events.contrast_limits.disconnect(self._on_layer_contrast_limits)
        self._color_by_rule(name, layer)
        layer.contrast_limits_range = (0.0, 1.0)
        layer.events.contrast_limits.connect(self._on_layer_contrast_limits)
        self._methods[name] = layer
        self._emit("methods_changed")

    def _color_by_rule(self, name: str, layer: Any) -> None:
        """Colour every method as :func:`method_colors` deals them (one colour everywhere).

        The deal is over every method the session has shown, so a case without one
        method's map keeps the others' colours; a method dropped in later gets the colour
        figures give it among them (one sorting first moves the others along, as figures do).
        """
        methods = {**self._methods, name: layer}
        self._named.update(methods)
        for method, color in method_colors(self._named).items():
            if method not in methods:
                continue
            each = methods[method]
            info = each.metadata[METADATA_KEY]
            if info.get("color") != color:
                info["color"] = color
                each.colormap = method_colormap(color)

    def _leave(self, layer: Any) -> None:
        if layer is self._scan or layer is self._gt or layer in self._methods.values():
            self._looks.remember(layer)
        if layer is self._scan:
            self._scan = None
            self._emit("case_changed")
        elif layer is self._gt:
            self._gt = self._truth = None
            self._emit("case_changed")
        for name, tracked in list(self._methods.items()):
            if tracked is layer:
                del self._methods[name]
                layer.events.contrast_limits.disconnect(self._on_layer_contrast_limits)
                self._emit("methods_changed")


@contextmanager
def no_repaint(viewer: Any) -> Iterator[None]:
    """Hold the window's repaints while layers or panels change.

    Hold the window's repaints while a case's layers are swapped or panels are docked
    (one paint at the end; napari's QMainWindow is not public, so without it nothing is held).

    Each inserted layer becomes the selected one, and napari's layer controls then
    repaint every canvas at once; six layers in three linked planes made 20 paints.
    """
    window = getattr(getattr(viewer, "window", None), "_qt_window", None)
    if window is None or not window.updatesEnabled():
        yield
        return
    window.setUpdatesEnabled(False)
    try:
        yield
    finally:
        window.setUpdatesEnabled(True)


_COPY_SUFFIX = re.compile(r" \[\d+\]$")
"""What napari appends to a layer name already taken."""


_SESSIONS: weakref.WeakKeyDictionary[Any, MoodSession] = weakref.WeakKeyDictionary()


def get_session(viewer: Any) -> MoodSession:
    """Return the viewer's session, creating it on first use (one per viewer).

    The session lives as long as the viewer; it holds the viewer only weakly. napari
    hands plugin widgets a short-lived proxy of the viewer: the session is keyed on the
    viewer behind it, so every widget shares one session whatever it was given.
    """
    viewer = getattr(viewer, "__wrapped__", viewer)
    session = _SESSIONS.get(viewer)
    if session is None:
        if not _SESSIONS:
            atexit.register(close_at_exit, _SESSIONS)  # once; a second register is harmless
        session = _SESSIONS[viewer] = MoodSession(viewer)
    return session


def _insert_layers(viewer: Any, layers: Sequence[LayerData], index: int) -> None:
    """Make napari layers of ``layers`` and insert them in order from ``index`` up."""
    from napari.layers import Layer

    for offset, (data, kwargs, kind) in enumerate(layers):
        viewer.layers.insert(index + offset, Layer.create(data, kwargs, kind))
