"""core.boxes.from_scores: the rules the full mutation run left open."""

from __future__ import annotations

import numpy as np

from napari_mood.core.boxes.from_scores import boxes_from_score_map


def test_a_float32_map_is_compared_with_the_threshold_as_float64():
    """float32 0.7 is 0.699999988... in float64: below the threshold 0.7, so no box.

    (Compared in float32, the threshold would round to the same float32 and the pixel
    would count.) 0.75 is exact in float32: one box on the pixel, at row 1, column 2.
    """
    score = np.zeros((3, 4), dtype=np.float32)
    score[1, 2] = 0.7
    assert float(np.float32(0.7)) < 0.7
    assert len(boxes_from_score_map(score, threshold=0.7)) == 0
    score[1, 2] = 0.75
    boxes = boxes_from_score_map(score, threshold=0.7)
    assert boxes.xyxy.tolist() == [[2.0, 1.0, 3.0, 2.0]] and boxes.scores.tolist() == [0.75]


def test_the_default_image_id_is_empty():
    score = np.zeros((3, 4))
    score[0, 0] = 1.0
    assert boxes_from_score_map(score, threshold=0.5).images == ("",)
