"""How napari-mood layers look and how they are recognised (imports neither napari nor Qt).

Every layer napari-mood creates carries ``metadata["napari_mood"]``::

    {"role": "scan" | "gt" | "method", "case": str, "method": str | None,
     "path": str | None, "dataset": str | None, "color": str | None,
     "transform": dict | None}

``transform`` is the case's :class:`~napari_mood.core.orientation.DisplayTransform`
(``to_dict``): display voxel <-> file voxel <-> scanner RAS millimetres.

The session recognises layers by this entry only, never by their names.

Display of a method's map: an Image with ``translucent`` blending and the method's
colormap (:func:`napari_mood.core.looks.method_colormap`). The display threshold is the
layer's lower contrast limit (:func:`napari_mood.core.scores.threshold_limits`), so
voxels at or below the threshold map to the transparent end and the colour ramp spans
``(threshold, 1]``. Changing the threshold changes two numbers on the GPU: no array is
copied and no colormap is created.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from napari_mood.core.looks import GT_COLOR

__all__ = [
    "AXIS_LABELS_3D",
    "GT_FILL_OPACITY",
    "METADATA_KEY",
    "LayerData",
    "Role",
    "gt_colormap",
    "layer_info",
    "mood_metadata",
]

METADATA_KEY = "napari_mood"
LayerData = tuple[Any, dict[str, Any], str]
"""napari's layer data tuple: ``(data, kwargs, layer type)``."""
Role = Literal["scan", "gt", "method"]
ROLES: tuple[str, ...] = ("scan", "gt", "method")
AXIS_LABELS_3D: tuple[str, ...] = ("axial", "coronal", "sagittal")  # planes the sliders pick
GT_FILL_OPACITY = 0.5


def gt_colormap() -> dict[Any, str]:
    """Return the direct label colormap of a ground truth (label 1 in :data:`GT_COLOR`)."""
    return {0: "transparent", 1: GT_COLOR, None: "transparent"}


def mood_metadata(
    role: Role,
    *,
    case: str,
    path: Path | None,
    dataset: Path | None = None,
    method: str | None = None,
    color: str | None = None,
    transform: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return the ``metadata`` of a napari-mood layer."""
    info = {
        "transform": None if transform is None else dict(transform),
        "role": role,
        "case": case,
        "method": method,
        "path": None if path is None else str(path),
        "dataset": None if dataset is None else str(dataset),
        "color": color,
    }
    return {METADATA_KEY: info}


def layer_info(layer: Any) -> Mapping[str, Any] | None:
    """Return a layer's napari-mood metadata entry, or None when it has none (or a bad one)."""
    metadata = getattr(layer, "metadata", None)
    if not isinstance(metadata, Mapping):
        return None
    info = metadata.get(METADATA_KEY)
    if not isinstance(info, Mapping) or info.get("role") not in ROLES:
        return None
    if info["role"] == "method" and not info.get("method"):
        return None
    return info
