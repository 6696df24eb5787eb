"""Voxel-level metrics: AP, AUROC, FPR at a TPR, confusion counts, per-slice scores.

Every metric is computed from a :class:`~napari_mood.core.curves.Curve` (or from score
histograms), so results are exact for the pooled voxels and equal to scikit-learn's
``average_precision_score`` / ``roc_auc_score`` on the same (float16-quantised) scores.

Edge-case policy (one place, each case tested):

- no positive voxel: AP is 0.0 with an :class:`UndefinedMetricWarning` (as scikit-learn);
  per-slice AP is NaN for slices without positives (no warning);
- one class only: AUROC is NaN with an :class:`UndefinedMetricWarning`;
- precision with nothing flagged, recall with no positives, Dice/F1 with ``2TP+FP+FN == 0``:
  NaN.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, NamedTuple, get_args

import numpy as np

from napari_mood.core._checks import check_array, check_choice, check_integer, check_number
from napari_mood.core.curves import (
    Curve,
    check_curve,
    check_labels,
    curve_from_arrays,
    memory_order_axes,
)
from napari_mood.core.scores import (
    N_CODES,
    ScoreMode,
    check_mode,
    check_no_nan,
    check_threshold,
    code_values,
    key_threshold,
    threshold_code,
    to_exact_values,
    to_mood_codes,
)

_SLICE_CHUNK = 1 << 21  # voxels per vectorised slice chunk (bounds temporaries)
_EXACT_CHUNK = 1 << 20  # voxels per exact-mode chunk (~55 bytes of temporaries each)
_MAX_ROWS = 64  # slices per chunk: 64 x N_CODES int64 histograms are ~8 MiB


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for the data (e.g. no positive voxel); a fallback is returned."""


# --------------------------------------------------------------------------- AP / AUROC


def average_precision_from_curve(curve: Curve) -> float:
    """Average precision ``sum_n (R_n - R_{n-1}) P_n`` over the curve's operating points.

    Identical to ``sklearn.metrics.average_precision_score`` (non-interpolated; tied
    scores form one operating point). Without any positive voxel it returns 0.0 and emits
    an :class:`UndefinedMetricWarning`, as scikit-learn does.

    Parameters
    ----------
    curve : Curve
        The operating points of a score map against its ground truth.

    Returns
    -------
    float
        Average precision in [0, 1]; 0.0 without a positive voxel.

    Warns
    -----
    UndefinedMetricWarning
        When the curve has no positive voxel.

    Examples
    --------
    >>> from napari_mood.core.curves import curve_from_arrays
    >>> c = curve_from_arrays(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> round(average_precision_from_curve(c), 4)
    0.8333
    """
    if curve.n_pos == 0:
        warnings.warn(
            "no positive voxel: average precision is undefined, returning 0.0",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return 0.0
    recall_step = np.diff(curve.tp, prepend=0) / curve.n_pos
    return float(max(0.0, np.sum(recall_step * curve.precision)))


def average_precision(scores: np.ndarray, labels: np.ndarray, *, mode: ScoreMode = "mood") -> float:
    """Average precision of ``scores`` against bool ``labels`` (voxel-wise, pooled).

    ``mode="mood"`` quantises to float16 and clips to [0, 1] like the official scorer;
    ``mode="exact"`` clips in float32. See :func:`average_precision_from_curve`.

    Parameters
    ----------
    scores : numpy.ndarray
        A score map (NaN raises ValueError).
    labels : numpy.ndarray
        Ground truth of the same shape, 0/1 or bool.
    mode : {"mood", "exact"}
        Score quantisation.

    Returns
    -------
    float
        Average precision in [0, 1]; 0.0 (with a warning) without a positive voxel.

    Examples
    --------
    >>> average_precision(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    0.8333333333333333
    """
    return average_precision_from_curve(curve_from_arrays(scores, labels, mode=mode))


def average_precision_from_histograms(pos: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Average precision of each row of stacked histograms; NaN for rows without positives.

    ``pos`` and ``total`` are 2-D ``(rows, bins)`` counts (int or float multiplicities)
    whose bins are ordered by ASCENDING score. No warning is emitted; callers decide what
    a NaN row means.

    Parameters
    ----------
    pos : numpy.ndarray
        ``(rows, bins)`` counts of positive voxels per bin.
    total : numpy.ndarray
        ``(rows, bins)`` counts of all voxels per bin.

    Returns
    -------
    numpy.ndarray
        One average precision per row (float64), NaN where the row has no positive.

    Raises
    ------
    ValueError
        When ``pos`` and ``total`` are not 2-D arrays of one shape.

    Examples
    --------
    >>> average_precision_from_histograms(np.array([[0, 1, 1]]), np.array([[2, 2, 1]]))
    array([0.83333333])
    """
    pos = np.asarray(pos)
    total = np.asarray(total)
    if pos.ndim != 2 or pos.shape != total.shape:
        raise ValueError("pos and total must be 2-D arrays of the same shape")
    return _ap_from_bins(_occupied_bins(pos, total), pos.shape[0])


class _Bins(NamedTuple):
    """Occupied bins of stacked histograms, row-major with ascending bin in each row."""

    rows: np.ndarray
    cols: np.ndarray
    pos: np.ndarray
    total: np.ndarray
    row_pos: np.ndarray  # per-row sums
    row_total: np.ndarray


def _occupied_bins(pos: np.ndarray, total: np.ndarray) -> _Bins:
    rows, cols = np.nonzero(total)
    return _Bins(rows, cols, pos[rows, cols], total[rows, cols], pos.sum(axis=1), total.sum(axis=1))


def _suffix_sums(rows: np.ndarray, values: np.ndarray, row_sums: np.ndarray) -> np.ndarray:
    """Inclusive suffix sums within each row (entries row-major, ascending bins)."""
    return np.cumsum(row_sums)[rows] - np.cumsum(values) + values


def _ap_from_bins(bins: _Bins, n_rows: int) -> np.ndarray:
    tp = _suffix_sums(bins.rows, bins.pos, bins.row_pos)  # positives scoring >= bin
    flagged = _suffix_sums(bins.rows, bins.total, bins.row_total)
    hit = bins.pos > 0
    contribution = bins.pos[hit] * (tp[hit] / flagged[hit])  # recall step x precision
    weighted = np.bincount(bins.rows[hit], weights=contribution, minlength=n_rows)
    ap = np.full(n_rows, np.nan)
    np.divide(weighted, bins.row_pos, out=ap, where=bins.row_pos > 0)
    return ap


def auroc_from_curve(curve: Curve) -> float:
    """Area under the ROC curve (trapezoids between operating points, ties as one point).

    Equal to ``sklearn.metrics.roc_auc_score``. NaN with an :class:`UndefinedMetricWarning`
    when only one class is present.

    Parameters
    ----------
    curve : Curve
        The operating points of a score map against its ground truth.

    Returns
    -------
    float
        AUROC in [0, 1], or NaN when one class is missing.

    Warns
    -----
    UndefinedMetricWarning
        When the curve has no positive or no negative voxel.

    Examples
    --------
    >>> from napari_mood.core.curves import curve_from_arrays
    >>> c = curve_from_arrays(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> auroc_from_curve(c)
    0.75
    """
    if curve.n_pos == 0 or curve.n_neg == 0:
        warnings.warn(
            "only one class present: AUROC is undefined, returning NaN",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return math.nan
    tp = curve.tp.astype(np.float64)
    tp_before = np.concatenate([[0.0], tp[:-1]])
    neg_step = np.diff(curve.fp, prepend=0).astype(np.float64)
    area2 = np.sum(neg_step * (tp_before + tp))  # twice the trapezoid area, in counts
    return float(area2 / (2.0 * curve.n_pos * curve.n_neg))


def auroc(scores: np.ndarray, labels: np.ndarray, *, mode: ScoreMode = "mood") -> float:
    """Area under the ROC curve of ``scores`` against bool ``labels``.

    See :func:`auroc_from_curve`.

    Parameters
    ----------
    scores : numpy.ndarray
        A score map (NaN raises ValueError).
    labels : numpy.ndarray
        Ground truth of the same shape, 0/1 or bool.
    mode : {"mood", "exact"}
        Score quantisation.

    Returns
    -------
    float
        AUROC in [0, 1], or NaN (with a warning) when one class is missing.

    Examples
    --------
    >>> auroc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    0.75
    """
    return auroc_from_curve(curve_from_arrays(scores, labels, mode=mode))


def fpr_at_tpr(curve: Curve, *, tpr: float = 0.95) -> float:
    """Smallest false-positive rate among operating points whose TPR is ``>= tpr``.

    Only real operating points count (no interpolation between them). NaN when there is
    no positive voxel (no warning) or no negative voxel.

    Parameters
    ----------
    curve : Curve
        The operating points of a score map against its ground truth.
    tpr : float
        The true-positive rate to reach, in (0, 1].

    Returns
    -------
    float
        The false-positive rate in [0, 1], or NaN.

    Raises
    ------
    ValueError
        When ``tpr`` is outside (0, 1].

    Examples
    --------
    >>> from napari_mood.core.curves import curve_from_arrays
    >>> c = curve_from_arrays(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> fpr_at_tpr(c, tpr=0.95)
    0.5
    """
    check_curve(curve)
    if not 0.0 < check_number("tpr", tpr) <= 1.0:
        raise ValueError(f"tpr must be in (0, 1], got {tpr}")
    if curve.n_pos == 0 or curve.n_neg == 0:
        return math.nan
    reached = np.flatnonzero(curve.tp / curve.n_pos >= tpr)
    # fp grows along the curve, so the first point reaching the TPR has the smallest FPR
    return float(curve.fp[reached[0]] / curve.n_neg)


def zero_undefined_aps(aps: np.ndarray, *, what: str) -> np.ndarray:
    """Return ``aps`` with NaN (no positive voxel) as 0.0, warning how many, as sklearn does.

    Parameters
    ----------
    aps : numpy.ndarray
        APs, NaN where a set had no positive voxel.
    what : str
        What the APs are, for the warning ("AP evaluations").

    Returns
    -------
    numpy.ndarray
        The APs with 0.0 in place of NaN.
    """
    missing = np.isnan(aps)
    if missing.any():
        warnings.warn(
            f"{int(missing.sum())} of {aps.size} {what} had no positive voxel; "
            "their AP is 0.0 (as scikit-learn returns)",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return np.where(missing, 0.0, aps)


# --------------------------------------------------------------------------- thresholds


@dataclass(frozen=True)
class Confusion:
    """Voxel confusion counts at one threshold (flagged = score ``>= threshold``).

    ``precision`` is NaN when nothing is flagged, ``recall`` when there is no positive,
    ``f1`` = ``dice`` = ``2TP / (2TP + FP + FN)`` NaN when that denominator is 0.
    """

    threshold: float
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    dice: float


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def confusion_at(curve: Curve, threshold: float) -> Confusion:
    """Confusion counts when flagging every voxel with score ``>= threshold``.

    The threshold is compared with the exact score values of the curve: for a mood curve
    that is the float16 value (so ``0.3`` does not flag a voxel stored as
    ``float16(0.3) = 0.2998``).

    Parameters
    ----------
    curve : Curve
        The operating points of a score map against its ground truth.
    threshold : float
        The score from which a voxel is flagged, in [0, 1].

    Returns
    -------
    Confusion
        TP, FP, FN, TN, precision, recall, F1 and Dice at ``threshold``.

    Raises
    ------
    ValueError
        When ``threshold`` is not a number in [0, 1].

    Examples
    --------
    >>> from napari_mood.core.curves import curve_from_arrays
    >>> c = curve_from_arrays(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> confusion_at(c, 0.35).tp, confusion_at(c, 0.35).fp
    (2, 1)
    """
    check_curve(curve)
    threshold = check_threshold(threshold)
    ascending = curve.thresholds[::-1]
    n_points = int(ascending.size - np.searchsorted(ascending, threshold, side="left"))
    tp = int(curve.tp[n_points - 1]) if n_points else 0
    fp = int(curve.fp[n_points - 1]) if n_points else 0
    fn = curve.n_pos - tp
    dice = _ratio(2 * tp, 2 * tp + fp + fn)
    return Confusion(
        threshold=threshold,
        tp=tp,
        fp=fp,
        fn=fn,
        tn=curve.n_neg - fp,
        precision=_ratio(tp, tp + fp),
        recall=_ratio(tp, curve.n_pos),
        f1=dice,
        dice=dice,
    )


def best_threshold(curve: Curve, *, by: Literal["dice", "f1"] = "dice") -> tuple[float, float]:
    """Return ``(threshold, value)`` maximising Dice (= F1 for binary voxels).

    Searched over the curve's operating points (its distinct score values); ties go to
    the HIGHEST threshold. With no positive voxel every point scores 0.0, so the highest
    score value is returned with 0.0. An empty curve raises ValueError.

    Parameters
    ----------
    curve : Curve
        The operating points of a score map against its ground truth.
    by : {"dice", "f1"}
        The value maximised (the same for binary voxels).

    Returns
    -------
    threshold : float
        The best operating point's score value.
    value : float
        Its Dice.

    Raises
    ------
    ValueError
        When ``by`` is unknown or the curve is empty.

    Examples
    --------
    >>> from napari_mood.core.curves import curve_from_arrays
    >>> c = curve_from_arrays(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> best_threshold(c)
    (0.35009765625, 0.8)
    """
    check_curve(curve)
    check_choice("by", by, ("dice", "f1"))
    if curve.thresholds.size == 0:
        raise ValueError("the curve has no operating point (no voxel was scored)")
    # 2TP / (2TP + FP + FN) with FN = n_pos - TP; denominators > 0 at every point
    values = 2 * curve.tp / (curve.tp + curve.fp + curve.n_pos)
    best = int(np.argmax(values))  # first maximum = highest threshold
    return float(curve.thresholds[best]), float(values[best])


# --------------------------------------------------------------------------- per slice


@dataclass(frozen=True, eq=False)
class SliceScores:
    """Per-slice scores along one axis (1-D arrays of length ``n_slices``).

    ``dice`` (at ``threshold``, flagged = score ``>= threshold``) is NaN where a slice has
    neither GT nor flagged voxels; ``ap`` is NaN where a slice has no positive voxel.
    ``max_score`` / ``mean_score`` are over the scores as scored (float16-quantised and
    clipped in mood mode, float32-clipped in exact mode).
    """

    axis: int
    threshold: float
    gt_voxels: np.ndarray
    flagged_voxels: np.ndarray
    dice: np.ndarray
    ap: np.ndarray
    max_score: np.ndarray
    mean_score: np.ndarray


@dataclass(frozen=True, eq=False)
class _RowStats:
    gt: np.ndarray
    flagged: np.ndarray
    tp: np.ndarray
    ap: np.ndarray
    max_score: np.ndarray
    mean_score: np.ndarray


def _slab(ndim: int, axis: int, start: int, stop: int) -> tuple[slice, ...]:
    return tuple(slice(start, stop) if d == axis else slice(None) for d in range(ndim))


def _row_offsets(n_rows: int, *, axis: int, ndim: int) -> np.ndarray:
    """``row * N_CODES`` shaped to broadcast along ``axis``."""
    shape = [n_rows if d == axis else 1 for d in range(ndim)]
    return (np.arange(n_rows, dtype=np.int64) * N_CODES).reshape(shape)


def _slab_histograms(
    codes: np.ndarray, labels: np.ndarray, offsets: np.ndarray, n_bins: int
) -> tuple[np.ndarray, np.ndarray]:
    index = codes + offsets  # int64 (row, code) bin of every voxel; memory order kept
    total = np.bincount(index.ravel(order="K"), minlength=n_bins)
    return np.bincount(index[labels], minlength=n_bins), total


def _mood_slice_histograms(
    codes: np.ndarray, labels: np.ndarray, axis: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(pos, total)`` (rows x N_CODES) histograms of consecutive slice groups.

    Arrays are viewed in memory order, so axis 0 is the outermost in memory. Slices along
    it are contiguous and are histogrammed a group at a time; slices along an inner axis
    are taken in groups of ``_MAX_ROWS`` (reading whole cache lines) and each group is
    walked in slabs along axis 0, so every temporary stays within ``_SLICE_CHUNK`` voxels.
    """
    order = memory_order_axes(codes)
    codes, labels, axis = codes.transpose(order), labels.transpose(order), order.index(axis)
    ndim, n_slices = codes.ndim, codes.shape[axis]
    per_slice = codes.size // n_slices
    group = max(1, min(_SLICE_CHUNK // per_slice, _MAX_ROWS)) if axis == 0 else _MAX_ROWS
    for start in range(0, n_slices, group):
        where = _slab(ndim, axis, start, start + group)
        group_codes, group_labels = codes[where], labels[where]
        rows = group_codes.shape[axis]
        offsets = _row_offsets(rows, axis=axis, ndim=ndim)
        pos = np.zeros(rows * N_CODES, dtype=np.int64)
        total = np.zeros(rows * N_CODES, dtype=np.int64)
        step = max(1, _SLICE_CHUNK * group_codes.shape[0] // group_codes.size)
        for outer in range(0, group_codes.shape[0], step):
            slab = _slab(ndim, 0, outer, outer + step)
            slab_pos, slab_total = _slab_histograms(
                group_codes[slab], group_labels[slab], offsets, pos.size
            )
            pos += slab_pos
            total += slab_total
        yield pos.reshape(rows, N_CODES), total.reshape(rows, N_CODES)


def _mood_row_stats(pos: np.ndarray, total: np.ndarray, tcode: int, per_slice: int) -> _RowStats:
    """Stats of each row of (rows x N_CODES) code histograms."""
    bins = _occupied_bins(pos, total)
    n_rows = pos.shape[0]
    last_bin = np.cumsum(np.bincount(bins.rows, minlength=n_rows)) - 1  # slices are non-empty
    values = code_values()[bins.cols]
    above = bins.cols >= tcode
    return _RowStats(
        gt=bins.row_pos,
        flagged=np.bincount(bins.rows[above], weights=bins.total[above], minlength=n_rows),
        tp=np.bincount(bins.rows[above], weights=bins.pos[above], minlength=n_rows),
        ap=_ap_from_bins(bins, n_rows),
        max_score=values[last_bin],
        mean_score=np.bincount(bins.rows, weights=bins.total * values, minlength=n_rows)
        / per_slice,
    )


def _exact_row_stats(values: np.ndarray, labels: np.ndarray, threshold: float) -> _RowStats:
    """Stats of each row of 2-D float32 ``values`` by sorting rows (descending)."""
    order = np.argsort(values, axis=1)[:, ::-1]
    desc = np.take_along_axis(values, order, axis=1)
    desc_labels = np.take_along_axis(labels, order, axis=1)
    n = values.shape[1]
    tp = np.cumsum(desc_labels, axis=1)
    is_group_end = np.ones(desc.shape, dtype=bool)
    is_group_end[:, :-1] = desc[:, :-1] != desc[:, 1:]
    end = np.where(is_group_end, np.arange(n), n)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]  # last index of the tie group
    precision_at_end = np.take_along_axis(tp, end, axis=1) / (end + 1)
    n_pos = tp[:, -1].copy()  # a view would keep the whole (rows x voxels) tp alive
    weighted = np.sum(precision_at_end, axis=1, where=desc_labels)
    ap = np.full(values.shape[0], np.nan)
    np.divide(weighted, n_pos, out=ap, where=n_pos > 0)
    flagged_mask = desc >= key_threshold(threshold, mode="exact")
    return _RowStats(
        gt=n_pos,
        flagged=flagged_mask.sum(axis=1),
        tp=np.sum(flagged_mask & desc_labels, axis=1),
        ap=ap,
        max_score=desc[:, 0].astype(np.float64),
        mean_score=values.mean(axis=1, dtype=np.float64),
    )


def _exact_slice_stats(
    scores: np.ndarray, labels: np.ndarray, axis: int, threshold: float
) -> list[_RowStats]:
    """Exact-mode stats, converting to float32 one group of slices at a time."""
    check_no_nan(scores)
    scores = np.moveaxis(scores, axis, 0)
    labels = np.moveaxis(labels, axis, 0)
    n_slices, per_slice = scores.shape[0], scores.size // scores.shape[0]
    step = max(1, min(_EXACT_CHUNK // per_slice, _MAX_ROWS))
    return [
        _exact_row_stats(
            to_exact_values(scores[start : start + step]).reshape(-1, per_slice),
            labels[start : start + step].reshape(-1, per_slice),
            threshold,
        )
        for start in range(0, n_slices, step)
    ]


def slice_scores(
    scores: np.ndarray,
    labels: np.ndarray,
    *,
    axis: int,
    threshold: float,
    mode: ScoreMode = "mood",
) -> SliceScores:
    """Scores of every slice along ``axis``, vectorised over slices.

    Parameters
    ----------
    scores : ndarray
        Score map (NaN raises ValueError).
    labels : ndarray of bool
        Ground truth, same shape.
    axis : int
        Slicing axis (negative allowed).
    threshold : float
        Dice threshold; flagged = score ``>= threshold`` (float16 value in mood mode).
    mode : {"mood", "exact"}
        Score quantisation, as in :class:`~napari_mood.core.curves.CurveAccumulator`.

    Returns
    -------
    SliceScores
        Per slice along ``axis``: GT and flagged voxel counts, Dice, AP, maximum and mean
        score.

    Examples
    --------
    >>> s = slice_scores(np.array([[0.9, 0.1], [0.2, 0.3]]), np.array([[1, 0], [0, 0]]),
    ...                  axis=0, threshold=0.5)
    >>> s.gt_voxels.tolist(), s.dice.tolist()
    ([1, 0], [1.0, nan])
    """
    check_mode(mode)
    threshold = check_threshold(threshold)
    check_integer("axis", axis)
    scores = check_array("scores", scores)
    labels = check_labels(check_array("labels", labels), scores.shape)
    if scores.ndim == 0 or scores.size == 0:
        raise ValueError(f"need a non-empty array with at least one axis, got {scores.shape}")
    if not -scores.ndim <= axis < scores.ndim:
        raise ValueError(f"axis {axis} is out of range for {scores.ndim}-D scores")
    axis %= scores.ndim
    if mode == "mood":
        per_slice = scores.size // scores.shape[axis]
        tcode = threshold_code(threshold)
        histograms = _mood_slice_histograms(to_mood_codes(scores), labels, axis)
        parts = [_mood_row_stats(pos, total, tcode, per_slice) for pos, total in histograms]
    else:
        parts = _exact_slice_stats(scores, labels, axis, threshold)
    return _assemble(parts, axis=axis, threshold=threshold)


def _assemble(parts: list[_RowStats], *, axis: int, threshold: float) -> SliceScores:
    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    gt, flagged, tp = cat("gt").astype(np.int64), cat("flagged").astype(np.int64), cat("tp")
    denominator = gt + flagged
    dice = np.full(gt.shape, np.nan)
    np.divide(2.0 * tp, denominator, out=dice, where=denominator > 0)
    return SliceScores(
        axis=axis,
        threshold=threshold,
        gt_voxels=gt,
        flagged_voxels=flagged,
        dice=dice,
        ap=cat("ap"),
        max_score=cat("max_score"),
        mean_score=cat("mean_score"),
    )


# --------------------------------------------------------------------------- sample level

SampleHow = Literal["max", "mean", "top1"]


def sample_score_from_pixel(scores: np.ndarray, *, how: SampleHow = "max") -> float:
    """Derive one sample-level score from a voxel score map.

    ``"max"``: the largest score; ``"mean"``: the mean score; ``"top1"``: the mean of the
    top 1 % of voxel scores (``ceil(0.01 * n)`` voxels, at least one). Computed on the
    scores as given, in float64 (the sample scorer clips to [0, 1] afterwards). NaN raises
    ValueError.

    Parameters
    ----------
    scores : numpy.ndarray
        A voxel score map (not empty, no NaN).
    how : {"max", "mean", "top1"}
        How the voxel scores are reduced.

    Returns
    -------
    float
        The sample score (not clipped).

    Raises
    ------
    ValueError
        When ``how`` is unknown, ``scores`` is empty or holds NaN.

    Examples
    --------
    >>> sample_score_from_pixel(np.arange(200.0), how="top1")  # mean of 198 and 199
    198.5
    """
    check_choice("how", how, get_args(SampleHow))
    values = check_array("scores", scores).astype(np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("scores is empty")
    n_nan = int(np.count_nonzero(np.isnan(values)))
    if n_nan:
        raise ValueError(f"scores contain {n_nan} NaN value(s); decide the NaN policy first")
    if how == "max":
        return float(values.max())
    if how == "mean":
        return float(values.mean())
    k = max(1, math.ceil(0.01 * values.size))
    return float(np.partition(values, values.size - k)[values.size - k :].mean())
