"""Compare methods: difference masks of two maps, comparison tables, rank intervals.

Everything the compare view and the comparison table show is computed here, from arrays
or from a :class:`~napari_mood.core.results.DatasetEvaluation`; how the table is shown
(its columns, cell texts, CSV copy) lives with the panel,
:mod:`napari_mood._napari.widgets.table_texts`.

Edge-case policy (one place, each case tested):

- a voxel is *flagged* by a method when its score, read as the MOOD scorer reads it
  (float16, clipped to [0, 1]), is ``>= threshold`` (:func:`napari_mood.core.scores.flag`);
- a case without any GT voxel has no pixel AP, AUROC, FPR@95%TPR or best Dice (NaN, no
  warning) and no rank; a method whose AP is NaN gets no rank (``None``), and in a dataset
  table no rank interval nor AP interval either (its bootstrap would score 0.0);
- bootstrap resamples without any positive voxel score an AP of 0.0 (as
  :func:`~napari_mood.core.ranking.bootstrap_ap` does); the warning saying how many is
  not repeated here;
- ranks are "min" ranks (ties share the best rank, 1, 2, 2, 4), by pixel AP.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from napari_mood.core.curves import Curve, CurveAccumulator, curve_from_arrays
from napari_mood.core.metrics import (
    UndefinedMetricWarning,
    auroc_from_curve,
    average_precision_from_curve,
    best_threshold,
    fpr_at_tpr,
)
from napari_mood.core.objects import Connectivity, ObjectCounts, match_objects
from napari_mood.core.ranking import bootstrap_ap, rank_methods
from napari_mood.core.results import DatasetEvaluation, MethodSummary
from napari_mood.core.scores import ScoreMode, check_mode, check_threshold, flag
from napari_mood.core.seed import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = [
    "A_ONLY",
    "BOTH",
    "B_ONLY",
    "ComparisonRow",
    "ComparisonTable",
    "Difference",
    "RankInterval",
    "case_comparison",
    "dataset_comparison",
    "difference",
    "rank_intervals",
]

TableScope = Literal["case", "dataset"]

#: Values of the difference label image.
A_ONLY, B_ONLY, BOTH = 1, 2, 3


# --------------------------------------------------------------------------- difference


@dataclass(frozen=True, eq=False)
class Difference:
    """Voxels flagged by method A only, by B only and by both (:func:`difference`).

    ``labels`` is a uint8 image of the maps' shape: 0 nowhere, :data:`A_ONLY`,
    :data:`B_ONLY` or :data:`BOTH`.
    """

    labels: np.ndarray
    a_only: int
    b_only: int
    both: int
    threshold_a: float
    threshold_b: float


def difference(
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    *,
    threshold_a: float,
    threshold_b: float,
) -> Difference:
    """Label the voxels flagged by A only (1), by B only (2) and by both (3).

    Scores are read as the MOOD scorer reads them (float16, clipped to [0, 1]; float16
    maps in [0, 1] are not copied) and a voxel is flagged when its value is
    ``>= threshold``, exactly as :func:`napari_mood.core.scores.flag`.

    Parameters
    ----------
    scores_a, scores_b : numpy.ndarray
        The two methods' score maps, same shape.
    threshold_a, threshold_b : float
        Each method's threshold.

    Returns
    -------
    Difference
        The label image and the voxel count of each label.

    Raises
    ------
    ValueError
        When the maps differ in shape, a threshold is NaN or a map holds NaN.

    Examples
    --------
    >>> d = difference(np.array([0.9, 0.9, 0.1, 0.1]), np.array([0.9, 0.1, 0.9, 0.1]),
    ...                threshold_a=0.5, threshold_b=0.5)
    >>> d.labels.tolist(), (d.a_only, d.b_only, d.both)
    ([3, 1, 2, 0], (1, 1, 1))
    """
    a, b = np.asarray(scores_a), np.asarray(scores_b)
    if a.shape != b.shape:
        raise ValueError(f"the maps differ in shape: {a.shape} vs {b.shape}")
    threshold_a, threshold_b = check_threshold(threshold_a), check_threshold(threshold_b)
    labels = flag(a, threshold_a).astype(np.uint8)
    labels += np.uint8(2) * flag(b, threshold_b)
    counts = np.bincount(labels.reshape(-1), minlength=4)
    return Difference(
        labels=labels,
        a_only=int(counts[A_ONLY]),
        b_only=int(counts[B_ONLY]),
        both=int(counts[BOTH]),
        threshold_a=threshold_a,
        threshold_b=threshold_b,
    )


# --------------------------------------------------------------------------- table rows


@dataclass(frozen=True)
class ComparisonRow:
    """One method's row of a comparison table (None: not available for this scope).

    ``object_threshold`` is the threshold the object counts were taken at;
    ``ap_low`` / ``ap_high`` and ``rank_low`` / ``rank_high`` are bootstrap 95% intervals
    (dataset tables only).
    """

    method: str
    pixel_ap: float
    auroc: float
    fpr95: float
    best_dice: float
    best_dice_threshold: float
    object_threshold: float | None
    object_tp: int | None
    object_fp: int | None
    object_fn: int | None
    object_f1: float | None
    sample_ap: float | None = None
    rank: int | None = None
    rank_low: int | None = None
    rank_high: int | None = None
    ap_low: float | None = None
    ap_high: float | None = None


@dataclass(frozen=True)
class ComparisonTable:
    """Rows of one comparison: a case (``name`` = case) or a dataset (``name`` = dataset)."""

    scope: TableScope
    name: str
    n_cases: int
    rows: tuple[ComparisonRow, ...]

    def row(self, method: str) -> ComparisonRow:
        """Return a method's row; KeyError names the methods.

        Parameters
        ----------
        method : str
            A method of the table.

        Returns
        -------
        ComparisonRow
            Its row.

        Raises
        ------
        KeyError
            When the table has no such method.
        """
        for row in self.rows:
            if row.method == method:
                return row
        raise KeyError(f"no method {method!r} (have {[r.method for r in self.rows]})")


def _pixel_metrics(curve: Curve) -> tuple[float, float, float, float, float]:
    """AP, AUROC, FPR@95%TPR, best Dice and its threshold; NaN without GT voxel (no warning)."""
    if curve.n_pos == 0 or curve.thresholds.size == 0:
        return (math.nan,) * 5
    roc = auroc_from_curve(curve) if curve.n_neg else math.nan
    dice_threshold, dice = best_threshold(curve, by="dice")
    ap = average_precision_from_curve(curve)
    return ap, roc, fpr_at_tpr(curve, tpr=0.95), dice, dice_threshold


def _ap_ranks(aps: Mapping[str, float]) -> dict[str, int | None]:
    ranks = rank_methods(aps)
    return {name: None if math.isnan(aps[name]) else ranks[name] for name in aps}


def case_comparison(
    scores: Mapping[str, np.ndarray],
    gt: np.ndarray,
    *,
    thresholds: Mapping[str, float],
    name: str = "",
    connectivity: Connectivity = "full",
    mode: ScoreMode = "mood",
    curves: Mapping[str, CurveAccumulator] | None = None,
    counts: Mapping[str, ObjectCounts] | None = None,
) -> ComparisonTable:
    """Compare methods on one case: pixel metrics, objects at each threshold, AP rank.

    Parameters
    ----------
    scores : mapping of method -> ndarray
        Each method's map (any orientation, the same for every array).
    gt : ndarray
        Ground truth of the same shape (0/1 or bool).
    thresholds : mapping of method -> float
        The threshold each method's objects are counted at (``score >= threshold``).
    name : str
        Case name, for the table's title.
    connectivity, mode
        As for :func:`~napari_mood.core.objects.match_objects`.
    curves : mapping of method -> CurveAccumulator, optional
        A method's voxel histograms against ``gt`` (``mode``), when already made.
    counts : mapping of method -> ObjectCounts, optional
        A method's MOOD object counts at its threshold (``connectivity``), when already
        made (e.g. :func:`~napari_mood.core.objects.labelled_match`).

    Returns
    -------
    ComparisonTable
        One row per method, ranked by AP.

    Examples
    --------
    >>> gt = np.zeros((6, 6), bool); gt[1:3, 1:3] = True
    >>> table = case_comparison({"m": np.where(gt, 0.9, 0.1)}, gt, thresholds={"m": 0.5})
    >>> row = table.row("m")
    >>> row.pixel_ap, row.object_tp, row.rank
    (1.0, 1, 1)
    """
    check_mode(mode)
    curves, counts = curves or {}, counts or {}
    pixel = {
        m: _pixel_metrics(curves[m].curve() if m in curves else curve_from_arrays(s, gt, mode=mode))
        for m, s in scores.items()
    }
    ranks = _ap_ranks({m: values[0] for m, values in pixel.items()})
    rows = []
    for method, values in pixel.items():
        threshold = check_threshold(thresholds[method])
        match = (
            counts.get(method)
            or match_objects(
                scores[method], gt, threshold=threshold, connectivity=connectivity, mode=mode
            ).counts
        )
        rows.append(
            ComparisonRow(
                method,
                *values,
                object_threshold=threshold,
                object_tp=match.tp,
                object_fp=match.fp,
                object_fn=match.fn,
                object_f1=match.f1,
                rank=ranks[method],
            )
        )
    return ComparisonTable("case", name, 1, tuple(rows))


# --------------------------------------------------------------------------- dataset


@dataclass(frozen=True)
class RankInterval:
    """A method's AP rank with case-bootstrap percentile intervals of its AP and rank."""

    rank: int
    low: int
    high: int
    ap: float
    ap_low: float
    ap_high: float


def _resample_ranks(samples: np.ndarray) -> np.ndarray:
    """Min ranks per resample: ``(n_methods, n_boot)`` APs -> ranks (1 = best)."""
    better = samples[None, :, :] > samples[:, None, :]  # [i, j, k]: j beats i in resample k
    return 1 + better.sum(axis=1)


def rank_intervals(
    accumulators: Mapping[str, Sequence[CurveAccumulator]],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
) -> dict[str, RankInterval]:
    """Rank methods by pooled AP, with case-bootstrap intervals of the AP and of the rank.

    Every method is resampled with the same draws (:func:`bootstrap_ap` with the same
    ``seed`` and number of cases), so each resample ranks the methods on the same cases.
    A rank interval is ``[lower, higher]`` percentiles of the resampled ranks (integers).

    Parameters
    ----------
    accumulators : mapping of method -> sequence of CurveAccumulator
        Per-case accumulators, the same cases in the same order for every method.
    n_boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resampling (the same draws for every method).
    ci : float
        Coverage of the intervals, in (0, 1).

    Returns
    -------
    dict of str to RankInterval
        Each method's rank, AP and their intervals.

    Raises
    ------
    ValueError
        When methods have different numbers of cases, or none.

    Examples
    --------
    >>> from napari_mood.core.curves import CurveAccumulator
    >>> def acc(scores, labels):
    ...     a = CurveAccumulator(); a.add(np.array(scores), np.array(labels)); return a
    >>> good = [acc([0.9, 0.1], [1, 0]), acc([0.8, 0.2], [1, 0])]
    >>> bad = [acc([0.1, 0.9], [1, 0]), acc([0.2, 0.8], [1, 0])]
    >>> r = rank_intervals({"good": good, "bad": bad}, n_boot=50)
    >>> (r["good"].rank, r["good"].low, r["good"].high), r["bad"].rank
    ((1, 1, 1), 2)
    """
    sizes = {len(cases) for cases in accumulators.values()}
    if len(sizes) != 1 or 0 in sizes:
        raise ValueError(f"every method needs the same, non-zero number of cases; got {sizes}")
    with warnings.catch_warnings():  # healthy-only resamples score 0.0, as documented
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        boots = {
            m: bootstrap_ap(a, n_boot=n_boot, seed=seed, ci=ci) for m, a in accumulators.items()
        }
    names = list(boots)
    ranks = rank_methods({m: boots[m].estimate for m in names})
    resampled = _resample_ranks(np.stack([boots[m].samples for m in names]))
    tail = (1.0 - ci) / 2.0
    return {
        m: RankInterval(
            rank=ranks[m],
            low=int(np.quantile(resampled[i], tail, method="lower")),
            high=int(np.quantile(resampled[i], 1.0 - tail, method="higher")),
            ap=boots[m].estimate,
            ap_low=boots[m].low,
            ap_high=boots[m].high,
        )
        for i, m in enumerate(names)
    }


def _dataset_row(summary: MethodSummary, interval: RankInterval | None) -> ComparisonRow:
    p, s, o = summary.pixel, summary.sample, summary.object
    if p is None or math.isnan(p.ap):
        interval = None  # no pixel AP (no GT voxel): no rank, as in the case table
    counts = o.counts if o is not None else None
    nan = math.nan
    return ComparisonRow(
        summary.name,
        pixel_ap=p.ap if p else nan,
        auroc=p.auroc if p else nan,
        fpr95=p.fpr95 if p else nan,
        best_dice=p.best_dice if p else nan,
        best_dice_threshold=p.best_dice_threshold if p else nan,
        object_threshold=counts.threshold if counts else None,
        object_tp=counts.tp if counts else None,
        object_fp=counts.fp if counts else None,
        object_fn=counts.fn if counts else None,
        object_f1=counts.f1 if counts else None,
        sample_ap=s.ap if s else None,
        rank=interval.rank if interval else None,
        rank_low=interval.low if interval else None,
        rank_high=interval.high if interval else None,
        ap_low=interval.ap_low if interval else None,
        ap_high=interval.ap_high if interval else None,
    )


def dataset_comparison(
    evaluation: DatasetEvaluation,
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
) -> ComparisonTable:
    """Compare methods over a dataset: the evaluation's numbers plus AP rank intervals.

    Pixel, sample and object values are the evaluation's own (``napari-mood evaluate``);
    the rank and its interval come from :func:`rank_intervals` over the evaluation's
    ``case_accumulators`` (only when every method has the pixel task).

    Parameters
    ----------
    evaluation : DatasetEvaluation
        The dataset's evaluation.
    n_boot : int
        Bootstrap resamples of the rank intervals.
    seed : int
        Seed of the resampling.
    ci : float
        Coverage of the intervals.

    Returns
    -------
    ComparisonTable
        One row per method.

    Examples
    --------
    >>> result = napari_mood.evaluate(napari_mood.sample_data_dir()).result  # doctest: +SKIP
    >>> dataset_comparison(result).row("residual").pixel_ap  # doctest: +SKIP
    0.6549...
    """
    accs = {
        name: tuple(evaluation.case_accumulators[name].values())
        for name in evaluation.methods
        if evaluation.case_accumulators.get(name)
    }
    intervals: Mapping[str, RankInterval] = {}
    if accs and len(accs) == len(evaluation.methods):
        intervals = rank_intervals(accs, n_boot=n_boot, seed=seed, ci=ci)
    rows = tuple(
        _dataset_row(summary, intervals.get(name)) for name, summary in evaluation.methods.items()
    )
    return ComparisonTable("dataset", evaluation.dataset, len(evaluation.cases), rows)
