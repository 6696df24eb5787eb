"""core.boxes.geometry: the rules the full mutation run left open."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.boxes.geometry import as_boxes, box_areas, box_iou


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32])
def test_integer_boxes_are_measured_in_float64_without_overflow(dtype):
    """``[0,0,200,200]``: area 200 * 200 = 40,000 (over uint8's and int16's range).

    ``[100,0,200,200]`` inside it: inter 20,000, union 40,000, IoU 1/2.
    """
    boxes = np.array([[0, 0, 200, 200]], dtype=dtype)  # 200 fits in each dtype
    assert as_boxes(boxes).dtype == np.float64
    assert box_areas(boxes).tolist() == [40000.0]
    half = np.array([[100, 0, 200, 200]], dtype=dtype)
    assert box_iou(boxes, half).tolist() == [[0.5]]


def test_boxes_given_as_text_are_read_as_numbers():
    assert as_boxes([["0", "0", "2", "3"]]).tolist() == [[0.0, 0.0, 2.0, 3.0]]


def test_no_box_is_an_empty_float64_array():
    empty = as_boxes(np.zeros((0, 4), dtype=np.int64))
    assert empty.shape == (0, 4) and empty.dtype == np.float64


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_box_that_is_not_finite_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="^truth hold values that are not finite numbers$"):
        as_boxes([[0, 0, bad, 1]], what="truth")
    with pytest.raises(ValueError, match="^boxes hold values that are not finite numbers$"):
        as_boxes([[0, 0, bad, 1]])
