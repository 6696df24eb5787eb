"""The reading tools' layers: a ruler and an ROI, napari Shapes on a pane's slice.

Each is a Shapes layer on the scan's grid (its ``scale`` and ``translate``), so a shape's
vertices are the scan's voxel coordinates and lengths follow the voxel spacing. It lives
in the view it is drawn in (napari's canvas, or the coronal or sagittal view's model)
and is never copied into the other views: its ``metadata[METADATA_KEY]["role"]`` is
:data:`MEASURE_ROLE`, which the session and the side views leave alone. A ruler's lines
carry their length in mm as text (:func:`label_ruler`). Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.looks import MEASURE_COLORS
from napari_mood.services.reading_tools import ruler_length

__all__ = [
    "MEASURE_ROLE",
    "MeasureKind",
    "label_ruler",
    "length_texts",
    "make_measure_layer",
    "measure_kind",
    "spacing_of",
]

MEASURE_ROLE = "measure"
MeasureKind = Literal["ruler", "roi"]
LAYER_NAMES = {"ruler": "ruler (mm)", "roi": "ROI"}
EDGE_WIDTH = 0.6
"""In voxels: a thin line at every zoom napari-mood opens a case with."""


def spacing_of(layer: Any) -> tuple[float, ...]:
    """Return the voxel size in mm along each axis of a layer (its ``|scale|``)."""
    return tuple(abs(float(s)) for s in layer.scale)


def make_measure_layer(model: Any, reference: Any, kind: MeasureKind, *, pane: str) -> Any:
    """Add a ruler or ROI layer to ``model`` on ``reference``'s grid; return it.

    Parameters
    ----------
    model : napari ViewerModel
        The view it is drawn in.
    reference : napari layer
        The scan (its ``scale``, ``translate`` and number of axes).
    kind : {"ruler", "roi"}
    pane : str
        The pane's name, kept in the metadata (``"axial"``, ``"coronal"``, ...).
    """
    from napari.layers import Shapes

    text = None
    if kind == "ruler":
        text = {
            "string": "{length}",
            "color": MEASURE_COLORS["ruler"],
            "size": 11,
            "anchor": "upper_left",
            "translation": [0] * (reference.ndim - 2) + [-4, 4],
        }
    layer = Shapes(
        ndim=reference.ndim,
        scale=reference.scale,
        translate=reference.translate,
        units=reference.units,
        name=LAYER_NAMES[kind],
        edge_color=MEASURE_COLORS[kind],
        face_color="transparent",
        edge_width=EDGE_WIDTH,
        features={"length": np.array([], dtype=object)} if kind == "ruler" else None,
        text=text,
        metadata={METADATA_KEY: {"role": MEASURE_ROLE, "kind": kind, "pane": pane}},
    )
    layer.feature_defaults = {"length": ""} if kind == "ruler" else layer.feature_defaults
    model.layers.append(layer)
    return layer


def measure_kind(layer: Any) -> str | None:
    """Return ``"ruler"`` or ``"roi"`` of a reading-tool layer, else None."""
    info = getattr(layer, "metadata", {}).get(METADATA_KEY)
    if isinstance(info, dict) and info.get("role") == MEASURE_ROLE:
        return str(info.get("kind"))
    return None


def length_texts(lines: Sequence[np.ndarray], spacing: Sequence[float]) -> list[str]:
    """Return ``"12.3 mm"`` for each line (its first and last vertex; voxel coordinates).

    Examples
    --------
    >>> length_texts([np.array([[0, 0, 0], [0, 3, 4]])], (1.0, 1.0, 1.0))
    ['5.0 mm']
    """
    return [f"{ruler_length(line[0], line[-1], spacing):.1f} mm" for line in lines]


def label_ruler(layer: Any) -> None:
    """Write each line's length in mm into the ruler's text (its ``length`` feature)."""
    lines = [np.asarray(d) for d in layer.data]
    texts = length_texts(lines, spacing_of(layer))
    if list(layer.features.get("length", [])) != texts:
        layer.features = {"length": np.array(texts, dtype=object)}
        layer.text.refresh(layer.features)
        layer.refresh()
