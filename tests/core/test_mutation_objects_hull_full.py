"""core.objects.hull: the rules the full mutation run left open, pinned against hand-worked values.

Each GT hull's bounding box spans its own object's voxel corners (not the rest of the GT
crop), also when the GT crop does not start at the volume's origin; the corner points
of a 2x2 square are its four outer corners, doubled; and in_hull's slack is inclusive on the
box bounds as on the facets: a point exactly HULL_TOLERANCE outside a face of a one-voxel hull
is inside.
"""

from __future__ import annotations

import numpy as np

from napari_mood.core.objects.components import find_components
from napari_mood.core.objects.hull import (
    HULL_TOLERANCE,
    build_hull,
    build_hulls,
    corner_points,
    in_hull,
)


def test_each_gt_hull_spans_its_own_objects_voxel_corners():
    # two 2x2 squares at rows/cols 2-3 and 6-7; the GT crop starts at (2, 2).
    # voxel corners lie half a voxel outside: 1.5..3.5 and 5.5..7.5 on both axes
    gt = np.zeros((9, 9), dtype=bool)
    gt[2:4, 2:4] = True
    gt[6:8, 6:8] = True
    first, second = build_hulls(find_components(gt, "full"))
    assert first.lo.tolist() == [1.5, 1.5]
    assert first.hi.tolist() == [3.5, 3.5]
    assert second.lo.tolist() == [5.5, 5.5]
    assert second.hi.tolist() == [7.5, 7.5]


def test_the_corner_points_of_a_2x2_square_are_its_four_corners():
    # voxels 0..1 per axis: corners at -0.5 and 1.5, doubled -1 and 3
    points = corner_points(np.ones((2, 2), dtype=bool))
    assert points.tolist() == [[-1, -1], [-1, 3], [3, -1], [3, 3]]


def test_a_point_exactly_the_tolerance_outside_a_face_is_inside():
    # the voxel at the origin spans -0.5..0.5; a point HULL_TOLERANCE beyond its low or high
    # face is within the slack (its facet value rounds to 9.9999997e-10 <= 1e-9): inside
    hull = build_hull(np.ones((1, 1), dtype=bool), np.array([0, 0]))
    points = np.array([[-0.5 - HULL_TOLERANCE, 0.0], [0.5 + HULL_TOLERANCE, 0.0], [0.0, 0.0]])
    assert in_hull(hull, points).tolist() == [True, True, True]
