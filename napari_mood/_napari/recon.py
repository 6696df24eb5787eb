"""Input, reconstruction, residual and healthy original side by side in napari's grid.

Four Image layers, one grid cell each, in this order: the input, the method's
reconstruction, the residual score map and the healthy original. Each layer is named
after what its cell shows (:data:`CELL_LABELS`) and napari writes that name in the
cell's corner. The grid shares dims and camera, so the slice and the zoom are linked;
the layers carry the planes' axis labels and millimetre units of napari-mood's cases,
so the slider reads "axial" and steps one slice of the volume (napari names unlabelled
axes -3, -2, -1); the view opens on the volume's middle slice. napari steps every
slider by the finest voxel of all layers, hidden ones included: with a case of smaller
voxels open in the same viewer the slider counts in that case's steps. The layers go to the bottom of the layer list: napari groups layers
into cells by their index, so layers kept hidden below them (a case of napari-mood)
would shift every image into its neighbour's cell. The residual is drawn like a method's
map (:func:`napari_mood.services.looks.method_colormap`, transparent at or below the display
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

from napari_mood._napari.layers import AXIS_LABELS_3D, LayerData, gt_colormap
from napari_mood.services.display import display_range
from napari_mood.services.looks import method_colormap
from napari_mood.services.options import threshold_limits
from napari_mood.services.recon import ReconView

__all__ = [
    "CELL_LABELS",
    "RECON_KEY",
    "RESIDUAL_COLOR",
    "grid_stride",
    "recon_layer_data",
    "show_reconstruction",
]

RECON_KEY = "napari_mood_recon"
RESIDUAL_COLOR = "#ff7f0e"
ROLES = ("input", "reconstruction", "residual", "healthy")
CELL_LABELS = {
    "input": "input",
    "reconstruction": "reconstruction",
    "residual": "residual map",
    "healthy": "healthy original",
}
"""The name of each cell's image layer: what the cell shows, written in its corner (the
case is the panel's; "residual map" does not take the name of a method called residual)."""


def _meta(view: ReconView, role: str) -> dict[str, Any]:
    return {RECON_KEY: {"role": role, "case": view.case, "scale": view.scale}}


def _grid(view: ReconView) -> dict[str, Any]:
    """Voxel size, axis labels and units: those of napari-mood's cases (one world)."""
    ndim = len(view.spacing)
    labels = {"axis_labels": AXIS_LABELS_3D} if ndim == len(AXIS_LABELS_3D) else {}
    return {"scale": view.spacing, "units": ("mm",) * ndim, **labels}


def _outline(view: ReconView, gt: np.ndarray, cell: str) -> LayerData:
    state = {
        "name": f"region ({CELL_LABELS[cell]})", "colormap": gt_colormap(), "opacity": 1.0,
        "metadata": _meta(view, "region"), **_grid(view),
    }  # fmt: skip
    return gt, state, "labels"


def recon_layer_data(view: ReconView, *, threshold: float = 0.5) -> list[LayerData]:
    """Return the layers of one case in grid order (no napari import).

    Cells: input | reconstruction | residual | healthy; with an anomaly region each cell
    holds its image and then the region's outline (one uint8 array shared by the four
    outline layers, no copy), so :func:`grid_stride` is 2.
    """
    grey = {"colormap": "gray", "contrast_limits": display_range(view.healthy), **_grid(view)}
    residual = {
        "colormap": method_colormap(RESIDUAL_COLOR), "contrast_limits": threshold_limits(threshold),
        "blending": "translucent", **_grid(view),
    }  # fmt: skip
    looks = {"input": grey, "reconstruction": grey, "residual": residual, "healthy": grey}
    arrays = {
        "input": view.scan, "reconstruction": view.recon, "residual": view.scores,
        "healthy": view.healthy,
    }  # fmt: skip
    images: list[LayerData] = [
        (
            arrays[role],
            {**looks[role], "name": CELL_LABELS[role], "metadata": _meta(view, role)},
            "image",
        )
        for role in ROLES
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

    Other layers of the viewer are hidden (they would take grid cells) and stay above the
    case's layers in the list, so each cell holds one image and its outline; every image
    names itself in its cell's corner. Returns the layers added.
    """
    from napari.layers import Layer

    _remove_previous(viewer)
    for layer in viewer.layers:
        layer.visible = False
    added = []
    for index, data in enumerate(recon_layer_data(view, threshold=threshold)):
        layer = Layer.create(*data)
        viewer.layers.insert(index, layer)  # from the bottom: cells group layers by index
        if data[2] == "labels":
            layer.contour = 1
            layer.editable = False
        else:
            layer.name_overlay.visible = True
        added.append(layer)
    viewer.canvas.grid.stride = grid_stride(view)
    viewer.canvas.grid.shape = (1, 4)
    viewer.canvas.grid.enabled = True
    _centre_on(viewer, view)
    return added


def _centre_on(viewer: Any, view: ReconView) -> None:
    """Show the volume's middle slice, centred and filling its cells.

    Hidden layers of another extent (a case of napari-mood) still count for napari's
    point and ``reset_view``: the point may lie outside the volume and the volume be a
    speck in a view fitted to them.
    """
    middle = [(n - 1) / 2 * step for n, step in zip(view.scan.shape, view.spacing, strict=True)]
    for axis in viewer.dims.not_displayed:
        viewer.dims.set_point(axis, middle[axis])
    viewer.reset_view()
    world = viewer.layers.extent.world
    shown = list(viewer.dims.displayed)
    fitted = min(
        (world[1][a] - world[0][a]) / (view.scan.shape[a] * view.spacing[a]) for a in shown
    )
    if fitted > 1.01:  # the view was fitted to a larger extent than the volume's
        camera = viewer.scene.camera
        camera.zoom = camera.zoom * fitted
        camera.center = tuple(middle[a] for a in shown)
