"""A ruler's length in mm and an ROI's statistics, against numpy by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.measure import line_length, roi_statistics, roi_voxels


def test_a_ruler_follows_the_voxel_spacing_of_each_axis():
    # 3 voxels along an axis of 2 mm, 4 along one of 0.5 mm: sqrt(6^2 + 2^2)
    assert line_length((1, 0, 0), (1, 3, 4), spacing=(9.0, 2.0, 0.5)) == pytest.approx(
        math.sqrt(40)
    )


def test_a_ruler_ignores_the_sign_of_a_flipped_axis_and_its_direction():
    forward = line_length((0, 0), (3, 4), spacing=(1.0, -1.0))
    assert forward == line_length((3, 4), (0, 0), spacing=(1.0, 1.0)) == 5.0


def test_a_ruler_needs_one_spacing_per_axis():
    with pytest.raises(ValueError, match="one value per axis"):
        line_length((0, 0, 0), (1, 1, 1), spacing=(1.0, 1.0))


def _box(z, r0, c0, r1, c1):
    return np.array([[z, r0, c0], [z, r0, c1], [z, r1, c1], [z, r1, c0]], float)


def test_a_box_holds_the_voxels_whose_centres_it_covers():
    mask = np.zeros((4, 6, 8), bool)
    corners = _box(2.2, 1.5, 2.5, 4.5, 6.5)
    mask[roi_voxels(corners, mask.shape, kind="rectangle", plane_axes=(1, 2))] = True
    expected = np.zeros_like(mask)
    expected[2, 2:5, 3:7] = True  # slice 2 (nearest), rows 2..4, columns 3..6
    assert np.array_equal(mask, expected)


def test_an_ellipse_holds_the_centres_inside_it():
    corners = _box(0, 0, 0, 8, 8)  # centre (4, 4), radius 4
    shape = (1, 9, 9)
    found = np.zeros(shape, bool)
    found[roi_voxels(corners, shape, kind="ellipse", plane_axes=(1, 2))] = True
    r, c = np.mgrid[0:9, 0:9]
    assert np.array_equal(found[0], (r - 4) ** 2 + (c - 4) ** 2 <= 16)


def test_a_rotated_box_is_measured_along_its_own_edges():
    corners = np.array([[0, 0, 2], [0, 2, 4], [0, 4, 2], [0, 2, 0]], float)  # a diamond
    shape = (1, 5, 5)
    found = np.zeros(shape, bool)
    found[roi_voxels(corners, shape, kind="rectangle", plane_axes=(1, 2))] = True
    r, c = np.mgrid[0:5, 0:5]
    assert np.array_equal(found[0], np.abs(r - 2) + np.abs(c - 2) <= 2)


def test_an_roi_in_a_coronal_plane_fixes_the_other_axis():
    corners = np.array([[0.5, 3, 0.5], [0.5, 3, 1.5], [2.5, 3, 1.5], [2.5, 3, 0.5]])
    z, y, x = roi_voxels(corners, (4, 5, 3), kind="rectangle", plane_axes=(0, 2))
    assert set(y.tolist()) == {3} and sorted(zip(z.tolist(), x.tolist(), strict=True)) == [
        (1, 1),
        (2, 1),
    ]


@pytest.mark.parametrize(
    "corners",
    [
        _box(9, 1, 1, 3, 3),
        _box(1, 20, 20, 30, 30),
        _box(1, 1.2, 1.2, 1.8, 1.8),
        _box(1, 1, 1, 1, 3),
    ],
    ids=["slice off the array", "box off the array", "no voxel centre", "flat box"],
)
def test_an_roi_covering_no_voxel_is_empty_and_its_stats_are_nan(corners):
    shape = (4, 6, 6)
    voxels = roi_voxels(corners, shape, kind="rectangle", plane_axes=(1, 2))
    assert all(v.size == 0 for v in voxels)
    stats = roi_statistics({"m": np.ones(shape)}, voxels, thresholds={"m": 0.5})
    assert stats.n_voxels == 0 and math.isnan(stats.values[0].mean)
    assert math.isnan(stats.values[0].max) and stats.values[0].flagged == 0


def test_a_box_partly_off_the_array_is_clipped():
    voxels = roi_voxels(_box(0, -5, -5, 1, 1), (1, 3, 3), kind="rectangle", plane_axes=(1, 2))
    assert len(voxels[0]) == 4


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_roi_statistics_match_numpy_on_the_masked_values(dtype):
    rng = np.random.default_rng(3)
    scan = rng.normal(100, 20, size=(5, 7, 9))
    scores = rng.random((5, 7, 9)).astype(dtype)
    mask = np.zeros(scan.shape, bool)
    mask[2, 1:6, 2:8] = True
    stats = roi_statistics(
        {"scan": scan, "m": scores},
        mask,
        spacing=(3.0, 0.5, -2.0),
        plane_axes=(1, 2),
        thresholds={"m": 0.5},
    )
    assert stats.n_voxels == 30
    assert stats.area_mm2 == pytest.approx(30 * 0.5 * 2.0)
    assert stats.volume_mm3 == pytest.approx(30 * 3.0 * 0.5 * 2.0)
    scan_stats, map_stats = stats.values
    assert scan_stats.mean == pytest.approx(scan[mask].mean()) and scan_stats.flagged is None
    assert scan_stats.max == scan[mask].max()
    assert map_stats.mean == pytest.approx(scores[mask].astype(float).mean())
    assert map_stats.flagged == int(
        np.count_nonzero(scores[mask].astype(np.float16) >= np.float16(0.5))
    )


def test_index_arrays_and_a_bool_mask_give_the_same_statistics():
    scan = np.arange(60.0).reshape(3, 4, 5)
    mask = scan % 7 == 0
    by_mask = roi_statistics({"s": scan}, mask, spacing=(1, 1, 1))
    by_index = roi_statistics({"s": scan}, np.nonzero(mask), spacing=(1, 1, 1))
    assert by_mask == by_index
    assert by_mask.area_mm2 is None  # not drawn on a slice


def test_without_spacing_no_size_is_stated():
    stats = roi_statistics({"s": np.ones(3)}, np.array([True, False, True]))
    assert (stats.n_voxels, stats.volume_mm3, stats.area_mm2) == (2, None, None)


def test_an_array_on_another_grid_is_refused_by_name():
    with pytest.raises(ValueError, match="wrong: shape"):
        roi_statistics({"ok": np.ones((2, 2)), "wrong": np.ones((3, 2))}, np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="must be bool"):
        roi_statistics({"ok": np.ones(2)}, np.ones(2, int))
