"""Display order <-> file grid <-> scanner mm: the numbers the status bar and centroids print.

Expectations come from plain numpy indexing, nibabel's ``apply_affine`` and hand-worked
cases, never from the transform's own inverse.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from nibabel.affines import apply_affine

from napari_mood.core.orientation import display_transform

SHAPE = (4, 5, 6)
AFFINES = {
    "RAS": np.diag([2.0, 1.0, 3.0, 1.0]),
    "LAS, shifted": np.array(
        [[-2.0, 0, 0, 10.0], [0, 1.0, 0, -20.0], [0, 0, 3.0, 5.0], [0, 0, 0, 1.0]]
    ),
    "axes permuted (S, R, P)": np.array(
        [[0, 1.5, 0, -3.0], [0, 0, -1.0, 7.0], [2.0, 0, 0, 1.0], [0, 0, 0, 1.0]]
    ),
}


def _grid() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.int64).reshape(SHAPE)


@pytest.mark.parametrize("name", AFFINES)
def test_every_display_voxel_maps_to_the_file_voxel_holding_its_value(name):
    transform = display_transform(SHAPE, AFFINES[name])
    shown = transform.to_display(_grid())
    assert shown.shape == transform.display_shape
    for display in itertools.product(*(range(n) for n in shown.shape)):
        file_index = transform.display_to_file_index(np.array(display))
        assert file_index.dtype == np.float64
        assert _grid()[tuple(int(v) for v in file_index)] == shown[display]


@pytest.mark.parametrize("name", AFFINES)
def test_to_file_gives_back_the_file_array(name):
    transform = display_transform(SHAPE, AFFINES[name])
    shown = transform.to_display(_grid())
    back = transform.to_file(shown)
    assert back.shape == SHAPE
    np.testing.assert_array_equal(back, _grid())
    assert np.shares_memory(back, shown)  # a view, no copy


@pytest.mark.parametrize("name", AFFINES)
def test_world_coordinates_are_nibabels(name):
    affine = AFFINES[name]
    transform = display_transform(SHAPE, affine)
    rng = np.random.default_rng(3)
    display = rng.uniform(0, 3.5, size=(7, 3))  # fractional points too
    file_index = transform.display_to_file_index(display)
    np.testing.assert_allclose(
        transform.file_index_to_world(file_index), apply_affine(affine, file_index)
    )
    np.testing.assert_allclose(
        transform.display_index_to_world(display), apply_affine(affine, file_index)
    )


def test_a_hand_worked_las_case():
    """File axis 0 runs to the patient's left (x = -2 i + 10): shown flipped, R increasing."""
    transform = display_transform(SHAPE, AFFINES["LAS, shifted"])
    assert transform.perm == (2, 1, 0)  # display S, A, R = file k, j, i
    assert transform.flip == (False, True, True)  # A decreases on screen; file i runs to L
    assert transform.spacing == (3.0, 1.0, 2.0)
    # display (0, 0, 0): lowest S, highest A (top row), patient's rightmost column
    np.testing.assert_array_equal(transform.display_to_file_index(np.zeros(3)), [3.0, 4.0, 0.0])
    np.testing.assert_allclose(transform.display_index_to_world(np.zeros(3)), [4.0, -16.0, 5.0])
    # fractional display coordinates flip about the voxel centres: 0.25 -> size - 1.25
    np.testing.assert_allclose(
        transform.display_to_file_index(np.array([0.5, 0.25, 1.75])), [1.25, 3.75, 0.5]
    )


def test_points_keep_their_leading_shape():
    transform = display_transform(SHAPE, AFFINES["axes permuted (S, R, P)"])
    points = np.zeros((2, 3, 3))
    assert transform.display_to_file_index(points).shape == (2, 3, 3)
    assert transform.display_index_to_world(points).shape == (2, 3, 3)


def test_a_2d_point_gets_a_zero_third_coordinate():
    affine = np.array([[0.5, 0, 0, 1.0], [0, 2.0, 0, -1.0], [0, 0, 1.0, 4.0], [0, 0, 0, 1.0]])
    transform = display_transform((8, 9), affine)
    np.testing.assert_allclose(transform.file_index_to_world(np.array([2.0, 3.0])), [2.0, 5.0, 4.0])


def test_to_display_refuses_another_grid():
    transform = display_transform(SHAPE, AFFINES["RAS"])
    with pytest.raises(ValueError, match=r"differs from the scan grid \(4, 5, 6\)"):
        transform.to_display(np.zeros((4, 5, 7)))


@pytest.mark.parametrize(
    ("up", "right", "letters"),
    [
        ((1, 0, 0), (0, 0, 1), ("S", "I", "L", "R")),  # coronal from the front, neurological
        ((1, 0, 0), (0, 0, -1), ("S", "I", "R", "L")),  # radiological
        ((0, -1, 0), (0, 0, 1), ("A", "P", "L", "R")),  # from above
        ((0.6, 0.8, 0), (0, 0, -1), ("P", "A", "R", "L")),  # oblique: the nearest axis wins
    ],
)
def test_facing_letters_name_each_edge_after_the_nearest_axis(up, right, letters):
    from napari_mood.core.orientation import facing_letters

    assert facing_letters(up, right) == letters


@pytest.mark.parametrize("bad", [(0, 0, 0), (1, 0), (np.nan, 1, 0)])
def test_facing_letters_refuse_a_direction_that_is_none(bad):
    from napari_mood.core.orientation import facing_letters

    with pytest.raises(ValueError, match="direction"):
        facing_letters(bad, (0, 0, 1))
