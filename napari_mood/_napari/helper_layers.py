"""Helper layers the widgets draw over a case: object outlines, review region, difference.

Helper layers are Labels layers on the grid of a reference layer (same ``scale`` and
``translate``). They are never editable (a selected Labels layer would otherwise turn
napari's painting keys on and let a click change the drawing) and adding one never
changes the layer selection. Each carries ``metadata[METADATA_KEY]`` (or another key
given by its owner) with a ``role`` the session ignores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from napari_mood._napari.layers import METADATA_KEY

__all__ = ["add_helper_labels", "helper_layers", "set_helper_data"]


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
        colormap=dict(colormap),
        metadata=dict(metadata),
        opacity=opacity,
        blending=blending,
    )
    layer.contour = contour
    layer.editable = False
    if active is not None and active in viewer.layers:
        viewer.layers.selection.active = active
    return layer


def set_helper_data(layer: Any, data: np.ndarray) -> None:
    """Show new data in a helper layer (kept non-editable)."""
    layer.data = data
    layer.editable = False


def helper_layers(viewer: Any, role: str, *, key: str = METADATA_KEY) -> Iterator[Any]:
    """The viewer's layers whose ``metadata[key]["role"]`` is ``role``."""
    for layer in list(viewer.layers):
        info = getattr(layer, "metadata", {}).get(key)
        if isinstance(info, dict) and info.get("role") == role:
            yield layer
