"""Helper layers the widgets draw over a case: object outlines, review region, difference.

Helper layers are Labels layers on the grid of a reference layer (same ``scale`` and
``translate``). They are never editable (a selected Labels layer would otherwise turn
napari's painting keys on and let a click change the drawing) and adding one never
changes the layer selection. Each carries ``metadata[METADATA_KEY]`` (or another key
given by its owner) with a ``role`` the session ignores.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import numpy as np

from napari_mood._napari.layers import METADATA_KEY, display_levels

__all__ = [
    "add_helper_labels",
    "follow_display",
    "helper_layers",
    "helper_levels",
    "keep_read_only",
    "set_helper_data",
    "shown_with",
]

R = TypeVar("R")


def helper_levels(data: np.ndarray) -> Any:
    """Return the data of a helper layer: the array itself or its display pyramid.

    What a helper layer shows for ``data``: itself, or for a large volume its pyramid
    (:func:`display_levels`, max pooling, so a one-voxel object stays visible).

    Made by the worker job that makes ``data`` (:func:`shown_with`) and handed to
    :func:`add_helper_labels` / :func:`set_helper_data` as ``levels``: the GUI thread then
    only adds the layer (building a large volume's pyramid there would freeze the window).
    """
    return display_levels(data, pool="max")


def shown_with(
    job: Callable[..., R], image: Callable[[R], np.ndarray]
) -> Callable[..., tuple[R, Any]]:
    """``job`` returning ``(result, helper_levels(image(result)))``, to run in a worker."""

    def run(*args: Any, **kwargs: Any) -> tuple[R, Any]:
        result = job(*args, **kwargs)
        return result, helper_levels(image(result))

    return run


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
    levels: Any = None,
) -> Any:
    """Add a non-editable Labels layer on ``reference``'s grid, keeping the selection.

    A large volume is shown multiscale like the case: ``levels`` when given (made in a
    worker, :func:`helper_levels`), else :func:`helper_levels` of ``data`` here.
    """
    active = viewer.layers.selection.active
    layer = viewer.add_labels(
        helper_levels(data) if levels is None else levels,
        name=name,
        scale=reference.scale,
        translate=reference.translate,
        units=reference.units,
        colormap=dict(colormap),
        metadata=dict(metadata),
        opacity=opacity,
        blending=blending,
    )
    _CONTOURS[layer] = contour
    layer.contour = contour if viewer.dims.ndisplay == 2 else 0
    keep_read_only(layer)
    if active is not None and active in viewer.layers:
        viewer.layers.selection.active = active
    return layer


def set_helper_data(layer: Any, data: np.ndarray, *, levels: Any = None) -> None:
    """Show new data in a helper layer, keeping it non-editable.

    Show new data in a helper layer (kept non-editable); ``levels`` as in
    :func:`add_helper_labels`.
    """
    layer.data = helper_levels(data) if levels is None else levels
    layer.editable = False  # napari makes a Labels layer editable again on new data


_READ_ONLY: weakref.WeakSet[Any] = weakref.WeakSet()
_CONTOURS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def follow_display(viewer: Any) -> None:
    """Show helper labels as outlines in 2-D, filled in 3-D (napari has no 3-D contours)."""
    flat = viewer.dims.ndisplay == 2
    for layer in list(viewer.layers):
        wanted = _CONTOURS.get(layer)
        if wanted is not None and layer.contour != (contour := wanted if flat else 0):
            layer.contour = contour  # napari slices the layer again on any set


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
    """Yield the viewer's layers whose ``metadata[key]["role"]`` is ``role``."""
    for layer in list(viewer.layers):
        info = getattr(layer, "metadata", {}).get(key)
        if isinstance(info, dict) and info.get("role") == role:
            yield layer
