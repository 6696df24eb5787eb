"""Many cases at many thresholds: describe each case once, count the MOOD rule per threshold.

:func:`describe_case` reduces one case to a small picklable :class:`CaseObjects` (per
threshold, the sizes of the predicted objects and the GT objects each one could match);
:func:`count_objects` / :func:`best_object_threshold` then apply the size window, known only
once every case has been seen, with the same rule as one-case matching
(:mod:`napari_mood.core.objects.rule`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

import numpy as np

from napari_mood.core._checks import check_array, check_choice, check_instance, check_sequence
from napari_mood.core.objects.components import (
    Connectivity,
    cc3d_labels,
    centroids_of,
    crop_offset,
    find_components,
    read_keys,
    truth_mask,
)
from napari_mood.core.objects.hull import Hull, build_hulls
from napari_mood.core.objects.rule import (
    ObjectCounts,
    assign_many,
    check_window,
    mood_admissible,
    tally,
    window_from_sizes,
)
from napari_mood.core.scores import (
    ScoreMode,
    check_mode,
    check_threshold,
    key_threshold,
    key_values,
)

__all__ = [
    "default_threshold_grid",
    "distinct_value_thresholds",
    "CaseObjects",
    "LevelObjects",
    "ObjectCounts",
    "best_object_threshold",
    "count_objects",
    "dataset_size_window",
    "describe_case",
]


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
    mode: ScoreMode
    gt_sizes: tuple[int, ...]
    levels: tuple[LevelObjects, ...]


def default_threshold_grid() -> np.ndarray:
    """Return the default threshold grid 0.01, 0.02, ..., 0.99 (float64).

    Returns
    -------
    numpy.ndarray
        99 thresholds.

    Examples
    --------
    >>> grid = default_threshold_grid()
    >>> grid.size, float(grid[0]), float(grid[-1])
    (99, 0.01, 0.99)
    """
    return np.round(np.arange(1, 100) / 100, 2)


def distinct_value_thresholds(
    scores: Sequence[np.ndarray], *, mode: ScoreMode = "mood", max_values: int = 1024
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
    check_mode(mode)
    values: set[float] = set()
    for score in scores:
        keys = read_keys(score, mode)
        distinct = np.unique(keys)
        values.update(float(v) for v in key_values(distinct[distinct > 0], mode=mode))
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

    Parameters
    ----------
    cases : sequence of CaseObjects
        The described cases.

    Returns
    -------
    tuple of float
        ``(lo, hi)`` in voxels.

    Examples
    --------
    >>> gt = np.zeros((6, 6), dtype=bool); gt[1:3, 1:3] = True
    >>> dataset_size_window([describe_case(gt, gt, thresholds=[0.5])])
    (2.0, 8.0)
    """
    sizes = [s for case in cases for s in case.gt_sizes]
    return window_from_sizes(np.asarray(sizes, dtype=np.int64))


def _check_thresholds(thresholds: Sequence[float] | np.ndarray) -> tuple[float, ...]:
    if isinstance(thresholds, np.ndarray):
        thresholds = check_array("thresholds", thresholds, ndim=1).tolist()
    listed = check_sequence("thresholds", thresholds, (int, float, np.number), "numbers in [0, 1]")
    values = sorted({check_threshold(t, name="thresholds") for t in listed})
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
    hulls: Sequence[Hull],
    gt_sizes: np.ndarray,
) -> LevelObjects:
    labels, n = cc3d_labels(mask, connectivity, whole=True)  # a batch job: one cc3d call
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    other = np.ones(n, dtype=bool)
    hit_sizes = np.zeros(0, dtype=np.int64)
    hit_gt: tuple[tuple[int, ...], ...] = ()
    if gt_sizes.size:
        candidates = np.flatnonzero((2 * sizes > gt_sizes.min()) & (sizes < 2 * gt_sizes.max()))
        if candidates.size:
            centroids, rank = centroids_of(labels, candidates + 1, n)
            found = mood_admissible(sizes[candidates], centroids + offset, hulls, gt_sizes)
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
    mode: ScoreMode = "mood",
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
    check_mode(mode)
    check_instance("name", name, str, "a case name (str)")
    values = _check_thresholds(thresholds)
    keys = read_keys(score, mode)
    truth = find_components(truth_mask(gt, keys.shape), connectivity)
    hulls = build_hulls(truth)
    projections = _max_projections(keys)
    levels: list[LevelObjects] = []
    for value in values:
        key = key_threshold(value, mode=mode)
        crop = _crop_at(projections, key)
        mask = None if crop is None else keys[crop] >= key
        n_flagged = 0 if mask is None else int(np.count_nonzero(mask))
        if levels and levels[-1].n_flagged == n_flagged:
            levels.append(levels[-1])  # nested masks of equal size are equal
        elif crop is None or mask is None:
            levels.append(_empty_level())
        else:
            levels.append(
                _describe_level(
                    mask, n_flagged, crop_offset(crop), connectivity, hulls, truth.sizes
                )
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
    tp, hit_fp, fn, hit_discarded, extra = tally(assign_many(kept, level.hit_gt, n_gt))
    return tp, fp + hit_fp, fn, discarded + hit_discarded, extra


def _check_cases(cases: Sequence[CaseObjects]) -> None:
    cases = check_sequence("cases", cases, CaseObjects, "CaseObjects (from describe_case)")
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
    window = dataset_size_window(cases) if size_window is None else check_window(size_window)
    per_case = []
    totals = np.zeros(5, dtype=np.int64)
    for case in cases:
        level = case.levels[_level_index(case, value)]
        counts = _count_level(level, len(case.gt_sizes), window)
        totals += counts
        per_case.append((case.name, *counts[:4]))
    tp, fp, fn, discarded, extra = (int(v) for v in totals)
    return ObjectCounts.from_tally(value, (tp, fp, fn, discarded, extra), window, tuple(per_case))


def best_object_threshold(
    cases: Sequence[CaseObjects], *, size_window: tuple[float, float] | None = None
) -> ObjectCounts:
    """Return the counts at the described threshold with the highest dataset F1.

    Ties go to the highest threshold; a NaN F1 never wins unless every F1 is NaN (then
    the highest threshold is returned). All cases must share the same thresholds.

    Parameters
    ----------
    cases : sequence of CaseObjects
        Cases described at the same thresholds (:func:`describe_case`).
    size_window : tuple of float, optional
        ``(lo, hi)`` object sizes kept, in voxels (default: from the GT objects).

    Returns
    -------
    ObjectCounts
        The pooled counts at the best threshold.

    Raises
    ------
    ValueError
        When there is no case, the cases differ in thresholds, or the window is invalid.

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
    window = dataset_size_window(cases) if size_window is None else check_window(size_window)
    results = [count_objects(cases, threshold=t, size_window=window) for t in thresholds]
    return max(results, key=_rank_key)


def _rank_key(counts: ObjectCounts) -> tuple[bool, float, float]:
    """Sort key: any number beats NaN, then higher F1, then higher threshold."""
    has_f1 = not math.isnan(counts.f1)
    return has_f1, counts.f1 if has_f1 else 0.0, counts.threshold
