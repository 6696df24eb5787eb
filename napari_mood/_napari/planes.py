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
* the convention can be switched at any time (:meth:`LinkedPlanes.set_convention`);
* every plane is shown at one scale (:meth:`LinkedPlanes.reset_views`: a millimetre is
  as many screen pixels in each); zoom and pan are linked (:attr:`LinkedPlanes.linked`,
  on by default): zooming one view zooms the others by the same factor, and panning one view moves the others along the
  axes they share; :meth:`LinkedPlanes.page` steps the slice of one view and
  :meth:`LinkedPlanes.zoom_by` zooms one (the reading habits of ITK-SNAP and FSLeyes);
* in napari's grid the crosshair of the main canvas is hidden (it would take a grid cell
  of its own), the letters are drawn in every cell and zoom and pan are not linked;
* a stack of 2-D slices (a NOVA folder) gets no side views, no crosshair and no letters
  (:func:`shows_slice_stack`);
* a case switch is atomic to the eye: when another case replaces the shown one
  (:attr:`~napari_mood._napari.session.MoodSession.case_swapped`) every view takes its
  arrays before the window paints again, so no pane draws the previous case under the
  next one's name (the first case of a window reaches the side views after the main
  canvas's paint, as layers added by other means do);
* more views can join (:meth:`LinkedPlanes.add_view`): an axial copy of the main canvas's
  plane and a 3-D view, for a reading layout of equal panes. The 3-D view draws large
  volumes as napari's canvas does in 3-D: from the coarsest pyramid level first, then
  from the sharp levels the session's rule chooses
  (:class:`~napari_mood._napari.layer_refill.SharpLevels`).

The main viewer keeps the axial plane (``dims.order`` ``(0, 1, 2)`` for napari-mood's
``(S, A, R)`` display arrays). The marks on each view (the crosshair, the letters) are
drawn by :mod:`napari_mood._napari.plane_marks`. Qt-free: the Qt views live in
:mod:`napari_mood._napari.widgets.planes`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Literal, cast

import numpy as np

from napari_mood._napari import plane_marks as marks
from napari_mood._napari._soon import call_after_paint, call_soon
from napari_mood._napari.grid import COMPARE_KEY
from napari_mood._napari.layer_refill import SharpBudget, SharpLevels
from napari_mood._napari.layers import METADATA_KEY, is_box_layer
from napari_mood._napari.measure_layers import MEASURE_ROLE
from napari_mood._napari.mirror import LayerMirror
from napari_mood._napari.three_d import MovingDetail, camera_letters
from napari_mood._napari.viewer import unwrap_viewer
from napari_mood.services.display import plane_view, screen_flips
from napari_mood.services.options import Convention, Plane

__all__ = [
    "SIDE_PLANES",
    "THREE_D",
    "LinkedPlanes",
    "ViewKind",
    "camera_orientation",
    "planes_of",
    "shows_slice_stack",
    "window_level",
]

SIDE_PLANES: tuple[Plane, ...] = ("coronal", "sagittal")
THREE_D = "3d"
ViewKind = Literal["axial", "coronal", "sagittal", "3d"]
"""A view :meth:`LinkedPlanes.add_view` can add: a plane, or ``"3d"`` (a 3-D rendering)."""


def camera_orientation(row_axis: int, col_axis: int, convention: Convention) -> tuple[str, str]:
    """Return the ``camera.orientation2d`` of the displayed axes (see ``screen_flips``).

    Examples
    --------
    >>> camera_orientation(1, 2, "radiological"), camera_orientation(0, 1, "radiological")
    (('down', 'left'), ('up', 'right'))
    """
    flip_rows, flip_cols = screen_flips(row_axis, col_axis, convention=convention)
    return ("up" if flip_rows else "down"), ("left" if flip_cols else "right")


_OPEN: weakref.WeakSet[LinkedPlanes] = weakref.WeakSet()


def planes_of(viewer: Any) -> list[LinkedPlanes]:
    """Return the open :class:`LinkedPlanes` of a viewer, or of napari's proxy of it.

    napari hands each panel a ``PublicOnlyProxy`` of the viewer, never ``is`` the viewer
    itself: the proxy is unwrapped here, so every panel finds the planes.
    """
    shown = unwrap_viewer(viewer)
    return [planes for planes in list(_OPEN) if planes.viewer is shown and not planes.closed]


def shows_slice_stack(viewer: Any) -> bool:
    """Whether ``viewer`` shows a stack of 2-D slices (a NOVA folder's PNG slices).

    Its third axis runs across images, not across the body: coronal and sagittal views
    of it would show nothing an anatomy has.
    """
    return any(is_box_layer(layer) for layer in unwrap_viewer(viewer).layers)


def _mirrored(layer: Any) -> bool:
    """Whether a layer is shown in the side views.

    The case and the difference of two methods are; the grid's copies and colour bars,
    the crosshairs, the reading tools' rulers and ROIs (each in its own view) and a stack
    of 2-D slices are not.
    """
    metadata = getattr(layer, "metadata", {})
    info = metadata.get(METADATA_KEY)
    helper = isinstance(info, dict) and info.get("role") in (
        marks.CROSSHAIR_ROLE,
        "grid",
        MEASURE_ROLE,
    )
    compare = metadata.get(COMPARE_KEY)
    grid_helper = compare is not None and compare.get("role") != "difference"
    return not helper and not grid_helper and not is_box_layer(layer)


def window_level(
    limits: tuple[float, float],
    drag: tuple[float, float],
    *,
    span: float,
    pixels: float = 400.0,
) -> tuple[float, float]:
    """Contrast limits after a window/level drag of ``drag = (dx, dy)`` screen pixels.

    As in ITK-SNAP: dragging right widens the window (less contrast), left narrows it;
    dragging down raises the level (darker), up lowers it. ``pixels`` of drag change the
    window or the level by ``span`` (the scan's value range). The window never closes.

    Examples
    --------
    >>> window_level((0.0, 100.0), (40.0, 0.0), span=1000.0)
    (-50.0, 150.0)
    >>> window_level((0.0, 100.0), (0.0, -40.0), span=1000.0)
    (-100.0, 0.0)
    """
    low, high = limits
    step = span / pixels
    window = max(high - low + drag[0] * step, span * 1e-3)
    level = (high + low) / 2 + drag[1] * step
    return level - window / 2, level + window / 2


class LinkedPlanes:
    """Coronal and sagittal views of ``viewer``'s layers, linked to it by one point.

    Parameters
    ----------
    viewer : napari.Viewer or ViewerModel
        The main viewer (shows the axial plane).
    convention : {"radiological", "neurological"}
    """

    def __init__(self, viewer: Any, *, convention: Convention = "radiological") -> None:
        self.viewer = viewer = unwrap_viewer(viewer)
        self.convention: Convention = convention
        self.models: dict[str, Any] = {}
        self._mirrors: dict[str, LayerMirror] = {}
        self._syncing = False
        self._closed = False
        self.crosshair_visible = True
        self.linked = True
        self._crosshair_deleted = False
        self._draw_pending = False
        self._steps: list[Callable[[], None]] = []  # the mirrors' copy steps, in turn
        self._zooms: dict[int, float] = {}  # each camera's last zoom: a change is a factor
        self._ready = False  # the first views are built (their first copies wait till then)
        self._sharp: dict[str, SharpLevels] = {}  # a 3-D view's pyramids: coarse, then sharp
        self._moving: dict[str, MovingDetail] = {}  # a 3-D view: coarse while it moves
        self._connect_view(viewer)
        for plane in SIDE_PLANES:
            self._add_model(plane)
        viewer.layers.events.inserted.connect(self._on_viewer_layers_changed)
        viewer.layers.events.removed.connect(self._on_viewer_layers_changed)
        viewer.dims.events.order.connect(self._on_main_order)
        viewer.canvas.grid.events.enabled.connect(self._on_main_grid)
        self._session().case_swapped.connect(self.flush)  # atomic case switches
        self._ready = True
        self._on_viewer_layers_changed()
        _OPEN.add(self)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def views(self) -> tuple[Any, ...]:
        """The main viewer, then the coronal and sagittal models (and those added)."""
        return (self.viewer, *self.models.values())

    @property
    def sharpening(self) -> bool:
        """Whether a 3-D view still waits for the sharp levels of its pyramids."""
        return any(sharp.sharpening for sharp in self._sharp.values())

    def draws_with(self, kind: str, scene: Callable[[], Any | None]) -> None:
        """Say which vispy canvas draws view ``kind``: its 3-D pyramids sharpen after its frames."""
        sharp = self._sharp.get(kind)
        if sharp is not None:
            sharp.scene = scene
        if kind in self._moving:
            self._moving[kind].scene = scene

    def moving_detail(self, kind: str) -> MovingDetail | None:
        """Return what draws view ``kind`` coarse while it moves (a 3-D view's), or None."""
        return self._moving.get(kind)

    @property
    def pending(self) -> int:
        """Layers of the viewer not yet shown in a side view (they follow after the repaint)."""
        return sum(mirror.pending for mirror in self._mirrors.values())

    def add_view(self, kind: ViewKind) -> Any:
        """Another view of the viewer's layers, on the same point (its model).

        ``"axial"`` (the main canvas's plane, for a reading layout of equal panes) or
        ``"3d"`` (a 3-D rendering; no crosshair, letters or zoom link). Its layers arrive
        like the side views' (after a repaint); a view already there is returned.
        """
        if kind not in self.models:
            if kind != THREE_D:
                plane_view(cast(Plane, kind))  # validates
            self._add_model(kind)
            self._lay_out()
        return self.models[kind]

    def remove_view(self, kind: str) -> None:
        """Remove a view :meth:`add_view` added (the coronal and sagittal views stay)."""
        if kind in SIDE_PLANES or kind not in self.models:
            return
        model = self.models.pop(kind)
        self._mirrors.pop(kind).close()
        self._drop_sharp(kind)
        self._disconnect_view(model)

    def renew_views(self) -> None:
        """Every view of :attr:`models` gets a new model, in the same order, on the same point.

        For Qt views that are built again (a canvas moved to another window cannot keep
        its OpenGL objects): the old models, with the old views' connections, are dropped.
        """
        kinds = list(self.models)
        self._steps.clear()  # the old mirrors' copies: never to be made
        for kind in kinds:
            model = self.models.pop(kind)
            self._mirrors.pop(kind).close()
            self._drop_sharp(kind)
            self._disconnect_view(model)
        for kind in kinds:
            self._add_model(kind)
        self._lay_out()

    def _add_model(self, kind: str) -> None:
        from napari.components import ViewerModel

        model = ViewerModel(title=kind)
        if kind == THREE_D:
            model.dims.ndisplay = 3
            self._sharp[kind] = SharpLevels(
                weakref.ref(model), first=self._first_3d, budget=self._sharp_budget()
            )
            self._moving[kind] = MovingDetail(model)
        self.models[kind] = model
        self._mirrors[kind] = LayerMirror(
            self.viewer.layers,
            model,
            include=_mirrored,
            schedule=self._schedule_copies,
            on_copy=self._on_copy,
        )
        self._connect_view(model)

    def _first_3d(self) -> list[Any]:
        """Return the copies a 3-D view sharpens first: the session's scan and GT."""
        from napari_mood._napari.session import get_session

        session = get_session(self.viewer)
        mirror = self._mirrors.get(THREE_D)
        if mirror is None:
            return []
        return [mirror.copy_of(layer) for layer in (session.scan_layer, session.gt_layer)]

    def _sharp_budget(self) -> SharpBudget:
        """Return the session's budget of sharp 3-D levels (shared with napari's canvas)."""
        return self._session().sharp_budget

    def _session(self) -> Any:
        from napari_mood._napari.session import get_session

        return get_session(self.viewer)

    def _sharpen_later(self) -> None:
        """Sharpen a 3-D view after copies or new data reached it (coarse first)."""
        for sharp in self._sharp.values():
            sharp.later()

    def _drop_sharp(self, kind: str) -> None:
        sharp = self._sharp.pop(kind, None)
        if sharp is not None:
            sharp.release()  # its pending steps are dropped
        moving = self._moving.pop(kind, None)
        if moving is not None:
            moving.close()

    def _connect_view(self, model: Any) -> None:
        model.dims.events.point.connect(self._on_dims_point)
        model.dims.events.ndisplay.connect(self._on_dims_ndisplay)
        model.scene.camera.events.zoom.connect(self._on_camera_zoom)
        model.scene.camera.events.center.connect(self._on_camera_center)
        model.scene.camera.events.angles.connect(self._on_camera_angles)
        model.mouse_drag_callbacks.append(self._on_mouse_drag)
        marks.add_letters(model)
        self._zooms[id(model.scene.camera)] = float(model.scene.camera.zoom)

    def _disconnect_view(self, model: Any) -> None:
        model.dims.events.point.disconnect(self._on_dims_point)
        model.dims.events.ndisplay.disconnect(self._on_dims_ndisplay)
        model.scene.camera.events.zoom.disconnect(self._on_camera_zoom)
        model.scene.camera.events.center.disconnect(self._on_camera_center)
        model.scene.camera.events.angles.disconnect(self._on_camera_angles)
        if self._on_mouse_drag in model.mouse_drag_callbacks:
            model.mouse_drag_callbacks.remove(self._on_mouse_drag)
        marks.remove_letters(model)
        self._zooms.pop(id(model.scene.camera), None)
        crosshair = marks.crosshair(model)
        if crosshair is not None:
            model.layers.remove(crosshair)

    def flush(self) -> None:
        """Show every waiting layer in the side views now (before a screenshot)."""
        with self._quiet():
            for mirror in self._mirrors.values():
                mirror.flush()
        self._sharpen_later()

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

    def set_linked(self, linked: bool) -> None:
        """Link (or unlink) zoom and pan across the three views (from the next change)."""
        self.linked = linked

    def reset_views(self, *, main: bool = True) -> None:
        """Fit every plane at one scale (after a new case), once the views' layers are in.

        Each flat view (the main canvas too) is fitted to its data, then every one takes
        the smallest of those zooms: a millimetre is as many screen pixels in every plane
        (a lesion looks as big in each), and each plane is whole in its view. Without
        ``main`` the main canvas keeps its zoom (a region zoomed there stays) and the other
        views take it when they are whole at it, else their own fit.
        """
        waiting = set(self.models)

        def done(kind: str) -> None:
            waiting.discard(kind)
            if not waiting and not self._closed:
                self._fit_at_one_scale(main=main)

        for kind in list(self.models):
            self._mirrors[kind].when_done(partial(done, kind))

    def page(self, model: Any, steps: int) -> None:
        """Move the point ``steps`` slices along the axis ``model`` slices (all views follow)."""
        if model.dims.ndisplay != 2 or not model.dims.not_displayed:
            return
        axis = model.dims.not_displayed[-1]
        current = model.dims.current_step[axis]
        last = max(int(model.dims.nsteps[axis]) - 1, 0)
        model.dims.set_current_step(axis, min(max(current + steps, 0), last))

    def zoom_by(self, model: Any, factor: float, around: Sequence[float] | None = None) -> None:
        """Zoom one view by ``factor`` around a world point.

        Zoom ``model`` by ``factor``, keeping the world point ``around`` where it is on
        screen (the pointer; default the centre). Linked, the other views follow.
        """
        camera = model.scene.camera
        centre = np.asarray(camera.center[-2:], dtype=float)
        if around is not None:
            target = np.asarray([around[a] for a in model.dims.displayed[-2:]], dtype=float)
            centre = centre + (target - centre) * (1 - 1 / factor)
        with camera.events.center.blocker(self._on_camera_center):
            camera.center = (*camera.center[:-2], *centre)
        camera.zoom = float(camera.zoom) * factor  # one event: the views follow zoom and pan

    def close(self) -> None:
        """Disconnect from the viewer, remove the crosshair and every copy."""
        if self._closed:
            return
        self._closed = True
        viewer = self.viewer
        viewer.layers.events.inserted.disconnect(self._on_viewer_layers_changed)
        viewer.layers.events.removed.disconnect(self._on_viewer_layers_changed)
        viewer.dims.events.order.disconnect(self._on_main_order)
        viewer.canvas.grid.events.enabled.disconnect(self._on_main_grid)
        self._session().case_swapped.disconnect(self.flush)
        for model in self.views:
            self._disconnect_view(model)
        for mirror in self._mirrors.values():
            mirror.close()
        for kind in list(self._sharp):
            self._drop_sharp(kind)
        viewer.scene.camera.orientation2d = ("down", "right")

    # -- layout ---------------------------------------------------------------------

    def _on_viewer_layers_changed(self, event: Any = None) -> None:
        """Layers came or went: orders, crosshairs and orientation follow the data."""
        if self._closed or self._syncing:
            return  # closed, or our own crosshair coming or going
        if marks.is_crosshair(getattr(event, "value", None)) and event.type == "removed":
            # deleted from the layer list (or the viewer closes) while a volume is shown:
            # the reader does not want it; gone with every layer, it comes back with a case
            self._crosshair_deleted = _has_volume(self.viewer)
        self._lay_out()

    def _schedule_copies(self, step: Callable[[], None]) -> None:
        """Queue a side-view update to run after the main canvas has painted.

        Make the side views' copies after the main canvas's repaint, quietly, one side
        view per event-loop turn: that view draws before the next one's copies are made
        (the window answers between two; making both at once would block it for a
        large case).
        """
        self._steps.append(step)
        if len(self._steps) == 1:
            call_after_paint(self._next_copies)

    def _next_copies(self) -> None:
        if not self._steps:
            return
        self._copy_quietly(self._steps.pop(0))
        self._sharpen_later()
        if self._steps:
            call_after_paint(self._next_copies)

    def _copy_quietly(self, step: Callable[[], None]) -> None:
        """Run ``step`` without moving the point (a side view's first layer centres its sliders)."""
        with self._quiet():
            step()

    def _on_copy(self, copy: Any) -> None:
        """Lay the views out for a layer that reached a side view.

        Also called while ``__init__`` builds the mirrors (their first copies), before
        both models exist; ``__init__`` lays everything out at its end then.
        """
        if self._ready and not self._closed:
            self._lay_out()

    def _lay_out(self) -> None:
        """Slice axes, point, crosshairs and orientation of every view for its layers."""
        with self._quiet():
            for kind, model in self.models.items():
                if kind == THREE_D:
                    model.dims.point = self.viewer.dims.point
                    continue
                view = plane_view(cast(Plane, kind), convention=self.convention)
                if model.dims.ndim >= 3:
                    model.dims.order = _order(
                        model.dims.ndim, view.slice_axis, view.row_axis, view.col_axis
                    )
                model.dims.point = self.viewer.dims.point
            for model in self.views:
                wanted = _has_volume(model) and not self._crosshair_deleted
                if wanted:
                    marks.ensure_crosshair(model, _mirrored)
                elif marks.crosshair(model) is not None:
                    call_soon(self._drop_crosshairs)  # not inside the layer list's event
        self._orient_all()
        if not self._draw_pending and not self.pending:  # once after a case's layers
            self._draw_pending = True
            call_soon(self._draw_after_layers)

    def _drop_crosshairs(self) -> None:
        """Remove the crosshair of every view that shows no volume (any more).

        Called on the next event-loop turn: removing it inside the layer list's event
        broke a caller removing layers one by one (``crosshair is not in list``).
        """
        if self._closed or not len(self.viewer.layers):
            return  # every layer gone (a closing window): the views are emptied with it
        with self._quiet():
            for model in self.views:
                crosshair = marks.crosshair(model)
                if crosshair is not None and not _has_volume(model):
                    model.layers.remove(crosshair)

    def _draw_after_layers(self) -> None:
        self._draw_pending = False
        if not self._closed:
            self._draw_crosshairs()

    def _on_camera_zoom(self, event: Any = None) -> None:
        """Keep the crosshair lines thin on screen at any zoom; linked, the views follow."""
        camera: Any = getattr(event, "source", None)
        source = self._view_of_camera(camera)
        if source is not None:
            zoom = float(camera.zoom)
            factor = zoom / self._zooms.get(id(camera), zoom)
            self._zooms[id(camera)] = zoom
            if not np.isclose(factor, 1.0, rtol=1e-9, atol=0.0):
                self._follow_camera(source, factor)
        for model in self.views:
            crosshair = marks.crosshair(model)
            if crosshair is not None and len(crosshair.data):
                crosshair.edge_width = marks.screen_width(model, marks.CROSSHAIR_PIXELS)

    def _on_camera_angles(self, event: Any = None) -> None:
        """Make the edge letters of a 3-D view follow its camera."""
        model = self._view_of_camera(getattr(event, "source", None))
        if model is not None and model.dims.ndisplay == 3:
            marks.set_letters(model, camera_letters(model) if _has_volume(model) else ("",) * 4)

    def _on_camera_center(self, event: Any = None) -> None:
        source = self._view_of_camera(getattr(event, "source", None))
        if source is not None:
            self._follow_camera(source, 1.0)

    def _view_of_camera(self, camera: Any) -> Any | None:
        return next((m for m in self.views if m.scene.camera is camera), None)

    def _follow_camera(self, source: Any, factor: float) -> None:
        """Make the other views follow ``source``'s zoom and centre.

        The other views zoom by ``factor`` and take ``source``'s centre along the axes
        they share; not in napari's grid (its cells are a comparison with a camera of
        their own, refitted when the grid comes and goes).
        """
        paused = self.viewer.canvas.grid.enabled
        if not self.linked or self._syncing or self._closed or paused or not _flat(source):
            return
        camera = source.scene.camera
        centre = dict(zip(source.dims.displayed[-2:], camera.center[-2:], strict=True))
        with self._quiet():
            for model in self.views:
                if model is not source and _flat(model) and _has_volume(model):
                    _set_camera(model, float(model.scene.camera.zoom) * factor, centre)

    def _fit_at_one_scale(self, *, main: bool) -> None:
        """Fit each flat view, then give all the smallest zoom (see :meth:`reset_views`).

        A 3-D pane is fitted to its case's layers (napari fitted it to its first layer,
        when its crosshair, without extent, could be that layer).

        napari's grid keeps its own fit (its cells are a comparison, not a plane).
        """
        grid = self.viewer.canvas.grid.enabled
        flat = [m for m in self.views if _flat(m) and _has_volume(m)]
        kept = [] if main or grid else [m for m in flat if m is self.viewer]
        fitted = [m for m in flat if m not in kept and not (grid and m is self.viewer)]
        with self._quiet():
            for model in fitted:
                model.reset_view()
            if fitted:
                zoom = min(float(m.scene.camera.zoom) for m in fitted + kept)
                for model in fitted:
                    model.scene.camera.zoom = zoom
            for model in self.models.values():  # a 3-D pane: its volume whole, centred
                if model.dims.ndisplay == 3 and _has_volume(model):
                    model.fit_to_view(layers=[la for la in model.layers if _mirrored(la)])
        self._draw_crosshairs()  # every view's layers are in: its crosshair too

    def _on_main_grid(self, event: Any = None) -> None:
        self._draw_crosshairs()

    def _on_main_order(self, event: Any = None) -> None:
        self._orient_all()
        self._draw_crosshairs()

    def _orient_all(self) -> None:
        for model in self.views:
            if model.dims.ndisplay == 3 and _has_volume(model):
                marks.set_letters(model, camera_letters(model))  # as the camera turns
                continue
            if model.dims.ndisplay != 2 or model.dims.ndim < 2:
                marks.set_letters(model, ("", "", "", ""))
                continue
            row_axis, col_axis = (a - model.dims.ndim + 3 for a in model.dims.displayed)
            anatomy = model.dims.ndim == 3 and _has_volume(model)  # not a stack of 2-D slices
            if not {row_axis, col_axis} <= {0, 1, 2} or not anatomy:
                marks.set_letters(model, ("", "", "", ""))
                if model is self.viewer and shows_slice_stack(model):
                    model.scene.camera.orientation2d = ("down", "right")  # images as they are
                continue
            model.scene.camera.orientation2d = camera_orientation(
                row_axis, col_axis, self.convention
            )
            marks.set_letters(model, marks.view_letters(row_axis, col_axis, self.convention))

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
        """Put the point where a click lands (press and release without moving)."""
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
            crosshair = marks.crosshair(model)
            if crosshair is None:
                continue
            shown = self.crosshair_visible and model.dims.ndisplay == 2 and model.dims.ndim >= 3
            if model is self.viewer and model.canvas.grid.enabled:
                shown = False  # napari would give it a grid cell of its own
            crosshair.visible = shown
            if shown:
                lines = marks.cross_lines(model)
                if len(lines):
                    crosshair.data = marks.to_data(crosshair, lines)
                    crosshair.edge_width = marks.screen_width(model, marks.CROSSHAIR_PIXELS)


def _order(ndim: int, *axes: int) -> tuple[int, ...]:
    """Return a dims order putting the last three axes as ``axes`` (leading axes unchanged)."""
    lead = ndim - 3
    return (*range(lead), *(lead + a for a in axes))


def _navigating(model: Any) -> bool:
    """Clicks navigate unless the active layer is in a drawing mode."""
    active = model.layers.selection.active
    mode = getattr(active, "mode", "pan_zoom")
    return str(mode) in ("pan_zoom", "Mode.PAN_ZOOM")


def _has_volume(model: Any) -> bool:
    """Whether ``model`` shows a 3-D layer of its own (not only helpers or 2-D slices)."""
    return model.dims.ndim >= 3 and any(_mirrored(layer) for layer in model.layers)


def _flat(model: Any) -> bool:
    return bool(model.dims.ndisplay == 2 and model.dims.ndim >= 2)


def _set_camera(model: Any, zoom: float, centre: dict[int, float]) -> None:
    """Set ``model``'s zoom and its centre along the displayed axes found in ``centre``."""
    camera = model.scene.camera
    current = list(camera.center)
    displayed = list(model.dims.displayed[-2:])
    for index, axis in enumerate(displayed):
        if axis in centre:
            current[len(current) - 2 + index] = float(centre[axis])
    if not np.allclose(current, camera.center):
        camera.center = tuple(current)
    if not np.isclose(zoom, camera.zoom):
        camera.zoom = zoom


def _centre(model: Any, point: Sequence[float], extent_mm: float | None) -> None:
    displayed = list(model.dims.displayed)
    model.scene.camera.center = tuple(float(point[a]) for a in displayed)
    if extent_mm:
        model.scene.camera.zoom = float(model.scene.camera.zoom)  # keep when canvas unknown
