"""Rules of core.simulate.kinds that the full mutation run left open (batch H).

Pinned against hand-worked values, numpy's own Generator with the same seed, scipy's
distance transform and skimage's camera image, never against other napari_mood code:

- the slab image: a one-row image is accepted, an image is min-max rescaled in float64, a
  constant image keeps its value, a NaN image is refused word for word;
- add_image_slab: the default thickness (3), thickness 1 and the scan's full depth are
  allowed, a wrong thickness is refused word for word, the size is the whole half-width,
  a random slab keeps the documented gap from ``avoid`` and goes deep inside ``body_mask``;
- add_cube, add_pet_change and add_pixel_shuffle: random centres go deep inside
  ``body_mask`` and keep a sphere's gap (its radius, not a cube's half diagonal) from
  ``avoid``; ``region='cube'`` gives a cube; the region message word for word;
- add_pet_change: params, size, the default sigma (2), the random degree is one uniform
  draw in [0.3, 0.8], the Gaussian is zero outside the volume, the degree message;
- add_pixel_shuffle: the given size is kept, the random patch is drawn in 3 .. 5, a patch
  of 2 is allowed;
- natural_image is skimage's camera divided by 255.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage as ndi

from napari_mood.core.simulate.kinds import (
    add_cube,
    add_image_slab,
    add_pet_change,
    add_pixel_shuffle,
    natural_image,
)

# ------------------------------------------------------------------ the slab's image


def _slab_square(image: np.ndarray) -> np.ndarray:
    """The 3 x 3 square a slab of half-width 1 writes into the middle plane of a scan."""
    scan = np.zeros((5, 5, 5))
    anomaly = add_image_slab(scan, image, axis=0, center=(2, 2, 2), size=1, thickness=3)
    return anomaly.scan[2, 1:4, 1:4]


def test_a_one_row_image_is_accepted_and_stretched_over_the_square():
    # (1, 3) -> (3, 3): the rows sample row 0 (mode nearest), the columns 0, 1, 2 exactly
    square = _slab_square(np.array([[0.0, 0.5, 1.0]]))
    np.testing.assert_allclose(square, [[0.0, 0.5, 1.0]] * 3, rtol=0, atol=1e-15)


def test_an_image_is_min_max_rescaled_to_the_unit_range():
    # min 1, max 3: (v - 1) / (3 - 1); a 3 x 3 image resized to 3 x 3 is itself
    image = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 2.0, 2.0]])
    np.testing.assert_allclose(_slab_square(image), (image - 1.0) / 2.0, rtol=0, atol=1e-15)


def test_a_constant_image_keeps_its_value_inside_the_unit_range():
    # no range to stretch: a constant 0.4 stays 0.4 (no 0 / 0)
    np.testing.assert_allclose(_slab_square(np.full((3, 3), 0.4)), 0.4, rtol=0, atol=1e-15)


def test_a_float32_image_is_rescaled_in_float64():
    image = np.array([[0.1, 0.2, 0.7], [0.3, 0.4, 0.5], [0.6, 0.15, 0.35]], dtype=np.float32)
    wide = image.astype(np.float64)  # the same numbers, rescaled in double precision
    expected = (wide - wide.min()) / (wide.max() - wide.min())
    np.testing.assert_allclose(_slab_square(image), expected, rtol=1e-13, atol=0)


def test_an_image_with_nan_is_refused_word_for_word():
    image = np.array([[0.0, np.nan], [1.0, 0.5]])
    with pytest.raises(ValueError, match=r"^image contains NaN or infinite values$"):
        _slab_square(image)


def test_natural_image_is_the_camera_divided_by_255():
    data = pytest.importorskip("skimage.data")
    image = natural_image()
    assert image.dtype == np.float64 and image.max() == 1.0
    np.testing.assert_array_equal(image, data.camera().astype(np.float64) / 255.0)


# ------------------------------------------------------------------------ the slab

IMAGE = np.linspace(0.0, 1.0, 9).reshape(3, 3)  # small: no 512 x 512 camera to resize


def test_the_default_slab_is_three_planes_thick():
    anomaly = add_image_slab(np.zeros((9, 9, 9)), IMAGE, axis=0, center=(4, 4, 4), size=2)
    assert anomaly.mask.sum(axis=(1, 2)).tolist() == [0, 0, 0, 25, 25, 25, 0, 0, 0]
    assert anomaly.params == {"axis": 0, "thickness": 3}


def test_a_slab_one_plane_thick_is_allowed():
    anomaly = add_image_slab(
        np.zeros((4, 9, 9)), IMAGE, axis=0, center=(2, 4, 4), size=2, thickness=1
    )
    assert anomaly.mask.sum(axis=(1, 2)).tolist() == [0, 0, 25, 0]


def test_a_slab_as_thick_as_the_scan_is_allowed():
    anomaly = add_image_slab(
        np.zeros((4, 9, 9)), IMAGE, axis=0, center=(2, 4, 4), size=2, thickness=4
    )
    assert anomaly.mask.sum(axis=(1, 2)).tolist() == [25, 25, 25, 25]


def test_a_slab_thicker_than_the_scan_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^thickness must be in 1 \.\. 4, got 5$"):
        add_image_slab(np.zeros((4, 9, 9)), IMAGE, axis=0, center=(2, 4, 4), size=2, thickness=5)


def test_a_slab_size_is_its_whole_in_plane_half_width():
    # size 2.7: a 2 * 2 + 1 = 5 voxel square, and the anomaly's size is 2.0
    anomaly = add_image_slab(np.zeros((4, 9, 9)), IMAGE, axis=0, center=(2, 4, 4), size=2.7)
    assert anomaly.size == 2.0 and anomaly.mask.sum() == 3 * 25


def _corners(low: int, high: int, near: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """``near`` offsets from the low corner, mirrored to the four corners of [low, high]^2."""
    return {
        (a if sa else high - (a - low), b if sb else high - (b - low))
        for a, b in near
        for sa in (True, False)
        for sb in (True, False)
    }


@pytest.mark.parametrize("seed", range(4))
def test_a_random_slab_clears_the_gap_around_an_earlier_anomaly(seed):
    # half 8, 3 planes: the farthest voxel is hypot(8 * sqrt(2), 1) = sqrt(129) = 11.36 from
    # the centre, so the centre keeps > 13.36 (squared > 178.4) from the avoided voxel
    # (1, 18, 18); centres lie in z = 1, y, x in 8 .. 28: (8, 8) 200, (8, 9) 181 fit,
    # (9, 9) 162 and (8, 10) 164 do not -> 3 centres at each of the 4 corners
    scan = np.full((3, 37, 37), 0.5)
    avoid = np.zeros(scan.shape, bool)
    avoid[1, 18, 18] = True
    anomaly = add_image_slab(scan, IMAGE, axis=0, size=8, avoid=avoid, seed=seed)
    allowed = _corners(8, 28, [(8, 8), (8, 9), (9, 8)])
    assert anomaly.center[0] == 1 and anomaly.center[1:] in allowed
    assert ndi.distance_transform_edt(~avoid)[anomaly.mask].min() > 2.0


def _deep_box_body() -> np.ndarray:
    body = np.zeros((30, 30, 30), bool)
    body[10:19, 10:19, 10:19] = True  # 9 voxels a side: depth min(i + 1, 9 - i) at index i
    return body


@pytest.mark.parametrize("seed", range(3))
def test_a_random_slab_goes_deep_inside_the_given_body_mask(seed):
    # half 2, 3 planes: reach hypot(2 * sqrt(2), 1) = 3, so depth > 3: indices 3..5 -> 13..15
    scan = np.full((30, 30, 30), 0.5)  # all nonzero: the default body is everywhere
    anomaly = add_image_slab(scan, IMAGE, axis=0, size=2, body_mask=_deep_box_body(), seed=seed)
    assert all(13 <= c <= 15 for c in anomaly.center)


# ----------------------------------------------------------------------- the cube


@pytest.mark.parametrize("seed", range(3))
def test_a_random_cube_goes_deep_inside_the_given_body_mask(seed):
    # half-width 1: reach sqrt(3) = 1.73, so depth >= 2: indices 1..7 -> 11..17
    scan = np.full((30, 30, 30), 0.5)
    anomaly = add_cube(scan, size=1, body_mask=_deep_box_body(), seed=seed)
    assert all(11 <= c <= 17 for c in anomaly.center)


# --------------------------------------------------- the PET change and the shuffle


@pytest.mark.parametrize("add", [add_pet_change, add_pixel_shuffle])
def test_an_unknown_region_is_refused_word_for_word(add):
    with pytest.raises(ValueError, match=r"^region must be one of 'sphere', 'cube'; got 'ball'$"):
        add(np.full((9, 9), 0.5), region="ball")


@pytest.mark.parametrize("add", [add_pet_change, add_pixel_shuffle])
@pytest.mark.parametrize("seed", range(4))
def test_a_random_sphere_region_clears_the_gap_by_its_radius(add, seed):
    # radius 3 + gap 2: the centre keeps > 5 from (7, 7); centres lie in 3 .. 11, and only
    # the corners are farther (sqrt(32) = 5.66; (3, 4) is exactly 5) -- a cube's reach
    # 3 * sqrt(2) + 2 = 6.24 would leave no room at all
    scan = np.full((15, 15), 0.5)
    avoid = np.zeros(scan.shape, bool)
    avoid[7, 7] = True
    anomaly = add(scan, size=3, avoid=avoid, seed=seed)
    assert anomaly.center in {(3, 3), (3, 11), (11, 3), (11, 11)}


@pytest.mark.parametrize("add", [add_pet_change, add_pixel_shuffle])
def test_a_cube_region_gives_a_cube_mask(add):
    anomaly = add(np.full((9, 9, 9), 0.5), region="cube", center=(4, 4, 4), size=2)
    assert anomaly.mask.sum() == 5**3 and anomaly.mask[2:7, 2:7, 2:7].all()


@pytest.mark.parametrize("seed", range(3))
def test_a_random_pet_change_goes_deep_inside_the_given_body_mask(seed):
    # radius 2: depth > 2, indices 2..6 -> 12..16
    scan = np.full((30, 30, 30), 0.5)
    anomaly = add_pet_change(scan, size=2, sigma=0, body_mask=_deep_box_body(), seed=seed)
    assert all(12 <= c <= 16 for c in anomaly.center)


def test_pet_change_params_name_the_region_degree_and_sigma():
    anomaly = add_pet_change(
        np.full((9, 9), 0.5), region="cube", center=(4, 4), size=2, degree=0.5, sigma=1.0
    )
    assert anomaly.params == {"region": "cube", "degree": 0.5, "sigma": 1.0}


def test_pet_change_size_is_the_given_radius():
    anomaly = add_pet_change(np.full((9, 9), 0.5), center=(4, 4), size=2.5, degree=0.5)
    assert anomaly.size == 2.5


def test_the_default_pet_sigma_is_two_voxels():
    anomaly = add_pet_change(np.full((9, 9), 0.5), center=(4, 4), size=2, degree=0.5)
    assert anomaly.params["sigma"] == 2.0


@pytest.mark.parametrize("seed", range(6))
def test_a_random_degree_is_one_uniform_draw_in_0_3_to_0_8(seed):
    # size and centre given: the degree is the generator's first draw
    anomaly = add_pet_change(np.full((9, 9), 0.5), center=(4, 4), size=2, sigma=0, seed=seed)
    expected = 0.3 + 0.5 * np.random.default_rng(seed).random()
    assert anomaly.params["degree"] == pytest.approx(expected, rel=1e-15)


def test_a_degree_outside_the_unit_range_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^degree must lie in \[0, 1\], got 1\.5$"):
        add_pet_change(np.full((9, 9), 0.5), center=(4, 4), size=2, degree=1.5)


def test_the_pet_gaussian_is_zero_outside_the_volume():
    # cube of half-width 2 at the top edge (0, 10) of a flat 1.0 image, sigma 1, degree 1;
    # the separable Gaussian (weights exp(-k^2 / 2) over k = -4..4, normalised) sees rows
    # 0..2 only (nothing above row 0) and columns 8..12: 1 - sum g[0..2] * sum g[-2..2]
    k = np.arange(-4, 5)
    g = np.exp(-(k**2) / 2.0)
    g /= g.sum()
    expected = 1.0 - g[4:7].sum() * g[2:7].sum()
    anomaly = add_pet_change(
        np.ones((20, 20)), region="cube", center=(0, 10), size=2, degree=1.0, sigma=1.0
    )
    assert anomaly.scan[0, 10] == pytest.approx(expected, rel=1e-12)


def test_a_shuffle_keeps_the_given_size():
    # radius 3 in 2-D: 29 pixels with dy^2 + dx^2 <= 9
    dy, dx = np.indices((7, 7)) - 3
    anomaly = add_pixel_shuffle(np.full((13, 13), 0.5), center=(6, 6), size=3, seed=0)
    assert anomaly.size == 3.0 and anomaly.mask.sum() == np.count_nonzero(dy**2 + dx**2 <= 9)


def test_a_random_patch_size_is_drawn_from_3_to_5():
    # size and centre given: the patch side is the generator's first draw, 3 <= p < 6
    scan = np.full((9, 9), 0.5)
    found = [
        add_pixel_shuffle(scan, center=(4, 4), size=2, seed=s).params["patch_size"]
        for s in range(12)
    ]
    assert found == [int(np.random.default_rng(s).integers(3, 6)) for s in range(12)]
    assert set(found) == {3, 4, 5}


def test_a_patch_of_two_voxels_a_side_is_allowed():
    scan = np.random.default_rng(0).random((9, 9))
    anomaly = add_pixel_shuffle(scan, center=(4, 4), size=2, patch_size=2, seed=0)
    assert anomaly.params == {"region": "sphere", "patch_size": 2}
    # the 2 x 2 patches start at the box corner (2, 2): each keeps its own values
    for y in range(2, 7, 2):
        for x in range(2, 7, 2):
            inside = anomaly.mask[y : y + 2, x : x + 2]
            np.testing.assert_array_equal(
                np.sort(anomaly.scan[y : y + 2, x : x + 2][inside]),
                np.sort(scan[y : y + 2, x : x + 2][inside]),
            )
