"""Slice choice and body crop (napari_mood.core.slices): each policy rule has a test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from napari_mood.core.slices import (
    CropBox,
    body_box,
    body_mask,
    choose_slice,
    highest_score_slice,
    largest_area_slice,
    mask_box,
)


def test_largest_area_slice_counts_voxels_per_axial_slice():
    mask = np.zeros((5, 6, 7), bool)
    mask[1, :2, :2] = True  # 4 voxels
    mask[3, 1:4, 1:3] = True  # 6 voxels
    assert largest_area_slice(mask) == 3


def test_largest_area_slice_ties_go_to_the_lowest_index():
    mask = np.zeros((4, 3, 3), bool)
    mask[2, 0, 0] = mask[1, 1, 1] = True
    assert largest_area_slice(mask) == 1


def test_largest_area_slice_of_an_empty_mask_is_none():
    assert largest_area_slice(np.zeros((3, 2, 2), bool)) is None


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_highest_score_slice_breaks_ties_by_score_sum(dtype):
    scores = np.zeros((4, 3, 3), dtype)
    scores[0, 0, 0] = 1.0
    scores[2, 0, 0] = 1.0
    scores[2, 1, :] = 0.5  # same peak as slice 0, larger sum
    scores[3, 0, 0] = 0.9
    assert highest_score_slice(scores) == 2


def test_highest_score_slice_treats_nan_as_zero():
    scores = np.zeros((3, 2, 2), np.float32)
    scores[0] = np.nan
    scores[1, 0, 0] = 0.2
    assert highest_score_slice(scores) == 1


def test_choose_slice_prefers_the_ground_truth_then_the_scores_then_the_middle():
    gt = np.zeros((6, 2, 2), bool)
    scores = np.zeros((6, 2, 2))
    scores[4, 0, 0] = 0.8
    assert choose_slice(None, None, 6) == 3
    assert choose_slice(gt, None, 6) == 3  # empty GT, no scores: middle
    assert choose_slice(gt, scores, 6) == 4  # normal case: highest score
    gt[1, 0, 0] = True
    assert choose_slice(gt, scores, 6) == 1  # anomaly: largest GT area


def test_volumes_must_be_3d():
    with pytest.raises(ValueError, match="3-D"):
        largest_area_slice(np.zeros((2, 2), bool))


def test_body_box_covers_the_body_of_every_slice_with_a_margin():
    scan = np.zeros((3, 20, 30), np.float32)
    scan[0, 5:8, 10:12] = 100.0
    scan[2, 9:12, 4:6] = 80.0
    box = body_box(scan, margin=2)
    assert box == CropBox((3, 14), (2, 14))
    assert box.shape == (11, 12)
    assert scan[1][box.slices].shape == (11, 12)


def test_body_box_margin_is_clipped_to_the_image():
    scan = np.zeros((8, 9), np.float32)
    scan[0:2, 7:9] = 1.0
    assert body_box(scan, margin=5) == CropBox((0, 7), (2, 9))


def test_body_box_ignores_faint_background():
    scan = np.full((10, 10), 1.0, np.float32)  # background noise at 1 % of the range
    scan[3:6, 4:7] = 100.0
    scan[0, 0] = 0.0
    assert body_box(scan, margin=0) == CropBox((3, 6), (4, 7))


@pytest.mark.parametrize("scan", [np.zeros((2, 5, 6)), np.full((5, 6), 3.0)])
def test_a_blank_scan_is_not_cropped(scan):
    assert body_box(scan) == CropBox((0, 5), (0, 6))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"level": 1.0}, "level"), ({"level": -0.1}, "level"), ({"margin": -1}, "margin")],
)
def test_body_box_checks_its_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        body_box(np.ones((4, 4)), **kwargs)


@given(arrays(np.float32, (3, 7, 9), elements=st.floats(0, 100, width=32)))
def test_body_box_holds_every_body_voxel(scan):
    box = body_box(scan, margin=0)
    low, high = float(scan.min()), float(np.percentile(scan, 99.5))
    if high <= low:
        return
    body = (scan > low + 0.05 * (high - low)).any(axis=0)
    inside = np.zeros_like(body)
    inside[box.slices] = True
    assert not (body & ~inside).any()


# --------------------------------------------------------------------------- other planes


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_slices_along_an_axis_equal_axis_0_of_the_moved_volume(axis):
    rng = np.random.default_rng(axis)
    mask = rng.random((5, 6, 7)) > 0.8
    scores = rng.random((5, 6, 7))
    moved_mask, moved_scores = np.moveaxis(mask, axis, 0), np.moveaxis(scores, axis, 0)
    assert largest_area_slice(mask, axis=axis) == largest_area_slice(moved_mask)
    assert highest_score_slice(scores, axis=axis) == highest_score_slice(moved_scores)
    assert choose_slice(mask, scores, mask.shape[axis], axis=axis) == choose_slice(
        moved_mask, moved_scores, moved_mask.shape[0]
    )


def test_coronal_choice_is_the_largest_coronal_area():
    gt = np.zeros((4, 6, 5), bool)
    gt[0, 2, :] = True  # 5 voxels in coronal slice 2
    gt[:, 4, 0] = True  # 4 voxels in coronal slice 4
    assert choose_slice(gt, None, 6, axis=1) == 2
    assert choose_slice(None, None, 5, axis=2) == 2  # middle of the sagittal axis


def test_slice_axis_must_exist():
    with pytest.raises(ValueError, match="axis"):
        largest_area_slice(np.zeros((2, 2, 2), bool), axis=3)


def test_body_mask_is_the_voxels_above_the_level():
    scan = np.array([[0.0, 4.0], [6.0, 100.0]])
    assert body_mask(scan, level=0.05).tolist() == [[False, False], [True, True]]
    assert not body_mask(np.full((3, 3, 3), 7.0)).any()  # blank: no body
    assert not body_mask(np.array([[np.nan, np.inf]])).any()


def test_mask_box_is_the_grown_bounding_box():
    mask = np.zeros((10, 12), bool)
    mask[3:5, 8:11] = True
    assert mask_box(mask, margin=2) == CropBox((1, 7), (6, 12))
    with pytest.raises(ValueError, match="2-D"):
        mask_box(np.zeros((2, 2, 2), bool))
