"""Toy and PET-style anomalies, as in the MOOD challenge's toy examples.

Every function takes a scan (a 2-D or 3-D float array with values in [0, 1]), never
modifies it, and returns a *new* scan together with the ground-truth mask of the anomaly.
Randomness comes from ``seed`` (an int, a :class:`numpy.random.Generator` or ``None``), so
the same seed gives the same anomaly.

Kinds
-----
``sphere`` / ``cube``
    A ball (Euclidean radius ``size``) or cube (half-width ``size``, i.e. side
    ``2 * floor(size) + 1``) filled with one constant intensity drawn from [0, 1].
``shuffle``
    Local pixel shuffling: inside a sphere (or cube) region the voxels are permuted at
    random within small patches (``patch_size`` voxels a side, 3 to 5 by default), so local
    texture is destroyed while the intensity histogram of every patch is kept.
``slab``
    A natural 2-D image (``skimage.data.camera()`` by default) resized to a square of
    half-width ``size`` and written into a slab ``thickness`` voxels thick perpendicular
    to ``axis``. 3-D scans only.
``pet``
    PET-style change: intensities are multiplied by ``1 - degree * smoothed_region`` where
    ``smoothed_region`` is the region mask smoothed with a Gaussian of ``sigma`` voxels.

Policies
--------
- Sizes are in voxels (not millimetres). A random size is an integer drawn uniformly from
  ``size_range`` (both ends included).
- The ground truth is always the *region* (the sphere, cube or slab), even where the
  change is invisible (shuffling a uniform patch, dimming background voxels of value 0).
  For ``pet`` the ground truth is the unsmoothed region, not a thresholded smoothed mask.
- A random centre is chosen so that the whole region lies inside the volume; among those
  centres it prefers one whose whole region lies inside the body mask, then one that is
  itself inside the body mask, then any. The body mask defaults to the nonzero voxels of
  the scan. With ``avoid`` (a mask of earlier anomalies) the region keeps at least two
  voxels away from it, so anomalies stay separate objects even with full connectivity.
- A given centre may put part of the region outside the volume; the region is cut at
  the border and the ground truth is what remains inside.
- The output keeps the scan's floating dtype; non-float scans are converted to float64.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Literal, get_args

import numpy as np
from scipy import ndimage as ndi

from napari_mood.core._checks import check_choice

AnomalyKind = Literal["sphere", "cube", "shuffle", "slab", "pet"]
Region = Literal["sphere", "cube"]
Seed = int | np.random.Generator | None

KINDS: tuple[str, ...] = get_args(AnomalyKind)
REGIONS: tuple[str, ...] = get_args(Region)
DEFAULT_SIZE_RANGES: Mapping[str, tuple[int, int]] = {
    "sphere": (3, 10),
    "cube": (3, 8),
    "shuffle": (4, 10),
    "slab": (8, 20),
    "pet": (5, 12),
}
_GAP = 2.0  # voxels kept free between an anomaly and ``avoid``


@dataclass(frozen=True, eq=False)
class Anomaly:
    """One simulated anomaly.

    Attributes
    ----------
    scan : ndarray
        The new scan, with the anomaly.
    mask : ndarray of bool
        Ground truth: the anomaly's region.
    kind : str
        One of ``KINDS``.
    center : tuple of int
        Voxel index of the region's centre.
    size : float
        Radius (sphere), half-width (cube) or in-plane half-width (slab), in voxels.
    params : mapping
        The other parameters used (intensity, patch size, axis, degree, ...).
    """

    scan: np.ndarray
    mask: np.ndarray
    kind: str
    center: tuple[int, ...]
    size: float
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Simulation:
    """Several anomalies applied one after the other to one scan.

    ``scan`` is the final scan, ``mask`` the union of the anomalies' masks and
    ``anomalies`` the individual anomalies in the order they were applied.
    """

    scan: np.ndarray
    mask: np.ndarray
    anomalies: tuple[Anomaly, ...]


@dataclass(frozen=True, eq=False)
class SimulatedCase:
    """A named case of a simulated dataset: scan, ground truth and its anomalies."""

    name: str
    scan: np.ndarray
    mask: np.ndarray
    anomalies: tuple[Anomaly, ...]

    @property
    def label(self) -> int:
        """Sample-level label: 1 if the case has an anomaly, else 0."""
        return int(bool(self.mask.any()))


# ----------------------------------------------------------------------------- checks


def _as_scan(scan: np.ndarray) -> np.ndarray:
    arr = np.asarray(scan)
    if arr.ndim not in (2, 3):
        raise ValueError(f"scan must be 2-D or 3-D, got {arr.ndim}-D with shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("scan is empty")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    low, high = float(np.min(arr)), float(np.max(arr))
    if not (0.0 <= low and high <= 1.0):
        raise ValueError(
            f"scan values must lie in [0, 1] (found {low:g} .. {high:g}); "
            "rescale first, e.g. scan / scan.max()"
        )
    return arr


def _check_unit(name: str, value: float) -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value:g}")
    return value


def _body(arr: np.ndarray, body_mask: np.ndarray | None) -> np.ndarray:
    if body_mask is None:
        return arr > 0
    body = np.asarray(body_mask, dtype=bool)
    if body.shape != arr.shape:
        raise ValueError(f"body_mask shape {body.shape} differs from scan shape {arr.shape}")
    return body


def _avoid(arr: np.ndarray, avoid: np.ndarray | None) -> np.ndarray | None:
    if avoid is None:
        return None
    mask = np.asarray(avoid, dtype=bool)
    if mask.shape != arr.shape:
        raise ValueError(f"avoid shape {mask.shape} differs from scan shape {arr.shape}")
    return mask if mask.any() else None


def _resolve_size(
    size: float | None, size_range: tuple[int, int], rng: np.random.Generator
) -> float:
    if size is not None:
        if not (np.isfinite(size) and size > 0):
            raise ValueError(f"size must be a positive number of voxels, got {size!r}")
        return float(size)
    low, high = size_range
    if not 0 < low <= high:
        raise ValueError(f"size_range must satisfy 0 < low <= high, got {size_range!r}")
    return float(rng.integers(int(low), int(high), endpoint=True))


def _check_center(center: Sequence[int], shape: tuple[int, ...]) -> tuple[int, ...]:
    point = tuple(int(c) for c in center)
    if len(point) != len(shape):
        raise ValueError(f"center {tuple(center)} needs {len(shape)} coordinates")
    if any(not 0 <= c < n for c, n in zip(point, shape, strict=True)):
        raise ValueError(f"center {point} lies outside the scan of shape {shape}")
    return point


# ------------------------------------------------------------------------- placement


def _choose_center(
    shape: tuple[int, ...],
    below: tuple[int, ...],
    above: tuple[int, ...],
    radius: float,
    body: np.ndarray,
    avoid: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[int, ...]:
    """Random centre whose box ``[c - below, c + above]`` fits in the volume (see policies)."""
    allowed = np.zeros(shape, dtype=bool)
    bounds = tuple(slice(b, n - a) for b, a, n in zip(below, above, shape, strict=True))
    allowed[bounds] = True
    if avoid is not None:
        allowed &= ndi.distance_transform_edt(~avoid) > radius + _GAP
    if not allowed.any():
        raise ValueError(
            f"no room for an anomaly reaching {radius:g} voxels from its centre in a scan "
            f"of shape {shape}"
            + (" away from the earlier anomalies" if avoid is not None else "")
            + "; use a smaller size or count"
        )
    inside = body if body.all() else ndi.distance_transform_edt(body) > radius
    for candidates in (allowed & inside, allowed & body, allowed):
        flat = np.flatnonzero(candidates)
        if flat.size:
            pick = flat[rng.integers(flat.size)]
            return tuple(int(i) for i in np.unravel_index(pick, shape))
    raise AssertionError("unreachable: allowed is not empty")


def _place_region(
    arr: np.ndarray,
    center: Sequence[int] | None,
    size: float,
    region: str,
    body: np.ndarray,
    avoid: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[int, ...]:
    if center is not None:
        return _check_center(center, arr.shape)
    half = (int(size),) * arr.ndim
    radius = size if region == "sphere" else size * np.sqrt(arr.ndim)
    return _choose_center(arr.shape, half, half, radius, body, avoid, rng)


def _box(
    shape: tuple[int, ...], center: tuple[int, ...], below: Sequence[int], above: Sequence[int]
) -> tuple[slice, ...]:
    """Slices of the box ``[c - below, c + above]`` cut at the volume border."""
    return tuple(
        slice(max(c - b, 0), min(c + a + 1, n))
        for c, b, a, n in zip(center, below, above, shape, strict=True)
    )


def make_region_mask(
    shape: Sequence[int],
    center: Sequence[int],
    size: float,
    *,
    region: Region = "sphere",
) -> np.ndarray:
    """Return the boolean mask of a sphere or cube, cut at the volume border.

    Parameters
    ----------
    shape : sequence of int
        Shape of the volume (2-D or 3-D).
    center : sequence of int
        Voxel index of the centre (inside the volume).
    size : float
        Radius of the sphere (voxels within Euclidean distance ``size``) or half-width of
        the cube (voxels within ``size`` along every axis).
    region : {'sphere', 'cube'}
        Shape of the region.

    Returns
    -------
    ndarray of bool
        The region.

    Examples
    --------
    >>> int(make_region_mask((5, 5), (2, 2), 1, region="sphere").sum())
    5
    >>> int(make_region_mask((5, 5), (2, 2), 1, region="cube").sum())
    9
    """
    check_choice("region", region, REGIONS)
    shape = tuple(int(n) for n in shape)
    point = _check_center(center, shape)
    if not (np.isfinite(size) and size >= 0):
        raise ValueError(f"size must be a non-negative number of voxels, got {size!r}")
    reach = (int(size),) * len(shape)
    box = _box(shape, point, reach, reach)
    offsets = [o - c for o, c in zip(np.ogrid[box], point, strict=True)]
    if region == "sphere":
        inside = sum(o.astype(np.float64) ** 2 for o in offsets) <= size**2
    else:
        inside = reduce(np.logical_and, [np.abs(o) <= size for o in offsets])
    mask = np.zeros(shape, dtype=bool)
    mask[box] = inside
    return mask


# ------------------------------------------------------------------------ the kinds


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
    arr = _as_scan(scan)
    rng = np.random.default_rng(seed)
    radius = _resolve_size(size, size_range, rng)
    point = _place_region(
        arr, center, radius, region, _body(arr, body_mask), _avoid(arr, avoid), rng
    )
    value = (
        float(rng.uniform(0.0, 1.0)) if intensity is None else _check_unit("intensity", intensity)
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

    Parameters are those of :func:`add_sphere`; ``size`` is the half-width, so the cube
    has ``2 * floor(size) + 1`` voxels a side.

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
    arr = _as_scan(scan)
    rng = np.random.default_rng(seed)
    radius = _resolve_size(size, size_range, rng)
    patch = int(rng.integers(3, 5, endpoint=True)) if patch_size is None else int(patch_size)
    if patch < 2:
        raise ValueError(f"patch_size must be at least 2, got {patch_size!r}")
    point = _place_region(
        arr, center, radius, region, _body(arr, body_mask), _avoid(arr, avoid), rng
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
    box = _box(arr.shape, point, below, above)
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
    arr = _as_scan(scan)
    if arr.ndim != 3:
        raise ValueError(f"add_image_slab needs a 3-D scan, got shape {arr.shape}")
    picture = _unit_image(natural_image() if image is None else image)
    rng = np.random.default_rng(seed)
    half = int(_resolve_size(size, size_range, rng))
    if axis is None:
        axis = int(rng.integers(3))
    if axis not in (0, 1, 2):
        raise ValueError(f"axis must be 0, 1 or 2, got {axis!r}")
    if not 1 <= int(thickness) <= arr.shape[axis]:
        raise ValueError(f"thickness must be in 1 .. {arr.shape[axis]}, got {thickness!r}")
    below, above = _slab_extent(axis, half, int(thickness))
    if center is None:
        radius = float(np.hypot(np.sqrt(2.0) * half, max(below[axis], above[axis])))
        point = _choose_center(
            arr.shape, below, above, radius, _body(arr, body_mask), _avoid(arr, avoid), rng
        )
    else:
        point = _check_center(center, arr.shape)
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
    arr = _as_scan(scan)
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be a non-negative number of voxels, got {sigma!r}")
    rng = np.random.default_rng(seed)
    radius = _resolve_size(size, size_range, rng)
    amount = float(rng.uniform(0.3, 0.8)) if degree is None else _check_unit("degree", degree)
    point = _place_region(
        arr, center, radius, region, _body(arr, body_mask), _avoid(arr, avoid), rng
    )
    mask = make_region_mask(arr.shape, point, radius, region=region)
    reach = (int(radius) + int(np.ceil(4.0 * sigma)),) * arr.ndim
    box = _box(arr.shape, point, reach, reach)
    smoothed = ndi.gaussian_filter(mask[box].astype(np.float64), sigma, mode="constant")
    out = arr.copy()
    out[box] = arr[box] * (1.0 - amount * smoothed)
    params = {"region": region, "degree": amount, "sigma": float(sigma)}
    return Anomaly(out, mask, "pet", point, radius, params)


# ------------------------------------------------------------------ several at once

_ADDERS: dict[str, Callable[..., Anomaly]] = {
    "sphere": add_sphere,
    "cube": add_cube,
    "shuffle": add_pixel_shuffle,
    "slab": add_image_slab,
    "pet": add_pet_change,
}


def add_anomalies(
    scan: np.ndarray,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    count: int = 1,
    size_range: tuple[int, int] | None = None,
    body_mask: np.ndarray | None = None,
    seed: Seed = None,
) -> Simulation:
    """Apply ``count`` separate anomalies to one scan, one after the other.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    kind : {'sphere', 'cube', 'shuffle', 'slab', 'pet', 'mixed'}
        AnomalyKind of every anomaly; ``'mixed'`` draws each kind at random (``'slab'`` only
        for 3-D scans).
    count : int
        Number of anomalies (0 gives a copy of the scan and an empty mask).
    size_range : (int, int), optional
        Range of the random sizes; the kind's default (``DEFAULT_SIZE_RANGES``) if omitted.
    body_mask : ndarray of bool, optional
        Where anomalies should go; defaults to the nonzero voxels of the input scan.
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    Simulation
        Final scan, union mask, and the anomalies. Anomalies never touch each other (a gap
        of at least 2 voxels); a ValueError says when there is no room left.

    Examples
    --------
    >>> scan = np.full((48, 48, 48), 0.5)
    >>> sim = add_anomalies(scan, kind="sphere", count=3, size_range=(2, 4), seed=0)
    >>> len(sim.anomalies), bool(sim.mask.any()), float(scan.max())
    (3, True, 0.5)
    """
    check_choice("kind", kind, (*KINDS, "mixed"))
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be a non-negative integer, got {count!r}")
    arr = _as_scan(scan)
    if kind == "slab" and arr.ndim != 3:
        raise ValueError("kind='slab' needs a 3-D scan")
    rng = np.random.default_rng(seed)
    body = _body(arr, body_mask)
    pool = [k for k in KINDS if arr.ndim == 3 or k != "slab"]
    current, union, anomalies = arr.copy(), np.zeros(arr.shape, dtype=bool), []
    for _ in range(int(count)):
        this = str(rng.choice(pool)) if kind == "mixed" else kind
        sizes = DEFAULT_SIZE_RANGES[this] if size_range is None else size_range
        anomaly = _ADDERS[this](current, size_range=sizes, body_mask=body, avoid=union, seed=rng)
        anomalies.append(anomaly)
        current = anomaly.scan
        union |= anomaly.mask
    return Simulation(current, union, tuple(anomalies))


def simulate_cases(
    scan: np.ndarray,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    count: int = 1,
    n_anomalous: int = 3,
    n_normal: int = 1,
    size_range: tuple[int, int] | None = None,
    body_mask: np.ndarray | None = None,
    prefix: str = "case",
    seed: Seed = None,
) -> tuple[SimulatedCase, ...]:
    """Make a small MOOD-style dataset from one scan: normal and anomalous cases.

    Cases are named ``{prefix}_000``, ``{prefix}_001``, ...: first ``n_normal`` normal
    cases (copies of the scan, empty masks), then ``n_anomalous`` cases with ``count``
    anomalies each (see :func:`add_anomalies`). Each case draws from its own child of
    the seed's generator, so a case does not change when another one is added.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    kind, count, size_range, body_mask
        As in :func:`add_anomalies`.
    n_anomalous, n_normal : int
        Number of cases of each sort.
    prefix : str
        Start of the case names.
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    tuple of SimulatedCase
        Write them with :func:`napari_mood.core.writers.write_mood_case`.

    Examples
    --------
    >>> scan = np.full((32, 32, 32), 0.5)
    >>> cases = simulate_cases(scan, kind="cube", n_anomalous=2, size_range=(2, 3), seed=0)
    >>> [(case.name, case.label) for case in cases]
    [('case_000', 0), ('case_001', 1), ('case_002', 1)]
    """
    for name, number in (("n_anomalous", n_anomalous), ("n_normal", n_normal)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {number!r}")
    if not prefix or any(sep in prefix for sep in "/\\"):
        raise ValueError(f"prefix must be a non-empty file-name part, got {prefix!r}")
    arr = _as_scan(scan)
    children = np.random.default_rng(seed).spawn(n_normal + n_anomalous)
    cases = []
    for index, child in enumerate(children):
        name = f"{prefix}_{index:03d}"
        if index < n_normal:
            cases.append(SimulatedCase(name, arr.copy(), np.zeros(arr.shape, bool), ()))
            continue
        sim = add_anomalies(
            arr, kind=kind, count=count, size_range=size_range, body_mask=body_mask, seed=child
        )
        cases.append(SimulatedCase(name, sim.scan, sim.mask, sim.anomalies))
    return tuple(cases)
