"""A 3-D view of a case: its orientation letters and a coarse drawing while it moves.

napari's canvas in 3-D and the reading layout's 3-D pane ray-cast every shown volume
for each frame; with a software renderer (llvmpipe) one sharp frame of a 256^3 case
takes seconds, and a rotate drag redrew at that pace. Here:

* :class:`MovingDetail`: while the camera of a 3-D view moves (a rotate drag, a zoom,
  a pan) every volume is drawn with a coarse sampling along its rays, one sample every
  :data:`MOVING_STEP` voxels (napari's own is 0.8 voxel: about a tenth of the work;
  :data:`MOVING_SAMPLES` at least across the volume);
  once the mouse is up and the camera has been still for :data:`SETTLE_MS`, the sharp
  sampling comes back in one frame. The coarse step is a uniform of each volume's
  shader: no pyramid level is sliced or uploaded again, so switching either way costs
  nothing but the frame itself (locking a pyramid's coarsest level instead would
  re-upload the sharp textures after every drag, for about the same frame time);
* :func:`camera_letters`: the patient directions (S/I, A/P, R/L) nearest to the
  screen's four edges for the camera's current angles, shown in the view's edge letters
  (:func:`napari_mood.core.orientation.facing_letters`) as the view turns.

How the layers are drawn in 3-D (the maps and the GT over the scan) is the reader's
(:mod:`napari_mood._napari.reader`) and :mod:`napari_mood._napari.role_looks`'. Qt-free:
the delays run on Qt's event loop through :mod:`napari_mood._napari._soon`.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from psygnal import Signal

from napari_mood._napari._soon import call_soon
from napari_mood.services.display import facing_letters

__all__ = [
    "MOVING_SAMPLES",
    "MOVING_STEP",
    "SETTLE_MS",
    "MovingDetail",
    "camera_letters",
    "moving_step",
    "volume_nodes",
]

MOVING_STEP = 8.0
"""The largest sampling step along a ray while a 3-D view moves, in voxels of the drawn level."""
MOVING_SAMPLES = 32
"""While moving, a ray crossing a volume's smallest side takes at least this many samples
(a small volume keeps its sharp step: a coarse one would skip a small lesion)."""
SETTLE_MS = 250
"""How long the view stays still (mouse up, no new frame asked) after its last coarse frame
before the sharp sampling comes back: counted from the end of that frame, so a frame
slower than this (a software renderer) is not followed by a sharp one between two moves."""
_CAMERA_EVENTS = ("angles", "zoom", "center")
_DEFAULT_ORIENTATION = ("towards", "down", "right")  # napari's 3-D default (right-handed)


def camera_letters(model: Any) -> tuple[str, str, str, str]:
    """Return the patient directions at the (top, bottom, left, right) edges of a 3-D view.

    From ``model``'s camera (angles and the axis orientation napari-mood's convention
    set); ``("", "", "", "")`` when the view is not a 3-D view of a volume's three axes.
    """
    dims = model.dims
    if dims.ndisplay != 3 or dims.ndim < 3:
        return "", "", "", ""
    camera = model.scene.camera
    view = np.asarray(camera.view_direction, dtype=float)
    up = np.asarray(camera.up_direction, dtype=float)
    flips = sum(
        str(getattr(o, "value", o)) != d
        for o, d in zip(camera.orientation, _DEFAULT_ORIENTATION, strict=True)
    )
    right = np.cross(view, up) * (-1.0 if flips % 2 else 1.0)
    lead = dims.ndim - 3
    axes = [axis - lead for axis in dims.displayed[-3:]]
    if sorted(axes) != [0, 1, 2]:
        return "", "", "", ""
    return facing_letters(
        tuple(_in_display_axes(up, axes).tolist()), tuple(_in_display_axes(right, axes).tolist())
    )


def _in_display_axes(vector: np.ndarray, axes: list[int]) -> np.ndarray:
    """Return a scene direction (displayed order) in display axes (0 S, 1 A, 2 R)."""
    out = np.zeros(3)
    for component, axis in zip(vector, axes, strict=True):
        out[axis] = component
    return out


def moving_step(shape: Sequence[int]) -> float:
    """Return the sampling step of a volume of ``shape`` while its view moves.

    Examples
    --------
    >>> moving_step((256, 256, 256)), moving_step((128, 140, 128)), moving_step((12, 14, 10))
    (8.0, 4.0, 0.3125)
    """
    return min(MOVING_STEP, min(int(n) for n in shape) / MOVING_SAMPLES)


def volume_nodes(scene: Any | None) -> Iterator[Any]:
    """Yield the ray-cast visuals (vispy volumes) drawn by the vispy canvas ``scene``."""
    if scene is None:
        return
    todo = [scene.scene]
    while todo:
        node = todo.pop()
        if hasattr(node, "relative_step_size") and getattr(node, "_vol_shape", None) is not None:
            yield node  # a volume with data (vispy's step setter reads its shape)
        todo.extend(getattr(node, "children", ()))


class MovingDetail:
    """Draw a 3-D view coarse while its camera moves, sharp once it is still.

    Parameters
    ----------
    model : napari.Viewer or ViewerModel
        The view (held weakly); its camera's and mouse's events are watched.
    scene : callable, optional
        Returns the vispy canvas drawing the view (None: nothing is drawn, nothing to do).

    Examples
    --------
    >>> detail = MovingDetail(viewer, scene=lambda: canvas)  # doctest: +SKIP
    >>> viewer.scene.camera.angles = (0, 30, 60)  # doctest: +SKIP
    >>> detail.moving  # coarse until the camera has been still SETTLE_MS  # doctest: +SKIP
    True
    """

    moving_changed = Signal(bool)
    """The view went coarse (True) or sharp again (False)."""

    def __init__(self, model: Any, *, scene: Callable[[], Any | None] = lambda: None) -> None:
        self._model = weakref.ref(model)
        self.scene = scene
        self._steps: dict[int, tuple[Any, float]] = {}  # id(node) -> (node, its sharp step)
        self._generation = 0
        self._held = False  # a mouse button is down on the view
        self._drawn_at: float | None = 0.0  # when the last coarse frame ended (None: ending)
        self._watched: Any = None  # the vispy canvas whose draws are watched
        camera = model.scene.camera
        for name in _CAMERA_EVENTS:
            getattr(camera.events, name).connect(self._on_camera_moved)
        model.mouse_drag_callbacks.append(self._on_mouse_drag)

    @property
    def moving(self) -> bool:
        """Whether the view is drawn coarse (it moves, or has not been still long enough)."""
        return bool(self._steps)

    def close(self) -> None:
        """Stop watching the view; it is drawn sharp again."""
        model = self._model()
        if model is not None:
            for name in _CAMERA_EVENTS:
                getattr(model.scene.camera.events, name).disconnect(self._on_camera_moved)
            if self._on_mouse_drag in model.mouse_drag_callbacks:
                model.mouse_drag_callbacks.remove(self._on_mouse_drag)
        self._generation += 1
        self._sharpen()
        self._unwatch_draws()

    def _on_camera_moved(self, event: Any = None) -> None:
        model = self._model()
        if model is None or model.dims.ndisplay != 3:
            return
        self._coarsen()
        self._settle_later()

    def _on_mouse_drag(self, model: Any, event: Any) -> Iterator[None]:
        """Coarse from the press (the first frame of a drag too), sharp after the release."""
        if model.dims.ndisplay != 3:
            return
        self._held = True
        self._coarsen()
        try:
            yield
            while event.type == "mouse_move":
                yield
        finally:
            self._held = False
            self._settle_later()

    def _coarsen(self) -> None:
        scene = self.scene()
        was = self.moving
        for node in volume_nodes(scene):
            if id(node) not in self._steps:
                step = float(node.relative_step_size)
                self._steps[id(node)] = (node, step)
                coarse = moving_step(node._vol_shape)
                if step < coarse:
                    node.relative_step_size = coarse
        if scene is not None and self.moving and not was:
            self._watch_draws(scene)
            scene.update()  # vispy's setter changes the shader only
            self.moving_changed.emit(True)

    def _watch_draws(self, scene: Any) -> None:
        if scene is not self._watched:
            self._unwatch_draws()
            scene.events.draw.connect(self._on_scene_draw, position="last")
            self._watched = scene

    def _unwatch_draws(self) -> None:
        if self._watched is not None:
            self._watched.events.draw.disconnect(self._on_scene_draw)
            self._watched = None

    def _on_scene_draw(self, event: Any = None) -> None:
        self._drawn_at = None  # the frame ends with the paint (the renderer's work too)
        call_soon(self._on_frame_done)

    def _on_frame_done(self) -> None:
        self._drawn_at = time.perf_counter()

    def _settle_later(self) -> None:
        self._generation += 1
        generation = self._generation
        call_soon(lambda: self._settle(generation), delay_ms=SETTLE_MS)

    def _settle(self, generation: int) -> None:
        if generation != self._generation or self._held:
            return
        drawn_at = time.perf_counter() if self._drawn_at is None else self._drawn_at
        still_ms = 1000 * (time.perf_counter() - drawn_at)
        if still_ms < SETTLE_MS:  # a slow frame just ended: wait from its end
            delay = int(SETTLE_MS - still_ms) + 1
            call_soon(lambda: self._settle(generation), delay_ms=delay)
            return
        self._sharpen()

    def _sharpen(self) -> None:
        if not self._steps:
            return
        steps, self._steps = self._steps, {}
        for node, step in steps.values():
            node.relative_step_size = step
        scene = self.scene()
        if scene is not None:
            scene.update()  # vispy's setter changes the shader only
        self.moving_changed.emit(False)
