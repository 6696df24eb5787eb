"""core.recon against hand-worked values and scikit-image (survivors of the full mutation run).

Each test pins a rule no other test pinned: the words of every case problem (a user reads
them), masks read as masks whatever their integer values, the documented float32 / float64
results, and the edges (an axis of exactly the SSIM window, negative residuals).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from skimage.metrics import structural_similarity

from napari_mood.core.recon import (
    CaseProblem,
    brain_mask_problem,
    check_recon_case,
    healthy_data_range,
    non_finite_voxels,
    recon_metrics,
    residual_map,
    residual_scale,
    residual_scores,
    ssim_map,
)

OK = np.arange(1.0, 9.0)


@pytest.mark.parametrize(
    ("healthy", "brain", "expected"),
    [
        (
            OK,
            np.zeros(8),
            CaseProblem("brain", "is empty: no voxel is nonzero", "give a mask of the brain"),
        ),
        (
            -OK,  # not all zero, but no voxel above 0
            None,
            CaseProblem(
                "healthy",
                "has no voxel above 0: no brain mask (its voxels above 0)",
                "check it, or give a brain mask",
            ),
        ),
        (
            np.zeros(8),
            None,
            CaseProblem(
                "healthy",
                "is all zero: no brain mask (its voxels above 0)",
                "check it, or give a brain mask",
            ),
        ),
        (
            np.full(8, 2.5),
            None,
            CaseProblem(
                "healthy",
                "is constant (2.5) inside the brain mask",
                "PSNR and SSIM need a healthy original whose values vary",
            ),
        ),
    ],
)
def test_a_case_problem_word_for_word(healthy, brain, expected):
    assert check_recon_case(OK, healthy, OK, brain=brain) == expected


def test_a_non_finite_array_is_named_with_its_hint_word_for_word():
    recon = OK.copy()
    recon[3] = np.nan
    assert check_recon_case(OK, OK, recon) == CaseProblem(
        "recon", "holds 1 NaN voxel", "no finite metric with it: fix or re-create the file"
    )


def test_a_brain_of_one_voxel_is_constant_not_an_error():
    # one healthy voxel above 0: its range is 0 (the value shown is that voxel's)
    healthy = np.array([0.0, 0.0, 3.0, 0.0])
    found = check_recon_case(healthy, healthy, healthy)
    assert found is not None and found.problem == "is constant (3) inside the brain mask"


@pytest.mark.parametrize(
    ("mask", "expected"),
    [
        (np.zeros(4), "is empty: no voxel is nonzero"),
        (
            np.array([0.0, 1.0, 2.0, 3.0, 4.0]),  # four values: no ellipsis
            "is not a binary mask: it holds 4 values besides 0 (1, 2, 3, 4)",
        ),
        (
            np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),  # five values: the first four, then ...
            "is not a binary mask: it holds 5 values besides 0 (1, 2, 3, 4, ...)",
        ),
    ],
)
def test_a_brain_mask_problem_word_for_word(mask, expected):
    assert brain_mask_problem(mask) == expected


def test_three_kinds_of_non_finite_voxels_are_listed_in_order():
    data = np.array([np.nan, np.inf, -np.inf, np.nan, 1.0])
    assert non_finite_voxels(data) == "holds 2 NaN, 1 +inf and 1 -inf voxels"


@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
@pytest.mark.parametrize("on", [1, 255])
def test_an_integer_brain_mask_is_a_mask_not_indices(dtype, on):
    healthy = np.array([5.0, 1.0, 3.0])
    brain = np.array([0, on, on], dtype=dtype)
    # inside: voxels 1 and 2 -> max 3 - min 1 = 2 (as indices, [0, 1, 1] would give 5 - 1)
    assert healthy_data_range(healthy, brain) == 2.0
    # residuals inside: (1, 3); 0.999-quantile by hand: 1 + 0.999 * (3 - 1) = 2.998
    assert residual_scale(healthy, brain) == pytest.approx(2.998, abs=1e-12)
    # scores: clip(r / 4, 0, 1) inside, 0 outside (a 0/255 mask must not multiply them)
    scores = residual_scores(healthy, brain, scale=4.0)
    np.testing.assert_array_equal(scores, np.array([0.0, 0.25, 0.75], dtype=np.float32))


def test_the_data_range_is_taken_in_float64():
    # float16 holds 0.5 and 2048 exactly, but not 2047.5 (float16 would give 2048)
    healthy = np.array([0.5, 2048.0], dtype=np.float16)
    assert healthy_data_range(healthy, np.ones(2, bool)) == 2047.5


def test_an_empty_brain_range_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^the brain mask is empty$"):
        healthy_data_range(np.ones(3), np.zeros(3, bool))


def test_an_empty_mask_gives_nan_metrics_and_keeps_the_data_range():
    found = recon_metrics(np.zeros((8, 8)), np.ones((8, 8)), np.zeros((8, 8), bool), data_range=2)
    assert all(math.isnan(v) for v in (found.mse, found.mae, found.psnr, found.ssim))
    assert (found.n_voxels, found.data_range) == (0, 2.0)


def test_a_zero_data_range_keeps_mse_mae_and_the_count():
    recon = np.zeros((8, 8))
    recon[0, :4] = 0.5  # 4 voxels of 64 differ by 0.5
    found = recon_metrics(np.zeros((8, 8)), recon, np.ones((8, 8), bool), data_range=0)
    # mse = 4 * 0.25 / 64 = 1/64; mae = 4 * 0.5 / 64 = 1/32
    assert (found.mse, found.mae, found.n_voxels, found.data_range) == (1 / 64, 1 / 32, 64, 0.0)
    assert math.isnan(found.psnr) and math.isnan(found.ssim)


def test_the_residual_map_is_float32_and_shapes_are_checked_word_for_word():
    found = residual_map(np.array([1, 5], dtype=np.uint8), np.array([3.0, 2.0]))
    assert found.dtype == np.float32 and found.tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match=r"^shapes differ: \(2,\) and \(3,\)$"):
        residual_map(np.zeros(2), np.zeros(3))


def test_scores_are_float32_in_zero_one_whatever_the_residual():
    brain = np.ones(3, bool)
    zero = residual_scores(np.ones(3), brain, scale=0.0)
    assert zero.dtype == np.float32 and not zero.any()
    found = residual_scores(np.array([-1.0, 1.0, 9.0]), brain, scale=3.0)
    assert found.dtype == np.float32
    np.testing.assert_array_equal(found, np.array([0.0, 1 / 3, 1.0], dtype=np.float32))


def test_scores_are_divided_in_float64():
    # 1 / 3 in float16 is 0.33325..., in float64 then float32 0.33333334
    found = residual_scores(np.ones(1, np.float16), np.ones(1, bool), scale=3.0)
    assert found[0] == np.float32(1 / 3)


def test_a_bad_scale_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^scale must be a non-negative number, got -1\.0$"):
        residual_scores(np.ones(2), np.ones(2, bool), scale=-1.0)


def test_an_axis_of_exactly_the_ssim_window_is_measured():
    rng = np.random.default_rng(1)
    a, b = rng.random((7, 9)), rng.random((7, 9))
    _, expected = structural_similarity(a, b, data_range=1.0, full=True)
    np.testing.assert_array_equal(ssim_map(a, b, data_range=1.0), expected)


def test_ssim_is_computed_in_float64_whatever_the_input_dtype():
    rng = np.random.default_rng(2)
    a, b = rng.random((9, 9)).astype(np.float32), rng.random((9, 9)).astype(np.float32)
    # scikit-image computes in its first image's float type: give it float64 copies
    _, expected = structural_similarity(
        a.astype(np.float64), b.astype(np.float64), data_range=1.0, full=True
    )
    found = ssim_map(a, b, data_range=1.0)
    assert found.dtype == np.float64
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)


def test_ssim_shapes_are_checked_word_for_word():
    with pytest.raises(ValueError, match=r"^shapes differ: \(8, 8\) and \(8, 9\)$"):
        ssim_map(np.zeros((8, 8)), np.zeros((8, 9)), data_range=1.0)
