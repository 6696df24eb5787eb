"""The status bar in scanner coordinates: RAS millimetres and the voxel index in the file.

napari's status bar shows the cursor in its own world coordinates (display axes, origin
at voxel 0), which cannot be pasted into ITK-SNAP or 3D Slicer. :class:`ScannerStatus`
rewrites the coordinate part of the status after napari computed it:

    brain_004  slice 44  RAS -12.5, 30.0, 41.2 mm  voxel 115, 158, 86: 0.53  |  GT: 1  |
    residual: 0.912  |  binary: 1.000

``slice`` is the axial slice (the number napari's axial slider, the per-slice plot and
the figures show), ``RAS`` comes from the NIfTI affine of the case (``sform``/``qform``
as nibabel reads it), the voxel index is the file's own ``(i, j, k)``; the value is the
scan's. Then, as FSLeyes lists every overlay: the ground truth's label ("GT", when shown)
and every visible map's value with three decimals, in the session's order; a selected
layer that is neither (objects, a difference) comes last. In a blind review the maps read
by their neutral names in alphabetical order ("Method A: 0.912") and the GT is left out
(it is hidden). Cursor moves in the coronal and sagittal views
(:mod:`napari_mood._napari.planes`) update the same status bar. While the pointer is over
no view (a case just opened, the slider moved) the status shows the shared point, in the
same format: never napari's world coordinates. Qt-free.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from napari_mood._napari._soon import call_soon
from napari_mood._napari.neutral_names import neutral_name
from napari_mood.services.display import DisplayTransform

__all__ = ["ScannerStatus", "is_scanner_status", "scanner_text", "status_info"]

SLICE_WORD = "slice"
SEPARATOR = "  |  "
"""Between two values of the readout (the scan's, the GT's, each map's)."""
GT_LABEL = "GT"
BLIND_UNNAMED = "Method ?"
"""A map's label in a blind review while its layer still names the method."""
NAPARI_PLACEHOLDERS = ("", "Ready")
"""What napari's status says when the pointer enters or leaves its canvas."""


def scanner_text(transform: DisplayTransform, display_index: Sequence[float]) -> str:
    """``"RAS x, y, z mm  voxel i, j, k"`` of a display voxel position.

    Examples
    --------
    >>> from napari_mood.core.orientation import display_transform
    >>> t = display_transform((4, 5, 6), np.diag([2.0, 1.0, 3.0, 1.0]))
    >>> scanner_text(t, (1, 2, 3))
    'RAS 6.0, 2.0, 3.0 mm  voxel 3, 2, 1'
    """
    index = np.asarray(display_index, dtype=float)[-len(transform.perm) :]
    file_index = transform.display_to_file_index(index)
    world = transform.file_index_to_world(file_index)[: len(transform.perm)]
    ras = ", ".join(f"{_zero(v):.1f}" for v in world)
    voxel = ", ".join(str(int(round(v))) for v in file_index)
    return f"RAS {ras} mm  voxel {voxel}"


def status_info(name: str, coordinates: str = "") -> dict[str, str]:
    """Return a status in napari's own format: every key its status bar reads (napari 0.9).

    Examples
    --------
    >>> sorted(status_info("brain_001", " RAS 0.0, 0.0, 0.0 mm"))
    ['coordinates', 'layer_base', 'layer_name', 'plugin', 'source_type']
    """
    return {
        "layer_name": name,
        "layer_base": name,
        "source_type": "",
        "plugin": "",
        "coordinates": coordinates,
    }


def is_scanner_status(status: object) -> bool:
    """Whether a viewer status is napari-mood's (not napari's own world coordinates).

    Examples
    --------
    >>> is_scanner_status(status_info("b", " slice 3  RAS 0.0, 0.0, 0.0 mm  voxel 0, 0, 3"))
    True
    >>> is_scanner_status(status_info("b", " [88.00, 0, 0]")), is_scanner_status("Ready")
    (False, False)
    """
    if not isinstance(status, dict):
        return False
    return str(status.get("coordinates", "")).startswith(f" {SLICE_WORD} ")


def _zero(value: float) -> float:
    return 0.0 if abs(value) < 0.05 else float(value)


class ScannerStatus:
    """Keep ``viewer``'s status bar in scanner coordinates (see module docstring).

    napari computes its own status in a background thread (its ``StatusChecker``) and
    sets it a moment after the cursor moved, so the status is rewritten when it is set
    (``viewer.events.status``), not only when the cursor moves: the scanner coordinates
    stay. The values are the scan's under the cursor, the GT's and every visible map's
    (module docstring); in a blind review only neutral names.

    Parameters
    ----------
    viewer : napari.Viewer
        Whose status bar is rewritten.
    session : MoodSession
        Gives the case's transform (none: napari's status is left alone).
    """

    def __init__(self, viewer: Any, session: Any) -> None:
        self._viewer = viewer
        self._session = session
        self._models: list[Any] = []
        self._closed = False
        self._moved: set[int] = set()  # views the pointer moved over: their cursor is real
        viewer.mouse_move_callbacks.append(self._on_mouse_move)
        viewer.cursor.events.position.connect(self._on_main_cursor, position="last")
        viewer.events.status.connect(self._on_viewer_status)
        viewer.dims.events.point.connect(self._on_dims_point, position="last")
        session.case_changed.connect(self._on_session_case_changed)
        self._refresh_soon()  # napari's status of a case shown before this panel

    def follow(self, model: Any) -> None:
        """Also show the cursor of another view of the same layers (a side plane)."""
        model.cursor.events.position.connect(self._on_side_cursor)
        model.mouse_move_callbacks.append(self._on_mouse_move)
        self._models.append(model)

    def unfollow(self, model: Any) -> None:
        """Stop showing the cursor of a view that :meth:`follow` added."""
        if model in self._models:
            model.cursor.events.position.disconnect(self._on_side_cursor)
            _remove_callback(model, self._on_mouse_move)
            self._models.remove(model)

    def close(self) -> None:
        """Stop rewriting the status bar."""
        self._closed = True
        self._viewer.cursor.events.position.disconnect(self._on_main_cursor)
        self._viewer.events.status.disconnect(self._on_viewer_status)
        self._viewer.dims.events.point.disconnect(self._on_dims_point)
        self._session.case_changed.disconnect(self._on_session_case_changed)
        _remove_callback(self._viewer, self._on_mouse_move)
        for model in self._models:
            model.cursor.events.position.disconnect(self._on_side_cursor)
            _remove_callback(model, self._on_mouse_move)
        self._models.clear()

    def refresh(self) -> None:
        """Show the point under the pointer, or the shared point when over no view.

        The one owner of what the status bar's coordinates say.
        """
        pointed = self._pointed()
        self._show(pointed.cursor.position if pointed is not None else self._viewer.dims.point)

    def _pointed(self) -> Any:  # a view, or None
        """Return the view (main viewer or a followed one) with the pointer over its canvas."""
        views = (self._viewer, *self._models)
        return next((v for v in views if v.mouse_over_canvas and id(v) in self._moved), None)

    def _on_mouse_move(self, view: Any, event: Any) -> None:
        """Take ``view``'s cursor as the pointer's once the pointer moved over it.

        Until then it is napari's default (a window shown under a resting pointer included).
        """
        self._moved.add(id(view))

    def _on_main_cursor(self, event: Any = None) -> None:
        pointed = self._pointed()
        if pointed is not None and pointed is self._viewer:
            self._show(pointed.cursor.position)

    def _on_viewer_status(self, event: Any = None) -> None:
        status = self._viewer.status
        if isinstance(status, dict) and not is_scanner_status(status):  # napari's " [x, y]"
            self.refresh()  # written over once
        elif status in NAPARI_PLACEHOLDERS:  # the pointer entered or left napari's canvas:
            self._refresh_soon()  # napari sets ``mouse_over_canvas`` just after

    def _refresh_soon(self) -> None:
        """:meth:`refresh` on the next event-loop turn (a pending call keeps nothing alive)."""
        refresh = weakref.WeakMethod(self.refresh)

        def later() -> None:
            method = refresh()
            if method is not None and not self._closed:
                method()

        call_soon(later)

    def _on_dims_point(self, event: Any = None) -> None:
        if self._pointed() is None:  # the slider moved, or a click in a view moved the point
            self._show(self._viewer.dims.point)

    def _on_session_case_changed(self) -> None:
        self.refresh()

    def _on_side_cursor(self, event: Any) -> None:
        model: Any = next((m for m in self._models if m.cursor is event.source), None)
        if model is not None and self._pointed() is model:
            self._show(model.cursor.position)

    def _show(self, world: Sequence[float]) -> None:
        text = self._text(world)
        if text is None:
            return
        scan = self._session.scan_layer or self._session.gt_layer
        value = "" if scan is None else _value_text(scan, world)
        blind = getattr(self._session, "blind", False)
        shown = _readout_layers(self._session, scan, blind)
        selected = self._viewer.layers.selection.active
        if not blind and selected is not None and selected is not scan:
            if all(layer is not selected for _, layer in shown):
                shown.append((selected.name, selected))
        values = [(label, _value_text(layer, world, digits=3)) for label, layer in shown]
        value += "".join(f"{SEPARATOR}{label}{more}" for label, more in values if more)
        name = "" if scan is None else scan.name
        self._viewer.status = status_info(name, f" {text}{value}")

    def _text(self, world: Sequence[float]) -> str | None:
        transform = self._session.transform
        reference = self._session.scan_layer or self._session.gt_layer
        if transform is None or reference is None or len(world) < len(transform.perm):
            return None
        index = reference.world_to_data(world)
        axial = int(round(float(index[-len(transform.perm)])))
        return f"{SLICE_WORD} {axial}  {scanner_text(transform, index)}"


def _remove_callback(view: Any, callback: Any) -> None:
    if callback in view.mouse_move_callbacks:
        view.mouse_move_callbacks.remove(callback)


def _readout_layers(session: Any, scan: Any, blind: bool) -> list[tuple[str, Any]]:
    """Return ``(label, layer)`` of the ground truth and of every visible map, as read out.

    The GT first (as "GT"), then the maps in the session's order; in a blind review the
    maps by their neutral names in alphabetical order ("Method A", "Method B"; a layer
    whose name still names a method reads "Method ?") and never the GT.
    """
    shown: list[tuple[str, Any]] = []
    gt = session.gt_layer
    if gt is not None and gt is not scan and gt.visible and not blind:
        shown.append((GT_LABEL, gt))
    maps = [m.layer for m in session.methods if m.layer.visible]
    if not blind:
        return shown + [(layer.name, layer) for layer in maps]
    hidden = {name: "" for name in session.method_names}
    labels = [
        (layer.name if neutral_name(layer.name, hidden) == layer.name else BLIND_UNNAMED, layer)
        for layer in maps
    ]
    return shown + sorted(labels, key=lambda pair: pair[0])


def _value_text(layer: Any, world: Sequence[float], *, digits: int | None = None) -> str:
    """``": value"`` of ``layer`` at ``world`` ("" outside it); ``digits``: fixed decimals."""
    value = layer.get_value(world, world=True)
    if getattr(layer, "multiscale", False) and isinstance(value, tuple):
        value = value[1]  # napari's (pyramid level, value) of a large case
    if value is None or isinstance(value, tuple) or (isinstance(value, float) and np.isnan(value)):
        return ""  # outside the layer, or a shape's (index, vertex) (a ruler, an ROI)
    if not isinstance(value, float | np.floating):
        return f": {value}"
    return f": {value:.3g}" if digits is None else f": {value:.{digits}f}"
