"""Napari's grid with one cell per method of a session (Qt-free; used by the compare widget).

napari's grid (``viewer.canvas.grid``) with one cell per method. Each cell holds four
layers, bottom to top: the scan, the method's map at its threshold, the ground-truth
outline and the method's colour bar; with ``stride`` = 4 napari puts each consecutive
group of four layers in one cell. The first cell uses the session's own scan and GT
layers; the other cells get helper copies that SHARE the data arrays (no copy) and are
linked to the originals (contrast, colormap, opacity; outline / fill), so a change made
on the original shows in every cell. Every method layer shows its name in its cell.

The colour bar reads the score scale 0..1, not napari's contrast limits (a binary map at
its best threshold has limits 0.9998-1.0008, which napari's own bar would print): it is
the bar of a one-point helper layer drawn with opacity 0
(:class:`~napari_mood._napari.score_legend.ScoreLegend`), showing
for each score the colour the map draws it in, nothing below the threshold. The grid
shares dims and camera: one slice, one zoom. Leaving the grid removes the helpers and restores
the layer order, the visibility of every layer (methods keep the visibility set by their
toggles), the overlays, the grid settings and the selection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from napari_mood._napari.helper_layers import keep_read_only
from napari_mood._napari.score_legend import ScoreLegend, legend_colors
from napari_mood._napari.session import MoodSession

__all__ = [
    "CELL_OVERLAYS",
    "COMPARE_KEY",
    "CompareGrid",
    "grid_shape",
    "helper_metadata",
    "legend_colors",
]

#: Metadata key of the layers the grid and the difference add (the session ignores them).
COMPARE_KEY = "napari_mood_compare"
SCAN_LINKS = ("contrast_limits", "gamma", "colormap", "opacity")
GT_LINKS = ("contour", "opacity")
#: How a method's name and colorbar are shown in its grid cell (restored on leaving).
CELL_OVERLAYS: dict[str, dict[str, Any]] = {
    "name_overlay": {"visible": True, "font_size": 11},
}
LEGEND_BAR: dict[str, Any] = {
    "visible": True,
    "size": (14.0, 90.0),
    "font_size": 8.0,
    "tick_length": 3.0,
}
"""The colour bar of each cell (a legend helper's ``face_colorbar``)."""


def helper_metadata(role: str, method: str | None = None) -> dict[str, dict[str, Any]]:
    return {COMPARE_KEY: {"role": role, "method": method}}


def _copy_layer(layer: Any, *, name: str, role: str, method: str) -> Any:
    """Return a layer showing the same array as ``layer`` (no array copy), marked as a helper."""
    from napari.layers import Layer

    data, state, kind = layer.as_layer_data_tuple()
    state.update(name=name, metadata=helper_metadata(role, method))
    copy = Layer.create(data, state, kind)
    if hasattr(layer, "contour"):
        copy.contour = layer.contour
        keep_read_only(copy)  # a GT copy shares the GT's array: never painted
    return copy


@dataclass
class _SavedView:
    """What entering the grid changes, to put it back exactly."""

    order: list[Any]
    visible: dict[int, bool]
    grid: tuple[bool, tuple[int, int], int]
    overlays: dict[int, dict[str, dict[str, Any]]]
    active: Any


@dataclass(frozen=True)
class _Cell:
    """One cell of the comparison grid.

    The method's layer between its scan and GT (either may be absent),
    and its colour bar on top.
    """

    method: str
    layer: Any
    layers: tuple[Any, ...]
    legend: Any


class CompareGrid:
    """Napari's grid with one cell per method of a session (no Qt).

    Parameters
    ----------
    viewer : napari.Viewer
    session : MoodSession
        The session whose scan, ground truth and methods are shown.
    """

    def __init__(self, viewer: Any, session: MoodSession) -> None:
        self._viewer = viewer
        self._session = session
        self._cells: list[_Cell] = []
        self._copies: list[Any] = []
        self._links: list[tuple[list[Any], tuple[str, ...]]] = []
        self._legends: list[ScoreLegend] = []
        self._saved: _SavedView | None = None
        self._base_visible: dict[int, bool] = {}

    @property
    def enabled(self) -> bool:
        """Whether the grid is shown."""
        return self._saved is not None

    @property
    def cells(self) -> dict[str, tuple[Any, ...]]:
        """Layers of each method's cell, bottom to top (empty when the grid is off)."""
        return {cell.method: cell.layers for cell in self._cells}

    @property
    def helpers(self) -> tuple[Any, ...]:
        """The helper copies of the scan and GT added for the grid."""
        return tuple(self._copies)

    @property
    def legends(self) -> dict[str, Any]:
        """The colour-bar helper of each method's cell (empty when the grid is off)."""
        return {cell.method: cell.legend for cell in self._cells}

    def enter(self) -> None:
        """Show the grid (rebuilt when it is already shown).

        Raises
        ------
        ValueError
            When the session holds no method.
        """
        if self.enabled:
            self.leave()
        if not self._session.methods:
            raise ValueError("no method map is loaded: open a dataset or method maps first")
        layers = self._viewer.layers
        self._saved = _SavedView(
            order=list(layers),
            visible={id(layer): layer.visible for layer in layers},
            grid=self._grid_state(),
            overlays={id(m.layer): _overlay_state(m.layer) for m in self._session.methods},
            active=layers.selection.active,
        )
        self._build_cells()
        self._arrange()
        self._show_grid()
        self._viewer.reset_view()  # every cell shows the whole slice (no Home needed)
        layers.selection.active = self._cells[0].layer  # not the last helper added

    def leave(self) -> None:
        """Return to the overlay view: helpers removed, order / visibility / grid restored."""
        saved = self._saved
        if saved is None:
            return
        self._viewer.canvas.grid.enabled = False
        for layers, attributes in self._links:
            self._viewer.layers.unlink_layers(layers, attributes)
        for legend in self._legends:
            legend.remove()
        method_layers = {id(cell.layer) for cell in self._cells}
        for copy in self._copies:
            if copy in self._viewer.layers:
                self._viewer.layers.remove(copy)
        self._restore(saved, method_layers)
        self._cells, self._copies, self._links, self._saved = [], [], [], None
        self._legends = []
        self._base_visible = {}

    def set_method_visible(self, name: str, visible: bool) -> None:
        """Show or hide a method (in the grid: its whole cell, and the grid is re-shaped)."""
        layer = self._session.method(name).layer
        cell = next((c for c in self._cells if c.method == name), None)
        if cell is None:
            layer.visible = visible
            return
        self._show_cell(cell, visible)
        self._viewer.canvas.grid.shape = self._shape()

    def _show_cell(self, cell: _Cell, shown: bool) -> None:
        """Show or hide one grid cell's layers and colour bar.

        Show the method, its colour bar and, if they were shown before the grid, its
        scan and GT.
        """
        for layer in cell.layers:
            layer.visible = shown and (layer is cell.layer or self._base_visible[id(layer)])
        cell.legend.visible = shown

    # -- building -------------------------------------------------------------------

    def _grid_state(self) -> tuple[bool, tuple[int, int], int]:
        grid = self._viewer.canvas.grid
        return grid.enabled, tuple(grid.shape), grid.stride  # type: ignore[return-value]

    def _build_cells(self) -> None:
        scan, gt = self._session.scan_layer, self._session.gt_layer
        scans, gts = [scan] if scan is not None else [], [gt] if gt is not None else []
        originals = scans[:], gts[:]
        for index, method in enumerate(self._session.methods):
            below, above = originals
            if index:
                below = [self._copy(layer, "scan", method.name) for layer in originals[0]]
                above = [self._copy(layer, "gt", method.name) for layer in originals[1]]
                scans.extend(below)
                gts.extend(above)
            legend = self._legend(method.name, method.layer)
            self._cells.append(
                _Cell(method.name, method.layer, (*below, method.layer, *above), legend)
            )
        for group, attributes in ((scans, SCAN_LINKS), (gts, GT_LINKS)):
            if len(group) > 1:
                self._viewer.layers.link_layers(group, attributes)
                self._links.append((group, attributes))

    def _copy(self, layer: Any, role: str, method: str) -> Any:
        copy = _copy_layer(layer, name=f"{layer.name} [{method}]", role=role, method=method)
        self._viewer.add_layer(copy)
        self._copies.append(copy)
        return copy

    def _legend(self, method: str, layer: Any) -> Any:
        """Return a one-point layer drawn with opacity 0, for its colour bar over scores 0..1."""
        legend = ScoreLegend(
            self._viewer,
            layer,
            name=f"{method} colour bar",
            metadata=helper_metadata("legend", method),
            bar=LEGEND_BAR,
        )
        self._legends.append(legend)
        return legend.layer

    def _arrange(self) -> None:
        """Cells first (bottom of the layer list), every other layer after them, hidden."""
        in_cells = [layer for cell in self._cells for layer in (*cell.layers, cell.legend)]
        ids = {id(layer) for layer in in_cells}
        others = [layer for layer in self._viewer.layers if id(layer) not in ids]
        _reorder(self._viewer.layers, in_cells + others)
        for layer in others:
            layer.visible = False
        self._base_visible = {id(layer): layer.visible for layer in in_cells}  # copies: as orig.
        for cell in self._cells:
            self._show_cell(cell, cell.layer.visible)
            _set_overlays(cell.layer, CELL_OVERLAYS)

    def _show_grid(self) -> None:
        grid = self._viewer.canvas.grid
        grid.stride = len(self._cells[0].layers) + 1  # and the colour bar
        grid.shape = self._shape()
        grid.enabled = True

    def _shape(self) -> tuple[int, int]:
        shown = sum(1 for cell in self._cells if any(layer.visible for layer in cell.layers))
        return grid_shape(max(shown, 1), canvas=self._canvas_size(), cell=self._cell_size())

    def _canvas_size(self) -> tuple[float, float]:
        height, width = self._viewer.canvas.size
        return float(max(height, 1)), float(max(width, 1))

    def _cell_size(self) -> tuple[float, float]:
        extent = self._viewer.layers.extent.world
        rows, cols = self._viewer.dims.displayed[-2:]
        height = float(extent[1][rows] - extent[0][rows])
        width = float(extent[1][cols] - extent[0][cols])
        return max(height, 1e-6), max(width, 1e-6)

    # -- restoring ------------------------------------------------------------------

    def _restore(self, saved: _SavedView, method_layers: set[int]) -> None:
        layers = self._viewer.layers
        kept = [layer for layer in saved.order if layer in layers]
        kept_ids = {id(layer) for layer in kept}
        _reorder(layers, kept + [layer for layer in layers if id(layer) not in kept_ids])
        for layer in kept:
            if id(layer) not in method_layers:
                layer.visible = saved.visible[id(layer)]
        for layer in kept:
            if id(layer) in saved.overlays:
                _set_overlays(layer, saved.overlays[id(layer)])
        grid = self._viewer.canvas.grid
        grid.shape, grid.stride = saved.grid[1], saved.grid[2]
        grid.enabled = saved.grid[0]
        if saved.active in layers:
            layers.selection.active = saved.active


def _overlay_state(layer: Any) -> dict[str, dict[str, Any]]:
    """Return the settings of a layer's overlays that :data:`CELL_OVERLAYS` changes."""
    return {
        overlay: {key: getattr(getattr(layer, overlay), key) for key in settings}
        for overlay, settings in CELL_OVERLAYS.items()
    }


def _set_overlays(layer: Any, state: dict[str, dict[str, Any]]) -> None:
    for overlay, settings in state.items():
        for key, value in settings.items():
            setattr(getattr(layer, overlay), key, value)


def _reorder(layers: Any, order: list[Any]) -> None:
    """Move ``layers`` (a napari LayerList) into ``order`` (the same layers)."""
    for target, layer in enumerate(order):
        current = layers.index(layer)
        if current != target:
            layers.move(current, target)


def grid_shape(
    n_cells: int, *, canvas: tuple[float, float], cell: tuple[float, float]
) -> tuple[int, int]:
    """Rows and columns of a grid showing ``n_cells`` images as large as possible.

    ``canvas`` and ``cell`` are (height, width): the canvas in pixels and one image in
    any unit (only its aspect ratio matters). Ties prefer fewer rows.

    Examples
    --------
    >>> grid_shape(3, canvas=(600, 1800), cell=(100, 100))
    (1, 3)
    >>> grid_shape(4, canvas=(800, 800), cell=(100, 100))
    (2, 2)
    """
    if n_cells < 1:
        raise ValueError(f"n_cells must be >= 1, got {n_cells}")
    height, width = canvas
    cell_h, cell_w = cell
    if min(height, width, cell_h, cell_w) <= 0:
        raise ValueError("canvas and cell sizes must be positive")

    def zoom(rows: int) -> float:
        cols = math.ceil(n_cells / rows)
        return min(height / rows / cell_h, width / cols / cell_w)

    rows = max(range(1, n_cells + 1), key=lambda r: (zoom(r), -r))
    return rows, math.ceil(n_cells / rows)
