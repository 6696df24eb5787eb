"""Box scoring equals the COCO evaluator (pycocotools) on random and edge-case sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.boxes import (
    COCO_IOU_THRESHOLDS,
    BoxSet,
    box_outcomes,
    evaluate_boxes,
    interpolated_ap,
    match_boxes,
)
from tests.core.boxes.coco_reference import THRESHOLDS, coco_reference, xyxy_to_xywh

TOL = 1e-9


def _random_set(rng: np.random.Generator, images: list[str], n: int, *, scores: bool, labels: int):
    image = rng.choice(images, size=n).tolist()
    if rng.random() < 0.5:  # integer pixel boxes: exact IoUs, many ties
        xy = rng.integers(0, 40, size=(n, 2)).astype(float)
        wh = rng.integers(0, 15, size=(n, 2)).astype(float)
    else:
        xy = rng.uniform(0, 40, size=(n, 2))
        wh = rng.uniform(0, 15, size=(n, 2))
    score = rng.choice([0.1, 0.5, 0.9], size=n) if rng.random() < 0.5 else rng.random(n)
    label = rng.choice(["anomaly", "tumour", "cyst"][:labels], size=n).tolist()
    return BoxSet.build(
        image, np.concatenate([xy, xy + wh], axis=1), scores=score if scores else None, labels=label
    )


def _near(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or abs(ours - theirs) <= TOL


def assert_equals_coco(gt: BoxSet, pred: BoxSet, images: list[str]) -> None:
    ours = evaluate_boxes(gt, pred, images=images)
    ref = coco_reference(gt, pred, images)
    for t in THRESHOLDS:
        assert _near(ours.ap[float(t)], ref["ap"][float(t)]), (t, ours.ap, ref["ap"])
        assert _near(ours.recall[float(t)], ref["recall"][float(t)]), t
    reference_50_95 = np.mean([ref["ap"][t] for t in COCO_IOU_THRESHOLDS])
    assert _near(ours.map50_95, float(reference_50_95))
    assert {c.image: c.detected for c in ours.per_image} == ref["detected"]
    assert ours.tp == sum(ref["detected"].values())


@pytest.mark.parametrize("seed", range(40))
def test_random_sets_equal_pycocotools(seed):
    rng = np.random.default_rng(seed)
    images = [f"img{i}" for i in range(int(rng.integers(1, 6)))]
    labels = int(rng.integers(1, 3))
    gt = _random_set(rng, images, int(rng.integers(0, 12)), scores=False, labels=labels)
    pred = _random_set(rng, images, int(rng.integers(0, 25)), scores=True, labels=labels)
    assert_equals_coco(gt, pred, images)


def _set(rows, scores=None, labels=None):
    rows = list(rows)
    return BoxSet.build(
        [r[0] for r in rows],
        [r[1:] for r in rows] or np.zeros((0, 4)),
        scores=scores,
        labels=labels,
    )


EDGE_CASES = {
    "no predictions": (_set([("a", 0, 0, 10, 10), ("b", 5, 5, 9, 9)]), _set([])),
    "no GT in an image": (
        _set([("a", 0, 0, 10, 10)]),
        _set([("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10)], scores=[0.5, 0.9]),
    ),
    "no GT at all": (_set([]), _set([("a", 0, 0, 3, 3)], scores=[0.4])),
    "ties in confidence across images": (
        _set([("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10)]),
        _set([("b", 20, 20, 30, 30), ("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10)], [0.7, 0.7, 0.7]),
    ),
    "ties in confidence within an image": (
        _set([("a", 0, 0, 10, 10), ("a", 12, 0, 22, 10)]),
        _set([("a", 0, 0, 10, 8), ("a", 0, 0, 10, 10), ("a", 30, 30, 31, 31)], [0.5, 0.5, 0.5]),
    ),
    "equal IoU with two GT boxes": (
        _set([("a", 0, 0, 10, 10), ("a", 10, 0, 20, 10)]),
        _set([("a", 5, 0, 15, 10), ("a", 10, 0, 20, 10)], [0.9, 0.8]),
    ),
    "boxes touching": (
        _set([("a", 0, 0, 10, 10)]),
        _set([("a", 10, 0, 20, 10), ("a", 0, 10, 10, 20), ("a", 10, 10, 20, 20)], [0.9, 0.8, 0.7]),
    ),
    "degenerate sizes": (
        _set([("a", 5, 5, 5, 9), ("a", 0, 0, 4, 4)]),
        _set([("a", 5, 5, 5, 9), ("a", 0, 0, 4, 0), ("a", 0, 0, 4, 4)], [0.9, 0.8, 0.1]),
    ),
    "IoU exactly at thresholds": (
        _set([("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10), ("c", 0, 0, 10, 10)]),
        _set([("a", 0, 0, 10, 5), ("b", 0, 0, 10, 3), ("c", 0, 0, 10, 7.5)], [0.2, 0.9, 0.5]),
    ),
    "two categories, one without GT": (
        _set([("a", 0, 0, 10, 10)], labels=["x"]),
        _set([("a", 0, 0, 10, 10), ("a", 0, 0, 10, 10)], [0.3, 0.6], labels=["x", "y"]),
    ),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases_equal_pycocotools(name):
    gt, pred = EDGE_CASES[name]
    images = sorted({*gt.images, *pred.images}) or ["a"]
    assert_equals_coco(gt, pred, images)


def test_touching_and_degenerate_boxes_have_iou_zero():
    from napari_mood.core.boxes import box_iou

    iou = box_iou([[0, 0, 10, 10], [5, 5, 5, 9]], [[10, 0, 20, 10], [5, 5, 5, 9], [0, 0, 10, 10]])
    assert iou.tolist() == [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]


def test_hand_derived_ap_and_counts():
    # one GT per image; predictions ranked 0.9 (hit a), 0.8 (miss), 0.7 (hit b)
    gt = _set([("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10)])
    pred = _set([("a", 0, 0, 10, 10), ("b", 50, 50, 60, 60), ("b", 0, 0, 10, 9)], [0.9, 0.8, 0.7])
    result = evaluate_boxes(gt, pred)
    # precision 1 to recall 0.5 (51 points), 2/3 for 0.51..1 (50 points)
    assert result.map50 == pytest.approx((51 + 50 * 2 / 3) / 101, abs=1e-12)
    # at IoU 0.95 the 0.9 x 1.0 box (IoU 0.9) misses: precision 1 to 0.5, then nothing
    assert result.ap[0.95] == pytest.approx(51 / 101, abs=1e-12)
    assert (result.tp, result.fp, result.fn) == (2, 1, 0)
    # ACC50: image a's top box hits; image b's top box (0.8) misses
    assert result.acc50 == 0.5
    assert [(c.image, c.detected, c.missed, c.false_positives) for c in result.per_image] == [
        ("a", 1, 0, 0),
        ("b", 1, 0, 1),
    ]


def test_acc50_counts_images_without_predictions_as_misses_and_skips_images_without_gt():
    gt = _set([("a", 0, 0, 10, 10), ("b", 0, 0, 10, 10)])
    pred = _set([("a", 0, 0, 10, 10), ("c", 0, 0, 5, 5)], [0.5, 0.9])
    result = evaluate_boxes(gt, pred, images=["a", "b", "c"])
    assert result.acc50 == 0.5
    assert math.isnan(evaluate_boxes(_set([]), pred).acc50)


def test_match_keeps_last_of_equal_ious_like_coco():
    gt = np.array([[0, 0, 10, 10], [10, 0, 20, 10]], dtype=float)
    assert match_boxes(
        gt, np.array([[5, 0, 15, 10]]), np.array([1.0]), iou_threshold=0.3
    ).tolist() == [1]


def test_interpolated_ap_without_predictions_is_zero_and_needs_gt():
    assert interpolated_ap(np.zeros(0, dtype=bool), 3) == 0.0
    with pytest.raises(ValueError, match="ground truth"):
        interpolated_ap(np.zeros(0, dtype=bool), 0)


def test_boxes_of_images_not_evaluated_are_refused():
    with pytest.raises(ValueError, match="not evaluated: b"):
        evaluate_boxes(_set([("a", 0, 0, 1, 1)]), _set([("b", 0, 0, 1, 1)], [1.0]), images=["a"])


def test_many_tied_confidences_follow_image_order_like_coco():
    # 60 predictions of two confidences: the rank of tied hits and misses is image order
    # (a stable sort); an unstable sort (numpy's quicksort beyond 16 items) changes AP
    rng = np.random.default_rng(7)
    images = [f"img{i:02d}" for i in range(30)]
    gt = _set([(name, 0, 0, 10, 10) for name in images])
    rows, hit = [], rng.random(60) < 0.4
    for i, h in enumerate(hit):
        rows.append((images[i // 2], 0, 0, 10, 10) if h else (images[i // 2], 30, 30, 40, 40))
    pred = _set(rows, rng.choice([0.5, 0.7], size=60))
    assert_equals_coco(gt, pred, images)


@pytest.mark.parametrize("seed", range(10))
def test_outcomes_agree_with_the_counts(seed):
    rng = np.random.default_rng(100 + seed)
    images = ["a", "b", "c"]
    gt = _random_set(rng, images, 8, scores=False, labels=2)
    pred = _random_set(rng, images, 12, scores=True, labels=2)
    result = evaluate_boxes(gt, pred, images=images)
    found = box_outcomes(gt, pred, iou_threshold=0.3)
    assert int(found.gt_detected.sum()) == result.tp
    assert int((~found.pred_matched).sum()) == result.fp
    partners = found.pred_partner[found.pred_matched]
    assert len(set(partners.tolist())) == len(partners)  # one-to-one
    for p, g in zip(np.flatnonzero(found.pred_matched), partners, strict=True):
        assert gt.images[g] == pred.images[p] and gt.labels[g] == pred.labels[p]


def test_outcomes_never_match_across_categories():
    """A box predicted as ``x`` exactly on a ``y`` finding detects nothing (COCO is per category)."""
    gt = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]], labels=["x", "y"])
    pred = BoxSet.build(["a"], [[20, 20, 30, 30]], scores=[0.9], labels=["x"])
    found = box_outcomes(gt, pred, iou_threshold=0.3)
    assert found.gt_detected.tolist() == [False, False]
    assert found.pred_matched.tolist() == [False] and found.pred_partner.tolist() == [-1]
    same = box_outcomes(gt, BoxSet.build(["a"], [[20, 20, 30, 30]], labels=["y"]))
    assert same.gt_detected.tolist() == [False, True] and same.pred_partner.tolist() == [1]


def test_outcomes_let_the_most_confident_prediction_claim_a_finding():
    """COCO ranks by confidence, not by file order: the second box (0.9) takes the GT."""
    gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    pred = BoxSet.build(["a", "a"], [[0, 0, 10, 9], [1, 1, 10, 10]], scores=[0.2, 0.9])
    found = box_outcomes(gt, pred, iou_threshold=0.3)
    assert found.pred_matched.tolist() == [False, True]
    assert found.pred_partner.tolist() == [-1, 0] and found.gt_detected.tolist() == [True]


def test_concat_keeps_every_field_in_order():
    first = BoxSet.build(["a"], [[0, 0, 1, 1]], scores=[0.2], labels=["x"], readers=["R1"])
    second = BoxSet.build(["b", "c"], [[1, 1, 2, 2], [2, 2, 3, 3]], scores=[0.9, 0.5])
    both = BoxSet.concat([first, second])
    assert both.images == ("a", "b", "c") and both.scores.tolist() == [0.2, 0.9, 0.5]
    assert both.labels == ("x", "anomaly", "anomaly") and both.readers == ("R1", "", "")
    assert both.xyxy.tolist() == [[0, 0, 1, 1], [1, 1, 2, 2], [2, 2, 3, 3]]
    with pytest.raises(ValueError, match="^images, boxes, scores, labels and readers differ"):
        BoxSet.build(["a", "b"], [[0, 0, 1, 1]])


def test_box_areas_by_hand():
    from napari_mood.core.boxes.geometry import box_areas

    assert box_areas([[0, 0, 2, 3], [1, 1, 4, 5], [2, 2, 2, 7]]).tolist() == [6.0, 12.0, 0.0]


@pytest.mark.parametrize("box", [[5, 5, 4, 9], [5, 5, 9, 4]])
def test_a_box_inverted_along_one_axis_is_refused(box):
    from napari_mood.core.boxes.geometry import as_boxes

    with pytest.raises(ValueError, match=r"^boxes: box 1 has x2 < x1 or y2 < y1"):
        as_boxes([[0, 0, 2, 3], box])


def test_iou_equals_pycocotools_mask_iou_with_widths_without_plus_one():
    mask = pytest.importorskip("pycocotools.mask")
    from napari_mood.core.boxes import box_iou

    rng = np.random.default_rng(3)
    xy = rng.integers(0, 20, size=(30, 2)).astype(float)
    xyxy = np.concatenate([xy, xy + rng.integers(0, 8, size=(30, 2))], axis=1)
    reference = mask.iou(xyxy_to_xywh(xyxy), xyxy_to_xywh(xyxy), [0] * 30)
    assert np.abs(box_iou(xyxy, xyxy) - reference).max() <= 1e-12
    # [0, 0, 2, 2] and [1, 1, 3, 3] share 1 px of 7 -> 1/7 (+1 widths would give 4/14)
    assert box_iou([[0, 0, 2, 2]], [[1, 1, 3, 3]])[0, 0] == pytest.approx(1 / 7)
