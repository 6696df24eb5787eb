"""FDG-PET hypometabolism (core.simulate.hypometabolism): rules the full mutation run left open.

Pinned against the documented messages word for word (FWHM, voxel sizes, a region that is
not 2-D or 3-D or is empty, an atlas or scan with NaN, a value that is not a whole number,
a subject that is not a plain file-name part), against the docstrings (a ``gt_level`` of
exactly 1 is allowed; atlas floats within 0.001 of a whole number are labels, the tolerance
included; an image of two nonzero values that are not whole numbers is a scan; the region
is read as a mask, every nonzero voxel counting fully; the smoothing treats everything
outside the volume as 0) and against hand-worked values: the list of labels a missing-label
message shows (the first 20, then " ..." only when there are more than 20) and a profile at
the border of a region that fills the volume.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.simulate.hypometabolism import (
    degree_case_name,
    degree_percent,
    fwhm_to_sigma,
    hypometabolism_profile,
    region_from_atlas,
    simulate_hypometabolism,
)


def _message(call, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


# ------------------------------------------------------------------------- fwhm_to_sigma


def test_a_negative_fwhm_is_refused_word_for_word():
    found = _message(fwhm_to_sigma, -1.0, (1.0,))
    assert found == "FWHM must be a non-negative number of mm, got -1.0"


def test_a_zero_voxel_size_is_refused_word_for_word():
    found = _message(fwhm_to_sigma, 4.0, (1.0, 0.0))
    assert found == "voxel sizes must be positive numbers, got (1.0, 0.0)"


# -------------------------------------------------------------------- region_from_atlas


def test_an_atlas_with_nan_is_refused_word_for_word():
    found = _message(region_from_atlas, np.array([[np.nan, 1.0]]))
    assert found == "the atlas holds NaN or infinite values"


def test_an_empty_atlas_region_is_refused_word_for_word():
    assert _message(region_from_atlas, np.zeros((3, 3))) == "the region is empty (no voxel is set)"


def test_a_value_that_is_not_whole_is_named_word_for_word_the_first_in_c_order():
    # 2.5 and 3.25 are both far from a whole number; 2.5 comes first
    found = _message(region_from_atlas, np.array([[0.0, 1.0, 2.5, 3.25]]), [1])
    assert found == (
        "holds values that are not whole numbers (e.g. 2.5): a scan, not a mask or a label atlas"
    )


def test_two_nonzero_values_that_are_not_whole_are_a_scan():
    # "an image of more than one nonzero value must hold whole numbers": 0.5 and 0.75 are two
    found = _message(region_from_atlas, np.array([[0.0, 0.5, 0.75]]))
    assert found.startswith("holds values that are not whole numbers (e.g. 0.5)")


def test_a_float_exactly_0_001_from_a_whole_number_is_still_that_label():
    # |0.001 - rint(0.001)| == 0.001 exactly: "within 0.001" of 0, so label 0, not a scan
    region = region_from_atlas(np.array([[0.001, 1.0, 2.0]]), [1])
    assert region.tolist() == [[False, True, False]]


@pytest.mark.parametrize(
    ("n_labels", "shown"),
    [
        (20, ", ".join(str(v) for v in range(20))),  # 0..19: all shown, no " ..."
        (21, ", ".join(str(v) for v in range(20)) + " ..."),  # 0..20: the first 20, then " ..."
        (25, ", ".join(str(v) for v in range(20)) + " ..."),
    ],
)
def test_a_missing_label_names_the_first_20_labels_then_dots_if_more(n_labels, shown):
    atlas = np.arange(n_labels).reshape(1, n_labels)
    found = _message(region_from_atlas, atlas, [99])
    assert found == f"label(s) [99] not in the atlas (it holds {shown})"


# --------------------------------------------------------------- hypometabolism_profile


def test_a_1d_region_is_refused_word_for_word():
    found = _message(hypometabolism_profile, np.ones(4, bool), fwhm_mm=0.0, spacing=(1.0,))
    assert found == "region must be 2-D or 3-D, got shape (4,)"


def test_an_empty_region_is_refused_word_for_word():
    found = _message(hypometabolism_profile, np.zeros((3, 3), bool), fwhm_mm=0.0, spacing=(1, 1))
    assert found == "the region is empty (no voxel is set)"


def test_a_gt_level_of_exactly_one_is_allowed_and_keeps_the_maximum():
    # gt_level lies in (0, 1]; without smoothing the profile is the region (1 inside, 0 outside)
    region = np.zeros((5, 5), bool)
    region[1:3, 2:4] = True
    found = hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0), gt_level=1.0)
    np.testing.assert_array_equal(found.mask, region)


def test_a_region_of_several_values_is_read_as_a_mask():
    # labels 1 and 2 both in the region: without smoothing the profile is 1 on both
    region = np.array([[0, 1, 2], [2, 1, 0]])
    found = hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0))
    assert found.profile.tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]


def test_the_smoothing_treats_everything_outside_the_volume_as_zero():
    # a region filling a 3 x 3 volume, sigma = 1 voxel (FWHM 2 sqrt(2 ln 2) mm, 1 mm voxels).
    # Outside is 0, so along one axis the centre gets w0 + 2 w1 (distances -1, 0, 1) and an
    # edge w0 + w1 + w2 (distances 0, 1, 2), with wk / w0 = exp(-k^2 / 2); per axis an edge is
    # (1 + e^-1/2 + e^-2) / (1 + 2 e^-1/2) of the centre, a corner that squared (the kernel's
    # normalisation cancels). Reflecting would give all 1.
    edge = (1 + math.exp(-0.5) + math.exp(-2)) / (1 + 2 * math.exp(-0.5))  # 0.78708...
    fwhm = 2 * math.sqrt(2 * math.log(2))
    found = hypometabolism_profile(np.ones((3, 3), bool), fwhm_mm=fwhm, spacing=(1.0, 1.0))
    expected = [[edge**2, edge, edge**2], [edge, 1.0, edge], [edge**2, edge, edge**2]]
    np.testing.assert_allclose(found.profile, expected, rtol=1e-12)


# -------------------------------------------------------------- simulate / case names


def test_a_scan_with_nan_is_refused_word_for_word():
    profile = hypometabolism_profile(np.ones((2, 2), bool), fwhm_mm=0.0, spacing=(1.0, 1.0))
    found = _message(simulate_hypometabolism, np.full((2, 2), np.nan), profile, degree=0.1)
    assert found == "the scan holds NaN or infinite values"


@pytest.mark.parametrize("subject", ["a/b", "a\\b", ""])
def test_a_subject_that_is_not_a_plain_file_name_part_is_refused_word_for_word(subject):
    found = _message(degree_case_name, subject, "ad", 0.05)
    assert found == f"subject must be a plain file-name part, got {subject!r}"


def test_a_subject_with_a_capital_x_is_a_plain_file_name_part():
    assert degree_case_name("X1", "ad", 0.05) == "X1_ad_deg05"


def test_a_degree_off_a_whole_per_cent_by_exactly_the_tolerance_is_that_per_cent():
    # 1e-8 * 100 == 1e-6 exactly in float64: 1e-6 per cent off 0 %, the tolerance itself
    assert 1e-8 * 100 == 1e-6
    assert degree_percent(1e-8) == 0
