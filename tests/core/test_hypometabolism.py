"""Hypometabolism simulation: hand-derived values for sigma, the profile, the dimming and the GT."""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.simulate import add_pet_change
from napari_mood.core.simulate.hypometabolism import (
    degree_case_name,
    degree_percent,
    dim_scan,
    fwhm_to_sigma,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)


def test_fwhm_to_sigma_by_hand():
    # FWHM = 2 sqrt(2 ln 2) sigma; 10 mm over voxels of 2, 2.5 and 5 mm
    fwhm_per_sigma = 2 * math.sqrt(2 * math.log(2))
    assert fwhm_to_sigma(10.0, (2.0, 2.5, 5.0)) == pytest.approx(
        (10 / fwhm_per_sigma / 2, 10 / fwhm_per_sigma / 2.5, 10 / fwhm_per_sigma / 5)
    )
    assert fwhm_per_sigma == pytest.approx(2.354820045)
    assert fwhm_to_sigma(0.0, (1.0, 1.0)) == (0.0, 0.0)


@pytest.mark.parametrize(
    "fwhm, spacing", [(-1.0, (1.0,)), (math.nan, (1.0,)), (4.0, (0.0,)), (4.0, ())]
)
def test_fwhm_to_sigma_refuses(fwhm, spacing):
    with pytest.raises(ValueError):
        fwhm_to_sigma(fwhm, spacing)


def test_region_from_atlas_labels_and_mask():
    atlas = np.array([[0.0, 1.0, 2.0], [3.0, 3.0000001, 2.0]])  # float atlas: rounded
    assert region_from_atlas(atlas, [3]).tolist() == [[False, False, False], [True, True, False]]
    assert region_from_atlas(atlas).sum() == 5  # no labels: every nonzero voxel
    mask = np.array([[0.0, 0.5, 0.5], [0.0, 0.0, 0.5]])
    assert region_from_atlas(mask).sum() == 3  # a binary mask of any one value
    for labels in (None, [1]):  # a scan (values that are not whole numbers) is refused
        with pytest.raises(ValueError, match="not whole numbers.*a scan"):
            region_from_atlas(atlas / 10, labels)
    with pytest.raises(
        ValueError, match=r"label\(s\) \[7\] not in the atlas \(it holds 0, 1, 2, 3\)"
    ):
        region_from_atlas(atlas, [7])
    with pytest.raises(ValueError, match="empty"):
        region_from_atlas(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        region_from_atlas(np.array([[np.nan, 1.0]]))


def test_profile_of_one_voxel_is_the_gaussian_by_hand():
    # one voxel smoothed and normalised to its maximum: exp(-d^2 / (2 sigma^2)) along an axis
    region = np.zeros((21, 21, 21), bool)
    region[10, 10, 10] = True
    found = hypometabolism_profile(region, fwhm_mm=8.0, spacing=(2.0, 2.0, 2.0))
    sigma = 8.0 / (2 * math.sqrt(2 * math.log(2))) / 2.0
    assert found.sigma == pytest.approx((sigma,) * 3)
    for d in range(5):
        assert found.profile[10 + d, 10, 10] == pytest.approx(
            math.exp(-(d**2) / (2 * sigma**2)), rel=1e-6
        )
    # FWHM: at half the FWHM (4 mm = 2 voxels) from the centre the profile is one half
    assert found.profile[12, 10, 10] == pytest.approx(0.5, rel=1e-6)
    # GT at the default level 0.5: voxels within 2 voxels along the axes (0.5 >= 0.5 kept)
    assert found.mask[12, 10, 10] and not found.mask[13, 10, 10]
    assert found.profile.max() == 1.0


def test_profile_with_anisotropic_voxels_smooths_fewer_voxels_along_the_long_axis():
    region = np.zeros((15, 15, 15), bool)
    region[7, 7, 7] = True
    found = hypometabolism_profile(region, fwhm_mm=6.0, spacing=(1.0, 1.0, 3.0))
    s1, s3 = 6.0 / 2.3548200450309493, 2.0 / 2.3548200450309493
    assert found.profile[8, 7, 7] == pytest.approx(math.exp(-1 / (2 * s1**2)), rel=1e-6)
    assert found.profile[7, 7, 8] == pytest.approx(math.exp(-1 / (2 * s3**2)), rel=1e-6)


def test_no_smoothing_keeps_the_region_and_level_is_checked():
    region = np.zeros((6, 6), bool)
    region[1:3, 2:5] = True
    found = hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0))
    assert np.array_equal(found.profile, region.astype(float))
    assert np.array_equal(found.mask, region)
    for level in (0.0, 1.5, math.nan):
        with pytest.raises(ValueError, match="gt_level"):
            hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0), gt_level=level)
    with pytest.raises(ValueError, match="spacing"):
        hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0, 1.0))


def test_gt_level_chooses_the_mask():
    region = np.zeros((1, 31, 1), bool)[:, :, 0]
    region[0, 10:21] = True
    low = hypometabolism_profile(region, fwhm_mm=6.0, spacing=(1.0, 1.0), gt_level=0.2)
    high = hypometabolism_profile(region, fwhm_mm=6.0, spacing=(1.0, 1.0), gt_level=0.8)
    assert np.array_equal(low.mask, low.profile >= 0.2)
    assert high.mask.sum() < region.sum() < low.mask.sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_diseased_is_healthy_times_one_minus_degree_profile(dtype):
    healthy = np.arange(16, dtype=dtype).reshape(4, 4) + 1
    before = healthy.copy()
    region = np.zeros((4, 4), bool)
    region[1:3, 1:3] = True
    profile = hypometabolism_profile(region, fwhm_mm=2.0, spacing=(1.0, 1.0))
    diseased = simulate_hypometabolism(healthy, profile, degree=0.3)
    expected = healthy.astype(np.float64) * (1 - 0.3 * profile.profile)
    np.testing.assert_allclose(diseased, expected, rtol=1e-6)
    assert diseased.dtype == (np.float64 if dtype == np.int16 else dtype)
    assert np.array_equal(healthy, before)  # inputs never modified
    # the largest relative decrease is the degree (the profile's maximum is 1)
    ratio = diseased / healthy
    assert float(ratio.min()) == pytest.approx(0.7)
    np.testing.assert_array_equal(simulate_hypometabolism(healthy, profile, degree=0.0), healthy)
    # reproducible: no randomness
    np.testing.assert_array_equal(diseased, simulate_hypometabolism(healthy, profile, degree=0.3))


def test_simulate_refuses_bad_inputs():
    region = np.ones((3, 3), bool)
    profile = hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0))
    for degree in (-0.1, 1.1, math.nan):
        with pytest.raises(ValueError, match="degree"):
            simulate_hypometabolism(np.ones((3, 3)), profile, degree=degree)
    with pytest.raises(ValueError, match="shape"):
        simulate_hypometabolism(np.ones((4, 3)), profile, degree=0.1)
    with pytest.raises(ValueError, match="NaN"):
        simulate_hypometabolism(np.full((3, 3), np.nan), profile, degree=0.1)


def test_dim_scan_is_the_rule_of_add_pet_change():
    scan = np.full((24, 24, 24), 0.8)
    anomaly = add_pet_change(scan, center=(12, 12, 12), size=5, degree=0.4, sigma=0.0)
    expected = dim_scan(scan, anomaly.mask.astype(float), 0.4)
    np.testing.assert_allclose(anomaly.scan, expected)
    assert dim_scan(np.array([2.0]), np.array([0.5]), 0.5).tolist() == [1.5]


def test_case_names_round_trip():
    for degree in (0.0, 0.05, 0.1, 0.7, 1.0):
        name = degree_case_name("sub_01", "ad-x", degree)
        found = parse_degree_case(name + ".nii.gz")
        assert found is not None
        assert (found.subject, found.region, found.degree) == (
            "sub_01",
            "ad-x",
            pytest.approx(degree),
        )
    assert degree_case_name("s", "ad", 0.05) == "s_ad_deg05"
    assert degree_case_name("s", "ad", 1.0) == "s_ad_deg100"
    assert parse_degree_case("s_ad_deg05.nii.gz.txt") is not None
    for other in ("brain_000.nii.gz", "s_ad_deg5.nii.gz", "s_ad_deg101.nii.gz", "ad_deg05.nii.gz"):
        assert parse_degree_case(other) is None
    with pytest.raises(ValueError, match="region name"):
        degree_case_name("s", "a_d", 0.1)
    with pytest.raises(ValueError, match="whole per cent"):
        degree_percent(0.055)
