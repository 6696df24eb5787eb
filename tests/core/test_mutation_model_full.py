"""core.boxes.model (BoxSet): the rules the full mutation run left open."""

from __future__ import annotations

import numpy as np

from napari_mood.core.boxes import BoxSet


def test_scores_are_read_as_float64_numbers():
    """Scores given as text (a CSV column not converted) or integers become float64 numbers."""
    as_text = BoxSet.build(["a", "a"], [[0, 0, 1, 1]] * 2, scores=["0.9", "0.25"])
    assert as_text.scores.dtype == np.float64 and as_text.scores.tolist() == [0.9, 0.25]
    as_int = BoxSet.build(["a", "a"], [[0, 0, 1, 1]] * 2, scores=np.array([1, 0], dtype=np.uint8))
    assert as_int.scores.dtype == np.float64 and as_int.scores.tolist() == [1.0, 0.0]


def _three() -> BoxSet:
    return BoxSet.build(
        ["a", "b", "c"], [[0, 0, 1, 1], [0, 0, 2, 2], [0, 0, 3, 3]], scores=[0.1, 0.2, 0.3]
    )


def test_take_reads_any_iterable_of_rows_in_its_order():
    boxes = _three()
    for rows in ([2, 0], (2, 0), (i for i in (2, 0)), iter([2, 0]), np.array([2, 0])):
        taken = boxes.take(rows)
        assert taken.images == ("c", "a") and taken.scores.tolist() == [0.3, 0.1]
    assert boxes.take(range(1, 3)).images == ("b", "c")


def test_take_reads_a_bool_mask_as_a_mask():
    boxes = _three()
    assert boxes.take(np.array([True, False, True])).images == ("a", "c")
    assert boxes.take([True, False, True]).images == ("a", "c")
    assert len(boxes.take([])) == 0
