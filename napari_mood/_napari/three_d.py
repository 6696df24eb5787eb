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
  re-upload the sharp textures after every drag, for about the same frame time).
  Fewer pixels too: the moving frames are drawn into a framebuffer of at most
  :data:`MOVING_PIXELS` pixels and stretched over the canvas (:class:`SmallFrames`);
  a software renderer's frame time is its pixels times its samples;
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
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np
from psygnal import Signal

from napari_mood._napari._soon import call_soon
from napari_mood.services.display import facing_letters

__all__ = [
    "MOVING_PIXELS",
    "MOVING_SAMPLES",
    "MOVING_STEP",
    "SETTLE_MS",
    "MovingDetail",
    "SmallFrames",
    "camera_letters",
    "moving_step",
    "small_size",
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
MOVING_PIXELS = 40_000
"""While a 3-D view moves, it is drawn into a framebuffer of at most this many pixels
(about 200 x 200), stretched over the canvas: a 343 x 929 pane draws a ninth of its pixels."""
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


def small_size(size: Sequence[int]) -> tuple[int, int]:
    """Return the (width, height) a moving frame of a canvas of ``size`` pixels is drawn at.

    The canvas's shape, shrunk by one factor until it has at most :data:`MOVING_PIXELS`.

    Examples
    --------
    >>> small_size((343, 929)), small_size((100, 120))
    ((121, 329), (100, 120))
    """
    width, height = (max(1, int(n)) for n in size)
    factor = max(1.0, float(np.sqrt(width * height / MOVING_PIXELS)))
    return max(1, int(width / factor)), max(1, int(height / factor))


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


_STRETCH_VERTEX = """
attribute vec2 a_position;
varying vec2 v_texcoord;
void main() {
    v_texcoord = (a_position + 1.0) / 2.0;
    gl_Position = vec4(a_position, 0.0, 1.0);
}
"""
_STRETCH_FRAGMENT = """
uniform sampler2D u_frame;
varying vec2 v_texcoord;
void main() {
    gl_FragColor = texture2D(u_frame, v_texcoord);
}
"""


class SmallFrames:
    """Draw a vispy canvas's frames into a small framebuffer, stretched over the canvas.

    While :meth:`attach` holds, each frame the canvas draws (its scene: every layer and
    overlay) is drawn into a framebuffer of :func:`small_size` pixels, then that picture is
    drawn over the whole canvas (linear interpolation); :meth:`detach` draws at full size
    again. The canvas's own draw (``_draw_scene``, which its draw handler and its
    ``render`` call) is replaced on the instance while attached: layers, transforms and
    mouse picking see the canvas's size as before.

    Examples
    --------
    >>> frames = SmallFrames()
    >>> frames.attach(canvas)  # doctest: +SKIP
    >>> canvas.update()  # a coarse frame, a ninth of the pixels  # doctest: +SKIP
    >>> frames.detach()  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self._canvas: Any = None
        self._gl: tuple[Any, Any, Any] | None = None  # (framebuffer, texture, program)
        self._gl_canvas: Any = None  # the canvas whose context holds them

    @property
    def canvas(self) -> Any | None:
        """The canvas drawn small (None: none)."""
        return self._canvas

    def attach(self, canvas: Any) -> None:
        """Draw ``canvas`` small from its next frame (another canvas drawn small is freed)."""
        if canvas is self._canvas:
            return
        self.detach()
        self._canvas = canvas
        if canvas is not self._gl_canvas:
            self._gl, self._gl_canvas = None, canvas
        canvas._draw_scene = self._draw_small

    def detach(self) -> None:
        """Draw the canvas at its full size again from its next frame."""
        canvas, self._canvas = self._canvas, None
        if canvas is not None and "_draw_scene" in vars(canvas):
            canvas._draw_scene = partial(_draw_full_again, canvas)  # by the next frame

    def _draw_small(self, bgcolor: Any = None) -> None:
        canvas = self._canvas
        full = type(canvas)._draw_scene
        width, height = (int(n) for n in canvas.physical_size)
        small = small_size((width, height))
        if small == (width, height):
            full(canvas, bgcolor)
            return
        framebuffer, _, program = self._gl_objects(small)
        with _drawing(canvas):  # a change of transforms asks for no frame
            # vispy's push_fbo, but with the transforms of our framebuffer (vispy's map the
            # canvas onto one of the canvas's size) set once, not set and reset each frame
            canvas._fb_stack.append((framebuffer, (0, 0), canvas.size))
            framebuffer.activate()
            canvas._vp_stack.append([0, 0, *small])
            canvas.context.set_viewport(0, 0, *small)
            _forget_mapping_if_reset(canvas.transforms, small, (width, height))
            canvas.transforms.configure(
                viewport=(0, 0, *small), fbo_size=small, fbo_rect=(0, 0, width, height)
            )
        try:
            full(canvas, bgcolor)
        finally:
            canvas._vp_stack.pop()
            canvas._fb_stack.pop()
            framebuffer.deactivate()
            if canvas._fb_stack:  # in a render() (a screenshot): its framebuffer again
                canvas._fb_stack[-1][0].activate()
            with _drawing(canvas):
                if canvas._fb_stack or canvas._vp_stack:
                    canvas._update_transforms()  # the outer framebuffer's own
                    canvas.context.set_viewport(*canvas._vp_stack[-1])
                else:  # the same picture from the canvas's framebuffer: transforms kept
                    canvas.context.set_viewport(0, 0, width, height)
        from vispy import gloo

        gloo.set_state(blend=False, depth_test=False, cull_face=False)
        program.draw("triangle_strip")

    def _gl_objects(self, size: tuple[int, int]) -> tuple[Any, Any, Any]:
        from vispy import gloo

        width, height = size
        if self._gl is None or self._gl[1].shape[:2] != (height, width):
            texture = gloo.Texture2D(shape=(height, width, 4), interpolation="linear")
            framebuffer = gloo.FrameBuffer(color=texture, depth=gloo.RenderBuffer((height, width)))
            program = gloo.Program(_STRETCH_VERTEX, _STRETCH_FRAGMENT)
            program["a_position"] = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
            program["u_frame"] = texture
            self._gl = (framebuffer, texture, program)
        return self._gl


def _draw_full_again(canvas: Any, bgcolor: Any = None) -> None:
    """Draw ``canvas`` at its size, with vispy's transforms of its size, from now on."""
    del canvas._draw_scene  # the class's own draw again
    with _drawing(canvas):
        canvas._update_transforms()  # the moving frames left them on the small framebuffer
    canvas._draw_scene(bgcolor)


def _forget_mapping_if_reset(
    transforms: Any, small: tuple[int, int], size: tuple[int, int]
) -> None:
    """Make vispy's ``configure`` map the canvas onto ``small`` again if it was reset.

    vispy keeps the last canvas-to-framebuffer mapping it set and skips an equal one, but
    a frame of the canvas's size resets that transform without updating what it keeps.
    """
    scale = np.asarray(transforms._canvas_transform.transforms[0].scale[:2], dtype=float)
    if not np.allclose(scale, np.divide(small, size)):
        transforms._mappings["ct0"] = None


@contextmanager
def _drawing(canvas: Any) -> Iterator[None]:
    """Hold ``canvas``'s update requests, as vispy does while it draws its scene."""
    was, canvas._drawing = canvas._drawing, True
    try:
        yield
    finally:
        canvas._drawing = was


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
        self._small = SmallFrames()  # fewer pixels while moving
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
            self._small.attach(scene)
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
        self._small.detach()
        for node, step in steps.values():
            node.relative_step_size = step
        scene = self.scene()
        if scene is not None:
            scene.update()  # vispy's setter changes the shader only
        self.moving_changed.emit(False)
