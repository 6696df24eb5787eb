"""core.boxes.consensus: the rules the full mutation run left open, against hand-worked boxes."""

from __future__ import annotations

import pytest

from napari_mood.core.boxes import BoxSet
from napari_mood.core.boxes.consensus import merge_readers


def _two_readers(a_boxes, b_boxes, *, label="anomaly"):
    n_a, n_b = len(a_boxes), len(b_boxes)
    return BoxSet.build(
        ["a"] * (n_a + n_b),
        [*a_boxes, *b_boxes],
        readers=["R1"] * n_a + ["R2"] * n_b,
        labels=[label] * (n_a + n_b),
    )


def test_one_a_box_pairs_with_its_best_b_box_only():
    """R1 ``[0,0,10,10]``; R2 ``[1,0,11,10]`` (IoU 90/110 = 0.82) and ``[0,0,10,5]`` (IoU 0.5).

    Greedy by decreasing IoU: R1's box pairs with the first R2 box (mean ``[0.5,0,10.5,10]``);
    it is then used, so the second R2 box stays single.
    """
    boxes = _two_readers([[0, 0, 10, 10]], [[1, 0, 11, 10], [0, 0, 10, 5]])
    assert merge_readers(boxes).xyxy.tolist() == [[0.5, 0, 10.5, 10], [0, 0, 10, 5]]


def test_one_b_box_pairs_with_one_a_box_only():
    """R1 ``[0,0,10,10]`` and ``[0,0,10,5]``; R2 ``[1,0,11,10]`` (IoU 0.82 and 45/105 = 0.43).

    R2's box pairs with R1's first (mean ``[0.5,0,10.5,10]``); R1's second stays single.
    """
    boxes = _two_readers([[0, 0, 10, 10], [0, 0, 10, 5]], [[1, 0, 11, 10]])
    assert merge_readers(boxes).xyxy.tolist() == [[0.5, 0, 10.5, 10], [0, 0, 10, 5]]


def test_union_takes_the_larger_right_and_bottom_edges():
    """``[0,0,20,5]`` and ``[2,0,10,5]`` (IoU 40/100 = 0.4): the enclosing box is ``[0,0,20,5]``."""
    boxes = _two_readers([[2, 0, 10, 5]], [[0, 0, 20, 5]])
    assert merge_readers(boxes, how="union").xyxy.tolist() == [[0, 0, 20, 5]]
    boxes = _two_readers([[0, 0, 20, 5]], [[2, 0, 10, 6]])  # bottom from the second
    assert merge_readers(boxes, how="union").xyxy.tolist() == [[0, 0, 20, 6]]


def test_consensus_keeps_the_category_and_scores_one():
    boxes = _two_readers([[0, 0, 10, 10], [50, 50, 60, 60]], [[1, 0, 11, 10]], label="tumour")
    merged = merge_readers(boxes)
    assert merged.labels == ("tumour", "tumour")
    assert merged.scores.tolist() == [1.0, 1.0]  # ground truth: confidence 1.0 (BoxSet)


def test_min_iou_zero_pairs_any_overlap():
    """``[0,0,10,10]`` and ``[9,0,19,10]``: IoU 10/190 = 0.05 > 0: one mean box."""
    boxes = _two_readers([[0, 0, 10, 10]], [[9, 0, 19, 10]])
    assert merge_readers(boxes, min_iou=0.0).xyxy.tolist() == [[4.5, 0, 14.5, 10]]


@pytest.mark.parametrize("min_iou", [-0.1, 1.0])
def test_min_iou_outside_its_range_is_refused(min_iou):
    boxes = _two_readers([[0, 0, 10, 10]], [[9, 0, 19, 10]])
    with pytest.raises(ValueError, match=rf"^min_iou must be in \[0, 1\); got {min_iou}$"):
        merge_readers(boxes, min_iou=min_iou)


def test_three_readers_are_named_in_the_refusal():
    boxes = BoxSet.build(["a"] * 3, [[0, 0, 1, 1]] * 3, readers=["R1", "R2", "R3"])
    with pytest.raises(ValueError) as error:
        merge_readers(boxes)
    assert str(error.value) == "image a has boxes of 3 readers (R1, R2, R3); a consensus merges two"
