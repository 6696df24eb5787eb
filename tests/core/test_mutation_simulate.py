"""Simulated anomalies and atlases (core.simulate) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.simulate import add_anomalies, iter_simulated_cases
from napari_mood.core.simulate.hypometabolism import hypometabolism_profile
from napari_mood.core.simulate.kinds import add_pixel_shuffle
from napari_mood.core.simulate.pet_like import box_atlas
from napari_mood.core.simulate.placement import as_scan, to_unit_range


def test_slab_needs_a_3d_scan_message():
    with pytest.raises(ValueError, match="^kind='slab' needs a 3-D scan$"):
        add_anomalies(np.full((8, 8), 0.5), kind="slab")


def _left_half_body(shape: tuple[int, ...]) -> np.ndarray:
    body = np.zeros(shape, bool)
    body[: shape[0] // 2] = True
    return body


@pytest.mark.parametrize("seed", range(4))
def test_anomalies_go_inside_the_given_body_mask(seed):
    scan = np.full((24, 24, 24), 0.5)  # all nonzero: the default body would be everywhere
    body = _left_half_body(scan.shape)
    sim = add_anomalies(scan, kind="sphere", count=2, size_range=(2, 3), body_mask=body, seed=seed)
    for anomaly in sim.anomalies:
        assert body[anomaly.center]


@pytest.mark.parametrize("seed", range(4))
def test_pixel_shuffle_goes_inside_the_given_body_mask(seed):
    scan = np.random.default_rng(seed).random((24, 24, 24)) * 0.5 + 0.25
    body = _left_half_body(scan.shape)
    anomaly = add_pixel_shuffle(scan, size_range=(2, 3), body_mask=body, seed=seed)
    assert body[anomaly.center]


def test_normal_cases_have_no_anomalies():
    scan = np.full((12, 12), 0.5)
    cases = list(iter_simulated_cases(scan, n_anomalous=1, n_normal=1, size_range=(2, 3), seed=0))
    assert cases[0].anomalies == () and not cases[0].mask.any() and cases[0].label == 0
    assert len(cases[1].anomalies) == 1 and cases[1].label == 1


def test_hypometabolism_profile_keeps_its_gt_level():
    region = np.zeros((9, 9, 9), bool)
    region[3:6, 3:6, 3:6] = True
    profile = hypometabolism_profile(region, fwhm_mm=2.0, spacing=(1.0, 1.0, 1.0), gt_level=0.25)
    assert profile.gt_level == 0.25 and profile.fwhm_mm == 2.0
    assert profile.profile.max() == pytest.approx(1.0)
    np.testing.assert_array_equal(profile.mask, profile.profile >= 0.25)


def _label_at(x: float, y: float, z: float) -> int:
    """The box-atlas label of one voxel whose centre is at world (x, y, z) mm."""
    affine = np.eye(4)
    affine[:3, 3] = (x, y, z)
    return int(box_atlas(np.ones((1, 1, 1), bool), affine)[0, 0, 0])


@pytest.mark.parametrize(
    ("point", "label"),
    [
        ((30.0, -70.0, 0.0), 6),  # temporal starts at y = -70 (right: 5 + 1)
        ((30.0, -71.0, 0.0), 8),  # occipital below it
        ((15.0, -40.0, 0.0), 4),  # |x| = 15 is not deep: parietal (right)
        ((14.0, -40.0, 0.0), 9),  # deep
        ((-14.0, -40.0, 0.0), 9),
        ((-30.0, 20.0, 0.0), 1),  # frontal, left
    ],
)
def test_box_atlas_boundaries(point, label):
    assert _label_at(*point) == label


def test_integer_scans_become_float64():
    arr = as_scan(np.array([[0, 1], [1, 0]], dtype=np.uint8))
    assert arr.dtype == np.float64 and arr.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_to_unit_range_by_hand():
    found = to_unit_range(np.array([[-1000.0, 0.0, 1000.0]]))
    assert found.data.tolist() == [[0.0, 0.5, 1.0]] and found.rescaled_from == (-1000.0, 1000.0)
    assert not found.constant
    inside = to_unit_range(np.array([[0.25, 0.75]]))
    assert inside.data.tolist() == [[0.25, 0.75]] and inside.rescaled_from is None
    flat = to_unit_range(np.full((2, 2), 7.0))
    assert flat.constant and flat.rescaled_from == (7.0, 7.0) and not flat.data.any()
