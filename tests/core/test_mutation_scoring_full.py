"""core.boxes.scoring: the rules the full mutation run left open, against hand-worked values.

Each expectation is worked out in a comment from COCO's rules (``pycocotools`` ``COCOeval``:
greedy matching per image and category, a match needs ``IoU >= min(t, 1 - 1e-10)``), never
read back from the module.
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.boxes import BoxSet, box_outcomes, evaluate_boxes, match_boxes

# IoU of these two boxes: the second is 1e-5 px shorter over 1e6 px, so
# inter = 1e6 * (1e6 - 1e-5), union = 1e12, IoU = 1 - 1e-11: below 1, above 1 - 1e-10.
ALMOST_SAME = ([[0.0, 0.0, 1e6, 1e6]], [[0.0, 0.0, 1e6, 1e6 - 1e-5]])


def test_iou_threshold_one_accepts_a_rounding_error_like_coco():
    """COCO clamps the threshold 1.0 to 1 - 1e-10: an IoU of 1 - 1e-11 is a match."""
    gt, pred = (np.array(b) for b in ALMOST_SAME)
    assert match_boxes(gt, pred, np.array([0.5]), iou_threshold=1.0).tolist() == [0]


def test_count_iou_one_is_accepted_and_clamped_like_coco():
    gt = BoxSet.build(["a"], ALMOST_SAME[0])
    pred = BoxSet.build(["a"], ALMOST_SAME[1], scores=[0.5])
    result = evaluate_boxes(gt, pred, count_iou=1.0)
    assert (result.count_iou, result.tp, result.fp, result.fn) == (1.0, 1, 0, 0)
    assert result.per_image[0].detected == 1


def test_count_iou_zero_is_accepted_and_matches_any_box():
    """At IoU 0 every prediction claims a free GT box of its image: ``0 >= 0`` (COCO's test)."""
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    pred = BoxSet.build(["a"], [[50, 50, 60, 60]], scores=[0.5])
    result = evaluate_boxes(gt, pred, count_iou=0.0)
    assert (result.count_iou, result.tp, result.fp, result.fn) == (0.0, 1, 0, 0)


@pytest.mark.parametrize("count_iou", [-0.1, 1.5])
def test_count_iou_outside_zero_one_is_refused_with_its_value(count_iou):
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    with pytest.raises(ValueError, match=rf"^count_iou must be in \[0, 1\]; got {count_iou}$"):
        evaluate_boxes(gt, gt, count_iou=count_iou)


def test_the_result_keeps_the_count_iou_given():
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    assert evaluate_boxes(gt, gt).count_iou == 0.3
    assert evaluate_boxes(gt, gt, count_iou=0.45).count_iou == 0.45


def test_ap_per_category_by_hand():
    """Two categories, one image; ``x`` found exactly, ``y`` missed by a far box.

    ``x``: one TP of one GT -> precision 1 at every recall point: AP 1 at every threshold.
    ``y``: one FP -> recall never above 0: AP 0 at every threshold. mAP = 0.5.
    """
    gt = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]], labels=["x", "y"])
    pred = BoxSet.build(
        ["a", "a"], [[0, 0, 10, 10], [50, 50, 60, 60]], scores=[0.9, 0.8], labels=["x", "y"]
    )
    result = evaluate_boxes(gt, pred)
    assert set(result.ap_per_category) == {"x", "y"}
    assert all(v == 1.0 for v in result.ap_per_category["x"].values())
    assert all(v == 0.0 for v in result.ap_per_category["y"].values())
    assert result.ap_per_category["x"].keys() == result.ap.keys()
    assert result.map50 == 0.5


def test_acc50_counts_an_iou_of_exactly_one_half_as_a_hit():
    """``[0, 0, 10, 5]`` in ``[0, 0, 10, 10]``: IoU = 50 / 100 = 0.5 exactly, Acc@50 needs ``>=``."""
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    pred = BoxSet.build(["a"], [[0, 0, 10, 5]], scores=[0.9])
    result = evaluate_boxes(gt, pred)
    assert result.per_image[0].top_iou == 0.5
    assert result.acc50 == 1.0


def test_top_iou_reads_the_most_confident_prediction_across_categories():
    """Image ``a``: ``x`` (0.9) sits on its GT box (IoU 1), ``y`` (0.2) on nothing (IoU 0).

    The most confident prediction is ``x``: top IoU 1, Acc@50 = 1 (the least confident
    would give 0).
    """
    gt = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]], labels=["x", "y"])
    pred = BoxSet.build(
        ["a", "a"], [[50, 50, 60, 60], [0, 0, 10, 10]], scores=[0.2, 0.9], labels=["y", "x"]
    )
    result = evaluate_boxes(gt, pred)
    assert result.per_image[0].top_iou == 1.0
    assert result.acc50 == 1.0


def test_top_iou_is_zero_when_the_best_prediction_has_no_gt_of_its_category():
    """The most confident box (``y``, 0.9) has no ``y`` GT in its image: IoU 0, a miss."""
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]], labels=["x"])
    pred = BoxSet.build(
        ["a", "a"], [[0, 0, 10, 10], [0, 0, 10, 10]], scores=[0.9, 0.2], labels=["y", "x"]
    )
    result = evaluate_boxes(gt, pred)
    assert result.per_image[0].top_iou == 0.0
    assert result.acc50 == 0.0


def test_unknown_images_are_named_five_at_most_comma_separated():
    gt = BoxSet.build(list("abcdefg"), [[0, 0, 1, 1]] * 7)
    with pytest.raises(ValueError) as error:
        evaluate_boxes(gt, gt, images=["a"])
    # sorted unknown ids b..g, the first five
    assert str(error.value) == "boxes of images not evaluated: b, c, d, e, f"


def test_unmatched_predictions_read_minus_one():
    """No GT at all, and a prediction that overlaps nothing: both -1 ("no partner")."""
    pred = np.array([[0, 0, 10, 10], [50, 50, 60, 60]])
    assert match_boxes(
        np.zeros((0, 4)), pred, np.array([0.9, 0.1]), iou_threshold=0.5
    ).tolist() == [
        -1,
        -1,
    ]
    gt = np.array([[0, 0, 10, 10]])
    assert match_boxes(gt, pred, np.array([0.9, 0.1]), iou_threshold=0.5).tolist() == [0, -1]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, bool])
def test_unsigned_and_bool_scores_rank_by_value(dtype):
    """Scores 0 and 1: the second is more confident and claims the one GT box (both IoU 1)."""
    gt = np.array([[0, 0, 10, 10]])
    pred = np.array([[0, 0, 10, 10], [0, 0, 10, 10]])
    scores = np.array([0, 1], dtype=dtype)
    assert match_boxes(gt, pred, scores, iou_threshold=0.5).tolist() == [-1, 0]


def test_outcomes_default_iou_is_nova_0_3():
    """``[0, 0, 10, 4]`` in ``[0, 0, 10, 10]``: IoU 40 / 100 = 0.4, a hit at 0.3, not at 0.5."""
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    pred = BoxSet.build(["a"], [[0, 0, 10, 4]], scores=[0.9])
    assert box_outcomes(gt, pred).gt_detected.tolist() == [True]
    assert box_outcomes(gt, pred, iou_threshold=0.5).gt_detected.tolist() == [False]


def test_outcomes_partner_is_minus_one_without_gt_in_the_image():
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    pred = BoxSet.build(["a", "b"], [[0, 0, 10, 10], [0, 0, 10, 10]], scores=[0.9, 0.8])
    found = box_outcomes(gt, pred)
    assert found.pred_partner.tolist() == [0, -1]
    assert found.pred_matched.tolist() == [True, False]


def test_outcomes_match_within_a_category_when_the_image_has_both():
    """Image ``a``: GT ``x`` at the origin; prediction ``y`` on it (0.9), ``x`` far away (0.1).

    Per category: ``x``'s only prediction overlaps nothing; ``y`` has no GT. Nothing detected.
    """
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]], labels=["x"])
    pred = BoxSet.build(
        ["a", "a"], [[0, 0, 10, 10], [50, 50, 60, 60]], scores=[0.9, 0.1], labels=["y", "x"]
    )
    found = box_outcomes(gt, pred)
    assert found.gt_detected.tolist() == [False]
    assert found.pred_partner.tolist() == [-1, -1]


def test_outcomes_are_masks_that_select_boxes():
    """``gt_detected`` and ``pred_matched`` index the boxes as masks (bool, not 0.0 / 1.0)."""
    gt = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]])
    pred = BoxSet.build(["a"], [[20, 20, 30, 30]], scores=[0.9])
    found = box_outcomes(gt, pred)
    assert gt.xyxy[found.gt_detected].tolist() == [[20.0, 20.0, 30.0, 30.0]]
    assert len(gt.take(found.gt_detected)) == 1
    assert pred.xyxy[found.pred_matched].tolist() == [[20.0, 20.0, 30.0, 30.0]]
