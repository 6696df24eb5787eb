"""Two readers' boxes merged at IoU > 0.3 (hand-derived cases)."""

from __future__ import annotations

import pytest

from napari_mood.core.boxes import BoxSet
from napari_mood.core.boxes.consensus import CONSENSUS, merge_readers


def _boxes(rows):
    return BoxSet.build(
        [r[0] for r in rows], [r[2:6] for r in rows], readers=[r[1] for r in rows],
        labels=[r[6] if len(r) > 6 else "anomaly" for r in rows],
    )  # fmt: skip


def test_pairs_above_iou_merge_by_mean_or_union_and_singles_stay():
    boxes = _boxes(
        [
            ("a", "R1", 0, 0, 10, 10),
            ("a", "R2", 2, 0, 12, 10),  # IoU 8/12 with R1's first: merged
            ("a", "R1", 50, 50, 60, 60),  # alone
            ("a", "R2", 100, 100, 110, 110),  # alone
        ]
    )
    mean = merge_readers(boxes)
    assert mean.xyxy.tolist() == [[1, 0, 11, 10], [50, 50, 60, 60], [100, 100, 110, 110]]
    assert set(mean.readers) == {CONSENSUS}
    assert merge_readers(boxes, how="union").xyxy.tolist()[0] == [0, 0, 12, 10]
    assert merge_readers(boxes, keep_single=False).xyxy.tolist() == [[1, 0, 11, 10]]


def test_iou_exactly_at_the_threshold_does_not_merge():
    # [0,0,10,10] vs [0,0,10,3]: intersection 30, union 100 -> IoU 0.3, not > 0.3
    boxes = _boxes([("a", "R1", 0, 0, 10, 10), ("a", "R2", 0, 0, 10, 3)])
    assert len(merge_readers(boxes)) == 2
    assert len(merge_readers(boxes, min_iou=0.29)) == 1
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match=r"^min_iou must be in \[0, 1\); got"):
            merge_readers(boxes, min_iou=bad)


def test_greedy_pairs_by_largest_iou_and_per_category():
    boxes = _boxes(
        [
            ("a", "R1", 0, 0, 10, 10),
            ("a", "R2", 1, 0, 11, 10),  # IoU 9/11 with R1 box 0
            ("a", "R2", 0, 0, 10, 10, "other"),  # same place, other category: not paired
        ]
    )
    merged = merge_readers(boxes)
    assert merged.xyxy.tolist() == [[0.5, 0, 10.5, 10], [0, 0, 10, 10]]
    assert merged.labels == ("anomaly", "other")


def test_one_reader_kept_and_three_readers_refused():
    one = _boxes([("a", "R1", 0, 0, 4, 4)])
    assert merge_readers(one).xyxy.tolist() == [[0, 0, 4, 4]]
    three = _boxes([("a", r, 0, 0, 4, 4) for r in ("R1", "R2", "R3")])
    with pytest.raises(ValueError, match="3 readers"):
        merge_readers(three)
    with pytest.raises(ValueError, match="how must be one of"):
        merge_readers(one, how="max")  # type: ignore[arg-type]
