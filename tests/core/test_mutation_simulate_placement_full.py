"""Where a simulated anomaly goes (core.simulate.placement): rules the full mutation run left open.

Pins, against hand-worked values and the docstrings: the messages of as_scan, avoid_of,
check_center, choose_center, make_region_mask, resolve_size and to_unit_range word for word;
the documented dtypes (boolean body and avoid masks, float32 unit scans); the documented edge
cases (an empty avoid is None, an empty or constant scan, a size below one voxel); and how a
centre is chosen (inside the box bounds, GAP voxels clear of earlier anomalies, preferably
deeper than the radius inside the body, a sphere reaching its radius and a cube its half
diagonal).
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.simulate import add_cube, add_sphere, make_region_mask, to_unit_range
from napari_mood.core.simulate.placement import as_scan, avoid_of, body_of, choose_center

SEEDS = range(20)


def _message(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    return str(excinfo.value)


# as_scan


def test_an_empty_scan_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        as_scan(np.zeros((0, 3)))
    assert _message(excinfo) == "scan is empty"


def test_a_one_voxel_scan_is_a_scan():
    # one voxel is not empty: it comes back as it is
    assert as_scan(np.array([[0.5]])).tolist() == [[0.5]]


def test_a_scan_above_one_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        as_scan(np.array([[0.0, 1.5]]))
    assert _message(excinfo) == (
        "scan values must lie in [0, 1] (found 0 .. 1.5); rescale first, e.g. scan / scan.max()"
    )


# body_of and avoid_of


def test_a_given_body_mask_comes_back_boolean():
    body = body_of(np.zeros((2, 2)), np.array([[0, 2], [1, 0]], dtype=np.uint8))
    assert body.dtype == bool and body.tolist() == [[False, True], [True, False]]


def test_a_given_avoid_mask_comes_back_boolean():
    avoid = avoid_of(np.zeros((2, 2)), np.array([[0, 2], [1, 0]], dtype=np.uint8))
    assert avoid is not None
    assert avoid.dtype == bool and avoid.tolist() == [[False, True], [True, False]]


def test_an_empty_avoid_mask_is_none():
    assert avoid_of(np.zeros((3, 3)), np.zeros((3, 3), dtype=bool)) is None


def test_an_avoid_mask_of_another_shape_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        avoid_of(np.zeros((3, 3)), np.ones((2, 2), dtype=bool))
    assert _message(excinfo) == "avoid shape (2, 2) differs from scan shape (3, 3)"


# check_center (through make_region_mask)


def test_a_centre_one_past_the_last_voxel_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        make_region_mask((3, 3), (3, 0), 1)
    assert _message(excinfo) == "center (3, 0) lies outside the scan of shape (3, 3)"


# choose_center


def test_without_room_the_message_names_the_reach_and_the_shape():
    # a radius-2 sphere needs rows and columns 2 .. n-3: none in a 4x4 scan
    with pytest.raises(ValueError) as excinfo:
        add_sphere(np.full((4, 4), 0.5), size=2, seed=0)
    assert _message(excinfo) == (
        "no room for an anomaly reaching 2 voxels from its centre in a scan of shape (4, 4); "
        "use a smaller size or count"
    )


def test_a_centre_exactly_radius_plus_gap_from_an_earlier_anomaly_is_refused():
    # the box bounds leave only (0, 3); it is 3 = radius 1 + GAP 2 from the earlier voxel (0, 0),
    # and the rule is "farther than radius + GAP"
    avoid = np.zeros((1, 12), dtype=bool)
    avoid[0, 0] = True
    with pytest.raises(ValueError) as excinfo:
        choose_center(
            (1, 12), (0, 3), (0, 8), 1.0, np.ones((1, 12), bool), avoid, np.random.default_rng(0)
        )
    assert _message(excinfo) == (
        "no room for an anomaly reaching 1 voxels from its centre in a scan of shape (1, 12) "
        "away from the earlier anomalies; use a smaller size or count"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_a_centre_clear_of_earlier_anomalies_still_fits_its_box(seed):
    # box bounds (2, 2) in 5x5 leave only (2, 2), which is sqrt(8) = 2.83 > 0.5 + GAP from (0, 0)
    avoid = np.zeros((5, 5), dtype=bool)
    avoid[0, 0] = True
    rng = np.random.default_rng(seed)
    center = choose_center((5, 5), (2, 2), (2, 2), 0.5, np.ones((5, 5), bool), avoid, rng)
    assert center == (2, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_centre_lies_farther_than_the_radius_inside_the_body(seed):
    # body: columns 1..7 of a 1x9 row; distances to the outside are 1 2 3 4 3 2 1, so only
    # column 4 is farther than radius 3 (column 3 and 5 are exactly 3)
    body = np.ones((1, 9), bool)
    body[0, [0, 8]] = False
    rng = np.random.default_rng(seed)
    assert choose_center((1, 9), (0, 0), (0, 0), 3.0, body, None, rng) == (0, 4)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_centre_outside_the_body_still_fits_its_box(seed):
    # the box bounds leave only column 8; the body (columns 0..2) cannot hold it, so the
    # centre falls back to the allowed voxels, never to a body voxel outside the bounds
    body = np.zeros((1, 9), bool)
    body[0, :3] = True
    rng = np.random.default_rng(seed)
    assert choose_center((1, 9), (0, 8), (0, 0), 5.0, body, None, rng) == (0, 8)


def test_with_a_body_covering_the_scan_every_voxel_of_the_box_bounds_can_be_the_centre():
    # the bounds leave row 0, columns 0..2; a whole-scan body prefers none of them
    body = np.ones((9, 9), bool)
    centres = {
        choose_center((9, 9), (0, 0), (8, 6), 2.0, body, None, np.random.default_rng(seed))
        for seed in range(30)
    }
    assert centres == {(0, 0), (0, 1), (0, 2)}


# place_region (through add_sphere and add_cube)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sphere_keeps_its_radius_plus_gap_from_earlier_anomalies(seed):
    # size 2 in 5x7: row 2, columns 2..4; distances from (0, 0): 2.83, 3.61, 4.47.
    # A sphere reaches 2, so it needs > 2 + GAP = 4: only (2, 4).
    avoid = np.zeros((5, 7), dtype=bool)
    avoid[0, 0] = True
    anomaly = add_sphere(np.full((5, 7), 0.5), size=2, avoid=avoid, seed=seed)
    assert anomaly.center == (2, 4)


def test_a_cube_keeps_its_half_diagonal_plus_gap_from_earlier_anomalies():
    # a cube of half side 2 reaches 2 * sqrt(2) = 2.83, so it needs > 4.83: no column 2..4 has it
    avoid = np.zeros((5, 7), dtype=bool)
    avoid[0, 0] = True
    with pytest.raises(ValueError, match=r"^no room for an anomaly reaching 2\.82843 voxels"):
        add_cube(np.full((5, 7), 0.5), size=2, avoid=avoid, seed=0)


# make_region_mask


def test_the_default_region_is_a_sphere():
    # radius 1 around (2, 2): the centre and its 4 edge neighbours
    expected = np.zeros((5, 5), bool)
    expected[2, 1:4] = expected[1:4, 2] = True
    np.testing.assert_array_equal(make_region_mask((5, 5), (2, 2), 1), expected)


def test_an_unknown_region_is_refused_naming_the_argument():
    with pytest.raises(ValueError) as excinfo:
        make_region_mask((5, 5), (2, 2), 1, region="ball")  # type: ignore[arg-type]
    assert _message(excinfo) == "region must be one of 'sphere', 'cube'; got 'ball'"


def test_a_negative_region_size_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        make_region_mask((5, 5), (2, 2), -1)
    assert _message(excinfo) == "size must be a non-negative number of voxels, got -1"


# resolve_size (through add_sphere)


def test_a_size_range_of_one_voxel_gives_size_one():
    # the only integer in [1, 1] is 1
    anomaly = add_sphere(np.full((5, 5), 0.5), size_range=(1, 1), seed=0)
    assert anomaly.size == 1.0


def test_a_size_range_starting_at_zero_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        add_sphere(np.full((5, 5), 0.5), size_range=(0, 2), seed=0)
    assert _message(excinfo) == "size_range must satisfy 0 < low <= high, got (0, 2)"


def test_a_zero_size_is_refused_with_the_documented_message():
    with pytest.raises(ValueError) as excinfo:
        add_sphere(np.full((5, 5), 0.5), size=0, seed=0)
    assert _message(excinfo) == "size must be a positive number of voxels, got 0"


def test_a_size_below_one_voxel_is_a_positive_size():
    # radius 0.5: only the centre voxel lies within it
    anomaly = add_sphere(np.full((5, 5), 0.5), center=(2, 2), size=0.5, intensity=1.0)
    assert anomaly.size == 0.5
    assert np.argwhere(anomaly.mask).tolist() == [[2, 2]]


# to_unit_range


def test_non_finite_voxels_are_counted_in_the_message():
    # 2 NaN, +inf and -inf: 2 infinite; the 2 finite voxels are not counted
    scan = np.array([[np.nan, np.nan, np.inf], [-np.inf, 0.5, 0.25]])
    with pytest.raises(ValueError) as excinfo:
        to_unit_range(scan)
    assert _message(excinfo) == (
        "holds 2 NaN and 2 infinite voxels: simulating needs finite intensities"
    )


def test_an_empty_scan_is_constant_and_not_rescaled():
    found = to_unit_range(np.zeros((0, 3)))
    assert found.constant is True and found.rescaled_from is None
    assert found.data.shape == (0, 3)


@pytest.mark.parametrize("scan", [np.array([[0.0, 0.5]]), np.array([[0, 1]], dtype=np.uint8)])
def test_unit_scans_are_float32(scan):
    found = to_unit_range(scan)
    assert found.data.dtype == np.float32 and found.rescaled_from is None


def test_a_scan_from_zero_is_already_in_the_unit_range():
    found = to_unit_range(np.array([[0.0, 0.5]]))
    assert found.rescaled_from is None and found.data.tolist() == [[0.0, 0.5]]


def test_a_scan_reaching_one_is_already_in_the_unit_range():
    found = to_unit_range(np.array([[0.25, 1.0]]))
    assert found.rescaled_from is None and found.data.tolist() == [[0.25, 1.0]]


def test_a_scan_above_one_is_rescaled():
    # (x - 0.5) / (2 - 0.5): 0.5 -> 0, 1.25 -> 0.5, 2 -> 1
    found = to_unit_range(np.array([[0.5, 1.25, 2.0]]))
    assert found.rescaled_from == (0.5, 2.0) and found.data.tolist() == [[0.0, 0.5, 1.0]]


def test_a_constant_unit_scan_is_reported_constant():
    found = to_unit_range(np.full((2, 2), 0.5))
    assert found.constant is True and found.rescaled_from is None


def test_a_constant_scan_out_of_range_becomes_float32_zeros_of_its_shape():
    found = to_unit_range(np.full((2, 3), 7.0))
    assert found.data.dtype == np.float32 and found.data.shape == (2, 3)
    assert not found.data.any()
