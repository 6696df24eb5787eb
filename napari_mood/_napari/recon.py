"""Input, reconstruction, residual and healthy original side by side in napari's grid.

Four Image layers, one grid cell each, in this order: the input, the method's
reconstruction, the residual score map and the healthy original. The grid shares dims
and camera, so the slice and the zoom are linked. The residual is drawn like a method's
map (:func:`napari_mood.core.looks.method_colormap`, transparent at or below the display
threshold: contrast limits :func:`napari_mood.core.scores.threshold_limits`, so moving
the lower contrast limit moves the threshold); the anomaly region, when known, is
outlined in every cell. The three grey images share one contrast range (the healthy
original's), so a dimmed region reads as darker.

Layers carry ``metadata[RECON_KEY]`` (never the session's ``napari_mood`` entry), so the
plugin's session ignores them; :func:`show_reconstruction` replaces the layers of a
previous call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from napari_mood._napari.layers import LayerData, gt_colormap
from napari_mood.core.looks import method_colormap
from napari_mood.core.scores import threshold_limits
from napari_mood.services.display import display_range
from napari_mood.services.recon import ReconView

__all__ = ["RECON_KEY", "RESIDUAL_COLOR", "grid_stride", "recon_layer_data", "show_reconstruction"]

RECON_KEY = "napari_mood_recon"
RESIDUAL_COLOR = "#ff7f0e"
ROLES = ("input", "reconstruction", "residual", "healthy")


def _meta(view: ReconView, role: str) -> dict[str, Any]:
    return {RECON_KEY: {"role": role, "case": view.case, "scale": view.scale}}


def _outline(view: ReconView, gt: np.ndarray, cell: str) -> LayerData:
    state = {
        "name": f"region ({cell})", "scale": view.spacing, "colormap": gt_colormap(),
        "opacity": 1.0, "metadata": _meta(view, "region"),
    }  # fmt: skip
    return gt, state, "labels"


def recon_layer_data(view: ReconView, *, threshold: float = 0.5) -> list[LayerData]:
    """The layers of one case in grid order (no napari import).

    Cells: input | reconstruction | residual | healthy; with an anomaly region each cell
    holds its image and then the region's outline (one uint8 array shared by the four
    outline layers, no copy), so :func:`grid_stride` is 2.
    """
    grey = {
        "colormap": "gray",
        "contrast_limits": display_range(view.healthy),
        "scale": view.spacing,
    }
    name = view.case.removesuffix(".nii.gz").removesuffix(".nii")
    residual = {
        "name": f"residual {name}", "colormap": method_colormap(RESIDUAL_COLOR),
        "contrast_limits": threshold_limits(threshold), "blending": "translucent",
        "scale": view.spacing, "metadata": _meta(view, "residual"),
    }  # fmt: skip
    images: list[LayerData] = [
        (view.scan, {**grey, "name": f"input {name}", "metadata": _meta(view, "input")}, "image"),
        (
            view.recon,
            {**grey, "name": f"reconstruction {name}", "metadata": _meta(view, "reconstruction")},
            "image",
        ),
        (view.scores, residual, "image"),
        (
            view.healthy,
            {**grey, "name": f"healthy {name}", "metadata": _meta(view, "healthy")},
            "image",
        ),
    ]
    if view.gt is None:
        return images
    gt = view.gt.astype(np.uint8)
    return [
        layer
        for image, cell in zip(images, ROLES, strict=True)
        for layer in (image, _outline(view, gt, cell))
    ]


def grid_stride(view: ReconView) -> int:
    """Layers per grid cell: 2 with the region's outline, else 1."""
    return 1 if view.gt is None else 2


def _remove_previous(viewer: Any) -> None:
    for layer in [layer for layer in viewer.layers if RECON_KEY in layer.metadata]:
        viewer.layers.remove(layer)


def show_reconstruction(viewer: Any, view: ReconView, *, threshold: float = 0.5) -> list[Any]:
    """Add the case's layers (replacing earlier ones) and show them in a 1 x 4 grid.

    Other layers of the viewer are hidden (they would take grid cells); returns the
    layers added.
    """
    from napari.layers import Layer

    _remove_previous(viewer)
    for layer in viewer.layers:
        layer.visible = False
    added = []
    for data in recon_layer_data(view, threshold=threshold):
        layer = viewer.add_layer(Layer.create(*data))
        if data[2] == "labels":
            layer.contour = 1
            layer.editable = False
        added.append(layer)
    viewer.canvas.grid.stride = grid_stride(view)
    viewer.canvas.grid.shape = (1, 4)
    viewer.canvas.grid.enabled = True
    viewer.reset_view()
    return added
