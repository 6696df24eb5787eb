"""The simulated PET-like scan, the box atlas and the toy template reconstruction."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.simulate.pet_like import (
    ATLAS_LABELS,
    T1_TO_UPTAKE,
    box_atlas,
    pet_like_scan,
    template_reconstruction,
)


def test_pet_like_scan_maps_t1_to_uptake_and_keeps_the_background():
    t1 = np.zeros((16, 16, 16))
    t1[2:14, 2:14, 2:14] = 0.9  # "white matter"
    pet = pet_like_scan(t1, (1.0, 1.0, 1.0), fwhm_mm=0.0, noise=0.0)
    expected = float(np.interp(0.9, *T1_TO_UPTAKE))
    assert pet.dtype == np.float32
    assert float(pet[8, 8, 8]) == pytest.approx(expected)
    assert float(pet[0, 0, 0]) == 0.0
    noisy = pet_like_scan(t1, (1.0, 1.0, 1.0), seed=1)
    assert np.array_equal(noisy, pet_like_scan(t1, (1.0, 1.0, 1.0), seed=1))  # seeded
    assert 0.0 <= float(noisy.min()) and float(noisy.max()) <= 1.0
    assert float(noisy[0, 0, 0]) == 0.0


def test_box_atlas_by_world_coordinates():
    affine = np.eye(4)
    affine[:3, 3] = (-80, -100, -40)  # voxel (i, j, k) is at (i - 80, j - 100, k - 40) mm
    brain = np.ones((161, 181, 121), bool)
    atlas = box_atlas(brain, affine)

    def at(x: float, y: float, z: float) -> int:
        return int(atlas[int(x + 80), int(y + 100), int(z + 40)])

    assert (at(-40, 30, 30), at(40, 30, 30)) == (1, 2)  # frontal
    assert (at(-30, -50, 50), at(30, -50, 50)) == (3, 4)  # parietal
    assert (at(-50, -20, -10), at(50, -20, -10)) == (5, 6)  # temporal
    assert (at(-20, -90, 10), at(20, -90, 10)) == (7, 8)  # occipital
    assert at(0, -60, -35) == 9 and at(0, -10, 0) == 9  # cerebellum, deep
    assert set(np.unique(atlas)) == set(ATLAS_LABELS)
    brain[:, :, :] = False
    assert not box_atlas(brain, affine).any()


def test_template_reconstruction_matches_the_mean_in_the_brain():
    template = np.array([[0.0, 1.0], [2.0, 3.0]])
    scan = np.array([[5.0, 2.0], [2.0, 8.0]])
    recon = template_reconstruction(scan, template)
    brain = template > 0
    assert recon[brain].mean() == pytest.approx(scan[brain].mean())
    np.testing.assert_allclose(recon, template * 2.0)
    with pytest.raises(ValueError, match="0 everywhere"):
        template_reconstruction(scan, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        template_reconstruction(scan[:1], template)
