"""What a viewer shows of one box method: TP / FP / FN at a confidence and an IoU.

:func:`box_view` is the panel's job (``napari-mood`` box viewer): which predictions are
shown, which are TPs, which GT boxes are detected, and the images by misses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from napari_mood.core.boxes import BoxSet, box_outcomes

__all__ = ["BoxView", "box_view"]


@dataclass(frozen=True)
class BoxView:
    """What a viewer shows of one method at a confidence threshold and an IoU."""

    pred_shown: np.ndarray
    """``(len(pred),)`` bool: confidence ``>= min_confidence``."""
    pred_tp: np.ndarray
    """``(len(pred),)`` bool: shown and matched (TP); shown and not matched: FP."""
    gt_detected: np.ndarray
    """``(len(gt),)`` bool: matched by a shown prediction."""
    misses: dict[str, int]
    false_positives: dict[str, int]

    def images_by_misses(self, order: Sequence[str]) -> list[str]:
        """Images, most missed GT boxes first, then most FPs, then ``order``.

        Parameters
        ----------
        order : sequence of str
            The images in their usual order (ties keep it).

        Returns
        -------
        list of str
            The same images, worst first.
        """
        rank = {image: i for i, image in enumerate(order)}
        return sorted(
            order, key=lambda i: (-self.misses.get(i, 0), -self.false_positives.get(i, 0), rank[i])
        )


def box_view(gt: BoxSet, pred: BoxSet, *, min_confidence: float = 0.0, iou: float = 0.3) -> BoxView:
    """TP / FP / FN of every box when only predictions ``>= min_confidence`` count.

    Parameters
    ----------
    gt : BoxSet
        The ground-truth boxes.
    pred : BoxSet
        A method's boxes with confidences.
    min_confidence : float
        The confidence from which a prediction is shown and matched.
    iou : float
        The IoU from which a prediction detects a GT box.

    Returns
    -------
    BoxView
        Per box whether it is shown, a TP or detected; per image its misses and FPs.

    Examples
    --------
    >>> gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    >>> pred = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]], scores=[0.3, 0.9])
    >>> view = box_view(gt, pred, min_confidence=0.5)
    >>> view.pred_shown.tolist(), view.gt_detected.tolist(), view.misses
    ([False, True], [False], {'a': 1})
    """
    shown = pred.scores >= min_confidence
    found = box_outcomes(gt, pred.take(shown), iou_threshold=iou)
    tp = np.zeros(len(pred), dtype=bool)
    tp[np.flatnonzero(shown)] = found.pred_matched
    misses = {image: 0 for image in dict.fromkeys((*gt.images, *pred.images))}
    fps = dict(misses)
    for image, hit in zip(gt.images, found.gt_detected, strict=True):
        misses[image] += int(not hit)
    for image, show, hit in zip(pred.images, shown, tp, strict=True):
        fps[image] += int(show and not hit)
    return BoxView(shown, tp, found.gt_detected, misses, fps)
