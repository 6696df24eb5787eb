"""The marks each plane view draws on top of its layers: the crosshair and the letters.

:class:`~napari_mood._napari.planes.LinkedPlanes` links the views (one point, cameras,
sliders, layers); this module owns what each view marks on its canvas:

* the crosshair: a vectors layer (role :data:`CROSSHAIR_ROLE`) of one line along each
  displayed axis through the point, :data:`CROSSHAIR_PIXELS` wide on screen, on the
  case's voxel grid and on top of the layer list;
* the orientation letters: a text overlay at each of the four edges
  (:data:`LETTER_POSITIONS`), drawn in every cell of napari's grid, whose letters
  :func:`view_letters` derives from the one orientation rule.

Qt-free.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.looks import CROSSHAIR_COLOR
from napari_mood.services.display import edge_letters, screen_flips
from napari_mood.services.options import Convention

__all__ = [
    "CROSSHAIR_PIXELS",
    "CROSSHAIR_ROLE",
    "LETTER_COLOR",
    "LETTER_POSITIONS",
    "add_letters",
    "crosshair",
    "cross_lines",
    "ensure_crosshair",
    "is_crosshair",
    "remove_letters",
    "screen_width",
    "set_letters",
    "to_data",
    "view_letters",
]

CROSSHAIR_ROLE = "crosshair"

LETTER_POSITIONS = ("top_center", "bottom_center", "middle_left", "middle_right")
_LETTER_KEYS = tuple(f"napari_mood_letter_{p}" for p in LETTER_POSITIONS)
LETTER_COLOR = CROSSHAIR_COLOR


def view_letters(row_axis: int, col_axis: int, convention: Convention) -> tuple[str, ...]:
    """Letters at the (top, bottom, left, right) edges of a view of these axes."""
    flip_rows, flip_cols = screen_flips(row_axis, col_axis, convention=convention)
    return edge_letters(row_axis, col_axis, flip_rows=flip_rows, flip_cols=flip_cols)


CROSSHAIR_PIXELS = 1.5
"""Crosshair line width on screen (napari's line widths are in world units, mm)."""


def screen_width(model: Any, pixels: float) -> float:
    """Return the world width that is ``pixels`` screen pixels at the model's zoom."""
    return pixels / max(float(model.scene.camera.zoom), 1e-6)


def cross_lines(model: Any) -> np.ndarray:
    """Return the crosshair as napari vectors ``(n, 2, ndim)``: a start and its span per line.

    One line along each displayed axis, through the point, across the whole range.
    """
    point = np.asarray(model.dims.point, dtype=float)
    lines = []
    for axis in model.dims.displayed:
        low, high, _ = model.dims.range[axis]
        start, span = point.copy(), np.zeros_like(point)
        start[axis], span[axis] = low, high - low
        lines.append(np.stack([start, span]))
    return np.asarray(lines).reshape(len(lines), 2, point.size)


def to_data(layer: Any, lines: np.ndarray) -> np.ndarray:
    """World vectors (start, span) in ``layer``'s data coordinates (its scale, translate)."""
    scale = np.asarray(layer.scale, dtype=float)
    translate = np.asarray(layer.translate, dtype=float)
    return np.stack([(lines[:, 0] - translate) / scale, lines[:, 1] / scale], axis=1)


def _follow_grid(crosshair: Any, model: Any, mirrored: Callable[[Any], bool]) -> None:
    """Put the crosshair on the case's voxel grid (the first layer ``mirrored`` accepts).

    The crosshair on the case's voxel grid (scale, translate): a layer with a finer
    grid would make napari's sliders step by it (1 mm steps over 2 mm slices).
    """
    reference = next((layer for layer in model.layers if mirrored(layer)), None)
    if reference is None or reference.ndim != crosshair.ndim:
        return
    if not np.array_equal(crosshair.scale, reference.scale):
        crosshair.scale = reference.scale
    if not np.array_equal(crosshair.translate, reference.translate):
        crosshair.translate = reference.translate


def is_crosshair(layer: Any) -> bool:
    """Whether ``layer`` is a plane view's crosshair."""
    info = getattr(layer, "metadata", {}).get(METADATA_KEY)
    return isinstance(info, dict) and info.get("role") == CROSSHAIR_ROLE


def crosshair(model: Any) -> Any | None:
    """Return ``model``'s crosshair layer, or ``None``."""
    return next((layer for layer in model.layers if is_crosshair(layer)), None)


def ensure_crosshair(model: Any, mirrored: Callable[[Any], bool]) -> None:
    """Add a crosshair layer on top of ``model`` (it shows a volume).

    ``mirrored`` tells the case's layers: the crosshair follows their voxel grid.
    """
    layer = crosshair(model)
    if layer is None:
        active = model.layers.selection.active
        units = _units_of(model)
        layer = model.add_vectors(  # lines only: no text or markers visuals to build
            ndim=model.dims.ndim,
            vector_style="line",
            name="crosshair",
            edge_color=CROSSHAIR_COLOR,
            edge_width=1.0,
            opacity=0.8,
            blending="translucent_no_depth",
            metadata={METADATA_KEY: {"role": CROSSHAIR_ROLE}},
            **({"units": units} if units else {}),
        )
        layer.editable = False
        model.layers.selection.active = active
    _follow_grid(layer, model, mirrored)
    top = len(model.layers) - 1
    index = model.layers.index(layer)
    if index != top:
        model.layers.move(index, top + 1)


def _units_of(model: Any) -> tuple[str, ...] | None:
    for layer in model.layers:
        if crosshair(model) is not layer and getattr(layer, "units", None) is not None:
            return tuple(str(u) for u in layer.units)
    return None


def add_letters(model: Any) -> None:
    """Add the four (empty) edge letters to ``model``'s canvas."""
    from napari.components.overlays import TextOverlay

    for key, position in zip(_LETTER_KEYS, LETTER_POSITIONS, strict=True):
        model.canvas.overlays[key] = TextOverlay(  # gridded: in every cell of napari's grid
            position=position,
            visible=True,
            font_size=14,
            color=LETTER_COLOR,
            text="",
            box=True,  # dims the crosshair under the letter (an "S" read "$")
            box_color=(0.0, 0.0, 0.0, 0.6),
            gridded=True,
        )


def set_letters(model: Any, letters: Sequence[str]) -> None:
    """Show ``letters`` at the (top, bottom, left, right) edges of ``model``'s canvas."""
    for key, text in zip(_LETTER_KEYS, letters, strict=True):
        overlay = model.canvas.overlays.get(key)
        if overlay is not None:
            overlay.text = text


def remove_letters(model: Any) -> None:
    """Remove the edge letters from ``model``'s canvas."""
    for key in _LETTER_KEYS:
        if key in model.canvas.overlays:
            del model.canvas.overlays[key]
