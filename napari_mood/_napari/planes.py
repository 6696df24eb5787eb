"""Three linked planes: the viewer's canvas (axial) plus coronal and sagittal models.

:class:`LinkedPlanes` owns two napari ``ViewerModel`` objects that show the viewer's
layers (:class:`~napari_mood._napari.mirror.LayerMirror`: same arrays) along the other
two axes, and keeps the three views on one point:

* one point: moving the slider of any view, clicking a view (press and release without
  dragging) or :meth:`LinkedPlanes.go_to` moves all three; a crosshair in each view
  marks it;
* each view is oriented by the one rule of :mod:`napari_mood.core.orientation`
  (superior up, anterior up or left; radiological: the patient's right on the screen's
  left) with the letters of its four edges drawn on the canvas;
* the convention can be switched at any time (:meth:`LinkedPlanes.set_convention`).

The main viewer keeps the axial plane (``dims.order`` ``(0, 1, 2)`` for napari-mood's
``(S, A, R)`` display arrays). Qt-free: the Qt views live in
:mod:`napari_mood._napari.widgets.planes`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from napari_mood._napari._soon import call_after_paint, call_soon
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.mirror import LayerMirror
from napari_mood.core.looks import CROSSHAIR_COLOR
from napari_mood.core.orientation import Convention, Plane, edge_letters, plane_view, screen_flips

__all__ = [
    "CROSSHAIR_COLOR",
    "CROSSHAIR_ROLE",
    "LETTER_POSITIONS",
    "SIDE_PLANES",
    "LinkedPlanes",
    "camera_orientation",
    "planes_of",
    "view_letters",
]

SIDE_PLANES: tuple[Plane, ...] = ("coronal", "sagittal")
CROSSHAIR_ROLE = "crosshair"

LETTER_POSITIONS = ("top_center", "bottom_center", "middle_left", "middle_right")
_LETTER_KEYS = tuple(f"napari_mood_letter_{p}" for p in LETTER_POSITIONS)
LETTER_COLOR = CROSSHAIR_COLOR


def camera_orientation(row_axis: int, col_axis: int, convention: Convention) -> tuple[str, str]:
    """napari's ``camera.orientation2d`` for the displayed axes (see ``screen_flips``).

    Examples
    --------
    >>> camera_orientation(1, 2, "radiological"), camera_orientation(0, 1, "radiological")
    (('down', 'left'), ('up', 'right'))
    """
    flip_rows, flip_cols = screen_flips(row_axis, col_axis, convention=convention)
    return ("up" if flip_rows else "down"), ("left" if flip_cols else "right")


def view_letters(row_axis: int, col_axis: int, convention: Convention) -> tuple[str, ...]:
    """Letters at the (top, bottom, left, right) edges of a view of these axes."""
    flip_rows, flip_cols = screen_flips(row_axis, col_axis, convention=convention)
    return edge_letters(row_axis, col_axis, flip_rows=flip_rows, flip_cols=flip_cols)


_OPEN: weakref.WeakSet[LinkedPlanes] = weakref.WeakSet()


def planes_of(viewer: Any) -> list[LinkedPlanes]:
    """The open :class:`LinkedPlanes` of a viewer."""
    return [planes for planes in list(_OPEN) if planes.viewer is viewer and not planes.closed]


def _mirrored(layer: Any) -> bool:
    info = getattr(layer, "metadata", {}).get(METADATA_KEY)
    return not (isinstance(info, dict) and info.get("role") in (CROSSHAIR_ROLE, "grid"))


class LinkedPlanes:
    """Coronal and sagittal views of ``viewer``'s layers, linked to it by one point.

    Parameters
    ----------
    viewer : napari.Viewer or ViewerModel
        The main viewer (shows the axial plane).
    convention : {"radiological", "neurological"}
    """

    def __init__(self, viewer: Any, *, convention: Convention = "radiological") -> None:
        from napari.components import ViewerModel

        self.viewer = viewer
        self.convention: Convention = convention
        self.models: dict[Plane, Any] = {}
        self._mirrors: list[LayerMirror] = []
        self._syncing = False
        self._closed = False
        self.crosshair_visible = True
        self._crosshair_deleted = False
        self._draw_pending = False
        self._steps: list[Callable[[], None]] = []  # the mirrors' copy steps, in turn
        for plane in SIDE_PLANES:
            model = ViewerModel(title=plane)
            self.models[plane] = model
            self._mirrors.append(
                LayerMirror(
                    viewer.layers,
                    model,
                    include=_mirrored,
                    schedule=self._schedule_copies,
                    on_copy=self._on_copy,
                )
            )
        for model in self.views:
            model.dims.events.point.connect(self._on_dims_point)
            model.dims.events.ndisplay.connect(self._on_dims_ndisplay)
            model.scene.camera.events.zoom.connect(self._on_camera_zoom)
            model.mouse_drag_callbacks.append(self._on_mouse_drag)
            _add_letters(model)
        viewer.layers.events.inserted.connect(self._on_viewer_layers_changed)
        viewer.layers.events.removed.connect(self._on_viewer_layers_changed)
        viewer.dims.events.order.connect(self._on_main_order)
        self._on_viewer_layers_changed()
        _OPEN.add(self)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def views(self) -> tuple[Any, ...]:
        """The main viewer, then the coronal and sagittal models."""
        return (self.viewer, *self.models.values())

    @property
    def pending(self) -> int:
        """Layers of the viewer not yet shown in a side view (they follow after the repaint)."""
        return sum(mirror.pending for mirror in self._mirrors)

    def flush(self) -> None:
        """Show every waiting layer in the side views now (before a screenshot)."""
        with self._quiet():
            for mirror in self._mirrors:
                mirror.flush()

    # -- public ---------------------------------------------------------------------

    def set_convention(self, convention: Convention) -> None:
        """Show every view in the radiological or neurological convention."""
        plane_view("axial", convention=convention)  # validates
        self.convention = convention
        self._orient_all()

    def go_to(self, world: Sequence[float], *, extent_mm: float | None = None) -> None:
        """Put the point at ``world`` and centre every view there (zoomed to ``extent_mm``)."""
        point = list(self.viewer.dims.point)
        for axis, value in enumerate(world):
            point[axis] = float(value)
        self.viewer.dims.point = tuple(point)  # the other views follow
        for model in self.models.values():
            _centre(model, point, extent_mm)

    def set_crosshair_visible(self, visible: bool) -> None:
        """Show or hide the crosshair in every view."""
        self.crosshair_visible = visible
        self._draw_crosshairs()

    def reset_views(self) -> None:
        """Fit each side view to its data (after a new case), once its layers are in."""
        for model, mirror in zip(self.models.values(), self._mirrors, strict=True):
            mirror.when_done(model.reset_view)

    def close(self) -> None:
        """Disconnect from the viewer, remove the crosshair and every copy."""
        if self._closed:
            return
        self._closed = True
        viewer = self.viewer
        viewer.layers.events.inserted.disconnect(self._on_viewer_layers_changed)
        viewer.layers.events.removed.disconnect(self._on_viewer_layers_changed)
        viewer.dims.events.order.disconnect(self._on_main_order)
        for model in self.views:
            model.dims.events.point.disconnect(self._on_dims_point)
            model.dims.events.ndisplay.disconnect(self._on_dims_ndisplay)
            model.scene.camera.events.zoom.disconnect(self._on_camera_zoom)
            if self._on_mouse_drag in model.mouse_drag_callbacks:
                model.mouse_drag_callbacks.remove(self._on_mouse_drag)
            _remove_letters(model)
            crosshair = _crosshair(model)
            if crosshair is not None:
                model.layers.remove(crosshair)
        for mirror in self._mirrors:
            mirror.close()
        viewer.scene.camera.orientation2d = ("down", "right")

    # -- layout ---------------------------------------------------------------------

    def _on_viewer_layers_changed(self, event: Any = None) -> None:
        """Layers came or went: orders, crosshairs and orientation follow the data."""
        if self._closed or self._syncing:
            return  # closed, or our own crosshair coming or going
        if _is_crosshair(getattr(event, "value", None)) and event.type == "removed":
            self._crosshair_deleted = True  # from the layer list, or the viewer closes
        self._lay_out()

    def _schedule_copies(self, step: Callable[[], None]) -> None:
        """Make the side views' copies after the main canvas's repaint, quietly, one side
        view per event-loop turn: that view draws before the next one's copies are made
        (the window answers between two; both at once were a block of over a second for
        a 256^3 case)."""
        self._steps.append(step)
        if len(self._steps) == 1:
            call_after_paint(self._next_copies)

    def _next_copies(self) -> None:
        if not self._steps:
            return
        self._copy_quietly(self._steps.pop(0))
        if self._steps:
            call_after_paint(self._next_copies)

    def _copy_quietly(self, step: Callable[[], None]) -> None:
        """A side view's first layer centres its sliders: that must not move the point."""
        with self._quiet():
            step()

    def _on_copy(self, copy: Any) -> None:
        """A layer reached a side view: lay the views out for it.

        Also called while ``__init__`` builds the mirrors (their first copies), before
        both models exist; ``__init__`` lays everything out at its end then.
        """
        if len(self.models) == len(SIDE_PLANES) and not self._closed:
            self._lay_out()

    def _lay_out(self) -> None:
        """Slice axes, point, crosshairs and orientation of every view for its layers."""
        with self._quiet():
            for plane, model in self.models.items():
                view = plane_view(plane, convention=self.convention)
                if model.dims.ndim >= 3:
                    model.dims.order = _order(
                        model.dims.ndim, view.slice_axis, view.row_axis, view.col_axis
                    )
                model.dims.point = self.viewer.dims.point
            for model in self.views:
                _ensure_crosshair(model, _has_volume(model) and not self._crosshair_deleted)
        self._orient_all()
        if not self._draw_pending and not self.pending:  # once after a case's layers
            self._draw_pending = True
            call_soon(self._draw_after_layers)

    def _draw_after_layers(self) -> None:
        self._draw_pending = False
        if not self._closed:
            self._draw_crosshairs()

    def _on_camera_zoom(self, event: Any = None) -> None:
        """Keep the crosshair lines thin on screen at any zoom."""
        for model in self.views:
            crosshair = _crosshair(model)
            if crosshair is not None and len(crosshair.data):
                crosshair.edge_width = _screen_width(model, CROSSHAIR_PIXELS)

    def _on_main_order(self, event: Any = None) -> None:
        self._orient_all()
        self._draw_crosshairs()

    def _orient_all(self) -> None:
        for model in self.views:
            if model.dims.ndisplay != 2 or model.dims.ndim < 2:
                _set_letters(model, ("", "", "", ""))
                continue
            row_axis, col_axis = (a - model.dims.ndim + 3 for a in model.dims.displayed)
            if not {row_axis, col_axis} <= {0, 1, 2} or model.dims.ndim != 3:
                _set_letters(model, ("", "", "", ""))
                continue
            model.scene.camera.orientation2d = camera_orientation(
                row_axis, col_axis, self.convention
            )
            _set_letters(model, view_letters(row_axis, col_axis, self.convention))

    # -- one point ------------------------------------------------------------------

    def _on_dims_point(self, event: Any) -> None:
        if self._syncing or self._closed:
            return
        source = event.source
        with self._quiet():
            for model in self.views:
                if model.dims is not source and tuple(model.dims.point) != tuple(source.point):
                    model.dims.point = source.point
        self._draw_crosshairs()

    def _on_dims_ndisplay(self, event: Any = None) -> None:
        self._orient_all()
        self._draw_crosshairs()

    def _on_mouse_drag(self, model: Any, event: Any) -> Iterator[None]:
        """A click (press and release without moving) puts the point there."""
        if event.button != 1 or model.dims.ndisplay != 2 or not _navigating(model):
            return
        start = tuple(event.position)
        yield
        moved = False
        while event.type == "mouse_move":
            moved = True
            yield
        if not moved:
            point = list(model.dims.point)
            for axis in model.dims.displayed:
                point[axis] = float(start[axis])
            model.dims.point = tuple(point)

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        syncing, self._syncing = self._syncing, True
        try:
            yield
        finally:
            self._syncing = syncing

    def _draw_crosshairs(self) -> None:
        for model in self.views:
            crosshair = _crosshair(model)
            if crosshair is None:
                continue
            shown = self.crosshair_visible and model.dims.ndisplay == 2 and model.dims.ndim >= 3
            crosshair.visible = shown
            if shown:
                lines = _cross_lines(model)
                if len(lines):
                    crosshair.data = _to_data(crosshair, lines)
                    crosshair.edge_width = _screen_width(model, CROSSHAIR_PIXELS)


CROSSHAIR_PIXELS = 1.5
"""Crosshair line width on screen (napari's line widths are in world units, mm)."""


def _screen_width(model: Any, pixels: float) -> float:
    """The world width that is ``pixels`` screen pixels at the model's zoom."""
    return pixels / max(float(model.scene.camera.zoom), 1e-6)


def _order(ndim: int, *axes: int) -> tuple[int, ...]:
    """A dims order putting the last three axes as ``axes`` (leading axes unchanged)."""
    lead = ndim - 3
    return (*range(lead), *(lead + a for a in axes))


def _navigating(model: Any) -> bool:
    """Clicks navigate unless the active layer is in a drawing mode."""
    active = model.layers.selection.active
    mode = getattr(active, "mode", "pan_zoom")
    return str(mode) in ("pan_zoom", "Mode.PAN_ZOOM")


def _cross_lines(model: Any) -> np.ndarray:
    """The crosshair as napari vectors ``(n, 2, ndim)``: a start and its span per line.

    One line along each displayed axis, through the point, across the whole range.
    """
    point = np.asarray(model.dims.point, dtype=float)
    lines = []
    for axis in model.dims.displayed:
        low, high, _ = model.dims.range[axis]
        start, span = point.copy(), np.zeros_like(point)
        start[axis], span[axis] = low, high - low
        lines.append(np.stack([start, span]))
    return np.asarray(lines).reshape(len(lines), 2, point.size)


def _to_data(layer: Any, lines: np.ndarray) -> np.ndarray:
    """World vectors (start, span) in ``layer``'s data coordinates (its scale, translate)."""
    scale = np.asarray(layer.scale, dtype=float)
    translate = np.asarray(layer.translate, dtype=float)
    return np.stack([(lines[:, 0] - translate) / scale, lines[:, 1] / scale], axis=1)


def _follow_grid(crosshair: Any, model: Any) -> None:
    """The crosshair on the case's voxel grid (scale, translate): a layer with a finer
    grid would make napari's sliders step by it (1 mm steps over 2 mm slices)."""
    reference = next((layer for layer in model.layers if _mirrored(layer)), None)
    if reference is None or reference.ndim != crosshair.ndim:
        return
    if not np.array_equal(crosshair.scale, reference.scale):
        crosshair.scale = reference.scale
    if not np.array_equal(crosshair.translate, reference.translate):
        crosshair.translate = reference.translate


def _has_volume(model: Any) -> bool:
    """Whether ``model`` shows a 3-D layer of its own (not only helpers)."""
    return model.dims.ndim >= 3 and any(_mirrored(layer) for layer in model.layers)


def _is_crosshair(layer: Any) -> bool:
    info = getattr(layer, "metadata", {}).get(METADATA_KEY)
    return isinstance(info, dict) and info.get("role") == CROSSHAIR_ROLE


def _crosshair(model: Any) -> Any | None:
    return next((layer for layer in model.layers if _is_crosshair(layer)), None)


def _ensure_crosshair(model: Any, wanted: bool) -> None:
    """A crosshair layer on top of ``model`` while it shows a volume; none otherwise."""
    crosshair = _crosshair(model)
    if not wanted:
        if crosshair is not None:
            model.layers.remove(crosshair)
        return
    if crosshair is None:
        active = model.layers.selection.active
        units = _units_of(model)
        crosshair = model.add_vectors(  # lines only: no text or markers visuals to build
            ndim=model.dims.ndim,
            vector_style="line",
            name="crosshair",
            edge_color=CROSSHAIR_COLOR,
            edge_width=1.0,
            opacity=0.8,
            blending="translucent_no_depth",
            metadata={METADATA_KEY: {"role": CROSSHAIR_ROLE}},
            **({"units": units} if units else {}),
        )
        crosshair.editable = False
        model.layers.selection.active = active
    _follow_grid(crosshair, model)
    top = len(model.layers) - 1
    index = model.layers.index(crosshair)
    if index != top:
        model.layers.move(index, top + 1)


def _units_of(model: Any) -> tuple[str, ...] | None:
    for layer in model.layers:
        if _crosshair(model) is not layer and getattr(layer, "units", None) is not None:
            return tuple(str(u) for u in layer.units)
    return None


def _centre(model: Any, point: Sequence[float], extent_mm: float | None) -> None:
    displayed = list(model.dims.displayed)
    model.scene.camera.center = tuple(float(point[a]) for a in displayed)
    if extent_mm:
        model.scene.camera.zoom = float(model.scene.camera.zoom)  # keep when canvas unknown


def _add_letters(model: Any) -> None:
    from napari.components.overlays import TextOverlay

    for key, position in zip(_LETTER_KEYS, LETTER_POSITIONS, strict=True):
        model.canvas.overlays[key] = TextOverlay(
            position=position, visible=True, font_size=14, color=LETTER_COLOR, text="", box=False
        )


def _set_letters(model: Any, letters: Sequence[str]) -> None:
    for key, text in zip(_LETTER_KEYS, letters, strict=True):
        overlay = model.canvas.overlays.get(key)
        if overlay is not None:
            overlay.text = text


def _remove_letters(model: Any) -> None:
    for key in _LETTER_KEYS:
        if key in model.canvas.overlays:
            del model.canvas.overlays[key]
