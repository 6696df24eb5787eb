"""Where an anomaly goes: argument checks, body mask, centre choice and region masks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Literal, get_args

import numpy as np
from scipy import ndimage as ndi

from napari_mood.core._checks import check_choice

__all__ = [
    "Anomaly",
    "AnomalyKind",
    "DEFAULT_SIZE_RANGES",
    "GAP",
    "KINDS",
    "REGIONS",
    "Region",
    "Seed",
    "as_scan",
    "avoid_of",
    "body_of",
    "check_center",
    "check_unit",
    "choose_center",
    "make_region_mask",
    "place_region",
    "region_box",
    "resolve_size",
    "UnitScan",
    "to_unit_range",
]


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


GAP = 2.0  # voxels kept free between an anomaly and ``avoid``


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


def as_scan(scan: np.ndarray) -> np.ndarray:
    """Check that ``scan`` is a 2-D or 3-D volume with values in [0, 1].

    Parameters
    ----------
    scan : numpy.ndarray
        The volume anomalies are placed in.

    Returns
    -------
    numpy.ndarray
        ``scan`` as a floating-point array (float64 when it was not floating).

    Raises
    ------
    ValueError
        When ``scan`` is not 2-D or 3-D, is empty, or has values outside [0, 1].
    """
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


@dataclass(frozen=True, eq=False)
class UnitScan:
    """A scan brought to [0, 1] for simulation, and what was done to it.

    ``rescaled_from`` is the original ``(min, max)`` when the intensities were rescaled
    (None when they already lay in [0, 1]); ``constant`` says every voxel was equal.
    """

    data: np.ndarray
    rescaled_from: tuple[float, float] | None
    constant: bool


def to_unit_range(scan: np.ndarray) -> UnitScan:
    """Rescale a scan's intensities linearly to [0, 1] (a constant scan becomes all 0).

    Parameters
    ----------
    scan : numpy.ndarray
        A scan of any real intensities.

    Returns
    -------
    UnitScan
        The scan in [0, 1], the original range when it was rescaled, and whether it was
        constant.

    Raises
    ------
    ValueError
        When the scan holds NaN or infinite voxels (rescaling [0, inf] would give an
        all-zero scan), naming how many.

    Examples
    --------
    >>> found = to_unit_range(np.array([[-1000.0, 1000.0]]))
    >>> found.data.tolist(), found.rescaled_from
    ([[0.0, 1.0]], (-1000.0, 1000.0))
    """
    data = np.asarray(scan, dtype=np.float32)
    finite = np.isfinite(data)
    if not finite.all():
        n_nan = int(np.count_nonzero(np.isnan(data)))
        n_inf = int(data.size - np.count_nonzero(finite)) - n_nan
        raise ValueError(
            f"holds {n_nan:,} NaN and {n_inf:,} infinite voxels: simulating needs finite "
            "intensities"
        )
    low, high = (float(data.min()), float(data.max())) if data.size else (0.0, 0.0)
    constant = low == high
    if 0.0 <= low and high <= 1.0:
        return UnitScan(data, None, constant)
    rescaled = (data - low) / (high - low) if not constant else np.zeros_like(data)
    return UnitScan(rescaled, (low, high), constant)


def check_unit(name: str, value: float) -> float:
    """Check that an option lies in [0, 1].

    Parameters
    ----------
    name : str
        The option's name, for the error message.
    value : float
        The value given.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ValueError
        When ``value`` is outside [0, 1].
    """
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value:g}")
    return value


def body_of(arr: np.ndarray, body_mask: np.ndarray | None) -> np.ndarray:
    """Return the body mask anomalies are placed in.

    Parameters
    ----------
    arr : numpy.ndarray
        The scan.
    body_mask : numpy.ndarray or None
        A mask of the scan's shape; None takes every voxel above 0.

    Returns
    -------
    numpy.ndarray
        A boolean mask of ``arr``'s shape.

    Raises
    ------
    ValueError
        When ``body_mask`` has another shape than ``arr``.
    """
    if body_mask is None:
        return arr > 0
    body = np.asarray(body_mask, dtype=bool)
    if body.shape != arr.shape:
        raise ValueError(f"body_mask shape {body.shape} differs from scan shape {arr.shape}")
    return body


def avoid_of(arr: np.ndarray, avoid: np.ndarray | None) -> np.ndarray | None:
    """Return the voxels a new anomaly keeps its distance from (earlier anomalies).

    Parameters
    ----------
    arr : numpy.ndarray
        The scan.
    avoid : numpy.ndarray or None
        A mask of the scan's shape, or None.

    Returns
    -------
    numpy.ndarray or None
        A boolean mask of ``arr``'s shape, or None when nothing is to be avoided
        (``avoid`` None or empty).

    Raises
    ------
    ValueError
        When ``avoid`` has another shape than ``arr``.
    """
    if avoid is None:
        return None
    mask = np.asarray(avoid, dtype=bool)
    if mask.shape != arr.shape:
        raise ValueError(f"avoid shape {mask.shape} differs from scan shape {arr.shape}")
    return mask if mask.any() else None


def resolve_size(
    size: float | None, size_range: tuple[int, int], rng: np.random.Generator
) -> float:
    """Return the anomaly's size in voxels: the one given, or drawn from ``size_range``.

    Parameters
    ----------
    size : float or None
        A positive size, or None to draw one.
    size_range : tuple of int
        ``(low, high)``, both included, to draw an integer size from.
    rng : numpy.random.Generator
        The random generator the size is drawn with.

    Returns
    -------
    float
        The size in voxels.

    Raises
    ------
    ValueError
        When ``size`` is not a positive finite number or ``size_range`` is not
        ``0 < low <= high``.
    """
    if size is not None:
        if not (np.isfinite(size) and size > 0):
            raise ValueError(f"size must be a positive number of voxels, got {size!r}")
        return float(size)
    low, high = size_range
    if not 0 < low <= high:
        raise ValueError(f"size_range must satisfy 0 < low <= high, got {size_range!r}")
    return float(rng.integers(int(low), int(high), endpoint=True))


def check_center(center: Sequence[int], shape: tuple[int, ...]) -> tuple[int, ...]:
    """Check that a given centre is a voxel of the scan.

    Parameters
    ----------
    center : sequence of int
        One index per axis.
    shape : tuple of int
        The scan's shape.

    Returns
    -------
    tuple of int
        The centre as integers.

    Raises
    ------
    ValueError
        When ``center`` has the wrong number of coordinates or lies outside the scan.
    """
    point = tuple(int(c) for c in center)
    if len(point) != len(shape):
        raise ValueError(f"center {tuple(center)} needs {len(shape)} coordinates")
    if any(not 0 <= c < n for c, n in zip(point, shape, strict=True)):
        raise ValueError(f"center {point} lies outside the scan of shape {shape}")
    return point


def choose_center(
    shape: tuple[int, ...],
    below: tuple[int, ...],
    above: tuple[int, ...],
    radius: float,
    body: np.ndarray,
    avoid: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[int, ...]:
    """Random centre whose box ``[c - below, c + above]`` fits in the volume (see policies).

    Parameters
    ----------
    shape : tuple of int
        The volume's shape.
    below, above : tuple of int
        The box's reach below and above the centre, per axis.
    radius : float
        The anomaly's reach from its centre, in voxels.
    body : numpy.ndarray
        Mask the centre preferably lies inside (by ``radius``).
    avoid : numpy.ndarray or None
        Mask of earlier anomalies to keep away from.
    rng : numpy.random.Generator
        The random generator.

    Returns
    -------
    tuple of int
        The centre.

    Raises
    ------
    ValueError
        When no centre leaves room for the anomaly.
    """
    allowed = np.zeros(shape, dtype=bool)
    bounds = tuple(slice(b, n - a) for b, a, n in zip(below, above, shape, strict=True))
    allowed[bounds] = True
    if avoid is not None:
        allowed &= ndi.distance_transform_edt(~avoid) > radius + GAP
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


def place_region(
    arr: np.ndarray,
    center: Sequence[int] | None,
    size: float,
    region: str,
    body: np.ndarray,
    avoid: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[int, ...]:
    """Return the centre of a new anomaly: the one given (checked), else a random one that fits.

    Parameters
    ----------
    arr : numpy.ndarray
        The scan.
    center : sequence of int or None
        A centre chosen by the caller, or None to draw one.
    size : float
        The anomaly's size in voxels (a sphere's radius, a cube's half side).
    region : str
        ``"sphere"`` or another box-shaped region (its reach is the half diagonal).
    body : numpy.ndarray
        Mask of the voxels the centre should preferably lie deep inside.
    avoid : numpy.ndarray or None
        Mask of earlier anomalies to keep :data:`GAP` voxels away from.
    rng : numpy.random.Generator
        The random generator the centre is drawn with.

    Returns
    -------
    tuple of int
        The centre, one index per axis.

    Raises
    ------
    ValueError
        When a given centre lies outside the scan, or no centre leaves room for the anomaly.
    """
    if center is not None:
        return check_center(center, arr.shape)
    half = (int(size),) * arr.ndim
    radius = size if region == "sphere" else size * np.sqrt(arr.ndim)
    return choose_center(arr.shape, half, half, radius, body, avoid, rng)


def region_box(
    shape: tuple[int, ...], center: tuple[int, ...], below: Sequence[int], above: Sequence[int]
) -> tuple[slice, ...]:
    """Slices of the box ``[c - below, c + above]`` cut at the volume border.

    Parameters
    ----------
    shape : tuple of int
        The volume's shape.
    center : tuple of int
        The box's centre.
    below, above : sequence of int
        The box's reach below and above the centre, per axis.

    Returns
    -------
    tuple of slice
        One slice per axis.
    """
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
    >>> int(make_region_mask((5, 5), (0, 0), 1e300).sum())  # larger than the volume: all of it
    25
    """
    check_choice("region", region, REGIONS)
    shape = tuple(int(n) for n in shape)
    point = check_center(center, shape)
    if not (np.isfinite(size) and size >= 0):
        raise ValueError(f"size must be a non-negative number of voxels, got {size!r}")
    size = min(
        float(size), float(np.hypot.reduce(shape))
    )  # beyond: every voxel (1e300 ** 2 overflows)
    reach = (int(size),) * len(shape)
    box = region_box(shape, point, reach, reach)
    offsets = [o - c for o, c in zip(np.ogrid[box], point, strict=True)]
    if region == "sphere":
        inside = sum(o.astype(np.float64) ** 2 for o in offsets) <= size**2
    else:
        inside = reduce(np.logical_and, [np.abs(o) <= size for o in offsets])
    mask = np.zeros(shape, dtype=bool)
    mask[box] = inside
    return mask
