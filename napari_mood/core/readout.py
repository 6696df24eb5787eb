"""What a display threshold flags: live readouts and best thresholds (pure, GUI-free).

A *readout* summarises one score map at one threshold: the voxels flagged
(``score >= threshold``, scores read as the pixel task reads them), their share of the
volume and their volume in mm^3, and, against a ground truth, the voxel Dice and the MOOD
object counts of :mod:`napari_mood.core.objects` on that one case.

Edge-case policy (one place, each case tested):

- without a ground truth, ``dice`` and ``objects`` are None (counts only);
- with an empty ground truth (a normal case), Dice is 0.0 when something is flagged and
  NaN when nothing is; every kept object is a false positive (size window ``(0, inf)``);
- without a voxel volume, ``flagged_mm3`` is None;
- a best threshold on one case needs anomalous GT voxels: ValueError otherwise (choose it
  on a toy dataset instead);
- dataset best thresholds skip methods the evaluation has no summary for.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np

from napari_mood.core import objects as obj
from napari_mood.core._checks import check_choice
from napari_mood.core.curves import CurveAccumulator, curve_from_arrays
from napari_mood.core.metrics import best_threshold
from napari_mood.core.results import DatasetEvaluation
from napari_mood.core.scores import ScoreMode, check_mode, check_threshold, gt_mask

__all__ = [
    "BestThreshold",
    "BestCriterion",
    "MethodMatch",
    "Readout",
    "best_case_threshold",
    "best_dataset_thresholds",
    "match_method_names",
    "readout_from_match",
    "threshold_readout",
    "voxel_readout",
]

BestCriterion = Literal["dice", "object_f1"]


@dataclass(frozen=True)
class Readout:
    """One score map at one threshold (:func:`threshold_readout`).

    ``dice`` and ``objects`` are None without a ground truth; ``flagged_mm3`` is None
    without a voxel volume. A :func:`voxel_readout` has ``dice`` but ``objects`` None
    (the objects need a labelling; they follow from :func:`readout_from_match`).
    """

    threshold: float
    n_voxels: int
    flagged: int
    flagged_mm3: float | None
    dice: float | None
    objects: obj.ObjectCounts | None

    @property
    def flagged_percent(self) -> float:
        """Flagged voxels as a percentage of the volume (NaN for an empty volume)."""
        return 100.0 * self.flagged / self.n_voxels if self.n_voxels else math.nan


@dataclass(frozen=True)
class BestThreshold:
    """The threshold that maximises ``criterion`` and the value reached there."""

    threshold: float
    value: float
    criterion: BestCriterion


@dataclass(frozen=True)
class MethodMatch:
    """Session methods paired with method folders by name (:func:`match_method_names`)."""

    matched: tuple[str, ...]
    missing: tuple[str, ...]


def threshold_readout(
    scores: np.ndarray,
    gt: np.ndarray | None = None,
    *,
    threshold: float,
    voxel_volume: float | None = None,
    connectivity: obj.Connectivity = "full",
    mode: ScoreMode = "mood",
) -> Readout:
    """Count what ``scores >= threshold`` flags and, with a GT, score it.

    Parameters
    ----------
    scores : ndarray
        2-D or 3-D score map, read as the pixel task reads it (``mode``).
    gt : ndarray, optional
        Ground truth of the same shape (value > 0.5 is anomalous).
    threshold : float
        In [0, 1]; compared as float64 with the score values (never rounded).
    voxel_volume : float, optional
        Volume of one voxel in mm^3, for ``flagged_mm3``.
    connectivity : {"full", "face"}
        Object neighbourhood (see :func:`napari_mood.core.objects.match_objects`).
    mode : {"mood", "exact"}
        Score quantisation (float16 as the official scorer, or float32).

    Returns
    -------
    Readout

    Examples
    --------
    >>> gt = np.zeros((6, 6), dtype=bool); gt[1:3, 1:3] = True
    >>> r = threshold_readout(np.where(gt, 0.9, 0.1), gt, threshold=0.5, voxel_volume=2.0)
    >>> r.flagged, r.flagged_mm3, r.dice, (r.objects.tp, r.objects.fp, r.objects.fn)
    (4, 8.0, 1.0, (1, 0, 0))
    """
    value = check_threshold(threshold)
    check_mode(mode)
    flagged_voxels = obj.binarize_scores(scores, threshold=value, mode=mode)
    flagged = int(np.count_nonzero(flagged_voxels))
    volume = None if voxel_volume is None else flagged * float(voxel_volume)
    if gt is None:
        return Readout(value, flagged_voxels.size, flagged, volume, None, None)
    truth = gt_mask(gt)
    if truth.shape != flagged_voxels.shape:
        raise ValueError(f"gt shape {truth.shape} differs from score shape {flagged_voxels.shape}")
    tp = int(np.count_nonzero(flagged_voxels & truth))
    denominator = flagged + int(np.count_nonzero(truth))
    dice = 2.0 * tp / denominator if denominator else math.nan
    case = obj.describe_case(
        scores, truth, thresholds=[value], connectivity=connectivity, mode=mode
    )
    counts = obj.count_objects([case], threshold=value)
    return Readout(value, flagged_voxels.size, flagged, volume, dice, counts)


def readout_from_match(
    labelled: obj.LabelledMatch,
    *,
    threshold: float | None = None,
    voxel_volume: float | None = None,
) -> Readout:
    """Return the :func:`threshold_readout` of a map against its GT, from its labelled match.

    Equal to ``threshold_readout(scores, gt, threshold=threshold)`` (MOOD criterion, the
    case's own size window) without labelling again. ``threshold`` defaults to the one
    the match was computed at; any threshold flagging the same voxels may be given.

    Parameters
    ----------
    labelled : LabelledMatch
        The map's labelled match against its GT.
    threshold : float, optional
        The threshold to report (default: the match's).
    voxel_volume : float, optional
        The volume of one voxel in mm^3, for ``flagged_mm3``.

    Returns
    -------
    Readout
        Flagged voxels, their volume, Dice and the object counts.

    Examples
    --------
    >>> gt = np.zeros((6, 6), dtype=bool); gt[1:3, 1:3] = True
    >>> lm = obj.labelled_match(np.where(gt, 0.9, 0.1), gt, threshold=0.5)
    >>> r = readout_from_match(lm, voxel_volume=2.0)
    >>> r.flagged, r.flagged_mm3, r.dice, (r.objects.tp, r.objects.fp, r.objects.fn)
    (4, 8.0, 1.0, (1, 0, 0))
    """
    value = labelled.threshold if threshold is None else check_threshold(threshold)
    c = labelled.counts
    flagged = labelled.n_flagged
    denominator = flagged + labelled.n_gt
    counts = replace(c, threshold=value, per_case=(("", c.tp, c.fp, c.fn, c.discarded),))
    return Readout(
        threshold=value,
        n_voxels=math.prod(labelled.shape),
        flagged=flagged,
        flagged_mm3=None if voxel_volume is None else flagged * float(voxel_volume),
        dice=2.0 * labelled.n_overlap / denominator if denominator else math.nan,
        objects=counts,
    )


def voxel_readout(
    histograms: CurveAccumulator,
    *,
    threshold: float,
    voxel_volume: float | None = None,
    with_gt: bool = True,
) -> Readout:
    """Return the voxel part of :func:`threshold_readout` from a map's histograms (no labelling).

    ``flagged``, ``flagged_mm3`` and ``dice`` equal those of :func:`threshold_readout`
    on the arrays the histograms were made from (``histograms.add(scores, gt)``);
    ``objects`` is None. Any number of thresholds can be read from one set of histograms,
    each in O(number of distinct scores).

    Parameters
    ----------
    histograms : CurveAccumulator
        The map's voxels against its GT (an all-normal GT when there is none).
    threshold : float
        In [0, 1]; a voxel is flagged when its score is ``>= threshold``.
    voxel_volume : float, optional
        Volume of one voxel in mm^3, for ``flagged_mm3``.
    with_gt : bool
        False: the map has no ground truth, ``dice`` is None (counts only).

    Returns
    -------
    Readout
        Flagged voxels, their volume and Dice (None without GT); no object counts.

    Examples
    --------
    >>> gt = np.zeros((6, 6), dtype=bool); gt[1:3, 1:3] = True
    >>> acc = CurveAccumulator(); acc.add(np.where(gt, 0.9, 0.1), gt)
    >>> r = voxel_readout(acc, threshold=0.5, voxel_volume=2.0)
    >>> r.flagged, r.flagged_mm3, r.dice, r.objects
    (4, 8.0, 1.0, None)
    """
    value = check_threshold(threshold)
    values, pos, total = histograms.histogram()
    first = int(np.searchsorted(values, value, side="left"))  # values ascend
    flagged = int(total[first:].sum())
    overlap = int(pos[first:].sum())
    volume = None if voxel_volume is None else flagged * float(voxel_volume)
    n_voxels = histograms.n_total
    if not with_gt:
        return Readout(value, n_voxels, flagged, volume, None, None)
    denominator = flagged + histograms.n_pos
    dice = 2.0 * overlap / denominator if denominator else math.nan
    return Readout(value, n_voxels, flagged, volume, dice, None)


def best_case_threshold(
    scores: np.ndarray,
    gt: np.ndarray,
    *,
    by: BestCriterion = "dice",
    connectivity: obj.Connectivity = "full",
    mode: ScoreMode = "mood",
) -> BestThreshold:
    """Return the threshold maximising voxel Dice or MOOD object F1 on one case.

    ``by="dice"``: over the map's distinct score values
    (:func:`napari_mood.core.metrics.best_threshold`); ``by="object_f1"``: over the grid
    0.01 .. 0.99 (:func:`napari_mood.core.objects.best_object_threshold`). Ties go to
    the highest threshold.

    Parameters
    ----------
    scores : numpy.ndarray
        A score map.
    gt : numpy.ndarray
        Its ground truth.
    by : {"dice", "object_f1"}
        The value maximised.
    connectivity : {"full", "face"}
        Object connectivity (``object_f1``).
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    BestThreshold
        The threshold, the criterion and the value reached.

    Raises
    ------
    ValueError
        When the ground truth has no anomalous voxel (nothing to maximise).

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> best_case_threshold(np.where(gt, 0.6, 0.1), gt, by="object_f1")
    BestThreshold(threshold=0.6, value=1.0, criterion='object_f1')
    """
    check_choice("by", by, get_args(BestCriterion))
    truth = gt_mask(gt)
    if not truth.any():
        raise ValueError(
            "the ground truth has no anomalous voxel, so no threshold is best on this case; "
            "choose the threshold on a toy dataset instead"
        )
    if by == "dice":
        threshold, value = best_threshold(curve_from_arrays(scores, truth, mode=mode))
        return BestThreshold(threshold, value, by)
    case = obj.describe_case(
        scores,
        truth,
        thresholds=obj.default_threshold_grid(),
        connectivity=connectivity,
        mode=mode,
    )
    counts = obj.best_object_threshold([case])
    return BestThreshold(counts.threshold, counts.f1, by)


def match_method_names(names: Sequence[str], available: Iterable[str]) -> MethodMatch:
    """Pair method names with folder names (exact, case-sensitive match).

    Parameters
    ----------
    names : sequence of str
        The session's methods.
    available : iterable of str
        The method folders found.

    Returns
    -------
    MethodMatch
        The names found and the names missing, each in ``names`` order.

    Examples
    --------
    >>> match_method_names(["a", "b"], ["b", "c"])
    MethodMatch(matched=('b',), missing=('a',))
    """
    have = set(available)
    return MethodMatch(
        matched=tuple(n for n in names if n in have),
        missing=tuple(n for n in names if n not in have),
    )


def best_dataset_thresholds(
    evaluation: DatasetEvaluation, *, by: BestCriterion = "object_f1"
) -> dict[str, BestThreshold]:
    """Read each method's best threshold off a dataset evaluation (MOOD's procedure).

    ``by="object_f1"``: the object threshold of an evaluation run with
    ``object_threshold="auto"`` (grid 0.01 .. 0.99, best dataset F1);
    ``by="dice"``: the pooled best-Dice threshold of the pixel task. Methods without the
    needed summary are left out.

    Parameters
    ----------
    evaluation : DatasetEvaluation
        A dataset evaluation (with the object threshold search for ``object_f1``).
    by : {"object_f1", "dice"}
        The value maximised.

    Returns
    -------
    dict of str to BestThreshold
        The best threshold of each method that has the summary needed.

    Examples
    --------
    >>> import napari_mood
    >>> options = napari_mood.EvaluationOptions(tasks=("pixel", "object"), object_threshold="auto")
    >>> result = napari_mood.evaluate(napari_mood.sample_data_dir(), options=options).result  # doctest: +SKIP
    >>> best_dataset_thresholds(result, by="dice")["residual"].threshold  # doctest: +SKIP
    0.757
    """
    check_choice("by", by, get_args(BestCriterion))
    best: dict[str, BestThreshold] = {}
    for name, summary in evaluation.methods.items():
        if by == "dice" and summary.pixel is not None:
            pixel = summary.pixel
            best[name] = BestThreshold(pixel.best_dice_threshold, pixel.best_dice, by)
        elif by == "object_f1" and summary.object is not None:
            counts = summary.object.counts
            best[name] = BestThreshold(counts.threshold, counts.f1, by)
    return best
