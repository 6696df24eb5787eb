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

The grid fills the canvas (:func:`fit_grid`): of 1 x 4, 2 x 2 and 4 x 1 cells, the shape
that shows the slice largest, zoomed so that the body (the healthy original's bounding
box over all slices) fills its cell under the cell's title, whose font shrinks until "healthy original" fits the cell's width; it fits again
when the canvas is resized. The outlines of the region are read-only (never a paint
tool, whatever the keys or a 2-D/3-D switch), and the residual map is the selected layer.

Layers carry ``metadata[RECON_KEY]`` (never the session's ``napari_mood`` entry), so the
plugin's session ignores them; :func:`show_reconstruction` replaces the layers of a
previous call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood._napari.helper_layers import keep_read_only
from napari_mood._napari.layers import AXIS_LABELS_3D, LayerData, gt_colormap
from napari_mood.services.display import display_range
from napari_mood.services.looks import method_colormap
from napari_mood.services.options import threshold_limits
from napari_mood.services.recon import ReconView

__all__ = [
    "CELL_LABELS",
    "RECON_KEY",
    "RESIDUAL_COLOR",
    "GridFit",
    "fit_grid",
    "grid_fit",
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
GRID_SHAPES = ((1, 4), (2, 2), (4, 1))
"""The grid shapes tried: the one that shows the slice largest is used."""
TITLE_PT = 10.0
"""The cells' titles (napari's name overlay) at most this size; smaller when a cell is narrow."""
_PX_PER_CHAR_PT = 0.95  # a title's width in pixels per character and point (DejaVu Sans, wide)
_TITLE_BAND = 2.6  # height of the band kept for the title, in font points
_FILL = 0.96  # share of the room under the title the slice fills
_FOLLOWED: weakref.WeakSet[Any] = weakref.WeakSet()  # viewers whose canvas size is followed


def _meta(view: ReconView, role: str) -> dict[str, Any]:
    info = {"role": role, "case": view.case, "scale": view.scale}
    if role == "input":  # where the grid's fit finds the body (see fit_grid)
        info["body_mm"] = _body_mm(view)
    return {RECON_KEY: info}


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


@dataclass(frozen=True)
class GridFit:
    """How the four cells fill a canvas: grid shape (rows, columns), zoom, title size."""

    shape: tuple[int, int]
    zoom: float
    title_pt: float
    title_px: float


def grid_fit(
    canvas: tuple[float, float], extent_mm: tuple[float, float], *, spacing: float = 0.0
) -> GridFit:
    """Return the grid shape and zoom that show a slice largest on ``canvas`` (height, width).

    Each cell keeps a band on top for its title (its font shrinks to fit the cell's width,
    down to 6 pt); the slice (``extent_mm``, height and width in mm) fills the room under it.

    Examples
    --------
    >>> grid_fit((929, 544), (100.0, 80.0)).shape  # a tall canvas: 2 x 2, not 1 x 4
    (2, 2)
    >>> grid_fit((400, 1600), (100.0, 80.0)).shape
    (1, 4)
    """
    longest = max(len(label) for label in CELL_LABELS.values())
    best: GridFit | None = None
    for rows, cols in GRID_SHAPES:
        cell_h = (canvas[0] - spacing * (rows - 1)) / rows
        cell_w = (canvas[1] - spacing * (cols - 1)) / cols
        title_pt = max(6.0, min(TITLE_PT, (cell_w - 12) / (_PX_PER_CHAR_PT * longest)))
        band = _TITLE_BAND * title_pt
        zoom = _FILL * min(cell_w / extent_mm[1], (cell_h - band) / extent_mm[0])
        if best is None or zoom > best.zoom:
            best = GridFit((rows, cols), max(zoom, 1e-6), title_pt, band)
    assert best is not None
    return best


def show_reconstruction(viewer: Any, view: ReconView, *, threshold: float = 0.5) -> list[Any]:
    """Add the case's layers (replacing earlier ones) and show them in a grid filling the canvas.

    Other layers of the viewer are hidden (they would take grid cells) and stay above the
    case's layers in the list, so each cell holds one image and its outline; every image
    names itself in its cell's corner; the outlines are read-only and the residual map is
    selected. The grid's shape and zoom: :func:`fit_grid`. Returns the layers added.
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
            layer.mode = "pan_zoom"
            keep_read_only(layer)  # napari turns editing back on (new data, 2-D/3-D)
        else:
            layer.name_overlay.visible = True
        added.append(layer)
    viewer.layers.selection.active = next(
        layer for layer in added if layer.metadata[RECON_KEY]["role"] == "residual"
    )  # not an outline: no Labels layer under the keys
    viewer.canvas.grid.stride = grid_stride(view)
    viewer.canvas.grid.enabled = True
    _centre_on(viewer, view)
    fit_grid(viewer)
    _follow_canvas_size(viewer)
    return added


def fit_grid(viewer: Any) -> GridFit | None:
    """Lay the reconstruction's cells out to fill the canvas (:func:`grid_fit`); None: none shown.

    The body of the healthy original (its bounding box over all slices, a margin around
    it) is centred in each cell under the cell's title and fills the cell.
    """
    scan = next((layer for layer in viewer.layers if _role(layer) == "input"), None)
    if scan is None or not viewer.canvas.grid.enabled or viewer.dims.ndisplay != 2:
        return None
    shown = list(viewer.dims.displayed)
    body = scan.metadata[RECON_KEY]["body_mm"]  # set by recon_layer_data
    extent = tuple(float(body[a][1] - body[a][0]) for a in shown)
    grid = viewer.canvas.grid
    gap = float(grid.spacing) if grid.spacing >= 1 else 0.0
    fit = grid_fit(tuple(float(v) for v in viewer.canvas.size), extent, spacing=gap)  # type: ignore[arg-type]
    if tuple(grid.shape) != fit.shape:
        grid.shape = fit.shape
    for layer in viewer.layers:
        if _role(layer) in ROLES:
            layer.name_overlay.font_size = fit.title_pt
    camera = viewer.scene.camera
    camera.zoom = fit.zoom
    centre = [(body[a][0] + body[a][1]) / 2 for a in shown]
    centre[-2] -= fit.title_px / 2 / fit.zoom  # the slice sits under the title band
    camera.center = tuple(centre)
    return fit


def _body_mm(view: ReconView) -> tuple[tuple[float, float], ...]:
    """World range (mm) of the healthy original's body along each axis (whole volume: none)."""
    ranges = view.body or tuple((0, n - 1) for n in view.scan.shape)
    return tuple(
        ((low - 0.5) * step, (high + 0.5) * step)
        for (low, high), step in zip(ranges, view.spacing, strict=True)
    )


def _role(layer: Any) -> str | None:
    info = layer.metadata.get(RECON_KEY)
    return info.get("role") if isinstance(info, dict) else None


def _follow_canvas_size(viewer: Any) -> None:
    """Fit the grid again whenever the canvas is resized (once per viewer)."""
    if viewer in _FOLLOWED:
        return
    _FOLLOWED.add(viewer)
    viewer.canvas.events.size.connect(lambda event=None: fit_grid(viewer))


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
