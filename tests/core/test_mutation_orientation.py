"""Display transforms and screen flips (core.orientation) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np

from napari_mood.core.orientation import DisplayTransform, display_transform, screen_flips


def test_a_2d_grid_has_a_display_transform():
    # identity affine: file axis 0 runs R, axis 1 A; display (A, R), A drawn decreasing
    t = display_transform((4, 5), np.eye(4))
    assert (t.perm, t.flip, t.spacing, t.display_shape) == (
        (1, 0),
        (True, False),
        (1.0, 1.0),
        (5, 4),
    )


def test_left_right_rows_flip_with_the_convention():
    assert screen_flips(2, 1, convention="neurological") == (True, False)
    assert screen_flips(2, 1, convention="radiological") == (False, False)


def test_display_transform_to_and_from_plain_lists():
    t = display_transform((4, 5, 6), np.diag([2.0, 1.0, 3.0, 1.0]))
    values = t.to_dict()
    assert values == {
        "file_shape": [4, 5, 6],
        "perm": [2, 1, 0],
        "flip": [False, True, False],
        "spacing": [3.0, 1.0, 2.0],
        "affine": np.diag([2.0, 1.0, 3.0, 1.0]).tolist(),
    }
    back = DisplayTransform.from_dict(values)
    assert (back.file_shape, back.perm, back.flip, back.spacing) == (
        (4, 5, 6),
        (2, 1, 0),
        (False, True, False),
        (3.0, 1.0, 2.0),
    )
    assert all(type(v) is int for v in back.perm) and all(type(v) is bool for v in back.flip)
    np.testing.assert_array_equal(back.affine, np.diag([2.0, 1.0, 3.0, 1.0]))
