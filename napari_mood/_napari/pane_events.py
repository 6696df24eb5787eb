"""The reading habits of ITK-SNAP and FSLeyes on the views' canvases: wheel, keys, right-drag.

:class:`PaneEvents` is a Qt event filter on each view's canvas (napari's main canvas, the
coronal and sagittal views, the reading layout's 3-D pane):

* the wheel over any view (napari's main canvas too, in every layout) pages its slices,
  one slice per notch: :func:`wheel_steps` keeps the part of a notch a touchpad sends
  until a whole one is reached; Ctrl + wheel zooms the view;
* Up / Down / Left / Right page one slice, PageUp / PageDown five, in the view under the
  pointer (or the one with the keyboard focus);
* a key bound at napari's viewer (``viewer.bind_key``: the reading tools' Shift+W) works
  while the keyboard focus is in a side view too, unless that view or its selected layer
  binds the key itself (a side view is a viewer of its own: napari would look there only);
* a right-drag sets the scan's window (left / right) and level (up / down) through
  :class:`ScanLimits`, which also keeps the limits each case opened with ("Reset W/L").

The events it takes never reach napari or vispy: no zoom under a wheel that pages, no
zoom under a right-drag that sets the level.
"""

from __future__ import annotations

import inspect
import weakref
from functools import partial
from typing import Any

from qtpy.QtCore import QEvent, QObject, Qt
from qtpy.QtGui import QKeySequence

from napari_mood._napari._qt_objects import deleted
from napari_mood._napari.planes import LinkedPlanes, window_level
from napari_mood._napari.session import MoodSession

__all__ = ["NOTCH", "PAGE_KEYS", "ZOOM_PER_NOTCH", "PaneEvents", "ScanLimits", "wheel_steps"]

PAGE_KEYS = {
    Qt.Key.Key_Up: 1,
    Qt.Key.Key_Right: 1,
    Qt.Key.Key_Down: -1,
    Qt.Key.Key_Left: -1,
    Qt.Key.Key_PageUp: 5,
    Qt.Key.Key_PageDown: -5,
}
"""Slices each key pages in the view under the pointer."""
ZOOM_PER_NOTCH = 1.25
"""Ctrl + one wheel notch over a view zooms by this factor."""
NOTCH = 120
"""The ``angleDelta`` of one wheel notch (Qt: eighths of a degree, 15 degrees a notch)."""


def wheel_steps(pending: int, delta: int) -> tuple[int, int]:
    """Return the slices a wheel event pages and the part of a notch kept for the next one.

    ``pending`` is the part of a notch left by the events before (same direction or not),
    ``delta`` the event's ``angleDelta``; every whole :data:`NOTCH` of their sum pages one
    slice (a mouse: n notches page n slices; a touchpad: quarter notches add up).

    Examples
    --------
    >>> wheel_steps(0, 360)  # three notches at once
    (3, 0)
    >>> wheel_steps(90, 30), wheel_steps(0, 30), wheel_steps(30, -60)
    ((1, 0), (0, 30), (0, -30))
    """
    total = pending + delta
    steps = int(total / NOTCH)  # towards zero: a part of a notch pages nothing yet
    return steps, total - steps * NOTCH


class ScanLimits:
    """The scan's contrast limits as the case opened, for "Reset W/L"."""

    def __init__(self, session: MoodSession) -> None:
        self._session = session
        self._opened: weakref.WeakKeyDictionary[Any, tuple[float, float]] = (
            weakref.WeakKeyDictionary()
        )
        self.remember()

    @property
    def scan(self) -> Any | None:
        """The session's scan layer (None for a box dataset or no case)."""
        return self._session.scan_layer

    def remember(self) -> None:
        """Keep the scan's limits the first time it is seen (a new case)."""
        scan = self.scan
        if scan is not None and scan not in self._opened:
            self._opened[scan] = _limits(scan)

    def set(self, limits: tuple[float, float]) -> None:
        """Show the scan with ``limits`` (every view: the side views copy them)."""
        scan = self.scan
        if scan is None:
            return
        low, high = scan.contrast_limits_range
        scan.contrast_limits_range = (min(low, limits[0]), max(high, limits[1]))
        scan.contrast_limits = limits

    def reset(self) -> None:
        """Back to the limits the scan had when its case opened."""
        scan = self.scan
        if scan is not None and scan in self._opened:
            self.set(self._opened[scan])


def _limits(layer: Any) -> tuple[float, float]:
    low, high = layer.contrast_limits
    return float(low), float(high)


class PaneEvents(QObject):
    """Mouse wheel, paging keys and window/level drags on the three views' canvases.

    A Qt event filter on each canvas: the events it takes never reach napari or vispy
    (no zoom under a wheel that pages, no zoom under a right-drag that sets the level).

    Parameters
    ----------
    planes : LinkedPlanes
    canvases : dict
        Each view's Qt canvas widget and its model (napari's main canvas included).
    limits : ScanLimits
        The scan whose window/level a right-drag sets.
    """

    def __init__(self, planes: LinkedPlanes, canvases: dict[Any, Any], limits: ScanLimits) -> None:
        super().__init__()
        self._planes = planes
        self._canvases = canvases
        self._limits = limits
        self._wheel: tuple[Any, int] = (None, 0)  # the view wheeled last, part of a notch
        self._drag: tuple[Any, float, float, tuple[float, float], float] | None = None
        self._forget = {canvas: partial(self._on_canvas_destroyed, canvas) for canvas in canvases}
        for canvas, forget in self._forget.items():
            canvas.installEventFilter(self)
            canvas.destroyed.connect(forget)

    def watch(self, canvas: Any, model: Any) -> None:
        """Also take the events of another view's canvas."""
        self._canvases[canvas] = model
        self._forget[canvas] = partial(self._on_canvas_destroyed, canvas)
        canvas.installEventFilter(self)
        canvas.destroyed.connect(self._forget[canvas])

    def forget(self, canvas: Any) -> None:
        """Stop taking a canvas's events (its view goes)."""
        if canvas in self._canvases:
            canvas.removeEventFilter(self)
            canvas.destroyed.disconnect(self._forget.pop(canvas))
            del self._canvases[canvas]

    def close(self) -> None:
        """Stop filtering the canvases' events (those still there: Qt forgets the others).

        Run when the panel is destroyed, this filter (the panel's child) may be deleted
        already: Qt then took it off every canvas itself, and calling into it would raise.
        """
        canvases, forget = self._canvases, self._forget
        self._canvases, self._forget = {}, {}
        if deleted(self):
            return
        for canvas in canvases:
            canvas.removeEventFilter(self)
            canvas.destroyed.disconnect(forget[canvas])

    def _on_canvas_destroyed(self, canvas: Any, *_: object) -> None:
        self._canvases.pop(canvas, None)
        self._forget.pop(canvas, None)

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt override)
        """Take the events of the reading habits; pass every other one on."""
        model = self._canvases.get(watched)
        if model is None or self._planes.closed:
            return False
        kind = event.type()
        if kind == QEvent.Type.Wheel:
            return self._on_wheel(model, event)
        if kind == QEvent.Type.KeyPress and self._on_viewer_key(model, event):
            return True
        if kind in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return self._on_key(event, press=kind == QEvent.Type.KeyPress)
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove):
            return self._on_drag(model, event, press=kind == QEvent.Type.MouseButtonPress)
        if kind == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.RightButton:
            taken, self._drag = self._drag is not None, None
            return taken
        return False

    # -- wheel: every view pages, Ctrl zooms ------------------------------------------

    def _on_wheel(self, model: Any, event: Any) -> bool:
        modifiers = event.modifiers()
        delta = int(event.angleDelta().y())
        if not delta or modifiers & ~Qt.KeyboardModifier.ControlModifier:
            return False
        if modifiers & Qt.KeyboardModifier.ControlModifier:
            around = model.cursor.position if model.mouse_over_canvas else None
            self._planes.zoom_by(model, ZOOM_PER_NOTCH ** (delta / NOTCH), around)
            return True
        wheeled, pending = self._wheel
        steps, pending = wheel_steps(pending if wheeled is model else 0, delta)
        self._wheel = (model, pending)
        if steps:
            self._planes.page(model, steps)
        return True

    # -- keys: page the view under the pointer ---------------------------------------

    def _on_key(self, event: Any, *, press: bool) -> bool:
        steps = PAGE_KEYS.get(event.key())
        if steps is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if not press:
            event.accept()  # a key for the view, not for a shortcut of the window
            return True
        model = self._pointed() or self._focused()
        if model is not None:
            self._planes.page(model, steps)
        return True

    def _on_viewer_key(self, model: Any, event: Any) -> bool:
        """Call the binding napari's viewer has for a key pressed in a side view."""
        viewer = self._planes.viewer
        if model is viewer or event.isAutoRepeat() or event.key() in PAGE_KEYS:
            return False  # napari's canvas: napari calls it; the paging keys are ours
        from app_model.backends.qt import qkeysequence2modelkeybinding

        key = qkeysequence2modelkeybinding(QKeySequence(event.keyCombination()))
        action = viewer.keymap.get(key)
        active = model.layers.selection.active  # napari asks the selected layer first
        if action is None or any(
            key in owner.keymap or key in owner.class_keymap
            for owner in (model, active)
            if owner is not None
        ):
            return False
        result = action(viewer)
        if inspect.isgenerator(result):  # a press-and-release binding: the press part
            next(result, None)
        return True

    def _pointed(self) -> Any | None:
        return next((m for m in self._canvases.values() if m.mouse_over_canvas), None)

    def _focused(self) -> Any | None:
        return next((m for c, m in self._canvases.items() if c.hasFocus()), None)

    # -- right-drag: window / level of the scan --------------------------------------

    def _on_drag(self, model: Any, event: Any, *, press: bool) -> bool:
        scan = self._limits.scan
        if press:
            if event.button() != Qt.MouseButton.RightButton or scan is None:
                return False
            self._limits.remember()
            low, high = scan.contrast_limits_range
            x, y = _position(event)
            self._drag = (scan, x, y, _limits(scan), float(high - low))
            return True
        if self._drag is None or not event.buttons() & Qt.MouseButton.RightButton:
            return False
        dragged, x, y, start, span = self._drag
        if dragged is not scan:
            self._drag = None
            return False
        now = _position(event)
        drag = (now[0] - x, now[1] - y)
        self._limits.set(window_level(start, drag, span=span if span > 0 else 1.0))
        return True


def _position(event: Any) -> tuple[float, float]:
    """Return a mouse event's position in the widget (Qt 6 ``position``, Qt 5 ``pos``)."""
    point = event.position() if hasattr(event, "position") else event.pos()
    return float(point.x()), float(point.y())
