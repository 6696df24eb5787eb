"""Anomaly kinds (core.simulate.kinds): rules the full mutation run left open (batch G).

Pinned against independent derivations (hand-worked values, numpy written differently, numpy's
own Generator with the same seed, ``skimage.transform.resize``, plain Python):

- a random cube reaches its half diagonal: it keeps 2 voxels from earlier anomalies at its
  corners too (the "no room" message word for word), where a sphere of that radius fits;
- a random blob intensity is numpy's ``uniform(0, 1)`` draw from the seed; the message for an
  intensity outside [0, 1] word for word;
- the local pixel shuffle of a seed is the same on every machine: the k-th voxel of a patch in
  raster order gets the value of the patch's voxel with the k-th smallest random key (a stable
  grouping; an unstable sort would make the result depend on numpy's sort implementation);
- the texture ``natural_image`` falls back to offline: 256 x 256 float64 waves over a
  checkerboard of 32-pixel squares, in [0.05, 0.95];
- the slab's image is resized as ``skimage.transform.resize(order=1, mode='edge',
  anti_aliasing=True)`` (as documented), and never leaves [0, 1] through rounding;
- a slab has exactly ``thickness`` planes, even ones included, and contains the centre plane;
- a slab whose given centre lies near the border is cut there and keeps the in-volume part
  of the image.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict

import numpy as np
import pytest
import skimage.data
from skimage.transform import resize

from napari_mood.core.simulate.kinds import (
    add_cube,
    add_image_slab,
    add_pixel_shuffle,
    add_sphere,
    natural_image,
)

# --------------------------------------------------------------------------- blobs


def test_a_random_cube_reaches_its_half_diagonal_and_keeps_two_voxels_from_earlier_anomalies():
    # In 7**3 a half-width-3 cube fits only at (3, 3, 3); its corner (0, 0, 0) is the earlier
    # anomaly, at distance 3 * sqrt(3) = 5.196 from the centre. The cube reaches 5.196, so it
    # needs more than 5.196 + 2: no room. A sphere of radius 3 needs only 3 + 2 < 5.196.
    scan = np.full((7, 7, 7), 0.5)
    avoid = np.zeros(scan.shape, bool)
    avoid[0, 0, 0] = True
    message = (
        "no room for an anomaly reaching 5.19615 voxels from its centre in a scan of shape "
        "(7, 7, 7) away from the earlier anomalies; use a smaller size or count"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        add_cube(scan, size=3, avoid=avoid, seed=0)
    assert add_sphere(scan, size=3, avoid=avoid, seed=0).center == (3, 3, 3)


@pytest.mark.parametrize("seed", [0, 7, 123])
def test_a_random_intensity_is_numpys_uniform_draw_from_the_seed(seed):
    # centre and size given: the intensity is the first (and only) draw of default_rng(seed)
    scan = np.full((9, 9, 9), 0.5)
    anomaly = add_sphere(scan, center=(4, 4, 4), size=2, seed=seed)
    expected = np.random.default_rng(seed).uniform(0.0, 1.0)
    assert anomaly.params == {"intensity": expected}
    assert anomaly.scan[4, 4, 4] == expected


def test_an_intensity_outside_the_unit_interval_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^intensity must lie in \[0, 1\], got 2$"):
        add_cube(np.full((9, 9, 9), 0.5), center=(4, 4, 4), size=1, intensity=2.0)


# ------------------------------------------------------------------------- shuffle


def test_the_local_shuffle_of_a_seed_is_the_same_on_every_machine():
    # Restated in plain Python: the region's voxels in raster order draw one random key each
    # (the only draw: centre, size and patch size are given); the voxels of a patch, in raster
    # order, take the patch's values in the order of increasing key.
    scan = np.random.default_rng(42).random((12, 12, 12))
    center, radius, patch, seed = (6, 6, 6), 3, 2, 5
    anomaly = add_pixel_shuffle(scan, center=center, size=radius, patch_size=patch, seed=seed)

    i, j, k = np.indices(scan.shape)
    sphere = (i - 6) ** 2 + (j - 6) ** 2 + (k - 6) ** 2 <= radius**2
    np.testing.assert_array_equal(anomaly.mask, sphere)
    voxels = [tuple(v) for v in np.argwhere(sphere).tolist()]  # raster order
    keys = np.random.default_rng(seed).random(len(voxels)).tolist()
    patches = defaultdict(list)
    corner = [m - radius for m in center]
    for n, voxel in enumerate(voxels):
        patches[tuple((c - o) // patch for c, o in zip(voxel, corner, strict=True))].append(n)
    expected = scan.copy()
    for members in patches.values():
        by_key = sorted(members, key=keys.__getitem__)
        for target, source in zip(members, by_key, strict=True):
            expected[voxels[target]] = scan[voxels[source]]
    np.testing.assert_array_equal(anomaly.scan, expected)


# ------------------------------------------------------------------- natural image


@pytest.fixture
def offline_texture(monkeypatch):
    """natural_image() as it is when skimage's camera image cannot be loaded."""

    def no_camera():
        raise OSError("no camera image offline")

    monkeypatch.setattr(skimage.data, "camera", no_camera)
    return natural_image()


def test_the_offline_fallback_image_is_a_256_pixel_float64_square(offline_texture):
    assert offline_texture.shape == (256, 256) and offline_texture.dtype == np.float64


def test_the_offline_fallback_image_is_waves_over_a_checkerboard_of_32_pixel_squares(
    offline_texture,
):
    # by hand at (row y, column x): 0.5 + 0.2 * waves + 0.3 * (checker - 0.5)
    # (0, 0): waves 0, dark square -> 0.5 - 0.15 = 0.35
    assert offline_texture[0, 0] == pytest.approx(0.35, abs=1e-12)
    # (0, 32): light square, waves sin(32/7) + 0.5 sin(32/17)
    light = 0.65 + 0.2 * (math.sin(32 / 7) + 0.5 * math.sin(32 / 17))
    assert offline_texture[0, 32] == pytest.approx(light, abs=1e-12)
    # (33, 0): light square, waves sin(0) cos(3) + 0.5 sin(66/17)
    assert offline_texture[33, 0] == pytest.approx(0.65 + 0.1 * math.sin(66 / 17), abs=1e-12)
    # (64, 64): dark square again
    dark = 0.35 + 0.2 * (math.sin(64 / 7) * math.cos(64 / 11) + 0.5 * math.sin(192 / 17))
    assert offline_texture[64, 64] == pytest.approx(dark, abs=1e-12)
    # all of it, written differently: an outer product of the separable wave, and the
    # checkerboard as the Kronecker product of an 8 x 8 board with 32 x 32 blocks of ones
    rows = np.arange(256.0)[:, None]
    cols = np.arange(256.0)[None, :]
    waves = np.outer(np.cos(rows[:, 0] / 11), np.sin(cols[0] / 7)) + 0.5 * np.sin(
        (cols + 2 * rows) / 17
    )
    board = np.kron(np.indices((8, 8)).sum(axis=0) % 2, np.ones((32, 32)))
    np.testing.assert_allclose(offline_texture, 0.35 + 0.2 * waves + 0.3 * board, atol=1e-12)
    # in [0.5 - 0.3 - 0.15, 0.5 + 0.3 + 0.15]: nothing to clip
    assert 0.05 <= offline_texture.min() and offline_texture.max() <= 0.95


# --------------------------------------------------------------------------- slabs


def _unit(image: np.ndarray) -> np.ndarray:
    return (image - image.min()) / (image.max() - image.min())


@pytest.mark.parametrize(
    ("image_shape", "half"),
    [
        ((36, 36), 4),  # shrunk 4 times: Gaussian anti-aliasing of sigma 1.5
        ((20, 30), 4),  # shrunk by 20/9 and 30/9
        ((5, 5), 8),  # enlarged: pixel centres of the border beyond the image's
    ],
)
def test_the_slab_image_is_resized_as_skimage_resize_with_anti_aliasing(image_shape, half):
    image = np.random.default_rng(3).random(image_shape) * 4.0 - 1.0
    scan = np.zeros((10, 40, 40))
    anomaly = add_image_slab(scan, image, axis=0, center=(5, 20, 20), size=half, thickness=1)
    side = 2 * half + 1
    expected = resize(_unit(image), (side, side), order=1, mode="edge", anti_aliasing=True)
    plane = anomaly.scan[5, 20 - half : 20 + half + 1, 20 - half : 20 + half + 1]
    np.testing.assert_allclose(plane, expected, rtol=0, atol=1e-12)


def test_the_slab_image_never_exceeds_one_through_rounding():
    # enlarging [[0, 1], [1, 1]] to 25 x 25 interpolates between ones: w * 1 + (1 - w) * 1
    # rounds to 1 + 2**-52 at some pixels; the scan must stay in [0, 1]
    scan = np.zeros((3, 30, 30))
    image = np.array([[0.0, 1.0], [1.0, 1.0]])
    anomaly = add_image_slab(scan, image, axis=0, center=(1, 15, 15), size=12, thickness=1)
    assert anomaly.scan.max() == 1.0 and anomaly.scan.min() == 0.0


@pytest.mark.parametrize("thickness", [1, 2, 3, 4])
def test_a_slab_has_exactly_thickness_planes_around_its_centre(thickness):
    scan = np.zeros((12, 20, 20))
    anomaly = add_image_slab(
        scan, np.eye(5), axis=0, center=(6, 10, 10), size=3, thickness=thickness
    )
    planes = np.flatnonzero(anomaly.mask.any(axis=(1, 2)))
    assert planes.size == thickness and np.all(np.diff(planes) == 1) and 6 in planes
    assert anomaly.mask.sum() == thickness * 7 * 7  # 2 * 3 + 1 = 7 voxels a side


# a 9 x 9 image of distinct values in [0, 1]: with size 4 it is written as it is (no resizing)
IMAGE = np.arange(81.0).reshape(9, 9) / 80


@pytest.mark.parametrize(
    ("center", "cut"),
    [
        # center (5, 1, 30): rows 1 - 4 .. 1 + 4 -> 0 .. 5 keep image rows 3 .. 8
        ((5, 1, 30), (np.s_[0:6, 26:35], np.s_[3:9, 0:9])),
        # center (5, 38, 30): rows 34 .. 42 -> 34 .. 39 keep image rows 0 .. 5
        ((5, 38, 30), (np.s_[34:40, 26:35], np.s_[0:6, 0:9])),
        # center (5, 2, 37): rows 0 .. 6 keep image rows 2 .. 8, columns 33 .. 39 keep 0 .. 6
        ((5, 2, 37), (np.s_[0:7, 33:40], np.s_[2:9, 0:7])),
    ],
)
def test_a_slab_at_the_border_is_cut_and_keeps_the_image_inside_the_volume(center, cut):
    scan = np.zeros((10, 40, 40))
    anomaly = add_image_slab(scan, IMAGE, axis=0, center=center, size=4, thickness=1)
    in_scan, in_image = cut
    expected = np.zeros(scan.shape)
    expected[5][in_scan] = IMAGE[in_image]
    np.testing.assert_allclose(anomaly.scan, expected, rtol=0, atol=1e-12)
    mask = np.zeros(scan.shape, bool)
    mask[5][in_scan] = True
    np.testing.assert_array_equal(anomaly.mask, mask)
