"""How napari-mood layers look and how they are recognised (imports neither napari nor Qt).

Every layer napari-mood creates carries ``metadata["napari_mood"]``::

    {"role": "scan" | "gt" | "method", "case": str, "method": str | None,
     "path": str | None, "dataset": str | None, "color": str | None,
     "transform": dict | None}

``transform`` is the case's :class:`~napari_mood.core.orientation.DisplayTransform`
(``to_dict``): display voxel <-> file voxel <-> scanner RAS millimetres.

The session recognises layers by this entry only, never by their names.

Display of a method's map: an Image with :data:`OVER_SCAN_BLENDING` and the method's
colormap (:func:`napari_mood.services.looks.method_colormap`). The display threshold is the
layer's lower contrast limit (:func:`napari_mood.core.scores.threshold_limits`), so
voxels at or below the threshold map to the transparent end and the colour ramp spans
``(threshold, 1]``. Changing the threshold changes two numbers on the GPU: no array is
copied and no colormap is created.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from napari_mood.services.display import PoolMethod, build_pyramid
from napari_mood.services.looks import GT_COLOR

__all__ = [
    "AXIS_LABELS_3D",
    "BOXES_KEY",
    "GT_FILL_OPACITY",
    "OVER_SCAN_BLENDING",
    "METADATA_KEY",
    "LayerData",
    "Role",
    "PYRAMID_MIN_VOXELS",
    "PYRAMID_SMALLEST_EDGE",
    "FULL_3D_MAX_VOXELS",
    "SHARP_3D_BUDGET_VOXELS",
    "display_levels",
    "sharp_3d_levels",
    "gt_colormap",
    "gt_label_data",
    "gt_truth",
    "is_box_layer",
    "layer_info",
    "mood_metadata",
    "scored_data",
]

METADATA_KEY = "napari_mood"
BOXES_KEY = "napari_mood_boxes"
"""Metadata key of a box dataset's layers (:mod:`napari_mood._napari.boxes`):
``{"role": "slices" | "gt" | "reader" | "pred", ...}``."""
LayerData = tuple[Any, dict[str, Any], str]
"""napari's layer data tuple: ``(data, kwargs, layer type)``."""
Role = Literal["scan", "gt", "method"]
ROLES: tuple[str, ...] = ("scan", "gt", "method")
AXIS_LABELS_3D: tuple[str, ...] = ("axial", "coronal", "sagittal")  # planes the sliders pick
GT_FILL_OPACITY = 0.5
OVER_SCAN_BLENDING = "translucent_no_depth"
"""How the maps and the GT are blended: over the layers below them, without a depth test.

In 2-D the same as ``translucent``. In 3-D the scan's rays (attenuated MIP) write the
depth of its outer surface, and a depth-tested map or GT inside the head was hidden
behind it: a map's hot voxels are drawn over the scan wherever they lie (its MIP), the
GT's surface over the maps."""


PYRAMID_MIN_VOXELS = 160**3
"""Volumes with more voxels are shown multiscale (:func:`display_levels`)."""
PYRAMID_SMALLEST_EDGE = 128
"""The coarsest level's largest edge is at most this (a 3-D view draws that level)."""


def display_levels(data: Any, *, pool: PoolMethod) -> Any:
    """Return what a layer shows for ``data``: itself, or for a large volume a pyramid.

    Volumes of more than :data:`PYRAMID_MIN_VOXELS` voxels become ``[data, data/2, ...]``
    (:func:`napari_mood.services.display.build_pyramid`; ``"max"`` pooling for maps and
    masks, so a one-voxel hot spot or lesion stays visible, ``"mean"`` for scans) down to
    a largest edge of :data:`PYRAMID_SMALLEST_EDGE`. napari then draws 2-D slices at full
    resolution (the level it picks for the canvas) and 3-D from the coarsest level: a 3-D
    view of a 256^3 case uploads 128^3 textures, of a 512^3 case 128^3 too. Level 0 is
    ``data`` itself (no copy): it is what scoring reads (:func:`scored_data`).
    """
    arr = np.asarray(data)
    if arr.ndim != 3 or arr.size <= PYRAMID_MIN_VOXELS:
        return data
    return build_pyramid(arr, method=pool, min_size=PYRAMID_SMALLEST_EDGE)


FULL_3D_MAX_VOXELS = 256**3
"""The most voxels one layer's 3-D view shows once its first coarse frame is drawn."""
SHARP_3D_BUDGET_VOXELS = 2 * 256**3
"""The most voxels the sharper 3-D levels of all layers add together (a software renderer
holds each texture twice, as float32: two 256^3 layers add about 0.25 GB)."""


def sharp_3d_levels(
    level_shapes: Sequence[Sequence[Sequence[int]]], *, budget: int = SHARP_3D_BUDGET_VOXELS
) -> list[int]:
    """Return the pyramid level each layer's 3-D view shows after its first, coarsest, frame.

    ``level_shapes`` holds each layer's level shapes (finest first), most wanted layer
    first. Each layer in turn gets its finest level of at most
    :data:`FULL_3D_MAX_VOXELS` voxels that fits what is left of ``budget``; a layer for
    which none fits keeps its coarsest level (drawn already: it costs nothing more).

    Examples
    --------
    >>> full, half = (256, 256, 256), (128, 128, 128)
    >>> sharp_3d_levels([[full, half], [full, half], [full, half]])
    [0, 0, 1]
    >>> sharp_3d_levels([[(512,) * 3, full, half]])
    [1]
    """
    levels: list[int] = []
    left = budget
    for shapes in level_shapes:
        sizes = [int(np.prod(shape)) for shape in shapes]
        fits = [k for k, size in enumerate(sizes) if size <= min(FULL_3D_MAX_VOXELS, left)]
        level = fits[0] if fits else len(sizes) - 1
        if level != len(sizes) - 1:
            left -= sizes[level]
        levels.append(level)
    return levels


def scored_data(layer: Any) -> Any:
    """Return the full-resolution data of a layer (level 0 of a multiscale one): what is scored."""
    data = layer.data
    return data[0] if getattr(layer, "multiscale", False) else data


def gt_label_data(mask: np.ndarray) -> np.ndarray:
    """Return what a ground truth's Labels layer holds: its bool ``mask`` seen as uint8, no copy.

    napari's Labels layer copies a bool array into uint8 (one byte per voxel: 134 MB at
    512^3); a uint8 view of the mask is kept as it is. The view is not writeable (painting
    into the layer, or into a copy of it sharing the array, raises instead of writing a
    2 into the bool mask) and the layer is read-only
    (:func:`~napari_mood._napari.helper_layers.keep_read_only`), so its voxels stay 0 and 1
    and :func:`gt_truth` can see them as bool again.

    Examples
    --------
    >>> mask = np.array([True, False])
    >>> data = gt_label_data(mask)
    >>> data.dtype.name, data.tolist(), np.shares_memory(data, mask), data.flags.writeable
    ('uint8', [1, 0], True, False)
    """
    arr = np.asarray(mask)
    if arr.dtype != np.bool_:
        return arr
    view = arr.view(np.uint8)
    view.flags.writeable = False
    return view


def gt_truth(data: Any) -> Any:
    """Return the GT a GT layer's full-resolution ``data`` holds, as scored: bool, no copy.

    The data of :func:`gt_label_data` (a read-only uint8 view of a bool mask: voxels 0
    and 1) is seen as bool, so the jobs that score against it (each would otherwise make
    its own bool mask) share one array. Any other data is returned as it is (the jobs turn
    it into a mask, :func:`~napari_mood.core.scores.gt_mask`).

    Examples
    --------
    >>> gt_truth(gt_label_data(np.array([False, True]))).tolist()
    [False, True]
    >>> gt_truth(np.array([0, 2], dtype=np.uint8)).tolist()  # not a mask's view: as it is
    [0, 2]
    """
    arr = np.asarray(data)
    if _is_mask_view(arr):
        return arr.view(np.bool_)
    return data


def _is_mask_view(arr: np.ndarray) -> bool:
    base = arr.base
    return (
        arr.dtype == np.uint8
        and not arr.flags.writeable
        and isinstance(base, np.ndarray)
        and base.dtype == np.bool_
    )


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
    focus: Sequence[int] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return the ``metadata`` of a napari-mood layer.

    ``focus`` (a GT's): the display voxel to look at first
    (:func:`~napari_mood.io.case.focus_voxel`), found when the file was read.
    """
    info = {
        "focus": None if focus is None else [int(v) for v in focus],
        "transform": None if transform is None else dict(transform),
        "role": role,
        "case": case,
        "method": method,
        "path": None if path is None else str(path),
        "dataset": None if dataset is None else str(dataset),
        "color": color,
    }
    return {METADATA_KEY: info}


def is_box_layer(layer: Any) -> bool:
    """Return whether ``layer`` belongs to a box dataset (its slices or boxes).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> is_box_layer(SimpleNamespace(metadata={BOXES_KEY: {"role": "slices"}}))
    True
    >>> is_box_layer(SimpleNamespace(metadata={METADATA_KEY: {"role": "scan"}}))
    False
    """
    metadata = getattr(layer, "metadata", None)
    return isinstance(metadata, Mapping) and BOXES_KEY in metadata


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
