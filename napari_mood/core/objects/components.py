"""Connected components of a 2-D or 3-D mask: labelling (cc3d), sizes, centroids, boxes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_array, check_choice
from napari_mood.core._layout import c_contiguous
from napari_mood.core.objects.slabs import SlabLabels, label_slabs
from napari_mood.core.scores import ScoreMode, gt_mask, key_values, score_keys

__all__ = [
    "add_piece_scores",
    "read_keys",
    "Components",
    "Connectivity",
    "cc3d_labels",
    "centroids_of",
    "check_ndim",
    "crop_offset",
    "empty_components",
    "find_components",
    "label_objects",
    "object_scores",
    "tight_crop",
    "truth_mask",
]


Connectivity = Literal["full", "face"]


def check_ndim(arr: np.ndarray, what: str) -> None:
    """Refuse an array that is not 2-D or 3-D, or is empty (ValueError naming ``what``).

    Parameters
    ----------
    arr : numpy.ndarray
        The array to check.
    what : str
        Its name in the message.

    Raises
    ------
    ValueError
        When ``arr`` is not 2-D or 3-D, or is empty.
    """
    if arr.ndim not in (2, 3):
        raise ValueError(f"{what} must be 2-D or 3-D, got {arr.ndim}-D with shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{what} is empty (shape {arr.shape})")


def label_objects(
    mask: np.ndarray, *, connectivity: Connectivity = "full"
) -> tuple[np.ndarray, int]:
    """Label the connected components of a 2-D or 3-D mask.

    Parameters
    ----------
    mask : ndarray
        Non-zero voxels are foreground.
    connectivity : {"full", "face"}
        ``"full"``: 26 neighbours in 3-D, 8 in 2-D; ``"face"``: 6 / 4.

    Returns
    -------
    labels : ndarray of uint32
        0 for background, objects numbered 1..n in raster (C) order of their first voxel.
    n : int

    Examples
    --------
    >>> labels, n = label_objects(np.eye(3, dtype=bool), connectivity="face")
    >>> n
    3
    """
    check_choice("connectivity", connectivity, get_args(Connectivity))
    arr = np.asarray(mask)
    check_ndim(arr, "mask")
    labels, n = cc3d_labels(arr, connectivity)
    return labels.astype(np.uint32, copy=False), n


def cc3d_labels(
    mask: np.ndarray, connectivity: Connectivity, *, whole: bool = False
) -> tuple[np.ndarray, int]:
    """Label with cc3d's 3-D scan, which numbers objects in C raster order.

    Labelled a slab of planes at a time and joined (:func:`~napari_mood.core.objects.slabs.
    label_slabs`: the same labels, without holding the GIL for the whole volume). Works
    around two cc3d 4.1.1 bugs: its 2-D 8-connected labelling can merge or label wrong
    pixels, so 2-D masks are labelled as one 3-D slice (26 on one slice = 8); and it
    raises for 26-connected lines (two axes of length 1), where every connectivity is the
    face one. Labels come as uint16 when there are fewer than 65,536 objects (cc3d itself
    picks uint32 for almost any volume), so a labelling kept by the viewer's cache takes
    half the memory. ``whole``: in one cc3d call (a batch job: see ``label_slabs``).

    Parameters
    ----------
    mask : numpy.ndarray
        2-D or 3-D bool mask.
    connectivity : {"full", "face"}
        Voxels touching by a corner, edge or face (``full``) or by a face only.
    whole : bool
        Whether the mask is labelled in one call rather than slab by slab.

    Returns
    -------
    labels : numpy.ndarray
        Label image of ``mask``'s shape (uint16 or uint32), 0 the background.
    n : int
        Number of objects.
    """
    found = _labelled(mask, connectivity, stats=False, whole=whole)
    return found.labels, found.n


def _labelled(
    mask: np.ndarray, connectivity: Connectivity, *, stats: bool, whole: bool = False
) -> SlabLabels:
    """:func:`label_slabs` on a 2-D or 3-D mask; labels and statistics in its dimensions."""
    volume = c_contiguous(np.asarray(mask, dtype=bool)).reshape((1,) * (3 - mask.ndim) + mask.shape)
    found = label_slabs(volume, 26 if connectivity == "full" else 6, stats=stats, whole=whole)
    drop = 3 - mask.ndim
    return SlabLabels(
        found.labels.reshape(mask.shape),
        found.n,
        found.sizes,
        found.centroids[:, drop:],
        found.bbox_lo[:, drop:],
        found.bbox_hi[:, drop:],
    )


@dataclass(frozen=True, eq=False)
class Components:
    """Connected components found inside ``crop``; geometry in full-volume coordinates."""

    crop: tuple[slice, ...]
    labels: np.ndarray
    sizes: np.ndarray
    centroids: np.ndarray
    bbox_lo: np.ndarray
    bbox_hi: np.ndarray

    @property
    def n(self) -> int:
        """Number of components."""
        return int(self.sizes.size)


def tight_crop(mask: np.ndarray) -> tuple[slice, ...] | None:
    """Return the smallest box holding every True voxel of ``mask`` (None when there is none).

    Parameters
    ----------
    mask : numpy.ndarray
        A bool mask.

    Returns
    -------
    tuple of slice or None
        One slice per axis, or None for an empty mask.
    """
    axes = range(mask.ndim)
    crop = []
    for axis in axes:
        rows = np.flatnonzero(mask.any(axis=tuple(a for a in axes if a != axis)))
        if rows.size == 0:
            return None
        crop.append(slice(int(rows[0]), int(rows[-1]) + 1))
    return tuple(crop)


def crop_offset(crop: tuple[slice, ...]) -> np.ndarray:
    """Return the crop's first voxel (int64), added to crop coordinates to get volume ones.

    Parameters
    ----------
    crop : tuple of slice
        A crop with explicit starts.

    Returns
    -------
    numpy.ndarray
        The start of each slice.
    """
    return np.array([s.start for s in crop], dtype=np.int64)


def empty_components(ndim: int) -> Components:
    """Components of an ``ndim``-D mask without any object.

    Parameters
    ----------
    ndim : int
        Number of axes.

    Returns
    -------
    Components
        Zero objects, with empty arrays of the right dimensions.
    """
    crop = tuple(slice(0, 0) for _ in range(ndim))
    empty_box = np.zeros((0, ndim), dtype=np.int64)
    return Components(
        crop=crop,
        labels=np.zeros((0,) * ndim, dtype=np.uint32),
        sizes=np.zeros(0, dtype=np.int64),
        centroids=np.zeros((0, ndim)),
        bbox_lo=empty_box,
        bbox_hi=empty_box,
    )


def find_components(mask: np.ndarray, connectivity: Connectivity) -> Components:
    """Label ``mask`` inside its tight bounding box; sizes, centroids, boxes in one pass.

    Parameters
    ----------
    mask : numpy.ndarray
        2-D or 3-D bool mask.
    connectivity : {"full", "face"}
        Voxels touching by a corner, edge or face (``full``) or by a face only.

    Returns
    -------
    Components
        The cropped label image and each object's size, centroid and bounding box.
    """
    crop = tight_crop(mask)
    if crop is None:
        return empty_components(mask.ndim)
    found = _labelled(mask[crop], connectivity, stats=True)
    offset = crop_offset(crop)
    return Components(
        crop=crop,
        labels=found.labels,
        sizes=found.sizes,
        centroids=found.centroids + offset,
        bbox_lo=found.bbox_lo + offset,
        bbox_hi=found.bbox_hi + offset,
    )


def object_scores(
    comp: Components, keys: np.ndarray, mode: ScoreMode
) -> tuple[np.ndarray, np.ndarray]:
    """Max and mean score (as read) over each object of ``comp``; ``keys`` as read.

    Works through the crop a slab of planes at a time, each slab of ``keys`` put in
    the labels' C order first (:func:`~napari_mood.core._layout.c_contiguous`): the
    temporaries stay at a slab's size, and no element is read across memory order.

    Parameters
    ----------
    comp : Components
        The objects.
    keys : numpy.ndarray
        The score map as keys (:func:`~napari_mood.core.scores.score_keys`), full volume.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    peak : numpy.ndarray
        Each object's largest key.
    mean : numpy.ndarray
        Each object's mean score value (float64).

    Examples
    --------
    >>> keys = np.array([[0.2, 0.9, 0.0], [0.4, 0.0, 0.6]])
    >>> comp = find_components(keys > 0.1, "face")
    >>> peak, mean = object_scores(comp, keys, "exact")
    >>> peak.tolist(), np.round(mean, 6).tolist()
    ([0.9, 0.6], [0.5, 0.6])
    """
    if comp.n == 0:
        return np.zeros(0), np.zeros(0)
    peak = np.zeros(comp.n + 1, dtype=keys.dtype)
    sums = np.zeros(comp.n + 1)
    window = keys[comp.crop]
    planes = max(1, _SLAB_VOXELS // max(1, int(np.prod(comp.labels.shape[1:]))))
    for start in range(0, comp.labels.shape[0], planes):
        part = c_contiguous(window[start : start + planes])
        add_piece_scores(comp.labels[start : start + planes], part, peak, sums, mode)
    return key_values(peak[1:], mode=mode), sums[1:] / comp.sizes


def add_piece_scores(
    labels: np.ndarray, keys: np.ndarray, peak: np.ndarray, sums: np.ndarray, mode: ScoreMode
) -> None:
    """Fold the keys of a piece into ``peak[id]`` (max key) and ``sums[id]`` (sum of values).

    ``labels`` and ``keys`` are C-ordered arrays of one shape; ids index ``peak`` / ``sums``.

    Parameters
    ----------
    labels : numpy.ndarray
        Labels of the piece.
    keys : numpy.ndarray
        Score keys of the piece.
    peak, sums : numpy.ndarray
        Per-id accumulators, modified in place.
    mode : {"mood", "exact"}
        How scores are read.
    """
    flat = labels.ravel()
    inside = flat > 0  # np.compress on flat arrays: 3x faster than a mask index
    ids = np.compress(inside, flat)
    values = np.compress(inside, keys.ravel())
    np.maximum.at(peak, ids, values)
    sums += np.bincount(ids, weights=key_values(values, mode=mode), minlength=sums.size)


_SLAB_VOXELS = 1 << 23  # 8 Mi voxels: 16 MiB of uint16 keys, 64 MiB of float64 values


def centroids_of(labels: np.ndarray, ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean voxel index and first-voxel rank of the objects ``ids`` (1-based) of ``labels``.

    Means are in crop coordinates; the rank is that of each object's first voxel in C
    raster order.

    Parameters
    ----------
    labels : numpy.ndarray
        A cropped label image.
    ids : numpy.ndarray
        Ascending object ids to measure.
    n : int
        The largest id of ``labels``.

    Returns
    -------
    centroids : numpy.ndarray
        ``(len(ids), ndim)`` mean voxel index of each object.
    order : numpy.ndarray
        Each object's rank by its first voxel.
    """
    wanted = np.zeros(n + 1, dtype=bool)
    wanted[ids] = True
    coords = np.nonzero(wanted[labels])
    row = np.zeros(n + 1, dtype=np.intp)
    row[ids] = np.arange(ids.size)
    rows = row[labels[coords]]
    counts = np.bincount(rows, minlength=ids.size)
    sums = [np.bincount(rows, weights=c, minlength=ids.size) for c in coords]
    first = np.unique(rows, return_index=True)[1]  # np.nonzero walks in raster order
    return np.stack(sums, axis=1) / counts[:, None], np.argsort(np.argsort(first))


def truth_mask(gt: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Return the anomalous voxels of ``gt`` (``gt_mask``) for scores of ``shape``.

    Parameters
    ----------
    gt : numpy.ndarray
        A ground-truth volume.
    shape : tuple of int
        The score map's shape.

    Returns
    -------
    numpy.ndarray
        Bool mask.

    Raises
    ------
    ValueError
        When the shapes differ.
    """
    arr = check_array("gt", gt)
    if arr.shape != shape:
        raise ValueError(f"gt shape {arr.shape} differs from score shape {shape}")
    return gt_mask(arr)


def read_keys(score: np.ndarray, mode: ScoreMode) -> np.ndarray:
    """Return a 2-D or 3-D score map as ordered keys (:func:`~napari_mood.core.scores.score_keys`).

    Parameters
    ----------
    score : numpy.ndarray
        A score map.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    numpy.ndarray
        Keys ordered like the scores.

    Raises
    ------
    ValueError
        When the map is not 2-D or 3-D, is empty or holds NaN.
    """
    arr = check_array("score", score)
    check_ndim(arr, "score")
    return score_keys(arr, mode=mode)
