"""How napari-mood layers look and how they are recognised (imports neither napari nor Qt).

Every layer napari-mood creates carries ``metadata["napari_mood"]``::

    {"role": "scan" | "gt" | "method", "case": str, "method": str | None,
     "path": str | None, "dataset": str | None, "color": str | None}

The session recognises layers by this entry only, never by their names.

Display of a method's map: an Image with ``translucent`` blending whose colormap runs from
transparent (at 0) through a dark, then full, then light tint of the method's colour.
The display threshold is the layer's lower contrast limit: contrast limits are
``(threshold, 1)``, so voxels at or below the threshold map to the transparent end and
the colour ramp spans ``(threshold, 1]``. Changing the threshold changes two numbers on
the GPU: no array is copied and no colormap is created.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "AXIS_LABELS_3D",
    "DEFAULT_THRESHOLD",
    "GT_COLOR",
    "GT_FILL_OPACITY",
    "METADATA_KEY",
    "METHOD_COLORS",
    "METHOD_OPACITY",
    "Role",
    "gt_colormap",
    "layer_info",
    "method_colormap",
    "mood_metadata",
    "threshold_limits",
]

METADATA_KEY = "napari_mood"
Role = Literal["scan", "gt", "method"]
ROLES: tuple[str, ...] = ("scan", "gt", "method")
DEFAULT_THRESHOLD = 0.5
GT_COLOR = "#33ff33"
METHOD_COLORS: tuple[str, ...] = (
    "#ff7a1a",  # orange
    "#2f8fff",  # blue
    "#ff33d6",  # magenta
    "#ffe01a",  # yellow
    "#a066ff",  # violet
    "#1ae0d0",  # teal
)
METHOD_OPACITY = 0.85
AXIS_LABELS_3D: tuple[str, ...] = ("axial", "coronal", "sagittal")  # planes the sliders pick
GT_FILL_OPACITY = 0.5
_TOP_MARGIN = 1e-3


def _rgb(color: str) -> tuple[float, float, float]:
    value = color.lstrip("#")
    return tuple(int(value[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def method_colormap(color: str) -> dict[str, Any]:
    """Return the colormap of a method drawn in ``color`` (a ``#rrggbb`` string).

    The dict is accepted wherever napari takes a colormap (it becomes a
    ``napari.utils.Colormap`` registered once under its name).

    Examples
    --------
    >>> method_colormap("#ff0000")["colors"][0]
    [0.0, 0.0, 0.0, 0.0]
    """
    r, g, b = _rgb(color)
    dark = [0.55 * r, 0.55 * g, 0.55 * b, 1.0]
    light = [r + 0.7 * (1 - r), g + 0.7 * (1 - g), b + 0.7 * (1 - b), 1.0]
    return {
        "name": f"napari-mood {color.lower()}",
        "colors": [[0.0, 0.0, 0.0, 0.0], dark, [r, g, b, 1.0], light],
        "controls": [0.0, 0.002, 0.5, 1.0],
    }


def gt_colormap() -> dict[Any, str]:
    """Return the direct label colormap of a ground truth (label 1 in :data:`GT_COLOR`)."""
    return {0: "transparent", 1: GT_COLOR, None: "transparent"}


def threshold_limits(threshold: float) -> tuple[float, float]:
    """Return the contrast limits that show scores above ``threshold``.

    Examples
    --------
    >>> threshold_limits(0.5)
    (0.5, 1.0)
    """
    value = float(threshold)
    return value, max(1.0, value + _TOP_MARGIN)


def mood_metadata(
    role: Role,
    *,
    case: str,
    path: Path | None,
    dataset: Path | None = None,
    method: str | None = None,
    color: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Return the ``metadata`` of a napari-mood layer."""
    info = {
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
