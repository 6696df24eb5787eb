"""Colours only the viewer draws: object outcomes, two methods' difference, the crosshair, tools.

The colours shared with figures (methods, ground truth, boxes) live in
:mod:`napari_mood.services.looks`; these were chosen against them (no GT or method colour is
near).
"""

from __future__ import annotations

__all__ = ["CROSSHAIR_COLOR", "DIFFERENCE_COLORS", "MEASURE_COLORS", "OBJECT_COLORS"]

OBJECT_COLORS: tuple[tuple[str, str], ...] = (
    ("TP", "#ffffff"),  # white
    ("FP", "#ff1f1f"),  # red
    ("FN", "#00ffff"),  # cyan
)
"""Matched (TP), false (FP) and missed (FN) objects: no GT or method colour is near."""
DIFFERENCE_COLORS: tuple[tuple[str, str], ...] = (
    ("A only", "#ffffff"),  # white
    ("B only", "#00ffff"),  # cyan
    ("both", "#ff1f1f"),  # red
)
"""Two methods' difference: not the colour of either method, nor the GT's."""
CROSSHAIR_COLOR = "#ffd400"
"""The three planes' crosshair and orientation letters (yellow, as FSLeyes and ITK-SNAP)."""
MEASURE_COLORS: dict[str, str] = {
    "ruler": "#ffa8d8",  # pink (a line with its length: rarely over a map)
    "roi": "#8fd3ff",  # sky blue (an outline around a map's region: far from every map)
}
"""The reading tools' ruler and ROI outlines: apart from every object outcome (a white ROI
read as a matched object, a cyan-green ruler as a missed one), the GT, the crosshair and the
methods."""
