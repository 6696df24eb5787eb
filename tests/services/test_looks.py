"""services.looks and _napari.looks: the colours of GT, methods, objects, differences and the crosshair."""

from __future__ import annotations

import itertools
import math

from napari_mood._napari.looks import (
    CROSSHAIR_COLOR,
    DIFFERENCE_COLORS,
    MEASURE_COLORS,
    OBJECT_COLORS,
)
from napari_mood.services.looks import GT_COLOR, METHOD_COLORS, rgb


def test_object_difference_gt_and_method_colours_never_collide():
    """TP / FP / FN, the difference, the GT, the crosshair and every method: far apart."""
    fixed = [GT_COLOR, CROSSHAIR_COLOR, *(c for _, c in OBJECT_COLORS)]
    for group in ([c for _, c in OBJECT_COLORS], [c for _, c in DIFFERENCE_COLORS], fixed):
        for a, b in itertools.combinations(group, 2):
            assert math.dist(rgb(a), rgb(b)) > 0.35, (a, b)
    for method in METHOD_COLORS:
        for other in [*fixed, *(c for _, c in DIFFERENCE_COLORS)]:
            assert math.dist(rgb(method), rgb(other)) > 0.35, (method, other)
    for a, b in itertools.combinations(METHOD_COLORS, 2):
        assert math.dist(rgb(a), rgb(b)) > 0.35, (a, b)


def test_ruler_and_roi_colours_are_apart_from_every_outcome_gt_and_method_colour():
    """A ROI outline never reads as a matched object, a ruler never as a missed one."""
    others = [
        GT_COLOR,
        CROSSHAIR_COLOR,
        *(c for _, c in OBJECT_COLORS),
        *(c for _, c in DIFFERENCE_COLORS),
        *METHOD_COLORS,
    ]
    for tool in MEASURE_COLORS.values():
        for other in others:
            assert math.dist(rgb(tool), rgb(other)) > 0.35, (tool, other)
    ruler, roi = MEASURE_COLORS["ruler"], MEASURE_COLORS["roi"]
    assert math.dist(rgb(ruler), rgb(roi)) > 0.35
