"""Box scoring with COCO's semantics: greedy matching, 101-point AP, NOVA's counts.

What is computed, exactly as ``pycocotools`` ``COCOeval`` (``iouType="bbox"``, one area
range ``all``, no crowd boxes) does it:

1. Per image and category, predictions are taken in decreasing confidence (a stable
   sort: ties keep file order). Each one claims, among the ground-truth boxes not yet
   claimed, the one with the largest IoU, provided that IoU is ``>= min(t, 1 - 1e-10)``
   for the IoU threshold ``t``; equal IoUs go to the **last** such box in file order (as
   COCO's loop does). Otherwise it is a false positive.
2. Per category and threshold, the predictions of all images are ranked by confidence
   (stable: ties keep image order, then the per-image order). Cumulative TP and FP give
   recall ``TP / n_gt`` and precision ``TP / (TP + FP)``; precision is made
   non-increasing from the right (the envelope), and read at the 101 recall points
   ``0, 0.01, ..., 1`` (the first operating point with recall ``>=`` the point; 0 beyond
   the largest recall). AP is their mean.
3. mAP at a threshold is the mean AP over the categories that have ground truth. A
   category without ground-truth boxes has no AP (COCO's -1) and is left out; with no
   ground truth at all, mAP is NaN.

Differences from COCO, none of which changes a number on box data: no cap on
detections per image (COCO's ``maxDets`` = 100; here every box counts, as with
``maxDets`` set above the largest count), no area ranges other than ``all`` (COCO's
``all`` is ``[0, 1e10]`` px^2: no box in an image smaller than 100,000 px a side falls
outside it), no crowd boxes.

NOVA's extras (see :class:`BoxEvaluation`): ``TP30`` / ``FP30`` (GT boxes detected and
predictions matching none, at IoU 0.3 with the same greedy matching and every prediction
whatever its confidence), detected / missed per image, and ``ACC50``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from napari_mood.core.boxes.geometry import box_iou
from napari_mood.core.boxes.model import BoxSet

__all__ = [
    "COCO_IOU_THRESHOLDS",
    "RECALL_POINTS",
    "BoxEvaluation",
    "BoxOutcomes",
    "ImageCounts",
    "box_outcomes",
    "evaluate_boxes",
    "interpolated_ap",
    "match_boxes",
]

COCO_IOU_THRESHOLDS: tuple[float, ...] = tuple(
    float(t) for t in np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1)
)
"""0.50, 0.55, ..., 0.95, built as ``pycocotools`` builds them (same floats)."""
RECALL_POINTS = np.linspace(0.0, 1.0, int(np.round((1.0 - 0.0) / 0.01)) + 1)
"""The 101 recall points of COCO's interpolated AP (same floats as ``pycocotools``)."""


def match_boxes(
    gt: np.ndarray, pred: np.ndarray, scores: np.ndarray, *, iou_threshold: float
) -> np.ndarray:
    """COCO's greedy matching of one image's predictions to its ground truth.

    Parameters
    ----------
    gt, pred : ndarray, shape (n, 4) and (m, 4)
        Boxes ``(x1, y1, x2, y2)``.
    scores : ndarray, shape (m,)
        Confidence of each prediction.
    iou_threshold : float
        A match needs ``IoU >= min(iou_threshold, 1 - 1e-10)``.

    Returns
    -------
    ndarray of int, shape (m,)
        For each prediction (in the given order), the index of the GT box it matched, or -1.

    Examples
    --------
    >>> gt = np.array([[0, 0, 10, 10]])
    >>> pred = np.array([[0, 0, 10, 9], [0, 0, 10, 10]])
    >>> match_boxes(gt, pred, np.array([0.5, 0.9]), iou_threshold=0.5).tolist()
    [-1, 0]
    """
    ious = box_iou(pred, gt)
    return _greedy(ious, _ranked(scores), iou_threshold)


def _ranked(scores: np.ndarray) -> np.ndarray:
    """Decreasing confidence, ties in the given order (COCO's ``mergesort`` of ``-score``)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="mergesort")


def _greedy(ious: np.ndarray, order: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Match predictions in ``order`` to free GT; COCO clamps the threshold below 1."""
    threshold = min(iou_threshold, 1 - 1e-10)
    matched = np.full(ious.shape[0], -1, dtype=np.intp)
    if ious.shape[1] == 0:
        return matched
    taken = np.zeros(ious.shape[1], dtype=bool)
    for d in order:
        row = np.where(taken, -np.inf, ious[d])
        best = row.max()
        if best < threshold:
            continue
        g = int(np.flatnonzero(row == best)[-1])  # COCO keeps the last of equal IoUs
        taken[g] = True
        matched[d] = g
    return matched


def interpolated_ap(is_tp: np.ndarray, n_gt: int) -> float:
    """COCO's 101-point interpolated AP of predictions ranked by decreasing confidence.

    Parameters
    ----------
    is_tp : ndarray of bool
        Whether each ranked prediction is a true positive.
    n_gt : int
        Ground-truth boxes (> 0).

    Returns
    -------
    float
        AP in [0, 1].

    Examples
    --------
    Precision 1 up to recall 0.5 (51 points), 2/3 from 0.51 to 1 (50 points):

    >>> round(interpolated_ap(np.array([True, False, True]), 2), 12) == round((51 + 50 * 2 / 3) / 101, 12)
    True
    """
    if n_gt <= 0:
        raise ValueError(f"AP needs ground truth; got n_gt={n_gt}")
    tp = np.cumsum(is_tp, dtype=np.float64)
    fp = np.cumsum(~is_tp, dtype=np.float64)
    if len(tp) == 0:
        return 0.0
    recall = tp / n_gt
    precision = np.maximum.accumulate((tp / (tp + fp))[::-1])[::-1]
    index = np.searchsorted(recall, RECALL_POINTS, side="left")
    sampled = np.where(index < len(precision), precision[np.minimum(index, len(tp) - 1)], 0.0)
    return float(np.mean(sampled))


@dataclass(frozen=True)
class ImageCounts:
    """Detection counts of one image at the counting IoU (NOVA: 0.3)."""

    image: str
    gt: int
    predictions: int
    detected: int
    missed: int
    false_positives: int
    top_iou: float
    """IoU of the most confident prediction with the GT box it overlaps most (NaN: none)."""


@dataclass(frozen=True)
class BoxEvaluation:
    """Scores of one set of predicted boxes against ground-truth boxes.

    Attributes
    ----------
    ap : dict
        mAP (mean AP over categories with ground truth) per IoU threshold: 0.3 and
        0.50 ... 0.95.
    ap_per_category : dict
        ``{category: {threshold: AP}}`` for the categories with ground truth.
    recall : dict
        Mean over categories of the final recall per threshold (COCO's AR at one IoU).
    map30, map50, map50_95 : float
        mAP@30, mAP@50 and COCO's mAP@[50:95] (mean over the ten thresholds).
    acc50 : float
        Of the images with ground truth, the share whose most confident prediction
        overlaps a GT box of its category with IoU >= 0.5 (no prediction: a miss).
    count_iou : float
        The IoU of the counts (TP30 / FP30 and per image; 0.3 as NOVA's).
    tp, fp, fn : int
        GT boxes detected, predictions matching no GT box, GT boxes missed.
    per_image : tuple of ImageCounts
        One row per image, in image order.
    """

    ap: dict[float, float]
    ap_per_category: dict[str, dict[float, float]]
    recall: dict[float, float]
    acc50: float
    count_iou: float
    tp: int
    fp: int
    fn: int
    n_gt: int
    n_pred: int
    per_image: tuple[ImageCounts, ...]

    @property
    def map30(self) -> float:
        """Average precision at IoU 0.3 (mAP@30)."""
        return self.ap[0.3]

    @property
    def map50(self) -> float:
        """Average precision at IoU 0.5 (mAP@50)."""
        return self.ap[0.5]

    @property
    def map50_95(self) -> float:
        """COCO's mAP@[50:95]: the mean over the ten IoU thresholds; NaN if any is NaN."""
        values = [self.ap[t] for t in COCO_IOU_THRESHOLDS]
        return float(np.mean(values)) if not any(math.isnan(v) for v in values) else math.nan


THRESHOLDS: tuple[float, ...] = (0.3, *COCO_IOU_THRESHOLDS)


def evaluate_boxes(
    gt: BoxSet,
    pred: BoxSet,
    *,
    images: Sequence[str] | None = None,
    count_iou: float = 0.3,
) -> BoxEvaluation:
    """Score predicted boxes against ground-truth boxes (COCO semantics, NOVA's metrics).

    Parameters
    ----------
    gt, pred : BoxSet
        Ground truth (scores ignored) and predictions (scores are confidences).
    images : sequence of str, optional
        The evaluated images in order (ties in confidence across images follow it).
        Default: the images of ``gt`` then those only in ``pred``, first appearance order.
        Boxes of other images are an error.
    count_iou : float
        IoU of the TP / FP / FN counts and of the per-image table (NOVA: 0.3).

    Returns
    -------
    BoxEvaluation
        mAP at each IoU, recall, Acc@50, count IoU, TP/FP/FN and per-image counts.

    Examples
    --------
    >>> gt = BoxSet.build(["a", "b"], [[0, 0, 10, 10], [5, 5, 9, 9]])
    >>> pred = BoxSet.build(["a", "b"], [[1, 0, 10, 10], [20, 20, 30, 30]], scores=[0.9, 0.8])
    >>> result = evaluate_boxes(gt, pred)
    >>> round(result.map50 * 101, 9), result.tp, result.fp, result.fn  # 51 of 101 points
    (51.0, 1, 1, 1)
    """
    if not 0.0 <= count_iou <= 1.0:
        raise ValueError(f"count_iou must be in [0, 1]; got {count_iou}")
    order = _image_order(gt, pred, images)
    categories = sorted(set(gt.labels))
    thresholds = tuple(sorted({*THRESHOLDS, count_iou}))
    matches = _match_all(gt, pred, order, sorted({*gt.labels, *pred.labels}), thresholds)
    ap_cat = {c: {t: _category_ap(matches, c, t) for t in THRESHOLDS} for c in categories}
    recall = {t: _mean([_category_recall(matches, c, t) for c in categories]) for t in THRESHOLDS}
    ap = {t: _mean([ap_cat[c][t] for c in categories]) for t in THRESHOLDS}
    per_image = tuple(_image_counts(matches, image, count_iou) for image in order)
    tp = sum(c.detected for c in per_image)
    fp = sum(c.false_positives for c in per_image)
    return BoxEvaluation(
        ap=ap, ap_per_category=ap_cat, recall=recall, acc50=_acc50(per_image),
        count_iou=count_iou, tp=tp, fp=fp, fn=len(gt) - tp, n_gt=len(gt), n_pred=len(pred),
        per_image=per_image,
    )  # fmt: skip


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


def _image_order(gt: BoxSet, pred: BoxSet, images: Sequence[str] | None) -> tuple[str, ...]:
    if images is None:
        return tuple(dict.fromkeys((*gt.images, *pred.images)))
    order = tuple(dict.fromkeys(images))
    unknown = sorted(set(gt.images + pred.images) - set(order))
    if unknown:
        raise ValueError(f"boxes of images not evaluated: {', '.join(unknown[:5])}")
    return order


@dataclass(frozen=True)
class _Cell:
    """One image x category: its predictions in rank order and what each matched."""

    scores: np.ndarray
    pred_rows: np.ndarray
    n_gt: int
    matched: dict[float, np.ndarray]
    ious: np.ndarray


def _match_all(
    gt: BoxSet,
    pred: BoxSet,
    order: Sequence[str],
    categories: Sequence[str],
    thresholds: Sequence[float],
) -> dict[tuple[str, str], _Cell]:
    cells = {}
    for image in order:
        for category in categories:
            g, p = gt.rows_of(image, category), pred.rows_of(image, category)
            ranked = p[_ranked(pred.scores[p])]
            ious = box_iou(pred.xyxy[ranked], gt.xyxy[g])
            rank = np.arange(len(ranked))
            matched = {t: _greedy(ious, rank, t) for t in thresholds}
            cells[image, category] = _Cell(pred.scores[ranked], ranked, len(g), matched, ious)
    return cells


def _category_ap(cells: dict[tuple[str, str], _Cell], category: str, t: float) -> float:
    mine = [cell for (_, c), cell in cells.items() if c == category]
    scores = np.concatenate([cell.scores for cell in mine])
    is_tp = np.concatenate([cell.matched[t] >= 0 for cell in mine])
    n_gt = sum(cell.n_gt for cell in mine)
    return interpolated_ap(is_tp[_ranked(scores)], n_gt)


def _category_recall(cells: dict[tuple[str, str], _Cell], category: str, t: float) -> float:
    mine = [cell for (_, c), cell in cells.items() if c == category]
    found = sum(int((cell.matched[t] >= 0).sum()) for cell in mine)
    return found / sum(cell.n_gt for cell in mine)


def _image_counts(cells: dict[tuple[str, str], _Cell], image: str, t: float) -> ImageCounts:
    mine = [cell for (img, _), cell in cells.items() if img == image]
    n_gt = sum(cell.n_gt for cell in mine)
    n_pred = sum(len(cell.scores) for cell in mine)
    detected = sum(int((cell.matched[t] >= 0).sum()) for cell in mine)
    return ImageCounts(
        image=image, gt=n_gt, predictions=n_pred, detected=detected, missed=n_gt - detected,
        false_positives=n_pred - detected, top_iou=_top_iou(mine),
    )  # fmt: skip


def _top_iou(cells: Sequence[_Cell]) -> float:
    """IoU of the image's most confident prediction with its best GT box of its category."""
    live = [cell for cell in cells if len(cell.scores)]
    if not live:
        return math.nan
    best = min(live, key=lambda cell: (-cell.scores[0], cell.pred_rows[0]))  # ties: file order
    first = best.ious[0]
    return float(first.max()) if first.size else 0.0


def _acc50(per_image: Sequence[ImageCounts]) -> float:
    with_gt = [c for c in per_image if c.gt > 0]
    if not with_gt:
        return math.nan
    hits = sum(1 for c in with_gt if not math.isnan(c.top_iou) and c.top_iou >= 0.5)
    return hits / len(with_gt)


@dataclass(frozen=True)
class BoxOutcomes:
    """Which boxes are hits at one IoU threshold (COCO's greedy matching per image)."""

    gt_detected: np.ndarray
    """``(len(gt),)`` bool: the GT box was matched (TP), else missed (FN)."""
    pred_matched: np.ndarray
    """``(len(pred),)`` bool: the prediction matched a GT box (TP), else a FP."""
    pred_partner: np.ndarray
    """``(len(pred),)`` int: the row of ``gt`` it matched, or -1."""


def box_outcomes(gt: BoxSet, pred: BoxSet, *, iou_threshold: float = 0.3) -> BoxOutcomes:
    """TP / FP / FN of every box at ``iou_threshold`` (all predictions, any confidence).

    Parameters
    ----------
    gt : BoxSet
        The ground-truth boxes.
    pred : BoxSet
        The predictions (matched by decreasing confidence).
    iou_threshold : float
        The IoU from which a prediction detects a GT box of its image and category.

    Returns
    -------
    BoxOutcomes
        Per GT box whether it is detected, per prediction whether it matched.

    Examples
    --------
    >>> gt = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]])
    >>> pred = BoxSet.build(["a"], [[1, 1, 10, 10]], scores=[0.4])
    >>> found = box_outcomes(gt, pred)
    >>> found.gt_detected.tolist(), found.pred_matched.tolist()
    ([True, False], [True])
    """
    partner = np.full(len(pred), -1, dtype=np.intp)
    for image in dict.fromkeys(pred.images):
        for label in dict.fromkeys(pred.labels):
            p, g = pred.rows_of(image, label), gt.rows_of(image, label)
            if p.size and g.size:
                hit = match_boxes(
                    gt.xyxy[g], pred.xyxy[p], pred.scores[p], iou_threshold=iou_threshold
                )
                partner[p] = np.where(hit >= 0, g[np.maximum(hit, 0)], -1)
    detected = np.zeros(len(gt), dtype=bool)
    detected[partner[partner >= 0]] = True
    return BoxOutcomes(detected, partner >= 0, partner)
