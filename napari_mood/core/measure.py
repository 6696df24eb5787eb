"""Measurements a reader draws on a slice: a ruler's length and an ROI's statistics (pure).

Coordinates are the arrays' own (display-ordered) voxel indices, floats: the centre of
voxel ``i`` is at ``i`` (napari's data coordinates). ``spacing`` is the voxel size in mm
along each array axis.

Edge-case policy (one place, each case tested):

- an ROI is a box or an ellipse on one slice: four corners (a box's, or the box around
  the ellipse) in the plane of ``plane_axes``; the other axes are fixed at the nearest
  slice. Corners off the array are clipped to it; an ROI on a slice outside the array, or
  covering no voxel centre, selects no voxel;
- a voxel is in the ROI when its centre is (on the border counts as in);
- an empty ROI has ``n_voxels`` 0, mean and max NaN, and no flagged voxel;
- an array whose shape differs from the mask's is refused (ValueError naming it);
- a map's flagged voxels are :func:`napari_mood.core.scores.flag`'s (score >= its display
  threshold, read as the pixel task reads it); arrays without a threshold (the scan) have
  ``flagged`` None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.scores import flag

__all__ = [
    "RoiKind",
    "RoiStats",
    "ValueStats",
    "line_length",
    "roi_statistics",
    "roi_voxels",
]

RoiKind = Literal["rectangle", "ellipse"]
Mask = np.ndarray | tuple[np.ndarray, ...]


def line_length(start: Sequence[float], end: Sequence[float], *, spacing: Sequence[float]) -> float:
    """Length in mm of the segment ``start`` -> ``end`` (voxel coordinates).

    Parameters
    ----------
    start, end : sequence of float
        The ends, one coordinate per array axis.
    spacing : sequence of float
        Voxel size in mm along each axis (its sign is ignored: a flipped axis).

    Returns
    -------
    float

    Examples
    --------
    >>> line_length((0, 0, 0), (0, 3, 4), spacing=(1.0, 1.0, 1.0))
    5.0
    >>> line_length((5, 0, 0), (5, 3, 4), spacing=(2.0, 2.0, -0.5))
    6.324555320336759
    """
    a, b, s = (np.asarray(v, dtype=float) for v in (start, end, spacing))
    if not a.shape == b.shape == s.shape or a.ndim != 1:
        raise ValueError(f"start, end and spacing need one value per axis; got {a}, {b}, {s}")
    return float(math.sqrt(float(np.sum(((b - a) * np.abs(s)) ** 2))))


def roi_voxels(
    corners: np.ndarray,
    shape: Sequence[int],
    *,
    kind: RoiKind,
    plane_axes: tuple[int, int],
) -> tuple[np.ndarray, ...]:
    """Return the indices (as :func:`numpy.nonzero` does) of the voxels in an ROI.

    Parameters
    ----------
    corners : ndarray, shape (4, ndim)
        The box's corners in order around it (napari's rectangle and ellipse data).
    shape : sequence of int
        The array's shape.
    kind : {"rectangle", "ellipse"}
    plane_axes : tuple of int
        The two axes of the slice the ROI was drawn on.

    Returns
    -------
    tuple of ndarray
        One index array per axis (``array[indices]`` are the values inside).

    Examples
    --------
    >>> box = np.array([[3, 0.5, 0.5], [3, 0.5, 2.5], [3, 2.5, 2.5], [3, 2.5, 0.5]])
    >>> [i.tolist() for i in roi_voxels(box, (5, 4, 4), kind="rectangle", plane_axes=(1, 2))]
    [[3, 3, 3, 3], [1, 1, 2, 2], [1, 2, 1, 2]]
    """
    check_choice("kind", kind, get_args(RoiKind))
    corners = np.asarray(corners, dtype=float)
    ndim = len(shape)
    row, col = plane_axes
    if corners.shape != (4, ndim) or len({row, col}) != 2 or not {row, col} <= set(range(ndim)):
        raise ValueError(
            f"an ROI needs 4 corners of {ndim} coordinates and two plane axes of {ndim}; "
            f"got corners of shape {corners.shape} and axes {plane_axes}"
        )
    empty = tuple(np.zeros(0, dtype=np.intp) for _ in shape)
    fixed = {}
    for axis in set(range(ndim)) - {row, col}:
        index = int(round(float(corners[:, axis].mean())))
        if not 0 <= index < shape[axis]:
            return empty
        fixed[axis] = index
    inside = _inside(corners[:, [row, col]], (shape[row], shape[col]), kind)
    rows, cols = np.nonzero(inside[0])
    rows, cols = rows + inside[1][0], cols + inside[1][1]
    indices = []
    for axis in range(ndim):
        if axis == row:
            indices.append(rows.astype(np.intp))
        elif axis == col:
            indices.append(cols.astype(np.intp))
        else:
            indices.append(np.full(rows.size, fixed[axis], dtype=np.intp))
    return tuple(indices)


def _inside(
    plane: np.ndarray, shape: tuple[int, int], kind: RoiKind
) -> tuple[np.ndarray, tuple[int, int]]:
    """Bool mask of the voxel centres in the ROI over its bounding box, and the box's origin."""
    low = np.clip(np.ceil(plane.min(axis=0) - 1e-9), 0, None).astype(int)
    high = np.minimum(np.floor(plane.max(axis=0) + 1e-9).astype(int), np.array(shape) - 1)
    if np.any(high < low):
        return np.zeros((0, 0), bool), (0, 0)
    grid = np.stack(
        np.meshgrid(np.arange(low[0], high[0] + 1), np.arange(low[1], high[1] + 1), indexing="ij"),
        axis=-1,
    ).astype(float)
    centre = plane.mean(axis=0)
    half_1 = (plane[1] - plane[0]) / 2  # half of each edge: the box's (or ellipse's) half-axes
    half_2 = (plane[3] - plane[0]) / 2
    coords = []
    for half in (half_1, half_2):
        norm = float(half @ half)
        if norm == 0:  # a flat box: no voxel
            return np.zeros((0, 0), bool), (0, 0)
        coords.append((grid - centre) @ half / norm)
    u, v = coords
    tol = 1e-9
    if kind == "rectangle":
        mask = (np.abs(u) <= 1 + tol) & (np.abs(v) <= 1 + tol)
    else:
        mask = u**2 + v**2 <= 1 + tol
    return mask, (int(low[0]), int(low[1]))


@dataclass(frozen=True)
class ValueStats:
    """The values of one array inside an ROI.

    ``flagged`` counts the voxels at or above the array's display threshold (None: the
    array has no threshold, the scan).
    """

    name: str
    mean: float
    max: float
    flagged: int | None


@dataclass(frozen=True)
class RoiStats:
    """What an ROI holds (:func:`roi_statistics`).

    ``volume_mm3`` is the voxels' volume (for an ROI on a slice: one slice thick);
    ``area_mm2`` the area on the slice of a 2-D ROI (None otherwise); both None without a
    spacing.
    """

    n_voxels: int
    volume_mm3: float | None
    area_mm2: float | None
    values: tuple[ValueStats, ...]


def roi_statistics(
    arrays: Mapping[str, np.ndarray],
    mask: Mask,
    *,
    spacing: Sequence[float] | None = None,
    plane_axes: tuple[int, int] | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> RoiStats:
    """Mean, max and flagged voxels of each array inside ``mask``; the ROI's size in mm.

    Parameters
    ----------
    arrays : mapping of str to ndarray
        The scan and the maps, one shape (the mask's), in the order shown.
    mask : ndarray of bool, or tuple of index arrays
        The ROI: a bool array of that shape, or :func:`roi_voxels`' indices.
    spacing : sequence of float, optional
        Voxel size in mm per axis (signs ignored), for the volume and the area.
    plane_axes : tuple of int, optional
        The two axes of the slice a 2-D ROI was drawn on, for ``area_mm2``.
    thresholds : mapping of str to float, optional
        Display threshold of each map (arrays absent from it get ``flagged`` None).

    Returns
    -------
    RoiStats

    Examples
    --------
    >>> scan = np.arange(8.0).reshape(2, 4); scores = scan / 10
    >>> mask = np.zeros((2, 4), bool); mask[1, 1:3] = True
    >>> s = roi_statistics({"scan": scan, "m": scores}, mask, spacing=(2.0, 0.5),
    ...                    plane_axes=(0, 1), thresholds={"m": 0.6})
    >>> s.n_voxels, s.area_mm2, s.values[0].mean, s.values[1].max, s.values[1].flagged
    (2, 2.0, 5.5, 0.6, 1)
    """
    thresholds = thresholds or {}
    shape = _mask_shape(mask)
    found = []
    n_voxels = None
    for name, array in arrays.items():
        data = np.asarray(array)
        if shape is not None and data.shape != shape:
            raise ValueError(f"{name}: shape {data.shape} differs from the ROI mask's {shape}")
        if shape is None and len(mask) != data.ndim:
            raise ValueError(f"{name}: {data.ndim} axes, the ROI's indices have {len(mask)}")
        values = data[mask]
        n_voxels = values.size
        threshold = thresholds.get(name)
        flagged = None if threshold is None else int(np.count_nonzero(flag(values, threshold)))
        mean = float(np.mean(values, dtype=np.float64)) if values.size else math.nan
        top = float(np.max(values)) if values.size else math.nan
        found.append(ValueStats(name, mean, top, flagged))
    if n_voxels is None:
        n_voxels = int(np.count_nonzero(mask)) if shape is not None else int(len(mask[0]))
    return RoiStats(n_voxels, *_sizes(n_voxels, spacing, plane_axes), tuple(found))


def _mask_shape(mask: Mask) -> tuple[int, ...] | None:
    """Return the shape of a bool mask (None for index arrays)."""
    if isinstance(mask, tuple):
        return None
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(f"an ROI mask must be bool (or a tuple of index arrays); got {mask.dtype}")
    return mask.shape


def _sizes(
    n_voxels: int, spacing: Sequence[float] | None, plane_axes: tuple[int, int] | None
) -> tuple[float | None, float | None]:
    if spacing is None or len(spacing) == 0:
        return None, None
    sizes = np.abs(np.asarray(spacing, dtype=float))
    volume = n_voxels * float(np.prod(sizes))
    area = (
        None
        if plane_axes is None
        else n_voxels * float(sizes[plane_axes[0]] * sizes[plane_axes[1]])
    )
    return volume, area
