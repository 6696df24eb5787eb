"""Helper layers the widgets draw over a case: object outlines, review region, difference.

Helper layers are Labels layers on the grid of a reference layer (same ``scale`` and
``translate``). They are never editable (a selected Labels layer would otherwise turn
napari's painting keys on and let a click change the drawing) and adding one never
changes the layer selection. Each carries ``metadata[METADATA_KEY]`` (or another key
given by its owner) with a ``role`` the session ignores.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from napari_mood._napari.layers import METADATA_KEY

__all__ = ["add_helper_labels", "helper_layers", "keep_read_only", "set_helper_data"]


def add_helper_labels(
    viewer: Any,
    data: np.ndarray,
    *,
    name: str,
    reference: Any,
    colormap: Mapping[Any, str],
    metadata: Mapping[str, Any],
    opacity: float = 1.0,
    contour: int = 0,
    blending: str = "translucent",
) -> Any:
    """Add a non-editable Labels layer on ``reference``'s grid, keeping the selection."""
    active = viewer.layers.selection.active
    layer = viewer.add_labels(
        data,
        name=name,
        scale=reference.scale,
        translate=reference.translate,
        units=reference.units,
        colormap=dict(colormap),
        metadata=dict(metadata),
        opacity=opacity,
        blending=blending,
    )
    layer.contour = contour
    keep_read_only(layer)
    if active is not None and active in viewer.layers:
        viewer.layers.selection.active = active
    return layer


def set_helper_data(layer: Any, data: np.ndarray) -> None:
    """Show new data in a helper layer (kept non-editable)."""
    layer.data = data
    layer.editable = False  # napari makes a Labels layer editable again on new data


_READ_ONLY: weakref.WeakSet[Any] = weakref.WeakSet()


def keep_read_only(layer: Any) -> None:
    """Make ``layer`` non-editable for good: napari re-enables editing on new data or 2-D/3-D.

    With ``editable`` off, napari keeps a Labels layer in pan/zoom mode, so no key or click
    can paint, fill or erase it (the ground truth, helper layers).
    """
    layer.editable = False
    if layer in _READ_ONLY:
        return
    _READ_ONLY.add(layer)
    layer.events.editable.connect(lambda event=None: _refuse_editing(layer))


def _refuse_editing(layer: Any) -> None:
    if layer.editable:
        layer.editable = False


def helper_layers(viewer: Any, role: str, *, key: str = METADATA_KEY) -> Iterator[Any]:
    """The viewer's layers whose ``metadata[key]["role"]`` is ``role``."""
    for layer in list(viewer.layers):
        info = getattr(layer, "metadata", {}).get(key)
        if isinstance(info, dict) and info.get("role") == role:
            yield layer
