"""The status bar in scanner coordinates: RAS millimetres and the voxel index in the file.

napari's status bar shows the cursor in its own world coordinates (display axes, origin
at voxel 0), which cannot be pasted into ITK-SNAP or 3D Slicer. :class:`ScannerStatus`
rewrites the coordinate part of the status after napari computed it:

    brain_004  RAS -12.5, 30.0, 41.2 mm  voxel 115, 158, 86: 0.53

``RAS`` comes from the NIfTI affine of the case (``sform``/``qform`` as nibabel reads
it), the voxel index is the file's own ``(i, j, k)``; the value is napari's. Cursor moves
in the coronal and sagittal views (:mod:`napari_mood._napari.planes`) update the same
status bar. Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from napari_mood.core.orientation import DisplayTransform

__all__ = ["ScannerStatus", "scanner_text"]


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


def _zero(value: float) -> float:
    return 0.0 if abs(value) < 0.05 else float(value)


class ScannerStatus:
    """Keep ``viewer``'s status bar in scanner coordinates (see module docstring).

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
        viewer.cursor.events.position.connect(self._on_main_cursor, position="last")

    def follow(self, model: Any) -> None:
        """Also show the cursor of another view of the same layers (a side plane)."""
        model.cursor.events.position.connect(self._on_side_cursor)
        self._models.append(model)

    def close(self) -> None:
        """Stop rewriting the status bar."""
        self._viewer.cursor.events.position.disconnect(self._on_main_cursor)
        for model in self._models:
            model.cursor.events.position.disconnect(self._on_side_cursor)
        self._models.clear()

    def _on_main_cursor(self, event: Any = None) -> None:
        status = self._viewer.status
        text = self._text(self._viewer.cursor.position)
        if text is None or not isinstance(status, dict):
            return
        value = str(status.get("coordinates", "")).rpartition("]")[2]
        if getattr(self._session, "blind", False):  # no layer name, no GT value
            self._viewer.status = {"layer_name": "", "coordinates": f" {text}"}
            return
        self._viewer.status = {**status, "coordinates": f" {text}{value}"}

    def _on_side_cursor(self, event: Any) -> None:
        model = next((m for m in self._models if m.cursor is event.source), None)
        if model is None or not model.mouse_over_canvas:
            return
        position = model.cursor.position
        text = self._text(position)
        if text is None:
            return
        layer = self._session.scan_layer or self._session.gt_layer
        if getattr(self._session, "blind", False):
            layer = self._session.scan_layer
        value = "" if layer is None else _value_text(layer, position)
        name = "" if layer is None else layer.name
        self._viewer.status = {"layer_name": name, "coordinates": f" {text}{value}"}

    def _text(self, world: Sequence[float]) -> str | None:
        transform = self._session.transform
        reference = self._session.scan_layer or self._session.gt_layer
        if transform is None or reference is None or len(world) < len(transform.perm):
            return None
        return scanner_text(transform, reference.world_to_data(world))


def _value_text(layer: Any, world: Sequence[float]) -> str:
    value = layer.get_value(world, world=True)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    return f": {value:.3g}" if isinstance(value, float | np.floating) else f": {value}"
