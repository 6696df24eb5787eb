"""Box checks and counts (core.boxes) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.boxes import BoxSet, box_iou, evaluate_boxes


@pytest.mark.parametrize("which", ["first", "second"])
def test_box_iou_names_the_bad_argument(which):
    good, bad = [[0, 0, 1, 1]], [[0, 0, 1]]
    args = (bad, good) if which == "first" else (good, bad)
    with pytest.raises(ValueError, match=rf"^{which} must have shape \(n, 4\)"):
        box_iou(*args)


def test_box_scores_must_be_finite_numbers():
    with pytest.raises(ValueError, match="^scores hold values that are not finite numbers$"):
        BoxSet.build(["a"], [[0, 0, 1, 1]], scores=[np.nan])


def test_box_evaluation_counts_predictions_and_gt():
    gt = BoxSet.build(["a", "b"], [[0, 0, 10, 10], [0, 0, 10, 10]])
    pred = BoxSet.build(["a", "a", "b"], [[0, 0, 10, 10], [50, 50, 60, 60], [40, 40, 50, 50]])
    result = evaluate_boxes(gt, pred)
    assert (result.n_gt, result.n_pred, result.tp, result.fp, result.fn) == (2, 3, 1, 2, 1)
    a, b = result.per_image
    assert (a.image, a.gt, a.predictions, a.detected, a.missed, a.false_positives) == (
        "a",
        1,
        2,
        1,
        0,
        1,
    )
    assert (b.image, b.gt, b.predictions, b.detected, b.missed, b.false_positives) == (
        "b",
        1,
        1,
        0,
        1,
        1,
    )
