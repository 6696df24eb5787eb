"""Which slice to show and which part of it: pure helpers for figures and widgets.

Volumes are display-ordered (:mod:`napari_mood.core.orientation`): axis 0 is the slider
(axial) axis, rows run anterior -> posterior, columns left -> right. Slices are taken along
``axis`` (0 axial, 1 coronal, 2 sagittal: a plane's
:attr:`~napari_mood.core.orientation.PlaneView.slice_axis`).

Policy (one place):

* the slice of a case with an anomaly is the one with the largest ground-truth area
  (:func:`largest_area_slice`; ties: the lowest index);
* the slice of a normal case is the one where the first method scores highest
  (:func:`highest_score_slice`; ties broken by the slice's score sum, then the lowest index);
* with neither, the middle slice (:func:`choose_slice`);
* the body is the scan above a small fraction of its intensity range (:func:`body_mask`);
  the crop is the bounding box, over all slices, of the body, grown by a margin
  (:func:`body_box`, :func:`mask_box`); a blank scan is not cropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "CropBox",
    "body_box",
    "body_mask",
    "choose_slice",
    "highest_score_slice",
    "largest_area_slice",
    "mask_box",
]

BODY_LEVEL = 0.05
"""Fraction of the scan's robust intensity range above which a voxel is "body"."""
BODY_MARGIN = 4
"""Voxels added around the body's bounding box."""
_ROBUST_PERCENTILE = 99.5


@dataclass(frozen=True)
class CropBox:
    """A 2-D crop of display slices: ``rows`` and ``cols`` are half-open ranges.

    Examples
    --------
    >>> box = CropBox((2, 5), (0, 3))
    >>> np.arange(36).reshape(6, 6)[box.slices].shape
    (3, 3)
    """

    rows: tuple[int, int]
    cols: tuple[int, int]

    @property
    def slices(self) -> tuple[slice, slice]:
        """Index expression for a 2-D slice (``image[box.slices]``)."""
        return slice(*self.rows), slice(*self.cols)

    @property
    def shape(self) -> tuple[int, int]:
        """Height and width in voxels."""
        return self.rows[1] - self.rows[0], self.cols[1] - self.cols[0]


def _check_volume(array: np.ndarray, name: str, axis: int) -> np.ndarray:
    """Return the volume with ``axis`` moved first (a view)."""
    array = np.asarray(array)
    if array.ndim != 3:
        raise ValueError(f"{name} must be a 3-D (display-ordered) volume, got shape {array.shape}")
    if axis not in (0, 1, 2):
        raise ValueError(f"axis must be 0, 1 or 2, got {axis!r}")
    return np.moveaxis(array, axis, 0)


def largest_area_slice(mask: np.ndarray, *, axis: int = 0) -> int | None:
    """Return the index (along ``axis``) of the slice with the most mask voxels; None when empty.

    Parameters
    ----------
    mask : numpy.ndarray
        A 3-D bool mask.
    axis : int
        The display axis the slices are taken along.

    Returns
    -------
    int or None
        The slice index.

    Examples
    --------
    >>> mask = np.zeros((4, 3, 3), bool)
    >>> mask[1, 0, 0] = True
    >>> mask[2, :2, :2] = True
    >>> largest_area_slice(mask)
    2
    >>> largest_area_slice(mask, axis=2)
    0
    >>> largest_area_slice(np.zeros((4, 3, 3), bool)) is None
    True
    """
    areas = np.count_nonzero(_check_volume(mask, "mask", axis), axis=(1, 2))
    return int(np.argmax(areas)) if areas.any() else None


def highest_score_slice(scores: np.ndarray, *, axis: int = 0) -> int:
    """Return the index (along ``axis``) of the slice holding the highest score.

    Ties (several slices reaching the same maximum, common for binary maps) go to the
    slice with the largest score sum, then to the lowest index. NaN counts as 0.

    Parameters
    ----------
    scores : numpy.ndarray
        A 3-D score map.
    axis : int
        The display axis the slices are taken along.

    Returns
    -------
    int
        The slice index.

    Examples
    --------
    >>> scores = np.zeros((3, 2, 2))
    >>> scores[0, 0, 0] = scores[2, 0, 0] = scores[2, 1, 1] = 1.0
    >>> highest_score_slice(scores)
    2
    """
    values = np.nan_to_num(_check_volume(scores, "scores", axis).astype(np.float64), nan=0.0)
    peak = values.max(axis=(1, 2))
    total = values.sum(axis=(1, 2))
    order = np.lexsort((-total, -peak))  # last key is primary: highest peak, then sum
    return int(order[0])


def choose_slice(
    gt: np.ndarray | None, scores: np.ndarray | None, depth: int, *, axis: int = 0
) -> int:
    """Choose the slice to show: largest GT area, else highest score, else the middle.

    Parameters
    ----------
    gt : ndarray of bool or None
        Ground-truth mask (display-ordered).
    scores : ndarray or None
        The first method's map, used when the mask is empty or missing.
    depth : int
        Number of slices (along ``axis``), for the middle-slice fallback.
    axis : int
        Display axis the slices are taken along (0 axial, 1 coronal, 2 sagittal).

    Returns
    -------
    int
        The slice index.

    Examples
    --------
    >>> choose_slice(None, None, 9)
    4
    """
    if gt is not None:
        index = largest_area_slice(gt, axis=axis)
        if index is not None:
            return index
    if scores is not None:
        return highest_score_slice(scores, axis=axis)
    return depth // 2


def body_mask(scan: np.ndarray, *, level: float = BODY_LEVEL) -> np.ndarray:
    """Return where a scan is body: above ``min + level * (p99.5 - min)`` of the scan.

    NaN and infinities count as the background; a blank scan has no body. The scan is
    read as float32, as napari-mood reads every scan: a float64 value beyond float32's
    range is infinite there, so background too.

    Parameters
    ----------
    scan : ndarray
        2-D slice or 3-D volume.
    level : float
        Fraction in [0, 1) of the robust intensity range.

    Returns
    -------
    numpy.ndarray
        Bool mask of the scan's shape.

    Raises
    ------
    ValueError
        When ``level`` is outside [0, 1).

    Examples
    --------
    >>> body_mask(np.array([[0.0, 0.01], [0.5, 1.0]])).tolist()
    [[False, False], [True, True]]
    """
    if not 0.0 <= level < 1.0:
        raise ValueError(f"level must be in [0, 1), got {level!r}")
    with np.errstate(over="ignore"):  # beyond float32: infinite, so background (above)
        single = np.asarray(scan, dtype=np.float32)
    finite = np.nan_to_num(single, nan=0.0, posinf=0.0, neginf=0.0)
    low = float(finite.min()) if finite.size else 0.0
    high = float(np.percentile(finite, _ROBUST_PERCENTILE)) if finite.size else 0.0
    if high <= low:
        return np.zeros(finite.shape, bool)
    return np.asarray(finite > low + level * (high - low))


def mask_box(mask: np.ndarray, *, margin: int = BODY_MARGIN) -> CropBox:
    """Return the bounding box of a 2-D mask grown by ``margin``; the full extent when empty.

    Parameters
    ----------
    mask : numpy.ndarray
        A 2-D bool mask.
    margin : int
        Voxels added on each side (clipped to the image).

    Returns
    -------
    CropBox
        The box.

    Raises
    ------
    ValueError
        When ``mask`` is not 2-D or ``margin`` is negative.

    Examples
    --------
    >>> mask = np.zeros((6, 8), bool)
    >>> mask[2:4, 3] = True
    >>> mask_box(mask, margin=1)
    CropBox(rows=(1, 5), cols=(2, 5))
    >>> mask_box(np.zeros((6, 8), bool))
    CropBox(rows=(0, 6), cols=(0, 8))
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-D, got shape {mask.shape}")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin!r}")
    height, width = mask.shape
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return CropBox((0, height), (0, width))
    return CropBox(
        (max(0, int(rows[0]) - margin), min(height, int(rows[-1]) + 1 + margin)),
        (max(0, int(cols[0]) - margin), min(width, int(cols[-1]) + 1 + margin)),
    )


def body_box(scan: np.ndarray, *, level: float = BODY_LEVEL, margin: int = BODY_MARGIN) -> CropBox:
    """Return the in-plane bounding box of the body in a scan, grown by ``margin`` voxels.

    A voxel is body when it is above ``min + level * (p99.5 - min)`` of the scan
    (:func:`body_mask`); the box covers the body on every slice (one crop for the whole
    case). A blank scan, or one with no voxel above the level, gives the full extent.

    Parameters
    ----------
    scan : ndarray
        2-D slice or 3-D display-ordered volume (projected along axis 0).
    level : float
        Fraction in [0, 1) of the robust intensity range.
    margin : int
        Voxels added on each side (clipped to the image).

    Returns
    -------
    CropBox
        The box.

    Raises
    ------
    ValueError
        When ``scan`` is not 2-D or 3-D.

    Examples
    --------
    >>> scan = np.zeros((2, 10, 12))
    >>> scan[1, 3:5, 4:9] = 1.0
    >>> body_box(scan, margin=1)
    CropBox(rows=(2, 6), cols=(3, 10))
    """
    array = np.asarray(scan)
    if array.ndim not in (2, 3):
        raise ValueError(f"scan must be 2-D or 3-D, got shape {array.shape}")
    body = body_mask(array, level=level)
    if body.ndim == 3:
        body = np.asarray(body.any(axis=0))
    return mask_box(body, margin=margin)
