"""core.simulate.pet_like: the rules the full mutation run left open, pinned by hand.

Pinned against hand-worked values, numpy's own Generator with the same seed, and the
docstrings: the box atlas's every boundary as documented (left is ``x < 0``, parietal
``-70 <= y < -20``, temporal ``|x| > 25``, ``y < 10``, ``z < 5``, deep ``z < -25`` and
``y < -40`` or ``|x| < 15``, ``-40 <= y < 10``, ``z < 25``) and its integer labels; the
PET-like scan's gain, its default noise of 0.02, noise drawn voxel by voxel and added, the
clip to [0, 1], and the blur seeing 0 outside the image; the toy template reconstruction's
given brain mask (also as 0/1 integers), its means taken in float64, and its message word
for word.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.simulate.pet_like import box_atlas, pet_like_scan, template_reconstruction


def _label_at(x: float, y: float, z: float) -> int:
    """The box-atlas label of one voxel whose centre is at world (x, y, z) mm."""
    affine = np.eye(4)
    affine[:3, 3] = (x, y, z)
    return int(box_atlas(np.ones((1, 1, 1), bool), affine)[0, 0, 0])


# --- box_atlas -------------------------------------------------------------------------


def test_x_equal_to_0_is_right():
    # "Left is x < 0": x = 0 in the frontal box (y = 20, z = 0, not deep) is right frontal, 2
    assert _label_at(0.0, 20.0, 0.0) == 2
    assert _label_at(-0.5, 20.0, 0.0) == 1


def test_parietal_starts_at_y_minus_70_included():
    # -70 <= y: (30, -70, 50) is above the temporal box (z >= 5), so right parietal, 4
    assert _label_at(30.0, -70.0, 50.0) == 4


def test_parietal_ends_before_y_minus_20():
    # y < -20: y = -20 is frontal (right: 2), y = -21 parietal (right: 4); z = 50 not temporal
    assert _label_at(30.0, -20.0, 50.0) == 2
    assert _label_at(30.0, -21.0, 50.0) == 4


def test_temporal_starts_beyond_abs_x_25():
    # |x| > 25: at y = -30, z = 0 |x| = 25 stays parietal (3 / 4), |x| = 26 is temporal (5 / 6)
    assert (_label_at(-25.0, -30.0, 0.0), _label_at(25.0, -30.0, 0.0)) == (3, 4)
    assert (_label_at(-26.0, -30.0, 0.0), _label_at(26.0, -30.0, 0.0)) == (5, 6)


def test_temporal_ends_before_y_10():
    # y < 10: (30, 10, 0) is right frontal, 2; (30, 9, 0) right temporal, 6
    assert _label_at(30.0, 10.0, 0.0) == 2
    assert _label_at(30.0, 9.0, 0.0) == 6


def test_temporal_ends_below_z_5():
    # z < 5: (30, 0, 5) is right frontal, 2; (30, 0, 4) right temporal, 6
    assert _label_at(30.0, 0.0, 5.0) == 2
    assert _label_at(30.0, 0.0, 4.0) == 6


def test_the_cerebellum_box_is_below_z_minus_25():
    # z < -25 and y < -40: at (30, -50) z = -25 stays right temporal (6), z = -26 is deep (9)
    assert _label_at(30.0, -50.0, -25.0) == 6
    assert _label_at(30.0, -50.0, -26.0) == 9


def test_the_cerebellum_box_is_behind_y_minus_40():
    # z < -25 and y < -40: at (30, ., -30) y = -40 and y = 0 stay right temporal (6), y = -41 deep
    assert _label_at(30.0, -40.0, -30.0) == 6
    assert _label_at(30.0, 0.0, -30.0) == 6
    assert _label_at(30.0, -41.0, -30.0) == 9


def test_the_central_deep_box_starts_at_y_minus_40():
    # -40 <= y: (0, -41, 0) is not deep but right parietal (x = 0 is right), 4
    assert _label_at(0.0, -41.0, 0.0) == 4


def test_the_central_deep_box_ends_before_y_10():
    # y < 10: (0, 10, 0) is right frontal, 2; (0, 9, 0) deep, 9
    assert _label_at(0.0, 10.0, 0.0) == 2
    assert _label_at(0.0, 9.0, 0.0) == 9


def test_the_central_deep_box_ends_below_z_25():
    # z < 25: (0, 0, 25) is right frontal, 2; (0, 0, 24) deep, 9
    assert _label_at(0.0, 0.0, 25.0) == 2
    assert _label_at(0.0, 0.0, 24.0) == 9


def test_the_atlas_holds_integer_labels():
    # "Integer labels of brain's shape"
    affine = np.diag([10.0, 10.0, 10.0, 1.0])
    affine[:3, 3] = (-50, -100, -30)
    atlas = box_atlas(np.ones((11, 16, 10), bool), affine)
    assert np.issubdtype(atlas.dtype, np.integer) and atlas.shape == (11, 16, 10)


# --- pet_like_scan ---------------------------------------------------------------------


def _uniform_t1(value: float, shape: tuple[int, ...] = (10, 10, 10)) -> np.ndarray:
    """A T1 of ``value`` inside, 0 on a one-voxel rim (outside the brain)."""
    t1 = np.zeros(shape)
    t1[(slice(1, -1),) * len(shape)] = value
    return t1


def test_the_gain_multiplies_the_uptake():
    # T1 0.72 maps to uptake 1.0 (a node of T1_TO_UPTAKE); gain 0.5, no blur, no noise: 0.5
    pet = pet_like_scan(_uniform_t1(0.72), (1.0, 1.0, 1.0), fwhm_mm=0.0, noise=0.0, gain=0.5)
    assert float(pet[5, 5, 5]) == 0.5 and float(pet[0, 0, 0]) == 0.0


def _expected_noisy(t1: np.ndarray, noise: float, seed: int) -> np.ndarray:
    # uptake of T1 0.5: 0.10 + (0.5 - 0.30) / (0.55 - 0.30) * (0.60 - 0.10) = 0.5
    draw = np.random.default_rng(seed).normal(0.0, noise, t1.shape)
    return np.clip(np.where(t1 > 0, 0.5 + draw, 0.0), 0.0, 1.0).astype(np.float32)


def test_the_noise_is_the_seeds_gaussian_draw_added_voxel_by_voxel():
    t1 = _uniform_t1(0.5)
    pet = pet_like_scan(t1, (1.0, 1.0, 1.0), fwhm_mm=0.0, noise=0.05, seed=7)
    np.testing.assert_allclose(pet, _expected_noisy(t1, 0.05, 7), rtol=0, atol=1e-6)


def test_the_default_noise_has_standard_deviation_0_02():
    t1 = _uniform_t1(0.5)
    pet = pet_like_scan(t1, (1.0, 1.0, 1.0), fwhm_mm=0.0, seed=11)
    np.testing.assert_allclose(pet, _expected_noisy(t1, 0.02, 11), rtol=0, atol=1e-6)


def test_values_are_clipped_to_0_and_1():
    # uptake 0.5 with noise 1.0: about 31 % of the 1000 voxels fall below 0 and 31 % above 1
    pet = pet_like_scan(np.full((10, 10, 10), 0.5), (1.0, 1.0, 1.0), fwhm_mm=0.0, noise=1.0, seed=0)
    assert float(pet.min()) == 0.0 and float(pet.max()) == 1.0
    assert np.count_nonzero(pet == 0.0) > 200 and np.count_nonzero(pet == 1.0) > 200


def test_the_blur_sees_no_uptake_outside_the_image():
    # uptake 1.0 everywhere, sigma 1 voxel (FWHM 2 sqrt(2 ln 2) mm at 1 mm), kernel to 4 sigma:
    # the centre of a 9-voxel axis sees the whole kernel (1.0); a corner sees, per axis, the
    # weights of offsets 0..4 only: side = sum_{k=0..4} e^(-k^2/2) / sum_{k=-4..4} e^(-k^2/2)
    fwhm = 2.0 * math.sqrt(2.0 * math.log(2.0))
    pet = pet_like_scan(np.full((9, 9, 9), 0.72), (1.0, 1.0, 1.0), fwhm_mm=fwhm, noise=0.0)
    weights = [math.exp(-k * k / 2.0) for k in range(-4, 5)]
    side = sum(weights[4:]) / sum(weights)  # 0.6995
    assert float(pet[4, 4, 4]) == pytest.approx(1.0, abs=1e-6)
    assert float(pet[0, 0, 0]) == pytest.approx(side**3, rel=1e-6)  # 0.342


# --- template_reconstruction -----------------------------------------------------------


def test_a_given_brain_sets_where_the_means_are_taken():
    # brain = first two voxels: mean scan 2, mean template 1.5, so the template times 4/3
    template = np.array([1.0, 2.0, 3.0, 4.0])
    scan = np.array([2.0, 2.0, 10.0, 10.0])
    recon = template_reconstruction(scan, template, brain=np.array([True, True, False, False]))
    np.testing.assert_allclose(recon, [4 / 3, 8 / 3, 4.0, 16 / 3], rtol=1e-12)


def test_a_0_1_integer_brain_is_a_mask_not_indices():
    # brain = last two voxels: mean scan 10, mean template 3.5, so the template times 20/7
    template = np.array([1.0, 2.0, 3.0, 4.0])
    scan = np.array([2.0, 2.0, 10.0, 10.0])
    recon = template_reconstruction(scan, template, brain=np.array([0, 0, 1, 1], np.uint8))
    np.testing.assert_allclose(recon, [20 / 7, 40 / 7, 60 / 7, 80 / 7], rtol=1e-12)


def test_a_template_without_brain_raises_the_documented_message():
    with pytest.raises(ValueError, match=r"^the template is 0 everywhere in the brain mask$"):
        template_reconstruction(np.ones(3), np.zeros(3))


def test_a_float32_scans_mean_is_taken_in_float64():
    # scan 1, 1, 1 + 2^-23 (float32 exact): mean (3 + 2^-23) / 3; a float32 sum rounds to 3
    scan = np.array([1.0, 1.0, 1.0 + 2.0**-23], np.float32)
    recon = template_reconstruction(scan, np.ones(3))
    assert recon.tolist() == [(3.0 + 2.0**-23) / 3.0] * 3


def test_a_float32_template_is_scaled_in_float64():
    # template 1, 1, 1 + 2^-23 (mean m = (3 + 2^-23) / 3), scan 3: template * 3 / m
    template = np.array([1.0, 1.0, 1.0 + 2.0**-23], np.float32)
    recon = template_reconstruction(np.full(3, 3.0), template)
    mean = (3.0 + 2.0**-23) / 3.0
    expected = [1.0 * 3.0 / mean, 1.0 * 3.0 / mean, (1.0 + 2.0**-23) * 3.0 / mean]
    np.testing.assert_allclose(recon, expected, rtol=1e-13)
