"""Hulls and run-length labels (core.objects) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np

from napari_mood.core.objects.hull import build_hull
from napari_mood.core.objects.runs import compact, concatenate_runs


def test_hull_box_spans_the_voxel_corners():
    # voxels at 5..6 (axis 0) and 7..9 (axis 1): corners from 4.5 to 6.5 and 6.5 to 9.5
    hull = build_hull(np.ones((2, 3), bool), np.array([5.0, 7.0]))
    np.testing.assert_array_equal(hull.lo, [4.5, 6.5])
    np.testing.assert_array_equal(hull.hi, [6.5, 9.5])


def test_concatenated_runs_keep_the_value_dtype():
    a = compact(np.array([[0, 0, 5, 5]], dtype=np.uint16), worth=np.inf)
    b = compact(np.array([[5, 0, 0, 0]], dtype=np.uint16), worth=np.inf)
    joined = concatenate_runs([a, b], (2, 4))
    assert joined.values.dtype == np.uint16
    assert joined.dense().tolist() == [[0, 0, 5, 5], [5, 0, 0, 0]]
