"""The anomaly kinds: sphere, cube, local pixel shuffle, natural-image slab, PET-style change."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import ndimage as ndi

from napari_mood.core._checks import check_choice
from napari_mood.core.simulate.hypometabolism import dim_scan
from napari_mood.core.simulate.placement import (
    DEFAULT_SIZE_RANGES,
    REGIONS,
    Anomaly,
    Region,
    Seed,
    as_scan,
    avoid_of,
    body_of,
    check_center,
    check_unit,
    choose_center,
    make_region_mask,
    place_region,
    region_box,
    resolve_size,
)

__all__ = [
    "add_cube",
    "add_image_slab",
    "add_pet_change",
    "add_pixel_shuffle",
    "add_sphere",
    "natural_image",
]


def _add_blob(
    scan: np.ndarray,
    region: Region,
    *,
    center: Sequence[int] | None,
    size: float | None,
    size_range: tuple[int, int],
    intensity: float | None,
    body_mask: np.ndarray | None,
    avoid: np.ndarray | None,
    seed: Seed,
) -> Anomaly:
    arr = as_scan(scan)
    rng = np.random.default_rng(seed)
    radius = resolve_size(size, size_range, rng)
    point = place_region(
        arr, center, radius, region, body_of(arr, body_mask), avoid_of(arr, avoid), rng
    )
    value = (
        float(rng.uniform(0.0, 1.0)) if intensity is None else check_unit("intensity", intensity)
    )
    mask = make_region_mask(arr.shape, point, radius, region=region)
    out = arr.copy()
    out[mask] = value
    return Anomaly(out, mask, region, point, radius, {"intensity": value})


def add_sphere(
    scan: np.ndarray,
    *,
    center: Sequence[int] | None = None,
    size: float | None = None,
    size_range: tuple[int, int] = DEFAULT_SIZE_RANGES["sphere"],
    intensity: float | None = None,
    body_mask: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
    seed: Seed = None,
) -> Anomaly:
    """Return a copy of ``scan`` with a sphere of constant intensity, and its mask.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    center : sequence of int, optional
        Voxel index of the centre; random (see the module's policies) if omitted.
    size : float, optional
        Radius in voxels; random integer in ``size_range`` if omitted.
    size_range : (int, int)
        Range of the random radius, both ends included.
    intensity : float, optional
        Fill value in [0, 1]; uniform random in [0, 1] if omitted.
    body_mask : ndarray of bool, optional
        Where random centres should go; defaults to ``scan > 0``.
    avoid : ndarray of bool, optional
        Earlier anomalies; a random region keeps at least 2 voxels away from them.
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    Anomaly
        ``kind='sphere'``, ``params={'intensity': value}``.

    Examples
    --------
    >>> scan = np.full((32, 32, 32), 0.5)
    >>> anomaly = add_sphere(scan, center=(16, 16, 16), size=4, intensity=1.0)
    >>> float(anomaly.scan[16, 16, 16]), bool(anomaly.mask[16, 16, 20]), float(scan.max())
    (1.0, True, 0.5)
    """
    return _add_blob(
        scan,
        "sphere",
        center=center,
        size=size,
        size_range=size_range,
        intensity=intensity,
        body_mask=body_mask,
        avoid=avoid,
        seed=seed,
    )


def add_cube(
    scan: np.ndarray,
    *,
    center: Sequence[int] | None = None,
    size: float | None = None,
    size_range: tuple[int, int] = DEFAULT_SIZE_RANGES["cube"],
    intensity: float | None = None,
    body_mask: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
    seed: Seed = None,
) -> Anomaly:
    """Return a copy of ``scan`` with a cube of constant intensity, and its mask.

    The cube has ``2 * floor(size) + 1`` voxels a side.

    Parameters
    ----------
    scan, center, size_range, intensity, body_mask, avoid, seed
        As in :func:`add_sphere`.
    size : float, optional
        The half-width in voxels (default: drawn from ``size_range``).

    Returns
    -------
    Anomaly
        The new scan, the cube's mask and its parameters.

    Examples
    --------
    >>> scan = np.full((32, 32, 32), 0.5)
    >>> anomaly = add_cube(scan, center=(16, 16, 16), size=2, intensity=0.0)
    >>> int(anomaly.mask.sum()), float(anomaly.scan[14, 18, 16])
    (125, 0.0)
    """
    return _add_blob(
        scan,
        "cube",
        center=center,
        size=size,
        size_range=size_range,
        intensity=intensity,
        body_mask=body_mask,
        avoid=avoid,
        seed=seed,
    )


def _shuffle_patches(values: np.ndarray, cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Permute ``values`` at random among entries that share the same row of ``cells``."""
    key = np.ravel_multi_index(tuple(cells.T), tuple(cells.max(axis=0) + 1))
    grouped = np.argsort(key, kind="stable")
    shuffled = np.lexsort((rng.random(key.size), key))
    out = values.copy()
    out[grouped] = values[shuffled]
    return out


def add_pixel_shuffle(
    scan: np.ndarray,
    *,
    region: Region = "sphere",
    center: Sequence[int] | None = None,
    size: float | None = None,
    size_range: tuple[int, int] = DEFAULT_SIZE_RANGES["shuffle"],
    patch_size: int | None = None,
    body_mask: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
    seed: Seed = None,
) -> Anomaly:
    """Return a copy of ``scan`` with voxels shuffled locally inside a region.

    The region's bounding box is cut into patches of ``patch_size`` voxels a side; the
    voxels of the region inside each patch are permuted at random among themselves.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    region : {'sphere', 'cube'}
        Shape of the region (``size`` is its radius or half-width).
    patch_size : int, optional
        Side of the patches, at least 2; random in 3 .. 5 if omitted.
    center, size, size_range, body_mask, avoid, seed
        As in :func:`add_sphere`.

    Returns
    -------
    Anomaly
        ``kind='shuffle'``, ``params={'region': region, 'patch_size': p}``.

    Examples
    --------
    >>> scan = np.random.default_rng(0).random((24, 24, 24))
    >>> anomaly = add_pixel_shuffle(scan, center=(12, 12, 12), size=5, seed=0)
    >>> inside = anomaly.mask
    >>> bool(np.allclose(np.sort(anomaly.scan[inside]), np.sort(scan[inside])))
    True
    """
    check_choice("region", region, REGIONS)
    arr = as_scan(scan)
    rng = np.random.default_rng(seed)
    radius = resolve_size(size, size_range, rng)
    patch = int(rng.integers(3, 5, endpoint=True)) if patch_size is None else int(patch_size)
    if patch < 2:
        raise ValueError(f"patch_size must be at least 2, got {patch_size!r}")
    point = place_region(
        arr, center, radius, region, body_of(arr, body_mask), avoid_of(arr, avoid), rng
    )
    mask = make_region_mask(arr.shape, point, radius, region=region)
    coords = np.argwhere(mask)
    cells = (coords - (np.asarray(point) - int(radius))) // patch
    out = arr.copy()
    out[mask] = _shuffle_patches(arr[mask], cells, rng)
    return Anomaly(out, mask, "shuffle", point, radius, {"region": region, "patch_size": patch})


def _procedural_texture(n: int = 256) -> np.ndarray:
    """Deterministic stand-in for a natural image: waves over a checkerboard, in [0, 1]."""
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    waves = np.sin(x / 7.0) * np.cos(y / 11.0) + 0.5 * np.sin((x + 2 * y) / 17.0)
    checker = ((x // 32 + y // 32) % 2) - 0.5
    image = 0.5 + 0.2 * waves + 0.3 * checker
    return np.clip(image, 0.0, 1.0)


def natural_image() -> np.ndarray:
    """Return the default image for :func:`add_image_slab` as float64 in [0, 1].

    This is ``skimage.data.camera()`` (512 x 512, shipped inside scikit-image), or a
    deterministic procedural texture if that image cannot be loaded offline.

    Returns
    -------
    numpy.ndarray
        A 2-D image.

    Examples
    --------
    >>> image = natural_image()
    >>> image.ndim, float(image.min()) >= 0.0, float(image.max()) <= 1.0
    (2, True, True)
    """
    try:
        from skimage import data

        camera = data.camera()
    except (ImportError, OSError, ValueError):
        return _procedural_texture()
    return camera.astype(np.float64) / 255.0


def _unit_image(image: np.ndarray) -> np.ndarray:
    picture = np.asarray(image, dtype=np.float64)
    if picture.ndim != 2 or min(picture.shape) < 1:
        raise ValueError(f"image must be a non-empty 2-D array, got shape {picture.shape}")
    if not np.all(np.isfinite(picture)):
        raise ValueError("image contains NaN or infinite values")
    low, high = float(picture.min()), float(picture.max())
    if high > low:
        return (picture - low) / (high - low)
    return np.clip(picture, 0.0, 1.0)


def _resize(image: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Anti-aliased bilinear resize with pixel centres aligned (as skimage's resize)."""
    factors = [n_in / n_out for n_in, n_out in zip(image.shape, shape, strict=True)]
    sigma = [max(0.0, (f - 1.0) / 2.0) for f in factors]
    smooth = ndi.gaussian_filter(image, sigma, mode="nearest") if any(sigma) else image
    axes = [(np.arange(n) + 0.5) * f - 0.5 for n, f in zip(shape, factors, strict=True)]
    grid = np.meshgrid(*axes, indexing="ij")
    return np.clip(ndi.map_coordinates(smooth, grid, order=1, mode="nearest"), 0.0, 1.0)


def _slab_extent(axis: int, half: int, thickness: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    below = [half] * 3
    above = [half] * 3
    below[axis] = thickness // 2
    above[axis] = thickness - 1 - thickness // 2
    return tuple(below), tuple(above)


def _render_slab(
    arr: np.ndarray,
    square: np.ndarray,
    axis: int,
    point: tuple[int, ...],
    below: tuple[int, ...],
    above: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """Copy of ``arr`` with ``square`` in every plane of the slab, and the slab's mask."""
    extent = tuple(b + a + 1 for b, a in zip(below, above, strict=True))
    slab = np.broadcast_to(np.expand_dims(square, axis), extent)
    box = region_box(arr.shape, point, below, above)
    cut = tuple(
        slice(s.start - (c - b), s.stop - (c - b))
        for s, c, b in zip(box, point, below, strict=True)
    )
    out = arr.copy()
    out[box] = slab[cut]
    mask = np.zeros(arr.shape, dtype=bool)
    mask[box] = True
    return out, mask


def add_image_slab(
    scan: np.ndarray,
    image: np.ndarray | None = None,
    *,
    axis: int | None = None,
    center: Sequence[int] | None = None,
    size: float | None = None,
    size_range: tuple[int, int] = DEFAULT_SIZE_RANGES["slab"],
    thickness: int = 3,
    body_mask: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
    seed: Seed = None,
) -> Anomaly:
    """Return a copy of a 3-D ``scan`` with a 2-D image rendered into a thin slab.

    The image is rescaled to [0, 1], resized to a ``2 * floor(size) + 1`` square and
    written into each of the ``thickness`` planes perpendicular to ``axis`` around
    ``center`` (image rows follow the lower remaining axis). The ground truth is the slab.

    Parameters
    ----------
    scan : ndarray
        3-D array with values in [0, 1]. Not modified.
    image : ndarray, optional
        2-D image; min-max rescaled to [0, 1]. Defaults to :func:`natural_image`.
    axis : int, optional
        Axis perpendicular to the slab; random if omitted.
    size : float, optional
        In-plane half-width in voxels; random integer in ``size_range`` if omitted.
    thickness : int
        Number of planes of the slab.
    center, size_range, body_mask, avoid, seed
        As in :func:`add_sphere`.

    Returns
    -------
    Anomaly
        ``kind='slab'``, ``params={'axis': axis, 'thickness': thickness}``.

    Examples
    --------
    >>> scan = np.zeros((20, 40, 40))
    >>> anomaly = add_image_slab(scan, axis=0, center=(10, 20, 20), size=8, thickness=3)
    >>> anomaly.mask.sum(axis=(1, 2))[8:13].tolist()
    [0, 289, 289, 289, 0]
    """
    arr = as_scan(scan)
    if arr.ndim != 3:
        raise ValueError(f"add_image_slab needs a 3-D scan, got shape {arr.shape}")
    picture = _unit_image(natural_image() if image is None else image)
    rng = np.random.default_rng(seed)
    half = int(resolve_size(size, size_range, rng))
    if axis is None:
        axis = int(rng.integers(3))
    if axis not in (0, 1, 2):
        raise ValueError(f"axis must be 0, 1 or 2, got {axis!r}")
    if not 1 <= int(thickness) <= arr.shape[axis]:
        raise ValueError(f"thickness must be in 1 .. {arr.shape[axis]}, got {thickness!r}")
    below, above = _slab_extent(axis, half, int(thickness))
    if center is None:
        radius = float(np.hypot(np.sqrt(2.0) * half, max(below[axis], above[axis])))
        point = choose_center(
            arr.shape, below, above, radius, body_of(arr, body_mask), avoid_of(arr, avoid), rng
        )
    else:
        point = check_center(center, arr.shape)
    square = _resize(picture, (2 * half + 1, 2 * half + 1))
    out, mask = _render_slab(arr, square, axis, point, below, above)
    params = {"axis": axis, "thickness": int(thickness)}
    return Anomaly(out, mask, "slab", point, float(half), params)


def add_pet_change(
    scan: np.ndarray,
    *,
    region: Region = "sphere",
    center: Sequence[int] | None = None,
    size: float | None = None,
    size_range: tuple[int, int] = DEFAULT_SIZE_RANGES["pet"],
    degree: float | None = None,
    sigma: float = 2.0,
    body_mask: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
    seed: Seed = None,
) -> Anomaly:
    """Return a copy of ``scan`` dimmed PET-style in a region, and the region.

    The scan is multiplied by ``1 - degree * smoothed`` where ``smoothed`` is the region
    mask smoothed with a Gaussian of ``sigma`` voxels (zero outside the volume). Deep
    inside a region much larger than ``sigma`` the intensity drops by ``degree``; far
    from it nothing changes. The ground truth is the unsmoothed region.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    region : {'sphere', 'cube'}
        Shape of the region (``size`` is its radius or half-width).
    degree : float, optional
        Relative decrease in [0, 1]; uniform random in [0.3, 0.8] if omitted.
    sigma : float
        Standard deviation of the Gaussian in voxels (0: a sharp edge).
    center, size, size_range, body_mask, avoid, seed
        As in :func:`add_sphere`.

    Returns
    -------
    Anomaly
        ``kind='pet'``, ``params={'region': region, 'degree': d, 'sigma': sigma}``.

    Examples
    --------
    >>> scan = np.full((40, 40, 40), 0.8)
    >>> anomaly = add_pet_change(scan, center=(20, 20, 20), size=10, degree=0.5, sigma=1.0)
    >>> round(float(anomaly.scan[20, 20, 20]), 3), float(anomaly.scan[0, 0, 0])
    (0.4, 0.8)
    """
    check_choice("region", region, REGIONS)
    arr = as_scan(scan)
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be a non-negative number of voxels, got {sigma!r}")
    rng = np.random.default_rng(seed)
    radius = resolve_size(size, size_range, rng)
    amount = float(rng.uniform(0.3, 0.8)) if degree is None else check_unit("degree", degree)
    point = place_region(
        arr, center, radius, region, body_of(arr, body_mask), avoid_of(arr, avoid), rng
    )
    mask = make_region_mask(arr.shape, point, radius, region=region)
    reach = (int(radius) + int(np.ceil(4.0 * sigma)),) * arr.ndim
    box = region_box(arr.shape, point, reach, reach)
    smoothed = ndi.gaussian_filter(mask[box].astype(np.float64), sigma, mode="constant")
    out = arr.copy()
    out[box] = dim_scan(arr[box], smoothed, amount)
    params = {"region": region, "degree": amount, "sigma": float(sigma)}
    return Anomaly(out, mask, "pet", point, radius, params)
