"""Object-level evaluation: connected components, size window and the MOOD matching rule.

The MOOD object score has no public implementation; this module implements it as the
project specifies it (README, "Object-level score"):

1. Binarise: a voxel is predicted when its score, read as the pixel task reads it, is
   ``>= threshold``. ``mode="mood"`` reads scores as clipped float16 (the official
   scorer); ``mode="exact"`` reads them as float32 clipped to [0, 1]. The threshold is a
   float64 and is never rounded to the score dtype.
2. Connected components of the prediction and of the ground truth (GT voxel: value
   > 0.5, i.e. ``rint(value) >= 1`` as the official scorer reads labels), with
   ``connectivity="full"`` (26 in 3-D, 8 in 2-D) or ``"face"`` (6 / 4).
3. Size window: predicted objects with ``lo <= size <= hi`` are kept, the others are
   *discarded* (neither TP nor FP). By default ``lo = 0.5 * smallest GT object`` and
   ``hi = 2 * biggest GT object`` over all GT objects evaluated together. Without any GT
   object and without an explicit window, the window is ``(0, inf)``: every predicted
   object is kept, and each one is a false positive.
4. A kept predicted object P matches GT object G when its centre of mass (mean voxel
   index) lies in the convex hull of the corners of G's voxels (boundary included,
   tolerance :data:`HULL_TOLERANCE`) and ``0.5 * |G| < |P| < 2 * |G|``.
5. TP = GT objects matched by at least one kept predicted object, FN = the other GT
   objects, FP = kept predicted objects that match nothing. A predicted object whose
   matched GT objects were all already claimed by a predicted object of lower id is
   *matched-extra*: neither TP nor FP.
6. Over a dataset TP, FP and FN are summed, then ``F1 = 2 TP / (2 TP + FP + FN)``,
   ``precision = TP / (TP + FP)`` and ``recall = TP / (TP + FN)``, where TP counts
   *detected GT objects* (matched-extra objects enter neither numerator nor
   denominator). Each ratio is NaN when its denominator is 0.

Dataset-level evaluation runs in two steps so that memory stays bounded and cases can be
processed in parallel: :func:`describe_case` reduces one case to a small picklable
:class:`CaseObjects` (per threshold, the sizes of the predicted objects and the GT objects
each one could match), then :func:`count_objects` / :func:`best_object_threshold` apply
the size window, known only once every case has been seen.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import cc3d
import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.spatial import ConvexHull

from napari_mood.core._checks import check_choice, check_threshold
from napari_mood.core.scores import ONE_CODE, code_values, threshold_code

Connectivity = Literal["full", "face"]
Mode = Literal["mood", "exact"]
Criterion = Literal["mood", "iou"]
Kind = Literal["TP", "FP", "FN", "matched-extra", "discarded"]
Source = Literal["pred", "gt"]

#: Kinds in the order of their codes in :func:`kind_table` (code = index + 1; 0 = none).
KINDS: tuple[Kind, ...] = ("TP", "FP", "FN", "matched-extra", "discarded")
#: Slack of the point-in-hull test, in voxels.
HULL_TOLERANCE: float = 1e-9
#: Threshold used for binary score maps when none is given.
BINARY_THRESHOLD: float = 0.5

_TP, _FP, _FN, _EXTRA, _DISCARDED = (KINDS.index(k) + 1 for k in KINDS)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ObjectRecord:
    """One predicted or GT object of a :class:`ObjectMatch`.

    ``id`` is the object's label in the label image of its source (see
    :func:`object_labels`). ``bbox`` holds half-open ``(lo, hi)`` voxel ranges per axis.
    ``size_mm3`` needs ``spacing`` or ``affine``; ``centroid_world`` is
    ``affine @ centroid`` with an affine, ``centroid * spacing`` with spacing only, else
    None. ``max_score`` / ``mean_score`` are taken over the object's voxels of the score
    map as read (also for GT objects). ``matched_ids`` are the GT ids a predicted object
    matches, or the predicted ids matching a GT object.
    """

    id: int
    kind: Kind
    source: Source
    size_voxels: int
    size_mm3: float | None
    centroid_voxel: tuple[float, ...]
    centroid_world: tuple[float, ...] | None
    bbox: tuple[tuple[int, int], ...]
    max_score: float
    mean_score: float
    matched_ids: tuple[int, ...]


@dataclass(frozen=True)
class ObjectMatch:
    """Object-level result of one case at one threshold (:func:`match_objects`)."""

    tp: int
    fp: int
    fn: int
    discarded: int
    matched_extra: int
    f1: float
    precision: float
    recall: float
    size_window: tuple[float, float]
    threshold: float
    connectivity: Connectivity
    criterion: Criterion
    one_to_one: bool
    mode: Mode
    objects: tuple[ObjectRecord, ...]


@dataclass(frozen=True, eq=False)
class LevelObjects:
    """Predicted objects of one case at one threshold, as :func:`describe_case` keeps them.

    Objects that can match no GT object are kept as a size histogram
    (``other_sizes`` with ``other_counts``); objects that can (``hit_sizes``, in C raster
    order of their first voxel, i.e. label order) keep the 0-based indices of the GT
    objects they match under the MOOD rule (``hit_gt``): COM inside the hull and size
    ratio in (0.5, 2). ``n_flagged`` counts the predicted voxels.
    """

    n_flagged: int
    other_sizes: np.ndarray
    other_counts: np.ndarray
    hit_sizes: np.ndarray
    hit_gt: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, eq=False)
class CaseObjects:
    """Everything the MOOD rule needs about one case, for every described threshold."""

    name: str
    thresholds: tuple[float, ...]
    connectivity: Connectivity
    mode: Mode
    gt_sizes: tuple[int, ...]
    levels: tuple[LevelObjects, ...]


@dataclass(frozen=True)
class ObjectCounts:
    """Object counts summed over cases at one threshold (:func:`count_objects`).

    ``per_case`` holds ``(name, tp, fp, fn, discarded)`` per case, in input order.
    """

    threshold: float
    tp: int
    fp: int
    fn: int
    discarded: int
    matched_extra: int
    f1: float
    precision: float
    recall: float
    size_window: tuple[float, float]
    per_case: tuple[tuple[str, int, int, int, int], ...]


@dataclass(frozen=True, eq=False)
class _Components:
    """Connected components found inside ``crop``; geometry in full-volume coordinates."""

    crop: tuple[slice, ...]
    labels: np.ndarray
    sizes: np.ndarray
    centroids: np.ndarray
    bbox_lo: np.ndarray
    bbox_hi: np.ndarray

    @property
    def n(self) -> int:
        return int(self.sizes.size)


@dataclass(frozen=True, eq=False)
class _Hull:
    """Convex hull of a GT object's voxel corners: ``normals @ x + offsets <= 0`` inside."""

    lo: np.ndarray
    hi: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray


@dataclass(frozen=True, eq=False)
class _Geometry:
    """Voxel volume and voxel-to-world mapping of a case (all None when unknown)."""

    volume: float | None
    spacing: np.ndarray | None
    affine: np.ndarray | None


@dataclass(frozen=True, eq=False)
class _Assignment:
    """Kind code and matched partners (0-based indices) of every pred and GT object."""

    pred_kind: np.ndarray
    pred_matches: tuple[tuple[int, ...], ...]
    gt_matches: tuple[tuple[int, ...], ...]

    @property
    def detected(self) -> np.ndarray:
        return np.array([bool(m) for m in self.gt_matches], dtype=bool)


# --------------------------------------------------------------------------- validation


def _check_ndim(arr: np.ndarray, what: str) -> None:
    if arr.ndim not in (2, 3):
        raise ValueError(f"{what} must be 2-D or 3-D, got {arr.ndim}-D with shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{what} is empty (shape {arr.shape})")


def _check_window(window: tuple[float, float]) -> tuple[float, float]:
    lo, hi = (float(v) for v in window)
    if math.isnan(lo) or math.isnan(hi) or lo < 0 or lo > hi:
        raise ValueError(
            f"size_window must be (lo, hi) with 0 <= lo <= hi (hi may be inf); got {window!r}"
        )
    return lo, hi


def _geometry(ndim: int, spacing: Sequence[float] | None, affine: np.ndarray | None) -> _Geometry:
    """Validate spacing / affine; the affine wins for volume and world coordinates."""
    if affine is not None:
        mat = np.asarray(affine, dtype=np.float64)
        if mat.shape != (ndim + 1, ndim + 1) or not np.all(np.isfinite(mat)):
            raise ValueError(
                f"affine must be a finite {ndim + 1}x{ndim + 1} matrix for {ndim}-D data; "
                f"got shape {mat.shape}"
            )
        volume = abs(float(np.linalg.det(mat[:ndim, :ndim])))
        if volume == 0:
            raise ValueError("affine is singular (its voxel volume is 0)")
        return _Geometry(volume, None, mat)
    if spacing is not None:
        sp = np.asarray(spacing, dtype=np.float64)
        if sp.shape != (ndim,) or not np.all(np.isfinite(sp)) or np.any(sp <= 0):
            raise ValueError(
                f"spacing must hold {ndim} finite positive numbers; got {tuple(spacing)!r}"
            )
        return _Geometry(float(np.prod(sp)), sp, None)
    return _Geometry(None, None, None)


# --------------------------------------------------------------------------- reading


def _mood_codes(arr: np.ndarray) -> np.ndarray:
    """Return ``to_codes(clip_float16(arr))`` for NaN-free input, without float16 arithmetic.

    After the cast to float16, the int16 view of a number orders like its value and is
    negative for negative numbers (and -0.0), so clipping the int16 view to
    ``[0, ONE_CODE]`` equals clipping the value to [0, 1] (inf -> 1, -0.0 -> +0.0).
    """
    with np.errstate(over="ignore"):  # values beyond float16 become +-inf, clipped below
        as16 = arr.astype(np.float16, copy=True)
    signed = as16.view(np.int16)
    np.clip(signed, 0, ONE_CODE, out=signed)
    return as16.view(np.uint16)


def _score_keys(score: np.ndarray, mode: Mode) -> np.ndarray:
    """Return scores as ordered keys: float16 codes (mood) or clipped float32 (exact)."""
    arr = np.asarray(score)
    _check_ndim(arr, "score")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"score must hold real numbers, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("score map contains NaN; replace NaN before object evaluation")
    if mode == "mood":
        return _mood_codes(arr)
    with np.errstate(over="ignore"):  # beyond float32: +-inf, then clipped
        as32 = arr.astype(np.float32)
    return np.clip(as32, 0.0, 1.0, out=as32)


def _key_threshold(threshold: float, mode: Mode) -> int | np.float32:
    """Return ``k`` such that ``keys >= k`` is exactly ``value >= threshold``."""
    if mode == "mood":
        return threshold_code(threshold)
    bounded = min(max(threshold, -1.0), 2.0)  # keys lie in [0, 1]; avoids float32 overflow
    as32 = np.float32(bounded)
    if float(as32) < bounded:
        as32 = np.nextafter(as32, np.float32(np.inf))
    return as32


def _key_values(keys: np.ndarray, mode: Mode) -> np.ndarray:
    if mode == "mood":
        return code_values()[keys]
    return keys.astype(np.float64)


def _is_binary(keys: np.ndarray, mode: Mode) -> bool:
    one = ONE_CODE if mode == "mood" else np.float32(1.0)
    return bool(np.all((keys == 0) | (keys == one)))


def _resolve_threshold(keys: np.ndarray, threshold: float | None, mode: Mode) -> float:
    if threshold is not None:
        return check_threshold(threshold)
    if not _is_binary(keys, mode):
        raise ValueError(
            "threshold is required for non-binary score maps "
            f"(it defaults to {BINARY_THRESHOLD} only for maps with values in {{0, 1}})"
        )
    return BINARY_THRESHOLD


def _gt_mask(gt: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.asarray(gt)
    if arr.shape != shape:
        raise ValueError(f"gt shape {arr.shape} differs from score shape {shape}")
    return arr > 0.5


def binarize_scores(
    score: np.ndarray, *, threshold: float | None = None, mode: Mode = "mood"
) -> np.ndarray:
    """Return the predicted mask ``score >= threshold``, scores read as the pixel task does.

    Parameters
    ----------
    score : ndarray
        2-D or 3-D score map (any real dtype; NaN is refused).
    threshold : float, optional
        Compared as float64, never rounded. Defaults to 0.5 for binary maps only.
    mode : {"mood", "exact"}
        ``"mood"``: float16 clipped to [0, 1] (official scorer); ``"exact"``: float32
        clipped to [0, 1].

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> binarize_scores(np.array([[0.2998, 0.3]]), threshold=0.3).tolist()
    [[False, True]]
    """
    check_choice("mode", mode, get_args(Mode))
    keys = _score_keys(score, mode)
    value = _resolve_threshold(keys, threshold, mode)
    return keys >= _key_threshold(value, mode)


# --------------------------------------------------------------------------- components


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
    _check_ndim(arr, "mask")
    return _cc3d_labels(arr, connectivity)


def _cc3d_labels(mask: np.ndarray, connectivity: Connectivity) -> tuple[np.ndarray, int]:
    """Label with cc3d's 3-D scan, which numbers objects in C raster order.

    Works around two cc3d 4.1.1 bugs: its 2-D 8-connected labelling can merge or label
    wrong pixels, so 2-D masks are labelled as one 3-D slice (26 on one slice = 8); and
    it raises for 26-connected lines (two axes of length 1), where every connectivity is
    the face one.
    """
    volume = np.ascontiguousarray(mask, dtype=bool).reshape((1,) * (3 - mask.ndim) + mask.shape)
    neighbours: Literal[6, 26] = 26 if connectivity == "full" else 6
    if sorted(volume.shape)[1] == 1:
        neighbours = 6
    labels, n = cc3d.connected_components(
        volume, connectivity=neighbours, return_N=True, binary_image=True, out_dtype=np.uint32
    )
    return labels.reshape(mask.shape), int(n)


def _tight_crop(mask: np.ndarray) -> tuple[slice, ...] | None:
    axes = range(mask.ndim)
    crop = []
    for axis in axes:
        rows = np.flatnonzero(mask.any(axis=tuple(a for a in axes if a != axis)))
        if rows.size == 0:
            return None
        crop.append(slice(int(rows[0]), int(rows[-1]) + 1))
    return tuple(crop)


def _offset(crop: tuple[slice, ...]) -> np.ndarray:
    return np.array([s.start for s in crop], dtype=np.int64)


def _empty_components(ndim: int) -> _Components:
    crop = tuple(slice(0, 0) for _ in range(ndim))
    empty_box = np.zeros((0, ndim), dtype=np.int64)
    return _Components(
        crop=crop,
        labels=np.zeros((0,) * ndim, dtype=np.uint32),
        sizes=np.zeros(0, dtype=np.int64),
        centroids=np.zeros((0, ndim)),
        bbox_lo=empty_box,
        bbox_hi=empty_box,
    )


def _components(mask: np.ndarray, connectivity: Connectivity) -> _Components:
    """Label ``mask`` inside its tight bounding box; sizes, centroids, boxes in one pass."""
    crop = _tight_crop(mask)
    if crop is None:
        return _empty_components(mask.ndim)
    labels, _ = _cc3d_labels(mask[crop], connectivity)
    stats = cc3d.statistics(labels, no_slice_conversion=True)
    offset = _offset(crop)
    boxes = np.asarray(stats["bounding_boxes"], dtype=np.int64)[1:]
    return _Components(
        crop=crop,
        labels=labels,
        sizes=np.asarray(stats["voxel_counts"], dtype=np.int64)[1:],
        centroids=np.asarray(stats["centroids"], dtype=np.float64)[1:] + offset,
        bbox_lo=boxes[:, 0::2] + offset,
        bbox_hi=boxes[:, 1::2] + 1 + offset,
    )


def _centroids(labels: np.ndarray, ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean voxel index (crop coordinates) of the objects ``ids`` (1-based) of ``labels``,
    and the rank of each object's first voxel in C raster order."""
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


# --------------------------------------------------------------------------- hulls


def _corner_points(obj: np.ndarray) -> np.ndarray:
    """Doubled integer coordinates of the voxel corners that can be hull vertices.

    A corner ``v + s/2`` (``s`` in {-1, 1}^d) of voxel ``v`` can only be extreme if ``v``
    has no face neighbour ``v + s_a e_a`` on any axis ``a``: otherwise the corner is the
    midpoint of two other corners of the object. The reduction is therefore exact.
    """
    padded = np.pad(obj, 1)
    inner = [slice(1, -1)] * obj.ndim
    free = {}
    for axis, sign in itertools.product(range(obj.ndim), (-1, 1)):
        shifted = list(inner)
        shifted[axis] = slice(1 + sign, padded.shape[axis] - 1 + sign)
        free[axis, sign] = obj & ~padded[tuple(shifted)]
    points = []
    for signs in itertools.product((-1, 1), repeat=obj.ndim):
        select = np.logical_and.reduce([free[a, s] for a, s in enumerate(signs)])
        points.append(2 * np.argwhere(select) + np.array(signs))
    return np.unique(np.concatenate(points), axis=0)


def _build_hull(obj: np.ndarray, origin: np.ndarray) -> _Hull:
    points = _corner_points(obj) / 2.0 + origin
    equations = ConvexHull(points).equations
    return _Hull(
        lo=origin - 0.5,
        hi=origin + np.array(obj.shape) - 0.5,
        normals=np.ascontiguousarray(equations[:, :-1]),
        offsets=np.ascontiguousarray(equations[:, -1]),
    )


def _build_hulls(gt: _Components) -> tuple[_Hull, ...]:
    """Hull of every GT object, built once per case from its bounding box."""
    local_lo = gt.bbox_lo - _offset(gt.crop)
    local_hi = gt.bbox_hi - _offset(gt.crop)
    hulls = []
    for index in range(gt.n):
        box = tuple(slice(a, b) for a, b in zip(local_lo[index], local_hi[index], strict=True))
        hulls.append(_build_hull(gt.labels[box] == index + 1, gt.bbox_lo[index]))
    return tuple(hulls)


def _in_hull(hull: _Hull, points: np.ndarray) -> np.ndarray:
    """Boolean mask of the ``points`` (k, d) inside ``hull`` (boundary included)."""
    in_box = (points >= hull.lo - HULL_TOLERANCE) & (points <= hull.hi + HULL_TOLERANCE)
    inside = np.all(in_box, axis=1)
    if inside.any():
        distances = points[inside] @ hull.normals.T + hull.offsets
        inside[inside] = np.all(distances <= HULL_TOLERANCE, axis=1)
    return inside


def _mood_admissible(
    sizes: np.ndarray, centroids: np.ndarray, hulls: Sequence[_Hull], gt_sizes: np.ndarray
) -> list[tuple[int, ...]]:
    """GT indices each object matches: COM in the hull and ``0.5|G| < |P| < 2|G|``."""
    hits = np.zeros((sizes.size, len(hulls)), dtype=bool)
    for index, (hull, gsize) in enumerate(zip(hulls, gt_sizes, strict=True)):
        ratio_ok = (2 * sizes > gsize) & (sizes < 2 * gsize)
        if ratio_ok.any():
            hits[ratio_ok, index] = _in_hull(hull, centroids[ratio_ok])
    return [tuple(int(g) for g in np.flatnonzero(row)) for row in hits]


# --------------------------------------------------------------------------- matching


def default_threshold_grid() -> np.ndarray:
    """Return the default threshold grid 0.01, 0.02, ..., 0.99 (float64).

    Examples
    --------
    >>> grid = default_threshold_grid()
    >>> grid.size, float(grid[0]), float(grid[-1])
    (99, 0.01, 0.99)
    """
    return np.round(np.arange(1, 100) / 100, 2)


def distinct_value_thresholds(
    scores: Sequence[np.ndarray], *, mode: Mode = "mood", max_values: int = 1024
) -> np.ndarray:
    """Return the distinct positive score values of maps, as read, to use as thresholds.

    Meant for binary or few-valued maps: each value ``v`` as a threshold flags exactly
    the voxels ``>= v``, so this grid visits every distinct non-empty prediction. The
    value 0 is left out (it would flag the whole volume).

    Parameters
    ----------
    scores : sequence of ndarray
        Score maps (pass ``[score]`` for one map).
    mode : {"mood", "exact"}
        How scores are read (see :func:`binarize_scores`).
    max_values : int
        Raise ValueError above this many values (use :func:`default_threshold_grid`).

    Returns
    -------
    ndarray of float64, ascending

    Examples
    --------
    >>> distinct_value_thresholds([np.array([[0, 1], [1, 0]])]).tolist()
    [1.0]
    """
    check_choice("mode", mode, get_args(Mode))
    values: set[float] = set()
    for score in scores:
        keys = _score_keys(score, mode)
        distinct = np.unique(keys)
        values.update(float(v) for v in _key_values(distinct[distinct > 0], mode))
        if len(values) > max_values:
            raise ValueError(
                f"score maps hold more than max_values={max_values} distinct values; "
                "use default_threshold_grid() for continuous maps"
            )
    return np.array(sorted(values), dtype=np.float64)


def dataset_size_window(cases: Sequence[CaseObjects]) -> tuple[float, float]:
    """Return the default size window over all GT objects of ``cases``.

    ``(0.5 * smallest, 2 * biggest)`` GT object in voxels, or ``(0, inf)`` when there is
    no GT object at all (every predicted object is then kept, and is a false positive).

    Examples
    --------
    >>> gt = np.zeros((6, 6), dtype=bool); gt[1:3, 1:3] = True
    >>> dataset_size_window([describe_case(gt, gt, thresholds=[0.5])])
    (2.0, 8.0)
    """
    sizes = [s for case in cases for s in case.gt_sizes]
    return _window_from_sizes(np.asarray(sizes, dtype=np.int64))


def _window_from_sizes(gt_sizes: np.ndarray) -> tuple[float, float]:
    if gt_sizes.size == 0:
        return 0.0, math.inf
    return 0.5 * float(gt_sizes.min()), 2.0 * float(gt_sizes.max())


def _ratios(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Return (F1, precision, recall); NaN where a denominator is 0."""

    def ratio(num: int, den: int) -> float:
        return num / den if den else math.nan

    return ratio(2 * tp, 2 * tp + fp + fn), ratio(tp, tp + fp), ratio(tp, tp + fn)


def _assign_many(kept: np.ndarray, admissible: Sequence[tuple[int, ...]], n_gt: int) -> _Assignment:
    """MOOD assignment: every admissible pair counts; extras are claimed in id order."""
    kinds = np.where(kept, _FP, _DISCARDED).astype(np.uint8)
    detected = np.zeros(n_gt, dtype=bool)
    gt_matches: list[list[int]] = [[] for _ in range(n_gt)]
    pred_matches: list[tuple[int, ...]] = [()] * kept.size
    for index in np.flatnonzero(kept).tolist():
        partners = admissible[index]
        if not partners:
            continue
        kinds[index] = _TP if not detected[list(partners)].all() else _EXTRA
        detected[list(partners)] = True
        pred_matches[index] = partners
        for g in partners:
            gt_matches[g].append(index)
    return _Assignment(kinds, tuple(pred_matches), tuple(tuple(m) for m in gt_matches))


def _assign_one_to_one(
    kept: np.ndarray,
    admissible: Sequence[tuple[int, ...]],
    iou: dict[tuple[int, int], float],
    n_gt: int,
) -> _Assignment:
    """Hungarian assignment: most admissible pairs, then the highest total IoU."""
    kinds = np.where(kept, _FP, _DISCARDED).astype(np.uint8)
    rows = [i for i in np.flatnonzero(kept).tolist() if admissible[i]]
    cols = sorted({g for i in rows for g in admissible[i]})
    pred_matches: list[tuple[int, ...]] = [()] * kept.size
    gt_matches: list[tuple[int, ...]] = [()] * n_gt
    if rows:
        bonus = min(len(rows), len(cols)) + 1.0  # any extra pair outweighs all IoU gains
        weight = np.zeros((len(rows), len(cols)))
        col_of = {g: j for j, g in enumerate(cols)}
        for r, i in enumerate(rows):
            for g in admissible[i]:
                weight[r, col_of[g]] = bonus + iou.get((i, g), 0.0)
        for r, c in zip(*linear_sum_assignment(weight, maximize=True), strict=True):
            if weight[r, c] > 0:
                i, g = rows[r], cols[c]
                kinds[i] = _TP
                pred_matches[i], gt_matches[g] = (g,), (i,)
    return _Assignment(kinds, tuple(pred_matches), tuple(gt_matches))


def _tally(assignment: _Assignment) -> tuple[int, int, int, int, int]:
    """Return (tp, fp, fn, discarded, matched_extra); TP counts detected GT objects."""
    kinds = assignment.pred_kind
    detected = assignment.detected
    return (
        int(detected.sum()),
        int(np.count_nonzero(kinds == _FP)),
        int(detected.size - detected.sum()),
        int(np.count_nonzero(kinds == _DISCARDED)),
        int(np.count_nonzero(kinds == _EXTRA)),
    )


def _overlaps(pred: _Components, gt: _Components) -> dict[tuple[int, int], int]:
    """Voxels shared by each (pred index, GT index) pair, 0-based."""
    if pred.n == 0 or gt.n == 0:
        return {}
    box = [
        slice(max(p.start, g.start), min(p.stop, g.stop))
        for p, g in zip(pred.crop, gt.crop, strict=True)
    ]
    if any(s.start >= s.stop for s in box):
        return {}
    pred_part = pred.labels[_shift(box, pred.crop)].astype(np.int64)
    gt_part = gt.labels[_shift(box, gt.crop)].astype(np.int64)
    both = (pred_part > 0) & (gt_part > 0)
    keys, counts = np.unique(pred_part[both] * (gt.n + 1) + gt_part[both], return_counts=True)
    return {
        (int(k // (gt.n + 1)) - 1, int(k % (gt.n + 1)) - 1): int(c)
        for k, c in zip(keys, counts, strict=True)
    }


def _shift(box: Sequence[slice], crop: tuple[slice, ...]) -> tuple[slice, ...]:
    return tuple(slice(b.start - c.start, b.stop - c.start) for b, c in zip(box, crop, strict=True))


def _iou(pred: _Components, gt: _Components) -> dict[tuple[int, int], float]:
    """IoU of every overlapping (pred index, GT index) pair, 0-based."""
    return {
        (i, g): inter / float(pred.sizes[i] + gt.sizes[g] - inter)
        for (i, g), inter in _overlaps(pred, gt).items()
    }


def _object_scores(
    comp: _Components, keys: np.ndarray, mode: Mode
) -> tuple[np.ndarray, np.ndarray]:
    """Max and mean score (as read) over each object of ``comp``."""
    if comp.n == 0:
        return np.zeros(0), np.zeros(0)
    inside = comp.labels > 0
    ids = comp.labels[inside]
    values = keys[comp.crop][inside]
    peak = np.zeros(comp.n + 1, dtype=keys.dtype)
    np.maximum.at(peak, ids, values)
    sums = np.bincount(ids, weights=_key_values(values, mode), minlength=comp.n + 1)
    return _key_values(peak[1:], mode), sums[1:] / comp.sizes


def _world_centroids(centroids: np.ndarray, geometry: _Geometry) -> list | None:
    if geometry.affine is not None:
        return (centroids @ geometry.affine[:-1, :-1].T + geometry.affine[:-1, -1]).tolist()
    if geometry.spacing is not None:
        return (centroids * geometry.spacing).tolist()
    return None


def _records(
    comp: _Components,
    source: Source,
    kinds: np.ndarray,
    matches: Sequence[tuple[int, ...]],
    scores: tuple[np.ndarray, np.ndarray],
    geometry: _Geometry,
) -> list[ObjectRecord]:
    world = _world_centroids(comp.centroids, geometry)
    boxes = np.stack([comp.bbox_lo, comp.bbox_hi], axis=2).tolist()
    columns = zip(
        comp.sizes.tolist(),
        kinds.tolist(),
        comp.centroids.tolist(),
        boxes,
        scores[0].tolist(),
        scores[1].tolist(),
        matches,
        strict=True,
    )
    return [
        ObjectRecord(
            id=index + 1,
            kind=KINDS[kind - 1],
            source=source,
            size_voxels=size,
            size_mm3=None if geometry.volume is None else size * geometry.volume,
            centroid_voxel=tuple(centroid),
            centroid_world=None if world is None else tuple(world[index]),
            bbox=tuple((lo, hi) for lo, hi in box),
            max_score=peak,
            mean_score=mean,
            matched_ids=tuple(m + 1 for m in partners),
        )
        for index, (size, kind, centroid, box, peak, mean, partners) in enumerate(columns)
    ]


def _all_records(
    pred: _Components,
    truth: _Components,
    assignment: _Assignment,
    keys: np.ndarray,
    mode: Mode,
    geometry: _Geometry,
) -> tuple[ObjectRecord, ...]:
    """Records of every predicted object, then of every GT object."""
    pred_scores = _object_scores(pred, keys, mode)
    gt_scores = _object_scores(truth, keys, mode)
    gt_kinds = np.where(assignment.detected, _TP, _FN)
    return tuple(
        _records(pred, "pred", assignment.pred_kind, assignment.pred_matches, pred_scores, geometry)
        + _records(truth, "gt", gt_kinds, assignment.gt_matches, gt_scores, geometry)
    )


def _admissible(
    criterion: Criterion,
    pred: _Components,
    gt: _Components,
    kept: np.ndarray,
    iou: dict[tuple[int, int], float],
    min_iou: float,
) -> list[tuple[int, ...]]:
    if criterion == "iou":
        pairs: list[list[int]] = [[] for _ in range(pred.n)]
        for (i, g), value in sorted(iou.items()):
            if value >= min_iou:
                pairs[i].append(g)
        return [tuple(p) for p in pairs]
    admissible: list[tuple[int, ...]] = [()] * pred.n
    if gt.n == 0 or not kept.any():
        return admissible
    hulls = _build_hulls(gt)
    rows = np.flatnonzero(kept)
    found = _mood_admissible(pred.sizes[rows], pred.centroids[rows], hulls, gt.sizes)
    for row, partners in zip(rows, found, strict=True):
        admissible[row] = partners
    return admissible


def match_objects(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float | None = None,
    size_window: tuple[float, float] | None = None,
    connectivity: Connectivity = "full",
    spacing: Sequence[float] | None = None,
    affine: np.ndarray | None = None,
    criterion: Criterion = "mood",
    min_iou: float = 0.1,
    one_to_one: bool = False,
    mode: Mode = "mood",
) -> ObjectMatch:
    """Match the predicted objects of one case to its GT objects.

    Parameters
    ----------
    score : ndarray
        2-D or 3-D score map; read as in :func:`binarize_scores`.
    gt : ndarray
        Ground truth of the same shape; a voxel is anomalous when its value is > 0.5.
    threshold : float, optional
        Voxels with score ``>= threshold`` are predicted. Defaults to 0.5 for binary maps.
    size_window : (float, float), optional
        Keep predicted objects with ``lo <= size <= hi`` voxels. Default: from this case's
        GT objects, ``(0.5 * smallest, 2 * biggest)``; ``(0, inf)`` without GT objects.
        The window applies to every criterion; pass ``(0, inf)`` to disable it.
    connectivity : {"full", "face"}
        Neighbourhood of the connected components (26 / 8 or 6 / 4).
    spacing, affine : optional
        Voxel spacing or voxel-to-world affine ((d+1) x (d+1)), for ``size_mm3`` and
        ``centroid_world``; the affine wins when both are given.
    criterion : {"mood", "iou"}
        ``"mood"``: centre of mass in the GT hull and size ratio in (0.5, 2);
        ``"iou"``: IoU >= ``min_iou``. Non-MOOD options; report them separately.
    min_iou : float
        IoU needed by ``criterion="iou"``, in (0, 1].
    one_to_one : bool
        Hungarian assignment among admissible pairs (most pairs, then highest IoU);
        unassigned kept predicted objects are FP and ``matched_extra`` is 0.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    ObjectMatch

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> score = np.where(gt, 0.9, 0.1)
    >>> m = match_objects(score, gt, threshold=0.5)
    >>> (m.tp, m.fp, m.fn, m.f1)
    (1, 0, 0, 1.0)
    """
    check_choice("connectivity", connectivity, get_args(Connectivity))
    check_choice("criterion", criterion, get_args(Criterion))
    check_choice("mode", mode, get_args(Mode))
    if not 0 < min_iou <= 1:
        raise ValueError(f"min_iou must be in (0, 1]; got {min_iou!r}")
    keys = _score_keys(score, mode)
    gt_mask = _gt_mask(gt, keys.shape)
    geometry = _geometry(keys.ndim, spacing, affine)
    value = _resolve_threshold(keys, threshold, mode)
    pred = _components(keys >= _key_threshold(value, mode), connectivity)
    truth = _components(gt_mask, connectivity)
    window = _window_from_sizes(truth.sizes) if size_window is None else _check_window(size_window)
    kept = (pred.sizes >= window[0]) & (pred.sizes <= window[1])
    iou = _iou(pred, truth) if criterion == "iou" or one_to_one else {}
    admissible = _admissible(criterion, pred, truth, kept, iou, min_iou)
    if one_to_one:
        assignment = _assign_one_to_one(kept, admissible, iou, truth.n)
    else:
        assignment = _assign_many(kept, admissible, truth.n)
    tp, fp, fn, discarded, extra = _tally(assignment)
    f1, precision, recall = _ratios(tp, fp, fn)
    return ObjectMatch(
        tp=tp,
        fp=fp,
        fn=fn,
        discarded=discarded,
        matched_extra=extra,
        f1=f1,
        precision=precision,
        recall=recall,
        size_window=window,
        threshold=value,
        connectivity=connectivity,
        criterion=criterion,
        one_to_one=one_to_one,
        mode=mode,
        objects=_all_records(pred, truth, assignment, keys, mode, geometry),
    )


def object_labels(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float | None = None,
    connectivity: Connectivity = "full",
    mode: Mode = "mood",
) -> tuple[np.ndarray, np.ndarray]:
    """Return the (pred, GT) uint32 label images whose ids :func:`match_objects` reports.

    Examples
    --------
    >>> gt = np.zeros((4, 4), dtype=bool); gt[0, 0] = gt[3, 3] = True
    >>> pred_labels, gt_labels = object_labels(gt, gt)
    >>> int(gt_labels.max())
    2
    """
    keys = _score_keys(score, mode)
    gt_mask = _gt_mask(gt, keys.shape)
    value = _resolve_threshold(keys, threshold, mode)
    pred_labels, _ = label_objects(keys >= _key_threshold(value, mode), connectivity=connectivity)
    gt_labels, _ = label_objects(gt_mask, connectivity=connectivity)
    return pred_labels, gt_labels


def kind_table(match: ObjectMatch, *, source: Source) -> np.ndarray:
    """Return a uint8 lookup ``table[id]`` = kind code of each object of ``source``.

    Codes are ``KINDS.index(kind) + 1`` (0 for background), so ``table[labels]`` turns a
    label image from :func:`object_labels` into a kind image.

    Examples
    --------
    >>> gt = np.zeros((4, 4), dtype=bool); gt[0, 0] = True
    >>> kind_table(match_objects(gt, gt), source="gt").tolist()
    [0, 1]
    """
    check_choice("source", source, get_args(Source))
    records = [r for r in match.objects if r.source == source]
    table = np.zeros(max((r.id for r in records), default=0) + 1, dtype=np.uint8)
    for record in records:
        table[record.id] = KINDS.index(record.kind) + 1
    return table


# --------------------------------------------------------------------------- dataset


def _check_thresholds(thresholds: Sequence[float] | np.ndarray) -> tuple[float, ...]:
    values = sorted({check_threshold(t) for t in thresholds})
    if not values:
        raise ValueError("thresholds is empty; use default_threshold_grid() for example")
    return tuple(values)


def _max_projections(keys: np.ndarray) -> list[np.ndarray]:
    axes = range(keys.ndim)
    return [keys.max(axis=tuple(a for a in axes if a != axis)) for axis in axes]


def _crop_at(projections: Sequence[np.ndarray], key: int | np.float32) -> tuple[slice, ...] | None:
    crop = []
    for proj in projections:
        rows = np.flatnonzero(proj >= key)
        if rows.size == 0:
            return None
        crop.append(slice(int(rows[0]), int(rows[-1]) + 1))
    return tuple(crop)


def _describe_level(
    mask: np.ndarray,
    n_flagged: int,
    offset: np.ndarray,
    connectivity: Connectivity,
    hulls: Sequence[_Hull],
    gt_sizes: np.ndarray,
) -> LevelObjects:
    labels, n = _cc3d_labels(mask, connectivity)
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    other = np.ones(n, dtype=bool)
    hit_sizes = np.zeros(0, dtype=np.int64)
    hit_gt: tuple[tuple[int, ...], ...] = ()
    if gt_sizes.size:
        candidates = np.flatnonzero((2 * sizes > gt_sizes.min()) & (sizes < 2 * gt_sizes.max()))
        if candidates.size:
            centroids, rank = _centroids(labels, candidates + 1, n)
            found = _mood_admissible(sizes[candidates], centroids + offset, hulls, gt_sizes)
            hits = np.flatnonzero([bool(f) for f in found])
            hits = hits[np.argsort(rank[hits])]  # claim order = raster order, as ids
            other[candidates[hits]] = False
            hit_sizes = sizes[candidates[hits]].astype(np.int64)
            hit_gt = tuple(found[i] for i in hits)
    other_sizes, other_counts = np.unique(sizes[other], return_counts=True)
    return LevelObjects(
        n_flagged=n_flagged,
        other_sizes=other_sizes.astype(np.int64),
        other_counts=other_counts.astype(np.int64),
        hit_sizes=hit_sizes,
        hit_gt=hit_gt,
    )


def _empty_level() -> LevelObjects:
    none = np.zeros(0, dtype=np.int64)
    return LevelObjects(0, none, none, none, ())


def describe_case(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    thresholds: Sequence[float] | np.ndarray,
    connectivity: Connectivity = "full",
    mode: Mode = "mood",
    name: str = "",
) -> CaseObjects:
    """Reduce one case to what the MOOD object rule needs, at every threshold.

    The size window is not applied here: it is decided by :func:`count_objects` once
    all cases are described. Thresholds are sorted and deduplicated; thresholds whose
    predicted mask equals the previous one share one :class:`LevelObjects`.

    Parameters
    ----------
    score, gt : ndarray
        As in :func:`match_objects`.
    thresholds : sequence of float
        For example :func:`default_threshold_grid` or :func:`distinct_value_thresholds`.
    connectivity : {"full", "face"}
    mode : {"mood", "exact"}
    name : str
        Case name, reported in :attr:`ObjectCounts.per_case`.

    Returns
    -------
    CaseObjects
        Small and picklable (no voxel data).

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> case = describe_case(np.where(gt, 0.9, 0.1), gt, thresholds=[0.05, 0.5], name="a")
    >>> count_objects([case], threshold=0.5).f1
    1.0
    """
    check_choice("connectivity", connectivity, get_args(Connectivity))
    check_choice("mode", mode, get_args(Mode))
    values = _check_thresholds(thresholds)
    keys = _score_keys(score, mode)
    truth = _components(_gt_mask(gt, keys.shape), connectivity)
    hulls = _build_hulls(truth)
    projections = _max_projections(keys)
    levels: list[LevelObjects] = []
    for value in values:
        key = _key_threshold(value, mode)
        crop = _crop_at(projections, key)
        mask = None if crop is None else keys[crop] >= key
        n_flagged = 0 if mask is None else int(np.count_nonzero(mask))
        if levels and levels[-1].n_flagged == n_flagged:
            levels.append(levels[-1])  # nested masks of equal size are equal
        elif crop is None or mask is None:
            levels.append(_empty_level())
        else:
            levels.append(
                _describe_level(mask, n_flagged, _offset(crop), connectivity, hulls, truth.sizes)
            )
    return CaseObjects(
        name=name,
        thresholds=values,
        connectivity=connectivity,
        mode=mode,
        gt_sizes=tuple(int(s) for s in truth.sizes),
        levels=tuple(levels),
    )


def _count_level(
    level: LevelObjects, n_gt: int, window: tuple[float, float]
) -> tuple[int, int, int, int, int]:
    """Return (tp, fp, fn, discarded, matched_extra) of one case at one level."""
    lo, hi = window
    in_window = (level.other_sizes >= lo) & (level.other_sizes <= hi)
    fp = int(level.other_counts[in_window].sum())
    discarded = int(level.other_counts[~in_window].sum())
    kept = (level.hit_sizes >= lo) & (level.hit_sizes <= hi)
    tp, hit_fp, fn, hit_discarded, extra = _tally(_assign_many(kept, level.hit_gt, n_gt))
    return tp, fp + hit_fp, fn, discarded + hit_discarded, extra


def _check_cases(cases: Sequence[CaseObjects]) -> None:
    if not cases:
        raise ValueError("cases is empty")
    first = cases[0]
    for case in cases[1:]:
        if (case.connectivity, case.mode) != (first.connectivity, first.mode):
            raise ValueError(
                "cases were described with different connectivity or mode: "
                f"{(first.connectivity, first.mode)} vs {(case.connectivity, case.mode)}"
            )


def _level_index(case: CaseObjects, threshold: float) -> int:
    try:
        return case.thresholds.index(threshold)
    except ValueError:
        raise ValueError(
            f"threshold {threshold!r} was not described for case {case.name!r}; "
            f"described: {case.thresholds[0]} .. {case.thresholds[-1]} "
            f"({len(case.thresholds)} values)"
        ) from None


def count_objects(
    cases: Sequence[CaseObjects],
    *,
    threshold: float,
    size_window: tuple[float, float] | None = None,
) -> ObjectCounts:
    """Sum the MOOD object counts of described cases at one described threshold.

    Parameters
    ----------
    cases : sequence of CaseObjects
        From :func:`describe_case`, all with the same connectivity and mode.
    threshold : float
        One of the thresholds the cases were described with.
    size_window : (float, float), optional
        Default :func:`dataset_size_window` of ``cases``.

    Returns
    -------
    ObjectCounts

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> case = describe_case(np.where(gt, 0.9, 0.1), gt, thresholds=[0.5])
    >>> c = count_objects([case], threshold=0.5)
    >>> (c.tp, c.fp, c.fn)
    (1, 0, 0)
    """
    _check_cases(cases)
    value = check_threshold(threshold)
    window = dataset_size_window(cases) if size_window is None else _check_window(size_window)
    per_case = []
    totals = np.zeros(5, dtype=np.int64)
    for case in cases:
        level = case.levels[_level_index(case, value)]
        counts = _count_level(level, len(case.gt_sizes), window)
        totals += counts
        per_case.append((case.name, *counts[:4]))
    tp, fp, fn, discarded, extra = (int(v) for v in totals)
    f1, precision, recall = _ratios(tp, fp, fn)
    return ObjectCounts(
        threshold=value,
        tp=tp,
        fp=fp,
        fn=fn,
        discarded=discarded,
        matched_extra=extra,
        f1=f1,
        precision=precision,
        recall=recall,
        size_window=window,
        per_case=tuple(per_case),
    )


def best_object_threshold(
    cases: Sequence[CaseObjects], *, size_window: tuple[float, float] | None = None
) -> ObjectCounts:
    """Return the counts at the described threshold with the highest dataset F1.

    Ties go to the highest threshold; a NaN F1 never wins unless every F1 is NaN (then
    the highest threshold is returned). All cases must share the same thresholds.

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> case = describe_case(np.where(gt, 0.6, 0.1), gt, thresholds=default_threshold_grid())
    >>> best_object_threshold([case]).threshold
    0.6
    """
    _check_cases(cases)
    thresholds = cases[0].thresholds
    if any(case.thresholds != thresholds for case in cases):
        raise ValueError("cases were described with different thresholds")
    window = dataset_size_window(cases) if size_window is None else _check_window(size_window)
    results = [count_objects(cases, threshold=t, size_window=window) for t in thresholds]
    return max(results, key=_rank_key)


def _rank_key(counts: ObjectCounts) -> tuple[bool, float, float]:
    """Sort key: any number beats NaN, then higher F1, then higher threshold."""
    has_f1 = not math.isnan(counts.f1)
    return has_f1, counts.f1 if has_f1 else 0.0, counts.threshold
