"""core.orientation.orientable: a damaged affine is recognised, a sound one is not refused."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.orientation import display_transform, orientable


def _with(row: int, col: int, value: float) -> np.ndarray:
    affine = np.diag([2.0, 3.0, 4.0, 1.0])
    affine[row, col] = value
    return affine


@pytest.mark.parametrize(
    "affine",
    [_with(0, 0, np.nan), _with(1, 3, np.inf), _with(2, 2, -np.inf), _with(1, 1, 0.0)],
    ids=["nan", "inf-offset", "minus-inf", "zero-column"],
)
def test_a_damaged_affine_is_not_orientable_and_display_transform_says_so(affine):
    assert orientable(affine) is False
    with pytest.raises(ValueError) as raised:
        display_transform((3, 4, 5), affine)
    assert str(raised.value) == (
        "the affine gives no direction to every grid axis (NaN or infinite values, or a "
        "zero column): the header is damaged"
    )


def test_sound_affines_are_orientable_oblique_flipped_or_permuted():
    theta = np.deg2rad(20)
    oblique = np.eye(4)
    oblique[:2, :2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    permuted = np.array([[0, 0, 1.0, 0], [-1.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 0, 1]])
    for affine in (np.eye(4), np.diag([-1.0, 1, -2, 1]), oblique, permuted):
        assert orientable(affine) is True
        assert orientable(affine.tolist()) is True  # any array-like


def test_only_the_grids_axes_need_a_direction():
    no_third = np.diag([1.0, 1.0, 0.0, 1.0])
    assert (orientable(no_third, 2), orientable(no_third, 3)) == (True, False)
    no_first = np.diag([0.0, 1.0, 1.0, 1.0])
    assert (orientable(no_first, 1), orientable(no_first, 2)) == (False, False)
    assert orientable(no_third) is False  # three axes by default


def test_a_matrix_that_is_not_4_by_4_is_not_an_affine():
    assert orientable(np.eye(3)) is False
    assert orientable(np.eye(5)[:4]) is False


def test_a_2d_grid_is_shown_whatever_its_affines_third_column_says():
    # a 2-D NIfTI may carry a zero third column: only the grid's two axes need a direction
    shown = display_transform((3, 4), np.diag([1.0, 2.0, 0.0, 1.0]))
    assert shown.display_shape == (4, 3) and shown.spacing == (2.0, 1.0)
